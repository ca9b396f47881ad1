"""Measure real peak GPU memory for oomlint's estimator (`make validate-estimate`).

Builds models from their configs (no downloads: AutoModelForCausalLM.from_config,
AutoModelForSequenceClassification.from_config, torchvision constructors), trains a
few steps at several batch sizes, sequence lengths and precisions, with and
without gradient checkpointing, and writes one JSON record per setting with
torch.cuda.max_memory_allocated() and max_memory_reserved(), plus the shape the
estimator needs. Run on a machine with a GPU:

    python3 tests/gpu/measure.py > tests/gpu/results/$(hostname).json

No test depends on it; `make validate-estimate` compares whatever results it finds.
"""
import json
import sys

import torch

try:
    from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForSequenceClassification
except ImportError:  # a machine without transformers still measures nothing, honestly
    AutoConfig = None

SETTINGS = [
    # (config source, kind, batch, seq, precision, checkpointing)
    ("gpt2", "causal", 4, 512, "fp32", False),
    ("gpt2", "causal", 8, 512, "fp32", False),
    ("gpt2", "causal", 8, 1024, "bf16", False),
    ("gpt2", "causal", 8, 1024, "bf16", True),
    ("bert-large-uncased", "classification", 4, 512, "fp32", False),
    ("bert-large-uncased", "classification", 4, 512, "fp16", False),
    ("bert-large-uncased", "classification", 1, 512, "fp16", True),
]

SHAPES = {
    # config fields, so nothing is downloaded
    "gpt2": dict(model_type="gpt2", vocab_size=50257, n_embd=768, n_layer=12, n_head=12, n_positions=1024),
    "bert-large-uncased": dict(model_type="bert", vocab_size=30522, hidden_size=1024, num_hidden_layers=24,
                               num_attention_heads=16, intermediate_size=4096, max_position_embeddings=512),
}


def build(name, kind):
    fields = dict(SHAPES[name])
    model_type = fields.pop("model_type")
    config = AutoConfig.for_model(model_type, **fields)
    if kind == "causal":
        return AutoModelForCausalLM.from_config(config), config
    return AutoModelForSequenceClassification.from_config(config), config


def measure(name, kind, batch, seq, precision, checkpointing):
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    model, config = build(name, kind)
    model.cuda().train()
    if checkpointing:
        model.gradient_checkpointing_enable()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-5)
    dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}.get(precision)
    scaler = torch.cuda.amp.GradScaler(enabled=precision == "fp16")
    vocab = config.vocab_size
    for _ in range(3):
        ids = torch.randint(0, vocab, (batch, seq), device="cuda")
        labels = ids if kind == "causal" else torch.randint(0, 2, (batch,), device="cuda")
        with torch.autocast("cuda", dtype=dtype, enabled=dtype is not None):
            loss = model(input_ids=ids, labels=labels).loss
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad(set_to_none=True)
    record = dict(
        model=name, kind=kind, batch=batch, seq=seq, precision=precision, gradient_checkpointing=checkpointing,
        params=sum(p.numel() for p in model.parameters()),
        hidden=config.hidden_size, layers=config.num_hidden_layers, heads=config.num_attention_heads,
        vocab=vocab, max_memory_allocated=torch.cuda.max_memory_allocated(),
        max_memory_reserved=torch.cuda.max_memory_reserved(), gpu=torch.cuda.get_device_name(),
        torch=torch.__version__,
    )
    del model, optimizer
    return record


def main():
    if not torch.cuda.is_available() or AutoConfig is None:
        print("measure.py: needs a CUDA GPU and transformers", file=sys.stderr)
        return 1
    json.dump([measure(*s) for s in SETTINGS], sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
