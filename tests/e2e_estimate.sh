#!/bin/sh
# `oomlint estimate` and the capacity rules end to end. Same PASS/FAIL protocol.
. tests/lib.sh
T="$TEST_TMP"
cat > "$T/train.py" <<'PY'
from transformers import AutoModelForCausalLM, Trainer, TrainingArguments
model = AutoModelForCausalLM.from_pretrained("gpt2")
args = TrainingArguments(output_dir="out", per_device_train_batch_size=16, bf16=True)
tok = dict(max_length=1024)
Trainer(model=model, args=args).train()
PY

run_oomlint estimate "$T/train.py" --gpu a100-80gb
expect_rc "estimate-exit-0" 0
for part in "CUDA context" "weights" "gradients" "optimizer states" "activations" "logits and loss" "allocator slack" "total"; do
    expect_contains "estimate-shows-$(echo "$part" | tr ' ' '-')" "$OUT" "$part"
done
expect_contains "estimate-batch-provenance" "$OUT" "train.py:3 per_device_train_batch_size"
expect_contains "estimate-sequence-provenance" "$OUT" "train.py:4 max_length"
expect_contains "estimate-marks-assumptions" "$OUT" "assumed: AdamW"
expect_contains "estimate-capacity" "$OUT" "of 80 GiB"

run_oomlint estimate "$T/train.py" --gpu a100-80gb --format json
ok=$(printf '%s' "$OUT" | jq '(.bytes | add) - .total_bytes | fabs < 1' 2>/dev/null)
if [ "$ok" = "true" ]; then pass "estimate-json-parts-add-up"; else fail "estimate-json-parts-add-up" "$(printf '%s' "$OUT" | head -c 300)"; fi
b=$(printf '%s' "$OUT" | jq -r '.inputs.batch.value' 2>/dev/null)
if [ "$b" = "16" ]; then pass "estimate-json-batch"; else fail "estimate-json-batch" "got $b"; fi

run_oomlint estimate "$T/train.py" --gpu a100-80gb --batch-size 2 --seq-len 128 --format json
b=$(printf '%s' "$OUT" | jq -r '.inputs.batch.value + " " + .inputs.sequence.value + " " + .inputs.batch.source' 2>/dev/null)
if [ "$b" = "2 128 --batch-size" ]; then pass "estimate-flags-override"; else fail "estimate-flags-override" "got $b"; fi

run_oomlint estimate "$T/train.py" --gpu v100 --plot "$T/plot.svg"
if xmllint --noout "$T/plot.svg" 2>/dev/null && grep -q "capacity 15.8 GiB" "$T/plot.svg"; then
    pass "estimate-plot-svg"
else
    fail "estimate-plot-svg" "not a valid SVG with the capacity line"
fi

# Shapes of ordinary code that once crashed the estimate's readers (found by
# linting the stdlib and PyTorch corpora with --gpu): an annotated name with
# no value, and add_argument() without arguments.
cat > "$T/shapes.py" <<'PY'
import argparse
import torchvision
parser = argparse.ArgumentParser()
parser.add_argument()
num_ftrs: int
model = torchvision.models.resnet50()
PY
run_oomlint --extend-select OOM601 --gpu v100 --format concise "$T/shapes.py"
expect_rc "capacity-survives-bare-annotation-and-add-argument" 0
run_oomlint estimate --gpu v100 "$T/shapes.py"
expect_rc "estimate-survives-bare-annotation-and-add-argument" 0

run_oomlint estimate --model meta-llama/Llama-2-7b-hf --gpu a100-80gb --batch-size 8 --seq-len 2048
expect_contains "estimate-model-flag-oom" "$OUT" "out of memory"
expect_contains "estimate-fix-plan" "$OUT" "To fit under 90%:"

run_oomlint estimate --model no-such/model --gpu a100-80gb
expect_rc "estimate-unknown-model-exit-2" 2
run_oomlint estimate "$T" --gpu a100-80gb
expect_rc "estimate-folder" 0

# the capacity rules in check
run_oomlint --extend-select OOM601 --format concise --isolated --gpu t4 "$T/train.py"
expect_contains "oom601-on-a-t4" "$OUT" "OOM601"
run_oomlint --extend-select OOM601 --format concise --isolated --gpu h200 "$T/train.py"
expect_not_contains "no-oom601-on-an-h200" "$OUT" "OOM60"
run_oomlint --format concise --isolated "$T/train.py"
expect_not_contains "no-capacity-finding-without-a-gpu" "$OUT" "OOM60"
printf 'from transformers import AutoModelForCausalLM\nmodel = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf")\n' > "$T/load_only.py"
run_oomlint --extend-select OOM601 --format concise --isolated --gpu t4 "$T/load_only.py"
expect_not_contains "no-oom601-for-a-script-that-does-not-train" "$OUT" "OOM601"
# a guessed sequence length cannot make the finding: gpt2 at batch 40 fits a
# T4 by its weights and AdamW state; only the assumed 512 tokens overflow it
cat > "$T/guessed_length.py" <<'PY'
import torch
from transformers import GPT2LMHeadModel
model = GPT2LMHeadModel.from_pretrained("gpt2").cuda()
optimizer = torch.optim.AdamW(model.parameters())
loader = torch.utils.data.DataLoader([], batch_size=40)
for tokens in loader:
    loss = model(tokens.cuda(), labels=tokens.cuda()).loss
    loss.backward()
    optimizer.step()
PY
run_oomlint estimate "$T/guessed_length.py" --gpu t4
expect_contains "guessed-length-estimate-over" "$OUT" "assumed: sequence 512"
run_oomlint --extend-select OOM601 --format concise --isolated --gpu t4 "$T/guessed_length.py"
expect_not_contains "no-oom601-from-a-guessed-length" "$OUT" "OOM601"
# ... where the script gives the length, the estimate at it stands
cat > "$T/given_length.py" <<'PY'
import torch
from transformers import GPT2LMHeadModel, GPT2TokenizerFast
tokenizer = GPT2TokenizerFast.from_pretrained("gpt2")
model = GPT2LMHeadModel.from_pretrained("gpt2").cuda()
optimizer = torch.optim.AdamW(model.parameters())
loader = torch.utils.data.DataLoader([], batch_size=40)
for texts in loader:
    tokens = tokenizer(texts, max_length=512, truncation=True, padding="max_length", return_tensors="pt").input_ids
    loss = model(tokens.cuda(), labels=tokens.cuda()).loss
    loss.backward()
    optimizer.step()
PY
run_oomlint estimate "$T/given_length.py" --gpu t4
expect_contains "given-length-provenance" "$OUT" "given_length.py:8 max_length"
run_oomlint --extend-select OOM601 --format concise --isolated --gpu t4 "$T/given_length.py"
expect_contains "oom601-from-a-given-length" "$OUT" "OOM601"
# accelerate/deepspeed decide precision and sharding at launch, from a config
# no file names: no OOM601 built on fp32 and one unsharded GPU ...
cat > "$T/accelerated.py" <<'PY'
from accelerate import Accelerator
from transformers import AutoModelForCausalLM
import torch
accelerator = Accelerator()
model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf")
optimizer = torch.optim.AdamW(model.parameters())
model, optimizer = accelerator.prepare(model, optimizer)
for batch in []:
    accelerator.backward(model(**batch).loss)
PY
run_oomlint --extend-select OOM601 --format concise --isolated --gpu t4 "$T/accelerated.py"
expect_not_contains "no-oom601-when-the-launcher-decides-precision-and-sharding" "$OUT" "OOM601"
# ... but once the script names its precision, the estimate stands on it
sed -i 's/Accelerator()/Accelerator(mixed_precision="fp16")/' "$T/accelerated.py"
run_oomlint --extend-select OOM601 --format concise --isolated --gpu t4 "$T/accelerated.py"
expect_contains "oom601-when-the-accelerator-names-its-precision" "$OUT" "OOM601"

# Image models (torchvision): the model, the image size and frozen layers from
# the script, each with its line.
cat > "$T/finetune.py" <<'PY'
import torch
from torch import nn
from torch.utils.data import DataLoader
from torchvision import models, transforms

train_tf = transforms.Compose([transforms.RandomResizedCrop(224), transforms.ToTensor()])
model = models.resnet18(weights=models.ResNet18_Weights.DEFAULT).cuda()
for p in model.parameters():
    p.requires_grad = False
model.fc = nn.Linear(model.fc.in_features, 10)
loader = DataLoader(dataset, batch_size=32, shuffle=True)
optimizer = torch.optim.SGD(model.fc.parameters(), lr=0.01, momentum=0.9)
for images, labels in loader:
    loss = nn.functional.cross_entropy(model(images.cuda()), labels.cuda())
    loss.backward()
    optimizer.step()
PY
run_oomlint estimate "$T/finetune.py" --gpu a100
expect_rc "estimate-torchvision-exit-0" 0
expect_contains "estimate-torchvision-model" "$OUT" "finetune.py:7 torchvision.models.resnet18()"
expect_contains "estimate-torchvision-image" "$OUT" "finetune.py:6 RandomResizedCrop(224)"
expect_contains "estimate-torchvision-batch" "$OUT" "finetune.py:11 batch_size"
expect_contains "estimate-torchvision-frozen" "$OUT" "only \`model.fc\` trained: 5130 trainable params"
expect_contains "estimate-torchvision-optimizer" "$OUT" "torch.optim.SGD()"
expect_not_contains "estimate-torchvision-no-sequence-row" "$OUT" "sequence"

run_oomlint estimate "$T/finetune.py" --gpu a100 --format json
v=$(printf '%s' "$OUT" | jq -r '[.model, .inputs.image.value, .inputs.trainable.value, .inputs.optimizer.value] | join(" ")' 2>/dev/null)
if [ "$v" = "resnet18 224x224 5130 SGD with momentum" ]; then pass "estimate-torchvision-json"; else fail "estimate-torchvision-json" "got $v"; fi

run_oomlint estimate --model resnet50 --gpu v100 --batch-size 64 --image-size 320 --format json
v=$(printf '%s' "$OUT" | jq -r '.inputs.image.value + " " + .inputs.image.source' 2>/dev/null)
if [ "$v" = "320x320 --image-size" ]; then pass "estimate-image-size-flag"; else fail "estimate-image-size-flag" "got $v"; fi

# OOM601/602 on image models: a small ResNet-18 at batch 32 fits an A100 with
# room to spare; VGG-16 at batch 512 in fp32 does not fit a 16 GB V100.
cat > "$T/resnet18_b32.py" <<'PY'
import torch
import torchvision
model = torchvision.models.resnet18().cuda()
loader = torch.utils.data.DataLoader(data, batch_size=32)
opt = torch.optim.Adam(model.parameters())
for x, y in loader:
    torch.nn.functional.cross_entropy(model(x), y).backward()
    opt.step()
PY
run_oomlint --extend-select OOM601 --format concise --isolated --gpu a100 "$T/resnet18_b32.py"
expect_not_contains "no-oom60x-resnet18-b32-a100" "$OUT" "OOM60"
sed -e 's/resnet18/vgg16/' -e 's/batch_size=32/batch_size=512/' "$T/resnet18_b32.py" > "$T/vgg16_b512.py"
run_oomlint --extend-select OOM601 --format concise --isolated --gpu v100 "$T/vgg16_b512.py"
expect_contains "oom601-vgg16-b512-v100" "$OUT" "vgg16_b512.py:4:"
expect_contains "oom601-vgg16-b512-v100-message" "$OUT" "OOM601 estimated peak"
expect_contains "oom601-vgg16-b512-v100-image" "$OUT" "image 224x224"

# Not an image model: a local function named like one, torchvision not imported.
cat > "$T/not_torchvision.py" <<'PY'
def resnet50():
    return build_my_net()
model = resnet50()
loss = model(x).sum()
loss.backward()
PY
run_oomlint estimate "$T/not_torchvision.py" --gpu a100
expect_rc "estimate-no-model-exit-2" 2
run_oomlint --extend-select OOM601 --format concise --isolated --gpu t4 "$T/not_torchvision.py"
expect_not_contains "no-oom601-without-a-known-model" "$OUT" "OOM60"

# Inputs from where scripts keep them: the project's own causal-LM fixture
# takes its model, batch and length from argparse defaults (--model_name
# gpt2-medium, --batch_size 4, --block_size 1024) and is sized without flags.
run_oomlint estimate fixtures/realistic/hf_trainer_causal_lm.py
expect_rc "estimate-argparse-defaults-exit-0" 0
expect_contains "estimate-argparse-model" "$OUT" "hf_trainer_causal_lm.py:33 AutoModelForCausalLM.from_pretrained(\"gpt2-medium\"), from --model_name default"
expect_contains "estimate-argparse-batch" "$OUT" "hf_trainer_causal_lm.py:39 per_device_train_batch_size, from --batch_size default"
expect_contains "estimate-argparse-sequence" "$OUT" "hf_trainer_causal_lm.py:36 max_length, from --block_size default"
expect_contains "estimate-argparse-store-true-off" "$OUT" "hf_trainer_causal_lm.py:41 fp32, mixed precision off (--bf16 default)"
expect_contains "estimate-causal-head-from-the-class" "$OUT" "hf_trainer_causal_lm.py:61 AutoModelForCausalLM.from_pretrained: a causal LM head"
run_oomlint estimate fixtures/realistic/hf_trainer_causal_lm.py --format json
v=$(printf '%s' "$OUT" | jq -r '[.model, .inputs.batch.value, .inputs.sequence.value, (.inputs.model.assumed|tostring)] | join(" ")' 2>/dev/null)
if [ "$v" = "gpt2-medium 4 1024 false" ]; then pass "estimate-argparse-json"; else fail "estimate-argparse-json" "got $v"; fi

# HfArgumentParser dataclasses (stanford_alpaca's shape)
cat > "$T/alpaca.py" <<'PY'
from dataclasses import dataclass, field
import transformers
@dataclass
class ModelArguments:
    model_name_or_path: str = field(default="facebook/opt-125m")
@dataclass
class TrainingArguments(transformers.TrainingArguments):
    model_max_length: int = field(default=512)
parser = transformers.HfArgumentParser((ModelArguments, TrainingArguments))
model_args, training_args = parser.parse_args_into_dataclasses()
model = transformers.AutoModelForCausalLM.from_pretrained(model_args.model_name_or_path)
transformers.Trainer(model=model, args=training_args).train()
PY
run_oomlint estimate "$T/alpaca.py" --format json
v=$(printf '%s' "$OUT" | jq -r '[.model, .inputs.batch.value, .inputs.sequence.value, .inputs.sequence.source] | join("|")' 2>/dev/null)
case "$v" in
    "facebook/opt-125m|8|512|"*"alpaca.py:8 TrainingArguments.model_max_length default") pass "estimate-hf-dataclass-defaults" ;;
    *) fail "estimate-hf-dataclass-defaults" "got $v" ;;
esac

# The logits of a language-model head: 8 x 1024 x 50257 values, 1.53 GiB per
# fp32 copy; in fp32 training the logits, the loss's fp32 copy and its two
# gradients (16 bytes per value, 6.13 GiB).
run_oomlint estimate --model gpt2 --batch-size 8 --seq-len 1024
expect_rc "estimate-logits-exit-0" 0
expect_contains "estimate-logits-line" "$OUT" "L logits and loss        6.13 GiB   (8 x 1024 x 50257 values, 1.53 GiB per fp32 copy)"
expect_contains "estimate-task-from-the-knowledge-base" "$OUT" "gpt2 is a causal-lm checkpoint (knowledge base)"
run_oomlint estimate --model gpt2 --batch-size 8 --seq-len 1024 --format json
v=$(printf '%s' "$OUT" | jq -r '[.logit_values, .bytes.logits == 16 * .logit_values] | map(tostring) | join(" ")' 2>/dev/null)
if [ "$v" = "411705344 true" ]; then pass "estimate-logits-json"; else fail "estimate-logits-json" "got $v"; fi
run_oomlint estimate --model gpt2 --batch-size 8 --seq-len 1024 --task embedding --format json
v=$(printf '%s' "$OUT" | jq -r '[.bytes.logits, .inputs.task.value, .inputs.task.source] | map(tostring) | join(" ")' 2>/dev/null)
if [ "$v" = "0 embedding --task" ]; then pass "estimate-task-flag-overrides"; else fail "estimate-task-flag-overrides" "got $v"; fi
run_oomlint estimate --model gpt2 --task causal
expect_rc "estimate-task-flag-unknown-exit-2" 2
expect_contains "estimate-task-flag-unknown-message" "$ERR" "invalid --task 'causal'"
run_oomlint estimate --model bert-base-uncased --format json
v=$(printf '%s' "$OUT" | jq -r '[.bytes.logits, .inputs.task.value] | map(tostring) | join(" ")' 2>/dev/null)
if [ "$v" = "0 embedding" ]; then pass "estimate-encoder-has-no-vocabulary-logits"; else fail "estimate-encoder-has-no-vocabulary-logits" "got $v"; fi

# Bad input: a default of the wrong type leaves the gap assumed, never a crash.
cat > "$T/bad_default.py" <<'PY'
import argparse
from transformers import AutoModelForCausalLM
p = argparse.ArgumentParser()
p.add_argument("--model", default="gpt2")
p.add_argument("--batch_size", type=int, default="eight")
p.add_argument("--max_length", type=int, default=None)
args = p.parse_args()
model = AutoModelForCausalLM.from_pretrained(args.model)
loader = DataLoader(ds, batch_size=args.batch_size)
for batch in loader:
    model(**batch).loss.backward()
PY
run_oomlint estimate "$T/bad_default.py"
expect_rc "estimate-bad-default-exit-0" 0
expect_contains "estimate-bad-default-assumed" "$OUT" "assumed: batch 8 (the Trainer's default); --batch_size has no number to read"
expect_contains "estimate-bad-default-sequence-assumed" "$OUT" "assumed: sequence 512; --max_length has no number to read"
run_oomlint --extend-select OOM601 --format concise --isolated --gpu t4 "$T/bad_default.py"
expect_rc "capacity-bad-default-no-crash" 0
# OOM601 from the same defaults, at the line of the default to change
run_oomlint --extend-select OOM601 --format concise --isolated --gpu rtx-3060-8gb fixtures/realistic/hf_trainer_causal_lm.py
expect_contains "capacity-from-argparse-defaults" "$OUT" "hf_trainer_causal_lm.py:33:5: OOM601 estimated peak 8.4 GiB"
run_oomlint --extend-select OOM601 --format concise --isolated --gpu rtx-2080-ti fixtures/realistic/hf_trainer_causal_lm.py
expect_not_contains "capacity-fits-with-pytorch-2" "$OUT" "OOM60"
# the run's PyTorch: before 1.13 every kernel is loaded at start-up (a 1.3 GiB
# context), and before 2.0 zero_grad() kept the gradients through the next forward
run_oomlint --extend-select OOM601 --format concise --isolated --gpu rtx-2080-ti --torch-version 1.12 fixtures/realistic/hf_trainer_causal_lm.py
expect_contains "capacity-with-an-eager-cuda-context" "$OUT" "hf_trainer_causal_lm.py:33:5: OOM602 estimated peak 10.9 GiB"
mkdir -p "$T/torch112"
cp fixtures/realistic/hf_trainer_causal_lm.py "$T/torch112/"
printf '[tool.oomlint]\ngpu = "rtx-2080-ti"\ntorch = "1.12.1"\n' > "$T/torch112/pyproject.toml"
run_oomlint --format concise "$T/torch112/hf_trainer_causal_lm.py"
expect_contains "capacity-torch-version-from-pyproject" "$OUT" "OOM602 estimated peak 10.9 GiB"
run_oomlint estimate --model gpt2 --torch-version 1.12
expect_contains "estimate-eager-context" "$OUT" "C CUDA context           1.31 GiB"
run_oomlint estimate --model gpt2
expect_contains "estimate-lazy-context-by-default" "$OUT" "C CUDA context           0.27 GiB"
run_oomlint estimate --model gpt2 --torch-version banana
expect_rc "estimate-bad-torch-version" 2
expect_contains "estimate-bad-torch-version-says-why" "$ERR" "invalid --torch-version 'banana'"
printf '[tool.oomlint]\ntorch = 2.4\n' > "$T/torch112/pyproject.toml"
run_oomlint --format concise "$T/torch112/hf_trainer_causal_lm.py"
expect_rc "pyproject-torch-not-a-string" 2

# --max-batch: the largest micro-batch within 90% of the GPU, and the script's
# global batch kept exactly with gradient accumulation
run_oomlint estimate fixtures/realistic/hf_trainer_causal_lm.py --gpu t4 --max-batch
# (90% of the 15102 MiB PyTorch reports for a T4, not of 16 GiB)
expect_contains "max-batch-largest" "$OUT" "Largest micro-batch within 90% of the NVIDIA Tesla T4 16 GB: --batch_size=9 (13.1 GiB)"
expect_contains "max-batch-capacity-is-what-pytorch-reports" "$OUT" "of 14.7 GiB"
expect_contains "max-batch-keeps-the-global-batch" "$OUT" "the script's global batch of 32: --batch_size=8 with gradient_accumulation_steps=4"
run_oomlint estimate fixtures/realistic/hf_trainer_causal_lm.py --gpu t4 --max-batch --format json
expect_contains "max-batch-json" "$OUT" '"gradient_accumulation_steps":	4'
run_oomlint estimate --model gpt2 --gpu v100 --batch-size 8 --max-batch
expect_contains "max-batch-with-a-batch-gives-the-longest-sequence" "$OUT" "max_length=1024 (13.8 GiB), the model's position limit"
run_oomlint estimate --model gpt2 --gpu t4 --batch-size 64 --max-batch
expect_contains "max-batch-longest-sequence-below-the-limit" "$OUT" "Longest sequence at batch 64 within 90% of the NVIDIA Tesla T4 16 GB: max_length="
run_oomlint estimate --model meta-llama/Llama-2-7b-hf --gpu t4 --max-batch
expect_contains "max-batch-none-fits" "$OUT" "none fits, even 1"
run_oomlint estimate --model gpt2 --max-batch
expect_rc "max-batch-needs-a-gpu" 2
expect_contains "max-batch-needs-a-gpu-says-so" "$ERR" "--max-batch needs the target GPU"

# ---- from a YAML training config alone ----------------------------------------------
cat > "$T/qlora.yml" <<'YAML'
base_model: meta-llama/Llama-2-7b-hf
load_in_4bit: true
adapter: qlora
lora_r: 32
lora_target_linear: true
sequence_len: 4096
micro_batch_size: 2
gradient_accumulation_steps: 4
optimizer: paged_adamw_32bit
bf16: auto
gradient_checkpointing: true
flash_attention: true
YAML
run_oomlint estimate "$T/qlora.yml" --gpu rtx4090 --format json
v=$(printf '%s' "$OUT" | jq -r '[.model, .inputs.batch.value, .inputs.sequence.value, .inputs.precision.value, .inputs.trainable.value, .inputs.checkpointing.value, .inputs.batch.source] | join("|")' 2>/dev/null)
case "$v" in
    "meta-llama/Llama-2-7b-hf|2|4096|4-bit (NF4) weights|58.7M|on|"*"qlora.yml:7 micro_batch_size: 2") pass "estimate-axolotl-yaml-inputs" ;;
    *) fail "estimate-axolotl-yaml-inputs" "got $v" ;;
esac
fits=$(printf '%s' "$OUT" | jq '.total_bytes < .capacity_bytes' 2>/dev/null)
if [ "$fits" = "true" ]; then pass "estimate-axolotl-qlora-fits-a-4090"; else fail "estimate-axolotl-qlora-fits-a-4090" "$(printf '%s' "$OUT" | head -c 300)"; fi
# the same model, fully trained in fp32-weight mixed precision, does not
sed 's/load_in_4bit: true/load_in_4bit: false/; s/adapter: qlora/adapter:/' "$T/qlora.yml" > "$T/full.yml"
run_oomlint estimate "$T/full.yml" --gpu rtx4090
expect_contains "estimate-axolotl-full-finetune-oom" "$OUT" "-> out of memory"
cat > "$T/lf.yaml" <<'YAML'
model_name_or_path: gpt2
stage: sft
finetuning_type: full
template: default
cutoff_len: 1_024
per_device_train_batch_size: 4
fp16: yes
YAML
run_oomlint estimate "$T/lf.yaml" --format json
v=$(printf '%s' "$OUT" | jq -r '[.model, .inputs.batch.value, .inputs.sequence.value, .inputs.precision.value] | join("|")' 2>/dev/null)
if [ "$v" = "gpt2|4|1024|fp16 mixed precision" ]; then pass "estimate-llama-factory-yaml"; else fail "estimate-llama-factory-yaml" "got $v"; fi
printf 'services:\n  web:\n    image: nginx\n' > "$T/compose.yaml"
run_oomlint estimate "$T/compose.yaml"
expect_rc "estimate-yaml-not-a-config" 2
expect_contains "estimate-yaml-not-a-config-says-so" "$ERR" "not a training config oomlint recognises"

# LLaMA-Factory checkpoints by default (disable_gradient_checkpointing: false)
printf 'model_name_or_path: meta-llama/Llama-2-7b-hf\nstage: sft\nfinetuning_type: full\ncutoff_len: 1024\nper_device_train_batch_size: 1\nbf16: true\n' > "$T/lf.yaml"
run_oomlint estimate "$T/lf.yaml" --gpu a100-80gb
expect_contains "llama-factory-checkpointing-by-default" "$OUT" "LLaMA-Factory's default (disable_gradient_checkpointing: false)"
printf 'disable_gradient_checkpointing: true\n' >> "$T/lf.yaml"
run_oomlint estimate "$T/lf.yaml" --gpu a100-80gb
expect_contains "llama-factory-checkpointing-disabled" "$OUT" "checkpointing off"

# litgpt recipes: the model from checkpoint_dir, the batch and length under train:,
# the precision at the top level
printf 'checkpoint_dir: checkpoints/meta-llama/Llama-2-7b-hf\nout_dir: out/x\nprecision: bf16-true\ntrain:\n  micro_batch_size: 2\n  max_seq_length: 512\n' > "$T/lit.yaml"
run_oomlint estimate "$T/lit.yaml" --gpu a100-80gb
expect_contains "litgpt-yaml-model" "$OUT" "checkpoint_dir: meta-llama/Llama-2-7b-hf"
expect_contains "litgpt-yaml-batch" "$OUT" "train.micro_batch_size: 2"
expect_contains "litgpt-yaml-precision" "$OUT" "precision: bf16-true"

# Launch commands: `estimate -- COMMAND` and `estimate train.sh`. The script's
# arguments are bound to its options over their defaults; the launcher's
# processes and precision feed the estimate; each input names its word or line.
mkdir -p "$T/launch/scripts"
cat > "$T/launch/train.py" <<'PY'
from dataclasses import dataclass, field
from typing import Optional
from transformers import AutoModelForCausalLM, HfArgumentParser, Trainer, TrainingArguments

@dataclass
class ModelArguments:
    model_name_or_path: Optional[str] = field(default="gpt2-medium")
    max_seq_length: int = field(default=512)

parser = HfArgumentParser((ModelArguments, TrainingArguments))
model_args, training_args = parser.parse_args_into_dataclasses()
model = AutoModelForCausalLM.from_pretrained(model_args.model_name_or_path)
Trainer(model=model, args=training_args).train()
PY
cd "$T/launch" || exit 1
run_oomlint estimate --format json -- torchrun --nproc_per_node 4 train.py --model_name_or_path gpt2 --per_device_train_batch_size 4
v=$(printf '%s' "$OUT" | jq -r '[.model, .inputs.batch.value, .inputs.batch.source, .inputs.GPUs.value, .inputs.GPUs.source, .launch.launcher] | join("|")' 2>/dev/null)
if [ "$v" = "gpt2|4|command word 7: --per_device_train_batch_size 4|4|torchrun: 4 per node (command word 2) x 1 node|torchrun" ]; then
    pass "launch-torchrun-arguments-over-defaults"
else
    fail "launch-torchrun-arguments-over-defaults" "got $v; $ERR"
fi
# without arguments the script's defaults stand; with them, four processes shard ZeRO-3
printf '{"zero_optimization": {"stage": 3}}\n' > ds.json
run_oomlint estimate --format json -- python train.py
v=$(printf '%s' "$OUT" | jq -r '[.model, .inputs.batch.value, .inputs.GPUs.value] | join("|")' 2>/dev/null)
if [ "$v" = "gpt2-medium|8|1" ]; then pass "launch-python-defaults"; else fail "launch-python-defaults" "got $v"; fi
run_oomlint estimate --format json -- deepspeed --num_gpus=4 train.py --deepspeed ds.json --bf16 True
v=$(printf '%s' "$OUT" | jq -r '[.inputs.sharding.value, .inputs.GPUs.value, .inputs.precision.value] | join("|")' 2>/dev/null)
if [ "$v" = "ZeRO 3|4|bf16 mixed precision" ]; then pass "launch-deepspeed-zero-config"; else fail "launch-deepspeed-zero-config" "got $v"; fi
w=$(printf '%s' "$OUT" | jq -r '.bytes.weights' 2>/dev/null)
run_oomlint estimate --format json --num-gpus 1 -- deepspeed --num_gpus=4 train.py --deepspeed ds.json --bf16 True
w1=$(printf '%s' "$OUT" | jq -r '.bytes.weights' 2>/dev/null)
if [ -n "$w" ] && [ "$(echo "$w1 > 3.9 * $w" | bc)" = 1 ]; then pass "launch-processes-shard-the-weights"; else fail "launch-processes-shard-the-weights" "4 GPUs $w, 1 GPU $w1"; fi
# the text report shows the command and the notes
run_oomlint estimate --gpu a100-80gb -- accelerate launch --num_processes 2 --mixed_precision fp16 train.py --learning_rate 1e-5 --frobnicate
expect_rc "launch-accelerate-exit-0" 0
expect_contains "launch-accelerate-command-shown" "$OUT" "Launch: accelerate launch --num_processes 2"
expect_contains "launch-accelerate-precision" "$OUT" "accelerate launch --mixed_precision fp16 (command word 5)"
expect_contains "launch-unknown-argument-noted" "$OUT" "command: not declared in train.py, left to its TrainingArguments, not used by the estimate: --learning_rate (word 8), --frobnicate (word 10)"
# an accelerate config file
printf 'distributed_type: MULTI_GPU\nmixed_precision: bf16\nnum_processes: 8\n' > acc.yaml
run_oomlint estimate --format json -- accelerate launch --config_file acc.yaml train.py
v=$(printf '%s' "$OUT" | jq -r '[.inputs.GPUs.value, .inputs.GPUs.source, .inputs.precision.value] | join("|")' 2>/dev/null)
if [ "$v" = "8|accelerate config acc.yaml:3 num_processes: 8|bf16 mixed precision" ]; then pass "launch-accelerate-config-file"; else fail "launch-accelerate-config-file" "got $v"; fi

# a shell script: variables, defaults, quoting, continuation lines
cat > scripts/train.sh <<'SH'
#!/bin/bash
set -e
MODEL="gpt2"
export BS=2
NGPU=${NGPU:-2}
python -c "print('warm-up')"
torchrun --nproc_per_node=$NGPU train.py \
    --model_name_or_path "$MODEL" \
    --per_device_train_batch_size ${BS} \
    --output_dir "out dir" \
    --seed $1 2>&1 | tee train.log
SH
run_oomlint estimate scripts/train.sh --format json
v=$(printf '%s' "$OUT" | jq -r '[.model, .inputs.model.source, .inputs.batch.value, .inputs.batch.source, .inputs.GPUs.value] | join("|")' 2>/dev/null)
if [ "$v" = "gpt2|scripts/train.sh:8: --model_name_or_path gpt2 (AutoModelForCausalLM.from_pretrained(\"gpt2\"))|2|scripts/train.sh:9: --per_device_train_batch_size 2|2" ]; then
    pass "launch-shell-script"
else
    fail "launch-shell-script" "got $v; $ERR"
fi
run_oomlint estimate scripts/train.sh
expect_contains "launch-shell-line-shown" "$OUT" "(scripts/train.sh:7)"
# `-- bash train.sh ARGS`: the script's $1, $2 are ARGS; ${2:-2} its default
printf 'MODEL=${1:-gpt2}\npython train.py --model_name_or_path $MODEL --per_device_train_batch_size ${2:-2}\n' > scripts/pos.sh
run_oomlint estimate --format json -- bash scripts/pos.sh gpt2-large
v=$(printf '%s' "$OUT" | jq -r '[.model, .inputs.batch.value, .inputs.batch.source] | join("|")' 2>/dev/null)
if [ "$v" = "gpt2-large|2|scripts/pos.sh:2: --per_device_train_batch_size 2" ]; then pass "launch-bash-script-arguments"; else fail "launch-bash-script-arguments" "got $v; $ERR"; fi
# a terminal never interprets what a shell script holds
printf 'python train.py --tag "\033[31mred"\n' > scripts/esc.sh
run_oomlint estimate scripts/esc.sh
expect_not_contains "launch-escapes-control-characters" "$OUT" "$(printf '\033')"
# loops and conditionals: read through once, their values assumed, with notes
cat > scripts/sweep.sh <<'SH'
for bs in 4 8; do
  if [ "$bs" -gt 4 ]; then
    MODEL=gpt2-large
  else
    MODEL=gpt2
  fi
  python train.py --model_name_or_path $MODEL --per_device_train_batch_size $bs
done
SH
run_oomlint estimate scripts/sweep.sh --format json
v=$(printf '%s' "$OUT" | jq -r '[.model, .inputs.batch.value, .inputs.batch.assumed, (.launch.notes | length)] | join("|")' 2>/dev/null)
if [ "$v" = "gpt2|4|true|3" ]; then pass "launch-shell-loops-assumed"; else fail "launch-shell-loops-assumed" "got $v; $ERR"; fi
run_oomlint estimate scripts/sweep.sh
expect_contains "launch-shell-loop-note" "$OUT" "bs takes the values of a for loop; the first (4) is used"

# bad input: a clear message, an estimate where one is possible, never a crash
run_oomlint estimate -- torchrun --nproc_per_node 4
expect_rc "launch-no-script-exit-2" 2
expect_contains "launch-no-script-says-so" "$ERR" "torchrun runs no script"
run_oomlint estimate --model gpt2 -- torchrun --nproc_per_node 4
expect_rc "launch-no-script-with-model" 0
run_oomlint estimate --
expect_rc "launch-empty-command-exit-2" 2
expect_contains "launch-empty-command-says-so" "$ERR" "no command to read"
run_oomlint estimate --format json -- torchrun --nproc_per_node 2 missing.py --model_name_or_path gpt2 --per_device_train_batch_size 3
v=$(printf '%s' "$OUT" | jq -r '[.model, .inputs.batch.value, .launch.script_exists, .launch.notes[0]] | join("|")' 2>/dev/null)
if [ "$v" = "gpt2|3|false|command word 4: missing.py does not exist; the arguments are read by their usual names" ]; then
    pass "launch-missing-script-estimated-from-arguments"
else
    fail "launch-missing-script-estimated-from-arguments" "got $v; $ERR"
fi
run_oomlint estimate -- python train.py --model_name_or_path my-org/private-model
expect_rc "launch-unknown-model-exit-2" 2
expect_contains "launch-unknown-model-names-the-argument" "$ERR" "command word 3: --model_name_or_path my-org/private-model is not a model the knowledge base knows"
run_oomlint estimate -- python missing.py --lr 1
expect_rc "launch-missing-script-no-model-exit-2" 2
expect_contains "launch-missing-script-says-so" "$ERR" "missing.py does not exist"
run_oomlint estimate --format json -- python train.py --per_device_train_batch_size abc
v=$(printf '%s' "$OUT" | jq -r '[.inputs.batch.value, .inputs.batch.assumed] | join("|")' 2>/dev/null)
if [ "$v" = "8|true" ]; then pass "launch-wrong-type-keeps-default-assumed"; else fail "launch-wrong-type-keeps-default-assumed" "got $v"; fi
expect_contains "launch-wrong-type-says-so" "$OUT" "--per_device_train_batch_size abc is not a whole number"
printf 'echo hello\nls -l\n' > scripts/none.sh
run_oomlint estimate scripts/none.sh
expect_rc "launch-shell-without-launch-exit-2" 2
expect_contains "launch-shell-without-launch-says-so" "$ERR" "no line runs python, torchrun, accelerate launch or deepspeed"
run_oomlint estimate scripts/missing.sh
expect_rc "launch-missing-shell-exit-2" 2
printf 'torchrun --nproc_per_node "$(nproc train.py \\\n' > scripts/broken.sh
run_oomlint estimate scripts/broken.sh
expect_rc "launch-broken-shell-no-crash" 2
head -c 2000 /dev/urandom | tr -d '\n' > scripts/binary.sh; printf '\000' >> scripts/binary.sh
run_oomlint estimate scripts/binary.sh
expect_rc "launch-binary-shell-exit-2" 2
expect_contains "launch-binary-shell-says-so" "$ERR" "scripts/binary.sh: binary file"
run_oomlint estimate -- ""
expect_rc "launch-empty-word-exit-2" 2
expect_contains "launch-empty-word-says-so" "$ERR" "an empty word where the script's name should be"
awk 'BEGIN { for (i = 0; i < 300; i++) print "if true; then"; print "python train.py --per_device_train_batch_size 2"; for (i = 0; i < 300; i++) print "fi" }' > scripts/deep.sh
run_oomlint estimate scripts/deep.sh --format json
v=$(printf '%s' "$OUT" | jq -r '[.inputs.batch.value, .inputs.batch.assumed] | join("|")' 2>/dev/null)
if [ "$v" = "2|false" ]; then pass "launch-deeply-nested-shell"; else fail "launch-deeply-nested-shell" "got $v; $ERR"; fi
run_oomlint estimate train.py -- python train.py
expect_rc "launch-file-and-command-exit-2" 2
cd "$ROOT" || exit 1
# Models the script defines: the exact parameter count from the classes'
# __init__ (counts derived by hand in each fixture's comment in
# tests/unit/test_estimate_modules.c and docs/estimation.md §11), with the
# line of the build and of the class.
#   MLP: 784*512+512 + 2*(512*512+512) + 512*10+10
#   CNN: convs 864+18432+73728, BatchNorms 64+128+256, fc1 2048*256+256, fc2 2570
#   LSTM LM: Embedding 10000*200, LSTM 2*(4*200*400+8*200), Linear 200*10000+10000
#   Transformer: Embedding 5000*256, 4*789760, LayerNorm 512, head 256*5000+5000
run_oomlint estimate fixtures/estimate/mlp.py
expect_contains "module-mlp-exact-params" "$OUT" "mlp.py:30 MLP built here (class at line 16): 932362 parameters"
expect_contains "module-mlp-batch-from-argparse" "$OUT" "--batch-size default"
run_oomlint estimate fixtures/estimate/cnn_cifar.py
expect_contains "module-cnn-exact-params" "$OUT" "cnn_cifar.py:43 Net built here (class at line 24): 620586 parameters"
expect_contains "module-cnn-image-side-assumed" "$OUT" "assumed: 32x32 images"
run_oomlint estimate fixtures/estimate/lstm_lm.py
expect_contains "module-lstm-exact-params" "$OUT" "lstm_lm.py:42 RNNModel built here (class at line 20): 4653200 parameters"
expect_contains "module-lstm-lm-head" "$OUT" "causal-lm, vocab 10000"
run_oomlint estimate fixtures/estimate/small_transformer.py --format json
p=$(printf '%s' "$OUT" | jq -r '.params' 2>/dev/null)
if [ "$p" = "5724552" ]; then pass "module-transformer-exact-params"; else fail "module-transformer-exact-params" "got $p"; fi
expect_contains "module-activations-marked-rough" "$OUT" "activations rough"
# a size oomlint cannot read: no guess, the reason, exit 2
printf 'import torch.nn as nn\nclass Net(nn.Module):\n    def __init__(self, n):\n        super().__init__()\n        self.fc = nn.Linear(n, 2)\nmodel = Net(len(open("x").read()))\n' > "$T/unsized.py"
run_oomlint estimate "$T/unsized.py"
expect_rc "module-unsized-exit-2" 2
expect_contains "module-unsized-names-the-size" "$ERR" "\`n\` (in_features of nn.Linear, line 5)"
# a class attribute read through self (a ResNet block's `expansion = 4`)
printf 'import torch.nn as nn\nclass Block(nn.Module):\n    expansion = 4\n    def __init__(self, n):\n        super().__init__()\n        self.fc = nn.Linear(n, n * self.expansion)\nmodel = Block(2).cuda()\n' > "$T/classattr.py"
run_oomlint estimate "$T/classattr.py"
expect_contains "module-class-attribute-through-self" "$OUT" "Block built here (class at line 2): 24 parameters"
# The model's class in another file of the project (issue 27): followed
# through the script's imports, sized from its layers, the class's file and
# line in the provenance (counts derived in each script's docstring,
# fixtures/estimate/project/).
P=fixtures/estimate/project
run_oomlint estimate $P/train.py
expect_contains "import-class-sized" "$OUT" "train.py:17 Net built here (class Net at $P/models/net.py:8): 118538 parameters"
run_oomlint estimate $P/train_factory.py
expect_contains "import-factory-sized" "$OUT" "Net built here (class Net at $P/models/net.py:8, built by build_model() at $P/models/factory.py:6): 55178 parameters"
run_oomlint estimate $P/train_package.py --format json
p=$(printf '%s' "$OUT" | jq -r '.params' 2>/dev/null)
if [ "$p" = "26570" ]; then pass "import-package-reexport-sized"; else fail "import-package-reexport-sized" "got $p"; fi
run_oomlint estimate $P/train_src.py
expect_contains "import-src-layout" "$OUT" "class Tiny at $P/src/tinypkg/tiny.py:4): 800 parameters"
run_oomlint estimate $P/train_wn.py
expect_contains "import-forwarding-wrapper-weight-norm" "$OUT" "class Vocoder at $P/models/wn.py:9): 978 parameters"
run_oomlint estimate $P/train_or_export.py
expect_contains "import-trained-build-only" "$OUT" "train_or_export.py:12 Net built here (class Net at $P/models/net.py:8): 55178 parameters"
run_oomlint estimate $P/train_unknown.py
expect_rc "import-unresolved-exit-2" 2
expect_contains "import-unresolved-stays-unknown" "$ERR" "no model to size"
# as launched from the project's folder: a subfolder's script, `python -m`
# with a relative import, options handed to the class whole
OABS="$(cd "$(dirname "$OOMLINT")" && pwd)/$(basename "$OOMLINT")"
OUT=$(cd $P && "$OABS" estimate -- python scripts/train_sub.py 2>&1)
expect_contains "import-from-subfolder" "$OUT" "scripts/train_sub.py:8 Net built here (class Net at models/net.py:8): 55178 parameters"
OUT=$(cd $P && "$OABS" estimate -- python -m app.train 2>&1)
expect_contains "import-relative-in-package" "$OUT" "class Classifier at app/model.py:4): 105 parameters"
OUT=$(cd $P && "$OABS" estimate -- python train_args.py --out-dim 6 2>&1)
expect_contains "import-class-reads-passed-args" "$OUT" "class ArgNet at models/argnet.py:4): 66 parameters"
# Sizes from a JSON config the command names (issue 27; counts derived in
# each script's docstring, fixtures/estimate/configs/): read as waveglow
# reads it (`-c`, `with open(...)`, json.loads, a global unpacked with **),
# by the parser's default with subscripts and .get; a missing file, broken
# JSON or an unknown path leave the model unsized and say what settles it.
C=fixtures/estimate/configs
SAVED_OOMLINT=$OOMLINT; OOMLINT=$OABS; cd $C || exit 1
run_oomlint estimate -- python train.py -c configs/base.json
expect_contains "config-json-unpacked-sized" "$OUT" "train.py:14 Flow built here (class Flow at models/flow.py:4; sizes from configs/base.json [\"model\"]): 1028 parameters"
run_oomlint estimate -- python train_get.py
expect_contains "config-json-default-path-get" "$OUT" "sizes from configs/base.json [\"model\"]): 756 parameters"
run_oomlint estimate -- python train.py -c configs/missing.json
expect_rc "config-json-missing-exit-2" 2
expect_contains "config-json-missing-says-file" "$ERR" "configs/missing.json not found (No such file or directory), which would settle \`n_in\`"
printf '{"model": {"n_in": 8, "n_hidden": 16,\n' > "$T/broken.json" # made here: the fixture linter would flag it
run_oomlint estimate -- python train.py --config="$T/broken.json"
expect_rc "config-json-broken-exit-2" 2
expect_contains "config-json-broken-says-file" "$ERR" "$T/broken.json is not valid JSON, which would settle \`n_in\`"
printf '{"model": {"n_in": 8}}\n' > "$T/short.json"
run_oomlint estimate -- python train.py -c "$T/short.json"
expect_contains "config-json-missing-key-named" "$ERR" "$T/short.json [\"model\"] has no key [\"n_hidden\"], which would settle \`n_hidden\`"
# YAML through yaml.safe_load, read by the project's YAML reader
run_oomlint estimate -- python train_yaml.py
expect_contains "config-yaml-sized" "$OUT" "train_yaml.py:19 Flow built here (class Flow at models/flow.py:4; sizes from configs/flow.yaml [\"model\"] [\"flow\"]): 1410 parameters"
# the path joined with os.path.join from a folder and a required option
run_oomlint estimate -- python train_joined.py --config flow.yaml
expect_contains "config-yaml-path-joined" "$OUT" "train_joined.py:20 Flow built here (class Flow at models/flow.py:4; sizes from configs/flow.yaml [\"model\"] [\"flow\"]): 1410 parameters"
printf 'model:\n  flow: {n_in: 8, n_hidden: [\n' > "$T/broken.yaml"
run_oomlint estimate -- python train_yaml.py --config "$T/broken.yaml"
expect_rc "config-yaml-broken-exit-2" 2
expect_contains "config-yaml-broken-says-file" "$ERR" "$T/broken.yaml is not valid YAML, which would settle \`n_in\`"
# a size counted from a file's entries: len(json.load(f))
run_oomlint estimate -- python train_vocab.py
expect_contains "config-json-len-of-vocabulary" "$OUT" "Tagger built here (class at line 9; sizes from configs/vocab.json): 27 parameters"
run_oomlint estimate -- python train.py
expect_rc "config-json-no-path-exit-2" 2
expect_contains "config-json-no-path-names-option" "$ERR" "the JSON config \`args.config\` is not known: give --config"
cd - >/dev/null || exit 1; OOMLINT=$SAVED_OOMLINT
# relative to where the command runs; without a command, the script's folder
OUT=$(cd fixtures && "$OABS" estimate -- python estimate/configs/train_get.py --config estimate/configs/configs/base.json 2>&1)
expect_contains "config-json-relative-to-command-dir" "$OUT" "sizes from estimate/configs/configs/base.json [\"model\"]): 756 parameters"
run_oomlint estimate $C/train_get.py
expect_contains "config-json-no-command-script-dir" "$OUT" "sizes from configs/base.json [\"model\"]): 756 parameters"
# A model picked by a name string (issue 27; counts in each script's
# docstring, fixtures/estimate/registry/): getattr on the models package,
# its __dict__ with the branch the name decides, a dict registry; the key
# from the option's default or the command; an unknown key names its flag.
G=fixtures/estimate/registry
SAVED_OOMLINT=$OOMLINT; OOMLINT=$OABS; cd $G || exit 1
run_oomlint estimate -- python train_getattr.py
expect_contains "registry-getattr-default" "$OUT" "TinyNet built here (class TinyNet at models/nets.py:6; arch=TinyNet via getattr(models, args.arch) at train_getattr.py:14): 36 parameters"
run_oomlint estimate -- python train_getattr.py -a wide
expect_contains "registry-getattr-factory" "$OUT" "built by wide() at models/nets.py:29; arch=wide via getattr(models, args.arch) at train_getattr.py:14): 212 parameters"
run_oomlint estimate -- python train_dunder.py --arch wide
expect_contains "registry-dunder-dict-branch" "$OUT" "arch=wide via zoo.__dict__[args.arch] at train_dunder.py:18): 420 parameters"
run_oomlint estimate -- python train_dict.py
expect_contains "registry-dict-default" "$OUT" "WideNet built here (class WideNet at models/nets.py:17; net=wide via MODELS[args.net] at train_dict.py:21): 178 parameters"
run_oomlint estimate -- python train_dict.py --net tiny
expect_contains "registry-dict-given" "$OUT" "net=tiny via MODELS[args.net] at train_dict.py:21): 18 parameters"
run_oomlint estimate -- python train_dict.py --net huge
expect_rc "registry-dict-missing-key-exit-2" 2
expect_contains "registry-dict-missing-key-said" "$ERR" "\`huge\` is not a key of the dict MODELS[args.net] reads"
run_oomlint estimate -- python train_unknown.py
expect_rc "registry-unknown-key-exit-2" 2
expect_contains "registry-unknown-key-names-flag" "$ERR" "the name of the model getattr(models, args.arch) picks, which --arch would settle"
run_oomlint estimate -- python train_unknown.py --arch TinyNet
expect_contains "registry-unknown-key-given" "$OUT" "arch=TinyNet via getattr(models, args.arch) at train_unknown.py:14): 36 parameters"
# an imported factory whose body picks by the name it is given
run_oomlint estimate -- python train_factory.py --arch wide
expect_contains "registry-factory-parameter" "$OUT" "WideNet built here (class WideNet at models/nets.py:17, built by build_model() at models/factory.py:6): 212 parameters"
cd - >/dev/null || exit 1; OOMLINT=$SAVED_OOMLINT
# A model a holder builds (issue 27; counts in each script's docstring,
# fixtures/estimate/holders/): an experiment whose base __init__ calls
# self._build_model(), dispatched on type(self), reached through an alias;
# an agent's networks set in its __init__ and trained by its methods; a
# dataset keeping a feature module, or a holder of settings, is no model.
G=fixtures/estimate/holders
SAVED_OOMLINT=$OOMLINT; OOMLINT=$OABS; cd $G || exit 1
run_oomlint estimate -- python train_exp.py
expect_contains "holder-experiment-base-init-dispatch" "$OUT" "Narrow built here (class Narrow at models/nets.py:4, built by ExpForecast() at exp/forecast.py:5): 289 parameters"
run_oomlint estimate -- python train_exp.py --model wide
expect_contains "holder-experiment-picks-by-option" "$OUT" "Wide built here (class Wide at models/nets.py:14, built by ExpForecast() at exp/forecast.py:5): 4737 parameters"
run_oomlint estimate -- python train_agent.py
expect_contains "holder-agent-networks-summed" "$OUT" "Agent built here (class at line 29): 243 parameters"
run_oomlint estimate -- python train_dataset_module.py
expect_contains "holder-dataset-keeping-a-module-is-not-the-model" "$OUT" "Net built here (class at line 24): 1364 parameters"
run_oomlint estimate -- python train_no_model.py
expect_rc "holder-of-settings-no-model-exit-2" 2
expect_contains "holder-of-settings-no-model" "$ERR" "no model to size"
cd - >/dev/null || exit 1; OOMLINT=$SAVED_OOMLINT
# Sizes from config objects (issue 27; counts in each script's docstring,
# fixtures/estimate/records/): an ml_collections ConfigDict built in another
# file, picked from an imported dict by --model_type, read by attribute,
# .get and subscript, `_pair` of its patch size; a SimpleNamespace.
G=fixtures/estimate/records
SAVED_OOMLINT=$OOMLINT; OOMLINT=$OABS; cd $G || exit 1
run_oomlint estimate -- python train.py
expect_contains "record-configdict-from-imported-dict" "$OUT" "ViT built here (class ViT at nets/vit.py:24): 10282 parameters"
run_oomlint estimate -- python train.py --model_type hybrid
expect_contains "record-configdict-get-decides-branch" "$OUT" "ViT built here (class ViT at nets/vit.py:24): 8842 parameters"
run_oomlint estimate -- python train_namespace.py
expect_contains "record-simple-namespace" "$OUT" "ViT built here (class ViT at nets/vit.py:24): 1498 parameters"
cd - >/dev/null || exit 1; OOMLINT=$SAVED_OOMLINT
# Library image models inside the project's classes (issue 27; counts in
# each script's docstring, fixtures/estimate/library/): a torchvision model
# with num_classes, picked from a plain dict in a try/else, its fc read and
# wrapped; a factory replacing the classifier.
G=fixtures/estimate/library
SAVED_OOMLINT=$OOMLINT; OOMLINT=$OABS; cd $G || exit 1
run_oomlint estimate -- python train_contrastive.py
expect_contains "library-backbone-head-wrapped" "$OUT" "Contrastive built here (class Contrastive at models/contrastive.py:5): 11504832 parameters"
run_oomlint estimate -- python train_contrastive.py --arch resnet50
expect_contains "library-backbone-picked-by-option" "$OUT" "27966656 parameters"
run_oomlint estimate -- python train_finetune.py
expect_contains "library-factory-head-replaced" "$OUT" "Classifier built here (class Classifier at models/finetune.py:11): 23528522 parameters"
cd - >/dev/null || exit 1; OOMLINT=$SAVED_OOMLINT
# Sizes through calls and sequences (issue 27; counts in each script's
# docstring, fixtures/estimate/calls/): a model built in a helper the
# training function calls, its settings a parameter from the one caller (not
# the --hp option of that name), len() of a symbol list built in other
# modules, slices and zip(); a checkpoint copy is not a second model.
G=fixtures/estimate/calls
SAVED_OOMLINT=$OOMLINT; OOMLINT=$OABS; cd $G || exit 1
run_oomlint estimate -- python train.py
expect_contains "calls-helper-parameter-and-symbol-list" "$OUT" "Speech built here (class Speech at model.py:13): 2240 parameters"
run_oomlint estimate -- python train_save.py
expect_contains "calls-checkpoint-copy-not-a-second-model" "$OUT" "Speech built here (class Speech at model.py:13): 2240 parameters"
run_oomlint estimate -- python train_tables.py
expect_contains "calls-factory-tuple-and-numpy-table" "$OUT" "Encoder built here (class Encoder at tables.py:19, built by build() at tables.py:27): 872 parameters"
cd - >/dev/null || exit 1; OOMLINT=$SAVED_OOMLINT
# Run settings from a record another module builds (issue 27; Tacotron 2's
# shape, fixtures/estimate/hparams/): the batch size and the fp16 switch are
# attributes of `create_hparams()`'s SimpleNamespace, read as it sets them.
G=fixtures/estimate/hparams
SAVED_OOMLINT=$OOMLINT; OOMLINT=$OABS; cd $G || exit 1
run_oomlint estimate -- python train.py
expect_contains "record-batch-from-another-module" "$OUT" "batch         24                           train.py:30 batch_size"
expect_contains "record-switch-off-by-default" "$OUT" "assumed: fp32 (no mixed precision found)"
expect_contains "record-model-sized" "$OUT" "28968 parameters"
run_oomlint estimate -- python train_fp16.py
expect_contains "record-switch-on" "$OUT" "train_fp16.py:29 amp.initialize(opt_level=\"O2\"): fp16 mixed precision"
cd - >/dev/null || exit 1; OOMLINT=$SAVED_OOMLINT
# Policies sized by their environment's spaces (issue 27; counts in
# fixtures/estimate/environments/README.md): gym.make's id from the --env
# default or the command, a Box's shape or a Discrete space's n; target
# networks no optimizer trains are weights alone, not the model.
G=fixtures/estimate/environments
SAVED_OOMLINT=$OOMLINT; OOMLINT=$OABS; cd $G || exit 1
run_oomlint estimate -- python train.py
expect_contains "environment-default-id" "$OUT" "Agent built here (class Agent at agent.py:26; Hopper-v3's spaces from the knowledge base): 1988 parameters"
expect_contains "environment-target-copies" "$OUT" "1988 more in copies no optimizer trains, counted as weights alone"
run_oomlint estimate -- python train.py --env HalfCheetah-v2
expect_contains "environment-command-id" "$OUT" "HalfCheetah-v2's spaces from the knowledge base): 3143 parameters"
run_oomlint estimate -- python train_dqn.py
expect_contains "environment-discrete-actions" "$OUT" "CartPole-v1's spaces from the knowledge base): 898 parameters counted from its layers; 898 more in copies"
run_oomlint estimate -- python train_pair.py
expect_contains "environment-one-optimizer-over-both" "$OUT" "1988 parameters counted from its layers; activations rough"
run_oomlint estimate -- python train_unknown_env.py
expect_contains "environment-unlisted-said" "$ERR" "the environment \`MyCustomEnv-v0\` is not one the knowledge base lists, which would settle \`state_dim\`"
cd - >/dev/null || exit 1; OOMLINT=$SAVED_OOMLINT
# An argument the run cannot tell (a class count read from the data) taken
# at its parameter's number default, the model marked assumed; none without
# a default (fixtures/estimate/defaults/README.md has the counts).
G=fixtures/estimate/defaults
SAVED_OOMLINT=$OOMLINT; OOMLINT=$OABS; cd $G || exit 1
run_oomlint estimate -- python train.py
expect_contains "default-for-untold-argument" "$OUT" "assumed: train.py:15 Classifier built here (class Classifier at net.py:4; assumed k=2, Classifier's default, for \`len(train_set.classes)\` (line 15)): 2146 parameters"
run_oomlint estimate -- python train_vocab.py
expect_contains "no-default-stays-unsized" "$ERR" "not sized: \`vocab\` (num_embeddings of nn.Embedding, net.py:17)"
cd - >/dev/null || exit 1; OOMLINT=$SAVED_OOMLINT
# Options parsed in a module the launched script imports (issue 27; counts
# in main.py's docstring, fixtures/estimate/optsmodule/): the script builds
# the model, opts.py's options carry the command's values, an option set on
# them after parsing is read too.
G=fixtures/estimate/optsmodule
SAVED_OOMLINT=$OOMLINT; OOMLINT=$OABS; cd $G || exit 1
run_oomlint estimate -- python main.py
expect_contains "options-module-script-builds-the-model" "$OUT" "MLP built here (class MLP at models/nets.py:4, built by generate_model() at factory.py:4): 314 parameters"
run_oomlint estimate -- python main.py --model wide --width 8 --n_classes 2
expect_contains "options-module-command-values" "$OUT" "Wide built here (class Wide at models/nets.py:11, built by generate_model() at factory.py:4): 354 parameters"
cd - >/dev/null || exit 1; OOMLINT=$SAVED_OOMLINT
# Options that reach the code as function parameters (issue 27;
# fixtures/estimate/options/): click's decorators declare them and pass them
# as keywords through `main(**kwargs)` and `train(**kwargs)` to the loader;
# argparse's passed positionally to a module-level function; a parameter its
# callers fill with two different options holds neither.
G=fixtures/estimate/options
SAVED_OOMLINT=$OOMLINT; OOMLINT=$OABS; cd $G || exit 1
run_oomlint estimate -- python train_click.py --input-model EleutherAI/pythia-160m --per-device-train-batch-size 6 --bf16 true --gradient-checkpointing
expect_contains "click-model-through-parameters" "$OUT" "EleutherAI/pythia-160m (162.3M params) command word 3: --input-model EleutherAI/pythia-160m"
expect_contains "click-batch-through-kwargs" "$OUT" "command word 5: --per-device-train-batch-size 6"
expect_contains "click-bool-option" "$OUT" "bf16 mixed precision         command word 7: --bf16 true"
expect_contains "click-switch-pair" "$OUT" "command word 9: --gradient-checkpointing"
expect_not_contains "click-options-all-bound" "$ERR" "is not an option of"
run_oomlint estimate -- python train_click.py
expect_contains "click-defaults" "$OUT" "AutoModelForCausalLM.from_pretrained(\"gpt2\"), from --input-model default"
expect_contains "click-int-default" "$OUT" "per_device_train_batch_size, from --per-device-train-batch-size default"
run_oomlint estimate -- python train_click.py --bf16 maybe
expect_rc "click-bad-bool-exit-0" 0
expect_contains "click-bad-bool-said" "$OUT" "--bf16 maybe is not true or false (the script would stop); the default stands"
run_oomlint estimate -- python train_params.py --model EleutherAI/pythia-160m --batch_size 4
expect_contains "positional-parameter-model" "$OUT" "command word 3: --model EleutherAI/pythia-160m"
expect_contains "positional-parameter-batch" "$OUT" "command word 5: --batch_size 4"
run_oomlint estimate -- python train_disagree.py
expect_rc "parameter-two-options-exit-2" 2
expect_contains "parameter-two-options-no-model" "$ERR" "no model to size"
# a switch's off word: click's --no-x of a --x/--no-x pair, absl's --nox; the last word wins
run_oomlint estimate -- python train_click.py --gradient-checkpointing --no-gradient-checkpointing
expect_contains "click-switch-pair-off" "$OUT" "checkpointing off                          command word 4: --no-gradient-checkpointing"
run_oomlint estimate -- python train_absl.py --bf16 --nobf16
expect_contains "absl-bool-flag-no" "$OUT" "command word 4: --nobf16 (fp32, mixed precision off)"
# `main(**vars(args))`: every option as the keyword parameter of its name
run_oomlint estimate -- python train_vars.py --model_name EleutherAI/pythia-160m --batch_size 3
expect_contains "vars-args-model" "$OUT" "command word 3: --model_name EleutherAI/pythia-160m"
expect_contains "vars-args-batch" "$OUT" "command word 5: --batch_size 3"
# absl's flags: DEFINE_* calls declare options read back as FLAGS.<name>
run_oomlint estimate -- python train_absl.py --model_name=EleutherAI/pythia-160m --batch_size=6 --bf16
expect_contains "absl-string-flag" "$OUT" "command word 3: --model_name=EleutherAI/pythia-160m"
expect_contains "absl-int-flag" "$OUT" "command word 4: --batch_size=6"
expect_contains "absl-bool-flag" "$OUT" "bf16 mixed precision         command word 5: --bf16"
run_oomlint estimate -- python train_absl.py --batch_size 7 --bf16=false
expect_contains "absl-defaults" "$OUT" "from --model_name default"
expect_contains "absl-bool-flag-off" "$OUT" "command word 5: --bf16=false (fp32, mixed precision off)"
run_oomlint estimate -- python train_absl.py --batch_size=many
expect_contains "absl-int-flag-refused" "$OUT" "--batch_size=many is not a whole number (the script would stop); the default stands"
# recursion, mutual recursion, nameless options and splats: an answer, never a crash
run_oomlint estimate -- python train_hostile.py --model gpt2
expect_rc "parameter-hostile-exit-0" 0
cd - >/dev/null || exit 1; OOMLINT=$SAVED_OOMLINT
# Training settings a JSON config hands train() through `**config["train_config"]`
# (issue 27, waveglow's shape; fixtures/estimate/splats/): the DataLoader's
# batch is the config's, apex's amp.initialize under `if fp16_run:` is fp16
# mixed precision when the config turns it on, its opt_level the parameter's
# default when the config has none; a config that is broken, a list or
# missing leaves the batch assumed.
G=fixtures/estimate/splats
SAVED_OOMLINT=$OOMLINT; OOMLINT=$OABS; cd $G || exit 1
run_oomlint estimate -- python train.py -c config.json
expect_contains "splat-config-batch" "$OUT" "train.py:36 batch_size, from config.json [\"train_config\"] [\"batch_size\"]: 12"
expect_contains "splat-amp-o1" "$OUT" "amp.initialize(opt_level=\"O1\"): fp16 mixed precision, from opt_level=\"O1\" default (not in config.json [\"train_config\"])"
run_oomlint estimate -- python train.py -c config_off.json
expect_contains "splat-config-batch-other-file" "$OUT" "from config_off.json [\"train_config\"] [\"batch_size\"]: 3"
expect_contains "splat-amp-switched-off" "$OUT" "assumed: fp32 (no mixed precision found)"
run_oomlint estimate -- python train.py -c config_o0.json
expect_contains "splat-amp-o0-fp32" "$OUT" "assumed: fp32 (no mixed precision found)"
printf '{"train_config": {"batch_size": 12,\n' > "$T/bad.json" # not JSON: kept out of the linted fixtures
for bad in "$T/bad.json" list.json missing.json; do
    run_oomlint estimate -- python train.py -c "$bad"
    expect_rc "splat-hostile-$(basename "$bad")-exit-0" 0
    expect_contains "splat-hostile-$(basename "$bad")-batch-assumed" "$OUT" "assumed: batch 8"
done
cd - >/dev/null || exit 1; OOMLINT=$SAVED_OOMLINT
# Words that only run the command after them, and the project's console
# scripts (issue 27; fixtures/estimate/wrappers/): VAR=value and env
# prefixes, poetry run, pyproject.toml's [tool.poetry.scripts] and setup.py's
# console_scripts run as `python -m MODULE`; one naming a missing module is
# said, never a crash.
G=fixtures/estimate/wrappers
SAVED_OOMLINT=$OOMLINT; OOMLINT=$OABS; SAVED_PWD=$PWD; cd $G || exit 1
run_oomlint estimate -- CUDA_VISIBLE_DEVICES=0 python pkg/train.py
expect_contains "wrapper-assignment-prefix" "$OUT" "pkg/train.py:11 AutoModelForCausalLM.from_pretrained(\"gpt2\")"
expect_contains "wrapper-assignment-prefix-noted" "$OUT" "command word 2: the command runs after \`CUDA_VISIBLE_DEVICES=0\`, which only sets its environment"
run_oomlint estimate -- env PYTHONPATH=. python pkg/train.py --batch_size 3
expect_contains "wrapper-env-arguments-bound" "$OUT" "command word 5: --batch_size 3"
run_oomlint estimate -- poetry run tiny-train --batch_size 4
expect_contains "wrapper-poetry-console-script" "$OUT" "tiny-train is a console script of the project: it runs the module pkg.train"
expect_contains "wrapper-console-script-arguments" "$OUT" "command word 4: --batch_size 4"
run_oomlint estimate -- poetry run broken-train
expect_rc "wrapper-console-script-missing-exit-2" 2
expect_contains "wrapper-console-script-missing-said" "$ERR" "pkg/missing.py does not exist"
run_oomlint estimate -- env
expect_rc "wrapper-env-alone-exit-2" 2
# `python -m` in a src/ layout, directly and through a console script
run_oomlint estimate -- python -m srcpkg.train --batch_size 9
expect_contains "module-src-layout" "$OUT" "src/srcpkg/train.py:11 AutoModelForCausalLM.from_pretrained(\"gpt2\")"
expect_contains "module-src-layout-arguments" "$OUT" "command word 4: --batch_size 9"
run_oomlint estimate -- src-train
expect_contains "console-script-src-layout" "$OUT" "src/srcpkg/train.py:9 per_device_train_batch_size"
run_oomlint estimate -- python -m nothere.train
expect_rc "module-missing-exit-2" 2
expect_contains "module-missing-said" "$ERR" "nothere/train.py does not exist"
cd setuppy || exit 1
run_oomlint estimate -- tool-train --batch_size 5
expect_contains "wrapper-setup-py-console-script" "$OUT" "tool-train is a console script of the project: it runs the module tool.train"
expect_contains "wrapper-setup-py-arguments" "$OUT" "command word 2: --batch_size 5"
cd "$SAVED_PWD" || exit 1; OOMLINT=$SAVED_OOMLINT
# imports that reach nothing sizable end in the model unknown, never a crash:
# a models file over the 1 MiB bound, a module that is a symlink loop, a
# package that re-exports from itself
mkdir -p "$T/hostile/pkg" && cd "$T/hostile" || exit 1
{ printf 'import torch.nn as nn\nclass Big(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.fc = nn.Linear(2, 2)\n'
  i=0; while [ $i -lt 40000 ]; do printf '# padding line to make the file larger than a models file oomlint reads\n'; i=$((i+1)); done; } > big.py
ln -sf loop.py loop.py
printf 'from .pkg import Self\n' > pkg/__init__.py
printf 'from big import Big\nfrom loop import Loop\nfrom pkg import Self\nimport torch\nmodel = Big() if torch.cuda.is_available() else Loop()\nother = Self()\nmodel(1).backward()\n' > train.py
cd - >/dev/null || exit 1
run_oomlint estimate "$T/hostile/train.py"
expect_rc "import-hostile-exit-2" 2
expect_contains "import-hostile-stays-unknown" "$ERR" "no model to size"
# the capacity rules stay quiet on a script-defined model (rough activations)
run_oomlint --extend-select OOM601 --format concise --isolated --gpu t4 fixtures/estimate/small_transformer.py
expect_not_contains "module-no-capacity-finding" "$OUT" "OOM60"
# The fix plan's last step: a smaller model of the same family (issue 16, item 5).
# On a T4 (14.7 GiB as PyTorch sees it, 13.3 GiB at 90%) QLoRA alone leaves
# Llama-2-13b at about 13.5 GiB; with gradient checkpointing it fits, and the plan
# keeps checkpointing rather than drop to the 7b (a cheaper step is never traded
# for a smaller model).
run_oomlint estimate --model meta-llama/Llama-2-70b-hf --gpu T4 --batch-size 1 --seq-len 512 --precision bf16
expect_contains "plan-smaller-model-of-family" "$OUT" "gradient_checkpointing=True; load the base model in 4 bits (BitsAndBytesConfig(load_in_4bit=True), QLoRA); a smaller model of the same family: meta-llama/Llama-2-13b-hf (13.02B parameters against 68.98B) -> about 9.0 GiB"
run_oomlint estimate --model Qwen/Qwen2.5-7B --gpu T4 --batch-size 1 --seq-len 512 --precision bf16
expect_not_contains "plan-keeps-model-when-toolbox-enough" "$OUT" "smaller model"

# A frozen Hugging Face base: only the head trains (issue 16, item 8)
cat > "$T/frozen.py" <<'PY'
from transformers import AutoModelForSequenceClassification, Trainer, TrainingArguments
model = AutoModelForSequenceClassification.from_pretrained("bert-base-uncased", num_labels=5)
for p in model.bert.parameters():
    p.requires_grad = False
Trainer(model=model, args=TrainingArguments(output_dir="o", per_device_train_batch_size=32)).train()
PY
run_oomlint estimate "$T/frozen.py" --gpu T4
expect_contains "frozen-base-provenance" "$OUT" "frozen.py:3 model.bert frozen, only the head trains (\`classifier\`, 5 labels): 3845 trainable params"
expect_contains "frozen-base-no-gradients" "$OUT" "G gradients              0.00 GiB"

# Inference-only scripts: weights, one step's activations, generate()'s KV cache (issue 16, item 7)
cat > "$T/generate.py" <<'PY'
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer
tok = AutoTokenizer.from_pretrained("meta-llama/Llama-3.1-8B")
model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.1-8B", torch_dtype=torch.bfloat16)
inputs = tok(prompts, return_tensors="pt", max_length=1024, truncation=True)
with torch.no_grad():
    out = model.generate(**inputs, max_new_tokens=512)
PY
run_oomlint estimate "$T/generate.py" --gpu T4 --batch-size 4
expect_contains "inference-title" "$OUT" "Peak GPU memory per GPU (inference): meta-llama/Llama-3.1-8B"
expect_contains "inference-kv-cache" "$OUT" "K KV cache               0.75 GiB"
expect_contains "inference-mode-provenance" "$OUT" "generate.py:7 generate(max_new_tokens=512): KV cache for 1024 + 512 positions"
expect_not_contains "inference-no-optimizer-input" "$OUT" "assumed: AdamW"
# 16.8 GiB: 8-bit weights alone fit (halving the 4 prompts saves 1.2 GiB, not enough)
expect_contains "inference-plan-8bit" "$OUT" "To fit under 90%: 8-bit weights: BitsAndBytesConfig(load_in_8bit=True) (about "
expect_not_contains "inference-plan-no-trainer-batch" "$OUT" "per_device_train_batch_size"
run_oomlint estimate "$T/generate.py" --gpu T4 --batch-size 4 --format json
kv=$(printf '%s' "$OUT" | jq -r '.bytes.kv_cache, .inputs.mode.value' 2>/dev/null | tr '\n' ' ')
if [ "$kv" = "805306368 inference, generate() " ]; then pass "inference-json"; else fail "inference-json" "got $kv"; fi
run_oomlint estimate "$T/train.py" --gpu a100-80gb --format json
m=$(printf '%s' "$OUT" | jq -r '.inputs.mode.value, .bytes.kv_cache' 2>/dev/null | tr '\n' ' ')
if [ "$m" = "training 0 " ]; then pass "training-mode-json"; else fail "training-mode-json" "got $m"; fi

# The inference plan: what an inference user changes, each step with the estimate it
# reaches; the batch read from the prompts (issue 16, item 7)
cat > "$T/prompts.py" <<'PY'
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer
tok = AutoTokenizer.from_pretrained("meta-llama/Llama-2-13b-hf")
model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-13b-hf").cuda()
questions = ["What is a GPU?", "What is a TPU?"] * 8
enc = tok(questions, return_tensors="pt", padding=True, max_length=512, truncation=True).to("cuda")
with torch.no_grad():
    out = model.generate(**enc, max_new_tokens=512)
PY
run_oomlint estimate "$T/prompts.py" --gpu a100-80gb
expect_contains "inference-batch-from-prompts" "$OUT" "prompts.py:6 16 prompts given to the tokenizer"
expect_not_contains "inference-no-trainer-default" "$OUT" "the Trainer's default"
# fp32 13b (48.5 GiB) and a 16 x 1024 fp32 cache (25 GiB) on 80 GB: fewer prompts per call
expect_contains "inference-plan-fewer-prompts" "$OUT" "To fit under 90%: 8 prompts per generate() call, the 16 in 2 calls (about "
expect_not_contains "inference-plan-no-accumulation" "$OUT" "gradient_accumulation_steps"
run_oomlint estimate "$T/prompts.py" --gpu t4 --num-gpus 2
expect_contains "inference-plan-prompts-16bit-split" "$OUT" "1 prompt per generate() call, the 16 in 16 calls (about 50.7 GiB); then 16-bit weights: torch_dtype=torch.float16 (about 25.5 GiB); then split the model over the 2 GPUs: device_map=\"auto\" (about "
run_oomlint --extend-select OOM601 --gpu t4 --format concise "$T/prompts.py"
expect_contains "inference-oom601" "$OUT" "prompts.py:4:46: OOM601 estimated peak"
# no torch_dtype: fp32 under transformers 4, the checkpoint's 16 bits under 5; judged at the lesser
expect_contains "inference-oom601-message" "$OUT" "(meta-llama/Llama-2-13b-hf for inference: 24.2 GiB of 16-bit weights at least (no torch_dtype given) + 12.5 GiB of KV cache for batch 16 x 1024 positions)"
run_oomlint estimate "$T/prompts.py" --gpu a100-80gb --max-batch
expect_contains "inference-max-batch-prompts" "$OUT" "Most prompts per generate() call within 90% of the NVIDIA A100 80 GB: "
expect_not_contains "inference-max-batch-no-accumulation" "$OUT" "gradient_accumulation_steps"
# one prompt assumed where the prompts come from a file, worded for inference
cat > "$T/from_file.py" <<'PY'
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer
tok = AutoTokenizer.from_pretrained("gpt2")
model = AutoModelForCausalLM.from_pretrained("gpt2").cuda()
lines = open("prompts.txt").read().splitlines()
with torch.no_grad():
    out = model.generate(**tok(lines, return_tensors="pt", padding=True).to("cuda"), max_new_tokens=64)
PY
run_oomlint estimate "$T/from_file.py" --gpu t4
expect_contains "inference-assumed-one-prompt" "$OUT" "assumed: batch 1 (one prompt per generate() call: no list of prompts or batch_size found)"
expect_contains "inference-assumed-prompt-length" "$OUT" "assumed: prompts of 512 tokens (no max_length found)"
# a Colab-style notebook: the finding in the cell that loads the model
cat > "$T/colab.ipynb" <<'NB'
{"cells": [{"cell_type": "code", "metadata": {}, "execution_count": null, "outputs": [], "source": ["!pip install transformers\n"]},
 {"cell_type": "code", "metadata": {}, "execution_count": null, "outputs": [], "source": ["import torch\n", "from transformers import AutoModelForCausalLM, AutoTokenizer\n", "tok = AutoTokenizer.from_pretrained(\"meta-llama/Llama-2-13b-hf\")\n", "model = AutoModelForCausalLM.from_pretrained(\"meta-llama/Llama-2-13b-hf\", torch_dtype=torch.float16).to(\"cuda\")\n"]},
 {"cell_type": "code", "metadata": {}, "execution_count": null, "outputs": [], "source": ["inputs = tok(\"Hello\", return_tensors=\"pt\").to(\"cuda\")\n", "with torch.no_grad():\n", "    out = model.generate(**inputs, max_new_tokens=200)\n"]}],
 "metadata": {"kernelspec": {"name": "python3", "language": "python"}}, "nbformat": 4, "nbformat_minor": 5}
NB
run_oomlint --extend-select OOM601 --gpu t4 --format concise "$T/colab.ipynb"
expect_contains "inference-notebook-oom601" "$OUT" "colab.ipynb:cell 2:4:46: OOM601 estimated peak 25.2 GiB per GPU exceeds the NVIDIA Tesla T4 16 GB's 14.7 GiB (meta-llama/Llama-2-13b-hf for inference: 24.2 GiB of 16-bit weights + 0.5 GiB of KV cache for batch 1 x 712 positions)"
# left on the CPU, or placed by accelerate: not judged
sed 's/).cuda()/)/' "$T/prompts.py" > "$T/cpu.py"
sed 's/).cuda()/, device_map="auto")/' "$T/prompts.py" > "$T/auto.py"
run_oomlint --extend-select OOM601 --gpu t4 --format concise "$T/cpu.py" "$T/auto.py"
expect_rc "inference-cpu-and-device-map-auto-quiet" 0

# FSDP shards over the GPUs the launch gives: no capacity finding without a GPU count
cat > "$T/fsdp.py" <<'PY'
from torch.distributed.fsdp import fully_shard
from transformers import AutoModelForCausalLM
model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.1-8B")
fully_shard(model)
for batch in loader:
    model(**batch).loss.backward()
PY
run_oomlint --gpu v100 --select OOM601 --format concise "$T/fsdp.py"
expect_not_contains "fsdp-quiet-without-gpu-count" "$OUT" "OOM601"
run_oomlint --gpu v100 --num-gpus 2 --select OOM601 --format concise "$T/fsdp.py"
expect_contains "fsdp-checked-with-gpu-count" "$OUT" "OOM601"
