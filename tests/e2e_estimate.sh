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
if xmllint --noout "$T/plot.svg" 2>/dev/null && grep -q "capacity 16 GiB" "$T/plot.svg"; then
    pass "estimate-plot-svg"
else
    fail "estimate-plot-svg" "not a valid SVG with the capacity line"
fi

run_oomlint estimate --model meta-llama/Llama-2-7b-hf --gpu a100-80gb --batch-size 8 --seq-len 2048
expect_contains "estimate-model-flag-oom" "$OUT" "out of memory"
expect_contains "estimate-fix-plan" "$OUT" "To fit under 90%:"

run_oomlint estimate --model no-such/model --gpu a100-80gb
expect_rc "estimate-unknown-model-exit-2" 2
run_oomlint estimate "$T" --gpu a100-80gb
expect_rc "estimate-folder" 0

# the capacity rules in check
run_oomlint --format concise --isolated --gpu t4 "$T/train.py"
expect_contains "oom601-on-a-t4" "$OUT" "OOM601"
run_oomlint --format concise --isolated --gpu h200 "$T/train.py"
expect_not_contains "no-oom601-on-an-h200" "$OUT" "OOM60"
run_oomlint --format concise --isolated "$T/train.py"
expect_not_contains "no-capacity-finding-without-a-gpu" "$OUT" "OOM60"
printf 'from transformers import AutoModelForCausalLM\nmodel = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf")\n' > "$T/load_only.py"
run_oomlint --format concise --isolated --gpu t4 "$T/load_only.py"
expect_not_contains "no-oom601-for-a-script-that-does-not-train" "$OUT" "OOM601"
