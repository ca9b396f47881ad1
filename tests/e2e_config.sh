#!/bin/sh
# End-to-end tests of the target GPU and the project configuration:
# `oomlint gpus`, --gpu / --num-gpus, [tool.oomlint] in the nearest
# pyproject.toml (gpu, num-gpus, select, ignore, exclude, extend-exclude,
# per-file-ignores), --config FILE, --isolated, and the errors (exit 2 with
# FILE:LINE:COL:) for bad keys, bad values and invalid TOML.
# Run from the repository root:
#   sh tests/e2e_config.sh                              (tests build/oomlint)
#   OOMLINT=build/asan/oomlint sh tests/e2e_config.sh   (tests another build)
# Each check prints one line: "PASS name", "FAIL name: why" or "SKIP name: why";
# the script exits 0 whatever the results (tests/run.sh counts the lines).

. tests/lib.sh



# expect_match NAME TEXT ERE : some line of TEXT matches the extended regex.
expect_match() {
    if printf '%s\n' "$2" | grep -Eq -- "$3"; then
        pass "$1"
    else
        fail "$1" "no line matches /$3/; got: $(printf '%s' "$2" | head -c 400)"
    fi
}

# expect_findings NAME WANT : the concise report ($OUT, messages cut after the
# code) is exactly WANT, one `path:line:col: CODE` a line, in oomlint's order.
expect_findings() {
    _got="$(printf '%s\n' "$OUT" | sed -n 's/^\([^ ]*:[0-9]*:[0-9]*: OOM[0-9]*\) .*/\1/p')"
    if [ "$_got" = "$2" ]; then
        pass "$1"
    else
        fail "$1" "want [$(printf '%s' "$2" | tr '\n' ' ')] got [$(printf '%s' "$_got" | tr '\n' ' ')] rc $RC; stderr: $(head -c 200 "$TEST_TMP/err")"
    fi
}

# pyproject FILE LINE... : writes FILE, one argument a line.
pyproject() {
    _f="$1"; shift
    : > "$_f"
    for _l in "$@"; do printf '%s\n' "$_l" >> "$_f"; done
}

T="$TEST_TMP/work"
mkdir -p "$T"
cd "$T" || exit 0

# ------------------------------------------------------------------ oomlint gpus

run_oomlint gpus
expect_rc gpus-rc-0 0
n_gpus="$(printf '%s\n' "$OUT" | grep -Ec '^[a-z0-9][a-z0-9.-]*[[:space:]]+([0-9]+ GiB|host)')"
if [ "$n_gpus" -ge 25 ]; then pass gpus-at-least-25; else fail gpus-at-least-25 "$n_gpus rows"; fi
for name in v100 v100-32gb a100 a100-80gb h100 h200 t4 l4 mi300x mi250x; do
    expect_match "gpus-names-$name" "$OUT" "(^|[[:space:],])$name(,|[[:space:]]|\$)"
done
# the bare names mean the smaller memory size, and the listing says so
expect_match gpus-bare-v100-is-16gb "$OUT" '^[a-z0-9-]+[[:space:]]+16 GiB.*[[:space:],]v100(,|$)'
expect_match gpus-bare-a100-is-40gb "$OUT" '^[a-z0-9-]+[[:space:]]+40 GiB.*[[:space:],]a100(,|$)'
expect_match gpus-says-bare-v100-smaller "$OUT" 'v100.*smaller|smaller.*v100'
expect_match gpus-says-bare-a100-smaller "$OUT" 'a100.*smaller|smaller.*a100'
header="$(printf '%s\n' "$OUT" | head -n 1)"
for col in bf16 tf32 fp8 FA2 fp16; do
    expect_contains "gpus-column-$col" "$header" "$col"
done

# ------------------------------------------------------------------ --gpu / --num-gpus

mkdir -p proj
cat > proj/train.py <<'EOF'
import torch
from transformers import TrainingArguments

args = TrainingArguments(output_dir="out", per_device_train_batch_size=8, bf16=True)
EOF
cat > proj/ds_config.json <<'EOF'
{
  "train_micro_batch_size_per_gpu": 8,
  "bf16": {"enabled": true},
  "zero_optimization": {"stage": 2}
}
EOF
cat > proj/package.json <<'EOF'
{"name": "dashboard", "version": "1.0.0", "bf16": {"enabled": true}}
EOF
PROJ_V100="proj/ds_config.json:3:3: OOM401
proj/train.py:4:75: OOM401"

run_oomlint --format concise --isolated --gpu v100 proj
expect_rc gpu-flag-rc-1 1
expect_findings gpu-flag-findings-in-py-and-json "$PROJ_V100"
expect_contains gpu-flag-message-names-gpu "$OUT" "V100"

run_oomlint --format concise --isolated --gpu tesla-v100-sxm2-32gb proj
expect_findings gpu-flag-long-alias "$PROJ_V100"

run_oomlint --format concise --isolated --gpu V100 proj
expect_findings gpu-flag-case-insensitive "$PROJ_V100"

run_oomlint --format concise --isolated proj
expect_rc no-gpu-hardware-rules-silent 0

run_oomlint --format concise --isolated --gpu a100-80gb proj
expect_rc gpu-flag-ampere-quiet 0

run_oomlint --isolated --gpu a1OO proj
expect_rc gpu-typo-rc-2 2
expect_contains gpu-typo-names-input "$ERR" "a1OO"
expect_contains gpu-typo-suggests-a100 "$ERR" "a100"
expect_not_contains gpu-typo-no-report "$OUT" "OOM401"

run_oomlint --isolated --gpu v100 --num-gpus 8 proj
expect_rc num-gpus-accepted 1
run_oomlint --isolated --gpu v100 --num-gpus two proj
expect_rc num-gpus-not-a-number-rc-2 2
run_oomlint --isolated --gpu v100 --num-gpus 0 proj
expect_rc num-gpus-zero-rc-2 2

# ------------------------------------------------------------------ [tool.oomlint] gpu

pyproject proj/pyproject.toml '[project]' 'name = "demo"' '' '[tool.oomlint]' 'gpu = "v100"'
run_oomlint --format concise proj
expect_rc pyproject-gpu-rc-1 1
expect_findings pyproject-gpu-findings-in-py-and-json "$PROJ_V100"

run_oomlint --format concise proj/train.py
expect_findings pyproject-gpu-for-a-file-path "proj/train.py:4:75: OOM401"

(cd proj && "$OOMLINT" --format concise . >"$TEST_TMP/out" 2>"$TEST_TMP/err" </dev/null)
OUT="$(cat "$TEST_TMP/out")"
expect_findings pyproject-gpu-from-inside "ds_config.json:3:3: OOM401
train.py:4:75: OOM401"

run_oomlint --format concise --gpu a100-80gb proj
expect_rc pyproject-gpu-overridden-by-flag 0

run_oomlint --format concise --gpu t4 proj
expect_contains pyproject-gpu-flag-wins "$OUT" "T4"
expect_not_contains pyproject-gpu-flag-wins-not-v100 "$OUT" "V100"

run_oomlint --format concise --isolated proj
expect_rc pyproject-isolated-ignored 0

pyproject other.toml '[tool.oomlint]' 'gpu = "t4"'
run_oomlint --format concise --config other.toml proj
expect_rc config-file-rc-1 1
expect_contains config-file-gpu-read "$OUT" "T4"
expect_not_contains config-file-replaces-pyproject "$OUT" "V100"

pyproject other-a100.toml '[tool.oomlint]' 'gpu = "a100-80gb"'
run_oomlint --format concise --config other-a100.toml proj
expect_rc config-file-a100-quiet 0

run_oomlint --format concise --config missing.toml proj
expect_rc config-file-missing-rc-2 2
expect_contains config-file-missing-named "$ERR" "missing.toml"

pyproject bad-other.toml '[tool.oomlint]' 'gpus = "v100"'
run_oomlint --format concise --config bad-other.toml proj
expect_rc config-file-bad-key-rc-2 2
expect_contains config-file-bad-key-position "$ERR" "bad-other.toml:2:1:"

pyproject proj/pyproject.toml '[tool.oomlint]' 'gpu = "v100"' 'num-gpus = 4'
run_oomlint --format concise proj
expect_rc pyproject-num-gpus-accepted 1

# ------------------------------------------------------------------ nearest pyproject.toml

mkdir -p outer/pkg/sub
cp proj/train.py outer/pkg/sub/train.py
pyproject outer/pyproject.toml '[tool.oomlint]' 'gpu = "v100"'
run_oomlint --format concise outer/pkg/sub
expect_findings nearest-walks-up "outer/pkg/sub/train.py:4:75: OOM401"

# a pyproject.toml without [tool.oomlint] is passed over (and not validated)
pyproject outer/pkg/pyproject.toml '[project]' 'name = "pkg"' '' '[tool.ruff]' 'select = "E"' 'gpus = 1'
run_oomlint --format concise outer/pkg/sub
expect_rc no-section-pyproject-passed-over-rc 1
expect_findings no-section-pyproject-passed-over "outer/pkg/sub/train.py:4:75: OOM401"

mkdir -p plain
cp proj/train.py plain/train.py
pyproject plain/pyproject.toml '[project]' 'name = "plain"' 'version = "0.1"' '' '[tool.black]' 'line-length = 100'
run_oomlint --format concise plain
expect_rc no-section-pyproject-ignored 0

# the nearer [tool.oomlint] wins over the outer one
pyproject outer/pkg/pyproject.toml '[project]' 'name = "pkg"' '' '[tool.oomlint]' 'gpu = "a100-80gb"'
run_oomlint --format concise outer/pkg/sub
expect_rc nearest-wins 0

# several paths: the configuration comes from the first one
mkdir -p first second
cp proj/train.py first/train.py
cp proj/train.py second/train.py
pyproject first/pyproject.toml '[tool.oomlint]' 'gpu = "v100"'
pyproject second/pyproject.toml '[tool.oomlint]' 'gpu = "a100-80gb"'
run_oomlint --format concise first/train.py second/train.py
expect_findings first-path-config-v100 "first/train.py:4:75: OOM401
second/train.py:4:75: OOM401"
run_oomlint --format concise second/train.py first/train.py
expect_rc first-path-config-a100 0

# ------------------------------------------------------------------ select / ignore

mkdir -p sel/tests
cp proj/train.py sel/train.py
cat > sel/tests/test_eval.py <<'EOF'
import torch


def evaluate(model, loader):
    model.eval()
    for batch in loader:
        out = model(batch)
EOF
cp sel/tests/test_eval.py sel/eval.py

pyproject sel/pyproject.toml '[tool.oomlint]' 'gpu = "v100"'
run_oomlint --format concise sel
expect_findings sel-baseline "sel/eval.py:7:15: OOM301
sel/tests/test_eval.py:7:15: OOM301
sel/train.py:4:75: OOM401"

pyproject sel/pyproject.toml '[tool.oomlint]' 'gpu = "v100"' 'select = ["OOM3"]'
run_oomlint --format concise sel
expect_findings pyproject-select "sel/eval.py:7:15: OOM301
sel/tests/test_eval.py:7:15: OOM301"
run_oomlint --format concise --select OOM4 sel
expect_findings pyproject-select-overridden-by-flag "sel/train.py:4:75: OOM401"

pyproject sel/pyproject.toml '[tool.oomlint]' 'gpu = "v100"' 'ignore = ["OOM401"]'
run_oomlint --format concise sel
expect_findings pyproject-ignore "sel/eval.py:7:15: OOM301
sel/tests/test_eval.py:7:15: OOM301"
run_oomlint --format concise --ignore OOM301 sel
expect_findings pyproject-ignore-overridden-by-flag "sel/train.py:4:75: OOM401"

run_oomlint --format concise --isolated --gpu v100 --select OOM3 sel
expect_findings isolated-drops-pyproject-ignore "sel/eval.py:7:15: OOM301
sel/tests/test_eval.py:7:15: OOM301"

# extend-select turns an opt-in rule on over the defaults
mkdir -p ext
cat > ext/loop.py <<'EOF'
import torch.nn.functional as F


def train(model, loader, optimizer):
    losses = []
    for x, y in loader:
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss)
EOF
pyproject ext/pyproject.toml '[tool.oomlint]' 'extend-select = ["OOM201"]'
run_oomlint --format concise ext
expect_findings pyproject-extend-select "ext/loop.py:10:9: OOM201"
run_oomlint --format concise --isolated ext
expect_findings isolated-drops-pyproject-extend-select ""
pyproject ext/pyproject.toml '[tool.oomlint]' 'extend-select = ["OOM201"]' 'ignore = ["OOM201"]'
run_oomlint --format concise ext
expect_findings pyproject-ignore-beats-extend-select-on-a-tie ""

# ------------------------------------------------------------------ exclude / extend-exclude

pyproject sel/pyproject.toml '[tool.oomlint]' 'gpu = "v100"' 'exclude = ["tests"]'
run_oomlint --format concise sel
expect_findings pyproject-exclude-folder "sel/eval.py:7:15: OOM301
sel/train.py:4:75: OOM401"

pyproject sel/pyproject.toml '[tool.oomlint]' 'gpu = "v100"' 'extend-exclude = ["eval*.py"]'
run_oomlint --format concise sel
expect_findings pyproject-extend-exclude-basename-glob "sel/tests/test_eval.py:7:15: OOM301
sel/train.py:4:75: OOM401"

# a glob with a folder in it is relative to the pyproject.toml's folder,
# wherever oomlint is run from (as per-file-ignores are)
pyproject sel/pyproject.toml '[tool.oomlint]' 'gpu = "v100"' 'extend-exclude = ["tests/*.py"]'
run_oomlint --format concise sel
expect_findings pyproject-extend-exclude-path-glob "sel/eval.py:7:15: OOM301
sel/train.py:4:75: OOM401"

pyproject sel/pyproject.toml '[tool.oomlint]' 'gpu = "v100"' 'extend-exclude = ["*.json", "tests"]'
run_oomlint --format concise proj sel
expect_contains pyproject-extend-exclude-not-applied-to-other-config "$OUT" "proj/ds_config.json:3:3: OOM401"

# ------------------------------------------------------------------ per-file-ignores

pyproject sel/pyproject.toml '[tool.oomlint]' 'gpu = "v100"' '' '[tool.oomlint.per-file-ignores]' '"tests/*" = ["OOM301"]'
run_oomlint --format concise sel
expect_findings per-file-ignores-only-matching "sel/eval.py:7:15: OOM301
sel/train.py:4:75: OOM401"

(cd sel && "$OOMLINT" --format concise . >"$TEST_TMP/out" 2>"$TEST_TMP/err" </dev/null)
OUT="$(cat "$TEST_TMP/out")"
expect_findings per-file-ignores-from-inside "eval.py:7:15: OOM301
train.py:4:75: OOM401"

pyproject proj/pyproject.toml '[tool.oomlint]' 'gpu = "v100"' '' '[tool.oomlint.per-file-ignores]' '"*.json" = ["OOM401"]'
run_oomlint --format concise proj
expect_findings per-file-ignores-json "proj/train.py:4:75: OOM401"

pyproject proj/pyproject.toml '[tool.oomlint]' 'gpu = "v100"' '' '[tool.oomlint.per-file-ignores]' '"train.py" = ["OOM4"]'
run_oomlint --format concise proj
expect_findings per-file-ignores-prefix "proj/ds_config.json:3:3: OOM401"

# ------------------------------------------------------------------ errors: exit 2 with FILE:LINE:COL:

mkdir -p bad
cp proj/train.py bad/train.py

# bad_config NAME LINE5 ERE : the fifth line of [tool.oomlint] is LINE5;
# oomlint must exit 2 and name pyproject.toml:LINE:COL: matching ERE.
bad_config() {
    pyproject bad/pyproject.toml '[project]' 'name = "demo"' '' '[tool.oomlint]' "$2"
    run_oomlint --format concise bad
    expect_rc "$1-rc-2" 2
    expect_match "$1-position" "$ERR" "$3"
    expect_not_contains "$1-no-report" "$OUT" "OOM401"
}

bad_config bad-key 'gpus = "v100"' 'pyproject\.toml:5:1: '
bad_config bad-value-num-gpus 'num-gpus = "two"' 'pyproject\.toml:5:(1|12): '
bad_config bad-value-num-gpus-zero 'num-gpus = 0' 'pyproject\.toml:5:(1|12): '
bad_config bad-value-select-string 'select = "OOM1"' 'pyproject\.toml:5:(1|10): '
bad_config bad-value-select-code 'select = ["foo!"]' 'pyproject\.toml:5:(1|10|11): '
bad_config bad-value-extend-select-code 'extend-select = ["foo!"]' 'pyproject\.toml:5:(1|17|18): '
bad_config bad-value-gpu-type 'gpu = 100' 'pyproject\.toml:5:(1|7): '
bad_config bad-gpu-name 'gpu = "a1OO"' 'pyproject\.toml:5:(1|7): '
expect_contains bad-gpu-name-suggests "$ERR" "a100"
bad_config bad-per-file-ignores 'per-file-ignores = 3' 'pyproject\.toml:5:(1|20): '
bad_config invalid-toml 'gpu = "v100' 'pyproject\.toml:5:[0-9]+: '

pyproject bad/pyproject.toml '[tool.oomlint]' 'gpu = "v100"' '' '[tool.oomlint.per-file-ignores]' '"tests/*" = "OOM301"'
run_oomlint --format concise bad
expect_rc bad-per-file-ignores-value-rc-2 2
expect_match bad-per-file-ignores-value-position "$ERR" 'pyproject\.toml:5:(1|13): '

# --isolated does not even read a broken pyproject.toml
pyproject bad/pyproject.toml '[tool.oomlint]' 'gpus = "v100"'
run_oomlint --format concise --isolated --gpu v100 bad
expect_rc isolated-skips-broken-pyproject 1

cd "$ROOT" || true
exit 0
