"""Writes the image models measured by cnn_profile.py into rules/kb/models.json.

    /usr/bin/python3 tests/gpu/cnn_to_kb.py tests/gpu/cnn_profile.json rules/kb/models.json

Entries with the same id are replaced; every other entry is left as it is. The
head's attribute path and a ViT's shape are read from the torchvision module
itself (constructing a model needs no forward pass and downloads nothing).
"""
import json
import sys

import torch
from torchvision import models

SOURCE = ("measured with tests/gpu/cnn_profile.py on torch {torch} / torchvision {torchvision} "
          "(Debian 12 python3-torch 1.13.1, python3-torchvision 0.14.1), CPU, weights=None")

# timm builds the same network (same parameters and buffers) only where we have
# evidence: timm/resnet50.a1_in1k is 97.7 MiB in accelerate's estimate-memory,
# exactly torchvision resnet50's parameters plus buffers (docs/estimation.md §7).
TIMM = {"resnet50": ["timm/resnet50", "timm/resnet50.a1_in1k"]}


def last_linear_path(model):
    path = None
    for name, module in model.named_modules():
        if isinstance(module, torch.nn.Linear):
            path = name
    return path


def cifar_stem(record):
    """The same ResNet with a 3x3 stride-1 conv1 and no maxpool, at 32 px."""
    stem = dict(resolution=record["resolution"],
                saved_bytes_per_image_fp32=int(record["saved_bytes_per_image_fp32"]),
                forward_peak_bytes_per_image_no_grad=int(record["forward_peak_bytes_per_image_no_grad"]))
    if record.get("saved_bytes_per_image_autocast_bf16") is not None:
        stem["saved_bytes_per_image_autocast"] = int(record["saved_bytes_per_image_autocast_bf16"])
    return stem


def entry(record, meta, stems):
    name = record["model"]
    model = getattr(models, name)(weights=None)
    vit = name.startswith("vit_")
    vision = dict(
        family="vit" if vit else "cnn",
        resolution=record["resolution"],
        measured_batch=record["batch"],
        saved_bytes_per_image_fp32=int(record["saved_bytes_per_image_fp32"]),
        saved_bytes_per_image_frozen=int(record["saved_bytes_per_image_frozen"]),
        forward_peak_bytes_per_image_no_grad=int(record["forward_peak_bytes_per_image_no_grad"]),
        head=last_linear_path(model),
        head_params=record["head_params"],
        head_in_features=record["head_in_features"],
        num_classes=record["classes"],
        buffer_bytes=record["buffer_bytes"],
    )
    if record.get("saved_bytes_per_image_autocast_bf16") is not None:
        vision["saved_bytes_per_image_autocast"] = int(record["saved_bytes_per_image_autocast_bf16"])
        vision["autocast_constant_bytes"] = int(record["autocast_constant_bytes"])
    if name in stems:
        vision["cifar_stem"] = cifar_stem(stems[name])
    if hasattr(model, "features"):
        vision["backbone"] = "features"
        vision["classifier_params"] = record["classifier_params"]
    out = dict(id=name, aliases=[f"torchvision.models.{name}", f"torchvision/{name}"] + TIMM.get(name, []))
    if vit:
        out.update(hidden_size=model.hidden_dim, num_hidden_layers=len(model.encoder.layers),
                   num_attention_heads=model.encoder.layers[0].self_attention.num_heads)
        vision["patch_size"] = model.patch_size
    out.update(position_limit="none", params=record["params"],
               params_class=f"torchvision.models.{name}(weights=None)", vision=vision,
               source=SOURCE.format(**meta))
    if name.startswith("efficientnet_"):
        out["note"] = ("measured at 224 px like the others; EfficientNet's own resolutions are larger "
                       "(b1 240, b2 260, b3 300, b4 380): a script's transforms give its size")
    if vit:
        out["note"] = ("torch 1.13's nn.MultiheadAttention keeps the attention probabilities; torch >= 2.0 "
                       "uses scaled_dot_product_attention there (need_weights=False), so this is an upper bound. "
                       "Under autocast oomlint uses 0.81 x the fp32 figure, not the CPU autocast one: CUDA "
                       "autocast keeps softmax and LayerNorm outputs in fp32, CPU autocast in 1.13 does not")
    return out


def main(profile_path, kb_path):
    profile = json.load(open(profile_path))
    meta = dict(torch=profile["torch"], torchvision=profile["torchvision"])
    stems = {r["model"]: r for r in profile.get("cifar_stem", [])}
    new = [entry(r, meta, stems) for r in profile["models"]]
    kb = json.load(open(kb_path))
    ids = {e["id"] for e in new}
    kb["models"] = [m for m in kb["models"] if m["id"] not in ids] + new
    with open(kb_path, "w") as f:
        f.write(json.dumps(kb, indent=2, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
