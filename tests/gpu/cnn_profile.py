"""Reference numbers for oomlint's vision (CNN / ViT) estimate, measured on the CPU.

For each torchvision model, built with weights=None (nothing is downloaded):

* params, buffers: exact element counts (parameters deduplicated by storage, as
  DeepSpeed's model_to_params does) and the buffers' bytes (BatchNorm running
  statistics are fp32, num_batches_tracked int64);
* head_params: the last Linear layer, the one a fine-tuning script replaces
  (resnet `fc`, vgg/efficientnet/mobilenet/convnext `classifier[-1]`, vit `heads.head`);
* saved_bytes_per_image_fp32: the bytes autograd keeps for backward during one
  training-mode forward pass, per image: every tensor the saved-tensor hooks see,
  deduplicated by storage, parameters and buffers left out (they are counted as
  weights), summed, divided by the batch;
* saved_bytes_per_image_autocast_bf16: the same under torch.autocast("cpu",
  dtype=torch.bfloat16) -- the CPU autocast op lists, not CUDA's (see below) --
  as the slope between batch 1 and batch 2, because autocast also saves the
  16-bit copies of the weights it casts, once per pass whatever the batch
  (autocast_constant_bytes, the intercept);
* saved_bytes_per_image_frozen: the same with every parameter frozen and the
  head replaced by a fresh trainable Linear (the fine-tuning pattern), so only
  the head's input has to be kept;
* forward_peak_bytes_per_image_no_grad: the most bytes of tensors alive at once
  during a forward pass without autograd (batch 1): every storage an op creates
  is counted from its creation until the last tensor on it is freed. A frozen
  backbone keeps nothing for backward, but this working set still exists;
* classifier_params: the parameters outside `features` for the models that
  have one (vgg, efficientnet, mobilenet, convnext): what stays trainable when
  a script freezes `model.features`.

The "cifar_stem" section measures the ResNets the way they are trained on
32 px images: conv1 a 3x3 stride-1 convolution and no maxpool, so every
feature map is 16 times larger than the stock stem gives at that input.

The forward pass is the model alone (no loss): the estimator adds the logits
term (batch x classes) itself. Run with Debian 12's python3-torch 1.13.1 and
python3-torchvision 0.14.1:

    /usr/bin/python3 tests/gpu/cnn_profile.py > tests/gpu/cnn_profile.json

Caveats: these are CPU kernels. cuDNN saves the same tensors for conv,
BatchNorm and ReLU (its workspace is transient and not counted); CUDA autocast
casts a different set of ops than CPU autocast (on CUDA, softmax and
layer_norm run in fp32; on CPU in 1.13 they follow their input).
"""
import argparse
import json
import sys
import time
import weakref

import torch
import torchvision
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten
from torchvision import models

# (name, batch, resolution): batch 2 keeps BatchNorm meaningful and the runtime
# modest; the big ViTs use batch 1.
MODELS = [
    ("resnet18", 2, 224), ("resnet34", 2, 224), ("resnet50", 2, 224), ("resnet101", 2, 224),
    ("resnet152", 2, 224),
    ("vgg11", 2, 224), ("vgg13", 2, 224), ("vgg16", 2, 224), ("vgg19", 2, 224),
    ("vgg11_bn", 2, 224), ("vgg16_bn", 2, 224), ("vgg19_bn", 2, 224),
    ("efficientnet_b0", 2, 224), ("efficientnet_b1", 2, 224), ("efficientnet_b2", 2, 224),
    ("efficientnet_b3", 2, 224), ("efficientnet_b4", 2, 224),
    ("mobilenet_v2", 2, 224), ("convnext_tiny", 2, 224),
    ("vit_b_16", 2, 224), ("vit_b_32", 2, 224), ("vit_l_16", 1, 224),
]

# Does the per-image figure scale with H x W (CNNs), with the token count
# (ViT), and linearly with the batch? fp32 only.
SCALING = [
    ("resnet50", 4, 224, {}), ("resnet50", 2, 160, {}), ("resnet50", 2, 320, {}),
    ("efficientnet_b0", 2, 300, {}), ("vgg16", 2, 160, {}), ("vit_b_16", 1, 384, {"image_size": 384}),
    ("resnet18", 2, 64, {"cifar_stem": True}),
]

CIFAR_STEM = [(name, 2, 32, {"cifar_stem": True})
              for name in ("resnet18", "resnet34", "resnet50", "resnet101", "resnet152")]


def cifar_stem(model):
    """The CIFAR ResNet stem: a 3x3 stride-1 conv1 and no maxpool."""
    model.conv1 = torch.nn.Conv2d(3, 64, 3, 1, 1, bias=False)
    model.maxpool = torch.nn.Identity()


def head_module(model):
    """The last Linear: what `model.fc = nn.Linear(...)` style fine-tuning replaces."""
    last = None
    for module in model.modules():
        if isinstance(module, torch.nn.Linear):
            last = module
    return last


def replace_head(model):
    """Freeze everything, then swap the last Linear for a fresh trainable one."""
    for p in model.parameters():
        p.requires_grad = False
    old = head_module(model)
    new = torch.nn.Linear(old.in_features, old.out_features)
    for name, module in model.named_modules():
        for child_name, child in module.named_children():
            if child is old:
                setattr(module, child_name, new)
                return new
    raise RuntimeError("head not found")


def params_outside(model, child):
    inside = {p.data_ptr() for p in getattr(model, child).parameters()}
    return [p for p in model.parameters() if p.data_ptr() not in inside]


def storage_key(t):
    s = t.storage()
    return s.data_ptr(), s.nbytes()


def saved_bytes(model, batch, resolution, autocast=False):
    """Bytes kept for backward by one forward pass, by storage, without weights."""
    weights = {storage_key(p)[0] for p in model.parameters()} | {storage_key(b)[0] for b in model.buffers()}
    seen, keep, by_dtype = {}, [], {}

    def pack(t):
        ptr, nbytes = storage_key(t)
        if ptr not in weights and ptr not in seen:
            seen[ptr] = nbytes
            by_dtype[str(t.dtype)] = by_dtype.get(str(t.dtype), 0) + nbytes
        keep.append(t)  # keep every saved tensor alive so no address is reused
        return t

    x = torch.randn(batch, 3, resolution, resolution)
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast):
            out = model(x)
    total = sum(seen.values())
    del out, keep
    return total, by_dtype


class LiveBytes(TorchDispatchMode):
    """Bytes of storages alive at once, from their creation to their last tensor's death."""

    def __init__(self, ignore):
        super().__init__()
        self.ignore, self.refs, self.size = ignore, {}, {}
        self.current = self.peak = 0

    def _release(self, ptr):
        self.refs[ptr] -= 1
        if self.refs[ptr] == 0:
            self.current -= self.size.pop(ptr)
            del self.refs[ptr]

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for t in tree_flatten(out)[0]:
            if not isinstance(t, torch.Tensor):
                continue
            ptr, nbytes = storage_key(t)
            if ptr in self.ignore:
                continue
            if ptr not in self.refs:
                self.refs[ptr], self.size[ptr] = 0, nbytes
                self.current += nbytes
                self.peak = max(self.peak, self.current)
            self.refs[ptr] += 1
            weakref.finalize(t, self._release, ptr)
        return out


def forward_peak_no_grad(model, resolution):
    """Peak live bytes of one no-grad forward pass of one image, input included."""
    weights = {storage_key(p)[0] for p in model.parameters()} | {storage_key(b)[0] for b in model.buffers()}
    x = torch.randn(1, 3, resolution, resolution)
    mode = LiveBytes(weights)
    mode.current = mode.peak = storage_key(x)[1]
    with torch.no_grad(), mode:
        out = model(x)
    del out
    return mode.peak


def counts(model):
    params = {p.data_ptr(): p.numel() for p in model.parameters()}
    head = head_module(model)
    return dict(
        params=sum(params.values()),
        buffers=sum(b.numel() for b in model.buffers()),
        buffer_bytes=sum(b.numel() * b.element_size() for b in model.buffers()),
        head_params=sum(p.numel() for p in head.parameters()),
        classifier_params=(sum(p.numel() for p in params_outside(model, "features"))
                           if hasattr(model, "features") else None),
        head_in_features=head.in_features,
        classes=head.out_features,
    )


def profile(name, batch, resolution, kwargs=None, full=True):
    torch.manual_seed(0)
    kwargs = dict(kwargs or {})
    stem = kwargs.pop("cifar_stem", False)
    model = getattr(models, name)(weights=None, **kwargs).train()
    if stem:
        cifar_stem(model)
    record = dict(model=name, batch=batch, resolution=resolution, cifar_stem=stem, **kwargs, **counts(model))
    t0 = time.time()
    fp32, dtypes = saved_bytes(model, batch, resolution)
    record["saved_bytes_per_image_fp32"] = fp32 / batch
    record["saved_bytes_fp32_by_dtype"] = dtypes
    if full:
        record["forward_peak_bytes_per_image_no_grad"] = forward_peak_no_grad(model, resolution)
        try:
            one, _ = saved_bytes(model, 1, resolution, autocast=True)
            two, dtypes = saved_bytes(model, 2, resolution, autocast=True)
            record["saved_bytes_per_image_autocast_bf16"] = two - one
            record["autocast_constant_bytes"] = 2 * one - two
            record["saved_bytes_autocast_by_dtype_batch2"] = dtypes
        except RuntimeError as e:  # convnext's LayerNorm2d under CPU bf16 autocast in torch 1.13
            record["saved_bytes_per_image_autocast_bf16"] = None
            record["autocast_error"] = str(e)
        replace_head(model)
        frozen, _ = saved_bytes(model, batch, resolution)
        record["saved_bytes_per_image_frozen"] = frozen / batch
    record["seconds"] = round(time.time() - t0, 1)
    print(f"{name} b{batch} r{resolution}: {record['params']:,} params, "
          f"{record['saved_bytes_per_image_fp32'] / 2**20:.1f} MiB/image ({record['seconds']} s)", file=sys.stderr)
    return record


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", nargs="*", help="model names to run (default: all)")
    parser.add_argument("--threads", type=int, default=1, help="CPU threads (the numbers do not depend on it)")
    parser.add_argument("--sections", nargs="*", default=["models", "scaling", "cifar_stem"],
                        help="which lists to measure (default: all)")
    parser.add_argument("--update", help="replace these sections in an existing result file instead of printing")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    lists = dict(models=(MODELS, True), scaling=(SCALING, False), cifar_stem=(CIFAR_STEM, True))
    result = json.load(open(args.update)) if args.update else {}
    result.update(torch=torch.__version__, torchvision=torchvision.__version__, device="cpu",
                  threads=args.threads, script="tests/gpu/cnn_profile.py")
    for section in args.sections:
        entries, full = lists[section]
        result[section] = [profile(*m, full=full) for m in entries if not args.only or m[0] in args.only]
    out = open(args.update, "w") if args.update else sys.stdout
    json.dump(result, out, indent=1)
    print(file=out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
