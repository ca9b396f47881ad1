#!/bin/sh
# The project pass end to end: for each fixtures/projects/<name> with an
# expected-cli.txt, `oomlint --format concise <folder>` must report exactly
# those `path:line:col: CODE` lines (findings that need several files, which
# the file-by-file fixture runner cannot see), with the GPU of gpu.txt and the
# opt-in rules of extend-select.txt where the fixture has them. Same PASS/FAIL protocol.
. tests/lib.sh
for expected in fixtures/projects/*/expected-cli.txt; do
    [ -f "$expected" ] || continue
    dir=$(dirname "$expected")
    name=$(basename "$dir")
    gpu=""
    [ -f "$dir/gpu.txt" ] && gpu="--gpu $(cat "$dir/gpu.txt")"
    # opt-in rules the fixture is about (extend-select.txt: OOM202)
    extend=""
    [ -f "$dir/extend-select.txt" ] && extend="--extend-select $(cat "$dir/extend-select.txt")"
    # shellcheck disable=SC2086
    "$OOMLINT" --format concise --quiet --isolated $gpu $extend "$dir" 2>"$TEST_TMP/err" </dev/null |
        sed 's/: OOM\([0-9]*\) .*/: OOM\1/' > "$TEST_TMP/got"
    if diff -u "$expected" "$TEST_TMP/got" > "$TEST_TMP/diff"; then
        pass "project-$name"
    else
        fail "project-$name" "$(tr '\n' ' ' < "$TEST_TMP/diff" | head -c 600)"
    fi
done

# look-alikes that must stay quiet
T="$TEST_TMP/quiet"
mkdir -p "$T"
printf 'from transformers import TrainingArguments\nkw = dict(fp16=True)\nargs = TrainingArguments(output_dir="o", deepspeed="ds.json", **kw)\n' > "$T/kwargs.py"
printf '{"train_micro_batch_size_per_gpu": 64, "fp16": {"enabled": true}}\n' > "$T/ds.json"
printf 'from transformers import TrainingArguments\nargs = TrainingArguments(output_dir="o", deepspeed="not_written_yet.json")\n' > "$T/missing.py"
# **cfg from yaml.safe_load, when the script opens two YAML files: which one feeds
# the call is not known, so nothing is compared
printf 'per_device_train_batch_size: 64\n' > "$T/a.yaml"
printf 'per_device_train_batch_size: 2\n' > "$T/b.yaml"
printf 'import yaml\nfrom transformers import TrainingArguments\ncfg = yaml.safe_load(open("a.yaml"))\nother = yaml.safe_load(open("b.yaml"))\nargs = TrainingArguments(**cfg, deepspeed="ds.json")\n' > "$T/two_yamls.py"
run_oomlint --format concise --isolated "$T"
expect_rc "project-kwargs-and-missing-file-quiet" 0
expect_not_contains "project-no-oom405-on-look-alikes" "$OUT" "OOM405"

# a size in the message where it can be known: OOM302 with the eval batch,
# the sequence length and the model's vocabulary (gpt2: 50257)
cat > "$T/lm.py" <<'PY'
from transformers import AutoModelForCausalLM, Trainer, TrainingArguments
model = AutoModelForCausalLM.from_pretrained("gpt2")
args = TrainingArguments(output_dir="o", per_device_eval_batch_size=16, eval_accumulation_steps=4)
tok = dict(max_length=1024)
trainer = Trainer(model=model, args=args, compute_metrics=lambda p: {})
PY
run_oomlint --format concise --isolated "$T/lm.py"
expect_contains "oom302-names-the-logits-size" "$OUT" "(logits of 16 × 1024 × 50257 fp32 values = 3.1 GiB per eval step)"
