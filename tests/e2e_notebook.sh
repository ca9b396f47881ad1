#!/bin/sh
# End-to-end tests of Jupyter notebooks (.ipynb): positions in every output
# format (cell, row and column where the format has room for them; the .ipynb
# line and the cell in the message where its positions are file lines), the
# code frame showing the cell's line as written, folder walks that skip
# .ipynb_checkpoints, stdin, suppressions across cells, --diff-base on a
# notebook, notebooks made large by their outputs, and other kernels' notebooks.
# Broken notebooks are in tests/e2e_hostile.sh.
# Run from the repository root:
#   sh tests/e2e_notebook.sh                              (tests build/oomlint)
#   OOMLINT=build/asan/oomlint sh tests/e2e_notebook.sh   (tests another build)
# Same PASS/FAIL protocol as tests/e2e.sh (see tests/lib.sh).

. tests/lib.sh

# OOM201 and OOM202 are opt-in; their fixtures are these tests' examples of fixes
# and reports, so every run here turns them on.
EXAMPLE_RULES="--extend-select OOM201,OOM202"

T="$TEST_TMP"
N="$T/nb"
mkdir -p "$N"

# jqf NAME FILE FILTER [jq options...] : the jq FILTER yields true on FILE.
jqf() {
    _n="$1"; _f="$2"; _q="$3"; shift 3
    if [ "$(jq "$@" "$_q" "$_f" 2>/dev/null)" = true ]; then pass "$_n"
    else fail "$_n" "jq '$_q' is not true; got: $(head -c 400 "$_f" 2>/dev/null)"; fi
}

# lint ARGS... : runs oomlint in $N; stdout in $N.out (and $OUT), status in $RC.
lint() {
    (cd "$N" && "$OOMLINT" $EXAMPLE_RULES "$@" >"$T/out" 2>"$T/err" </dev/null)
    RC=$?
    OUT="$(cat "$T/out")"
}

# line_of FILE TEXT : the line of FILE that holds TEXT (the first).
line_of() { grep -n -F -- "$2" "$1" | head -1 | cut -d: -f1; }

# ---- the notebook most checks lint ------------------------------------------------
# Cell 1 is markdown; cell 2 pins the GPU with %env (OOM101 at cell 2:4:1);
# cell 3 keeps losses with their graphs (OOM201 at cell 3:6:9); cell 4 is
# bash whose text looks like the same bug.
cat >"$N/finetune.ipynb" <<'EOF'
{
 "cells": [
  {
   "cell_type": "markdown",
   "metadata": {},
   "source": [
    "# Fine-tune\n",
    "`losses.append(loss)` in prose is not code."
   ]
  },
  {
   "cell_type": "code",
   "execution_count": 1,
   "metadata": {},
   "outputs": [],
   "source": [
    "%pip install -q torch\n",
    "!nvidia-smi\n",
    "import torch\n",
    "%env CUDA_VISIBLE_DEVICES=0"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": 2,
   "metadata": {},
   "outputs": [
    {
     "name": "stdout",
     "output_type": "stream",
     "text": [
      "losses.append(loss)\n"
     ]
    }
   ],
   "source": [
    "def train(model, loader, criterion):\n",
    "    losses = []\n",
    "    for x, y in loader:\n",
    "        loss = criterion(model(x), y)\n",
    "        loss.backward()\n",
    "        losses.append(loss)\n",
    "    return losses"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": 3,
   "metadata": {},
   "outputs": [],
   "source": "%%bash\nfor x in 1 2; do\n    losses.append(loss)\ndone\n"
  }
 ],
 "metadata": {
  "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
  "language_info": {"name": "python"}
 },
 "nbformat": 4,
 "nbformat_minor": 5
}
EOF
ENV_LINE="$(line_of "$N/finetune.ipynb" '"%env CUDA_VISIBLE_DEVICES=0"')"
LOOP_LINE="$(line_of "$N/finetune.ipynb" '"        losses.append(loss)\n"')"
write_samples "$N"   # cuda.py: OOM101 at 2:1, in the same runs as the notebook

# ---- text formats ------------------------------------------------------------------------
lint --format concise finetune.ipynb
expect_rc concise-rc 1
expect_contains concise-env-magic-in-cell-2 "$OUT" "finetune.ipynb:cell 2:4:1: OOM101 \`CUDA_VISIBLE_DEVICES\` is hardcoded to \"0\""
expect_contains concise-loop-in-cell-3 "$OUT" "finetune.ipynb:cell 3:6:9: OOM201"
n=$(printf '%s\n' "$OUT" | grep -c 'OOM')
if [ "$n" = 2 ]; then pass concise-nothing-from-markdown-outputs-or-bash; else fail concise-nothing-from-markdown-outputs-or-bash "$n findings: $OUT"; fi

lint --format full --color never finetune.ipynb
expect_contains full-header-names-the-cell "$OUT" "finetune.ipynb:cell 3:6:9: OOM201"
expect_contains full-frame-shows-the-cell-row "$OUT" "6 |         losses.append(loss)"
expect_contains full-frame-shows-the-magic-as-written "$OUT" "4 | %env CUDA_VISIBLE_DEVICES=0"
expect_not_contains full-frame-never-shows-the-masked-text "$OUT" "os.environ["
expect_contains full-caret-under-the-append "$OUT" "  |         ^^^^^^^^^^^^^^^^^^^ OOM201"

lint --format pylint finetune.ipynb
expect_contains pylint-ipynb-line-and-cell "$OUT" "finetune.ipynb:$LOOP_LINE: [OOM201] cell 3:6:9: \`loss\` is stored"
expect_contains pylint-env-line "$OUT" "finetune.ipynb:$ENV_LINE: [OOM101] cell 2:4:1: "

# ---- JSON family -------------------------------------------------------------------------
lint --format json finetune.ipynb cuda.py
J="$T/out"
jqf json-parses "$J" 'type == "array" and length == 3'
jqf json-cell-and-cell-rows "$J" 'any(.[]; .code == "OOM201" and .cell == 3 and .location == {"row": 6, "column": 9} and .end_location == {"row": 6, "column": 28} and .noqa_row == 6)'
jqf json-env-magic-span-held-to-the-line "$J" 'any(.[]; .code == "OOM101" and .cell == 2 and .location == {"row": 4, "column": 1} and .end_location == {"row": 4, "column": 28})'
jqf json-file-cell-null "$J" 'any(.[]; .filename == "cuda.py" and .cell == null and .location.row == 2)'

lint --format json-lines finetune.ipynb
jqf json-lines-cell "$T/out" '[.[] | select(.cell == 3 and .location.row == 6)] | length == 1' -s

lint --format gitlab finetune.ipynb
jqf gitlab-ipynb-lines "$T/out" "any(.[]; .check_name == \"OOM201\" and .location.path == \"finetune.ipynb\" and .location.lines == {\"begin\": $LOOP_LINE, \"end\": $LOOP_LINE})"
jqf gitlab-description-names-cell "$T/out" 'any(.[]; .description | startswith("OOM201: cell 3:6:9: `loss` is stored"))'

lint --format rdjson finetune.ipynb
jqf rdjson-ipynb-line-no-column "$T/out" "any(.diagnostics[]; .code.value == \"OOM201\" and .location.range == {\"start\": {\"line\": $LOOP_LINE}, \"end\": {\"line\": $LOOP_LINE}})"
jqf rdjson-message-names-cell "$T/out" 'any(.diagnostics[]; .message | startswith("cell 2:4:1: "))'

lint --format sarif finetune.ipynb
S="$T/nb.sarif"
cp "$T/out" "$S"
jqf sarif-ipynb-region "$S" "any(.runs[0].results[]; .ruleId == \"OOM201\" and .locations[0].physicalLocation.region == {\"startLine\": $LOOP_LINE, \"endLine\": $LOOP_LINE})"
jqf sarif-uri-is-the-notebook "$S" 'all(.runs[0].results[]; .locations[0].physicalLocation.artifactLocation.uri == "finetune.ipynb")'
jqf sarif-message-names-cell "$S" 'any(.runs[0].results[]; .message.text | startswith("cell 3:6:9: `loss` is stored"))'
VALIDATOR="${SARIF_MULTITOOL:-$ROOT/build/deps/_microsoft-sarif-multitool-linux/Sarif.Multitool}"
if [ -x "$VALIDATOR" ]; then
    timeout 120 "$VALIDATOR" validate --rule-kind "Sarif;Gh" --level "Error;Warning" -o "$T/validated.sarif" "$S" >"$T/validator.log" 2>&1
    if [ -s "$T/validated.sarif" ] && [ "$(jq '[.runs[].results[]?] | length == 0' "$T/validated.sarif" 2>/dev/null)" = true ]; then
        pass sarif-validator-notebook
    else
        fail sarif-validator-notebook "$(jq -c '[.runs[].results[]? | .message.text]' "$T/validated.sarif" 2>&1 | head -c 400) $(tail -c 200 "$T/validator.log")"
    fi
else
    skip sarif-validator-notebook "the SARIF validator is not fetched ($VALIDATOR; run make test-tools)"
fi

# ---- GitHub and JUnit ----------------------------------------------------------------------
lint --format github finetune.ipynb
expect_contains github-ipynb-line "$OUT" "::error file=finetune.ipynb,line=$LOOP_LINE,endLine=$LOOP_LINE,title=OOM201 tensor-with-graph-stored::OOM201 cell 3:6:9: \`loss\` is stored"
expect_not_contains github-no-columns-of-the-json "$OUT" ",col="

lint --format junit finetune.ipynb
if xmllint --noout "$T/out" 2>/dev/null; then pass junit-well-formed; else fail junit-well-formed "$(head -c 300 "$T/out")"; fi
expect_contains junit-testcase-names-cell "$OUT" "<testcase name=\"OOM201 at cell 3:6:9\" classname=\"finetune.ipynb\" line=\"$LOOP_LINE\">"
expect_contains junit-failure-text "$OUT" "finetune.ipynb:cell 3:6:9: OOM201 "

lint --statistics finetune.ipynb
expect_contains statistics-count "$OUT" "1	OOM201"

# ---- stdin -------------------------------------------------------------------------------
(cd "$N" && "$OOMLINT" $EXAMPLE_RULES --format concise --stdin-filename lab/finetune.ipynb - <finetune.ipynb >"$T/out" 2>"$T/err")
expect_contains stdin-filename-ipynb-is-a-notebook "$(cat "$T/out")" "lab/finetune.ipynb:cell 3:6:9: OOM201"

# ---- folder walks ----------------------------------------------------------------------
W="$N/walk"
mkdir -p "$W/.ipynb_checkpoints" "$W/experiments/.ipynb_checkpoints"
cp "$N/finetune.ipynb" "$W/a.ipynb"
cp "$N/finetune.ipynb" "$W/experiments/b.ipynb"
cp "$N/finetune.ipynb" "$W/.ipynb_checkpoints/a-checkpoint.ipynb"
cp "$N/finetune.ipynb" "$W/experiments/.ipynb_checkpoints/b-checkpoint.ipynb"
printf 'not a notebook\n' >"$W/notes.txt"
lint --format json walk
jqf walk-finds-notebooks "$T/out" '[.[] | .filename] | unique == ["walk/a.ipynb", "walk/experiments/b.ipynb"]'
jqf walk-skips-checkpoints "$T/out" 'all(.[]; .filename | contains(".ipynb_checkpoints") | not)'
lint --format json --exclude '*.ipynb' walk
jqf walk-exclude-glob "$T/out" 'length == 0'
lint --format concise walk/.ipynb_checkpoints/a-checkpoint.ipynb
expect_contains named-checkpoint-is-linted "$OUT" "a-checkpoint.ipynb:cell 3:6:9: OOM201"

# ---- suppressions --------------------------------------------------------------------------
# nb_with CELL2_SOURCE CELL3_SOURCE > FILE : a notebook of two code cells (2 and 3; cell 1 is markdown)
nb_with() {
    printf '{"cells": [{"cell_type": "markdown", "source": "# x"},\n'
    printf ' {"cell_type": "code", "source": %s},\n' "$1"
    printf ' {"cell_type": "code", "source": %s}],\n "nbformat": 4, "nbformat_minor": 5, "metadata": {}}\n' "$2"
}
LOOP='["losses = []\n", "for x, y in loader:\n", "    loss = criterion(model(x), y)\n", "    loss.backward()\n", "    losses.append(loss)%s\n"]'
# shellcheck disable=SC2059
nb_with "$(printf "$LOOP" '  # noqa: OOM201')" '"import os\nos.environ[\"CUDA_VISIBLE_DEVICES\"] = \"0\""' >"$N/noqa.ipynb"
lint --format concise noqa.ipynb
expect_not_contains noqa-on-a-cell-line "$OUT" "OOM201"
expect_contains noqa-only-that-line "$OUT" "noqa.ipynb:cell 3:2:1: OOM101"
# shellcheck disable=SC2059
nb_with "$(printf "$LOOP" '')" '"x = 1\n# oomlint: disable-file\n"' >"$N/disable.ipynb"
lint --format concise disable.ipynb
expect_rc disable-file-in-a-later-cell-covers-the-notebook 0
# shellcheck disable=SC2059
nb_with "$(printf "$LOOP" '')" '"%%bash\n# oomlint: disable-file\n"' >"$N/bash-disable.ipynb"
lint --format concise bash-disable.ipynb
expect_contains disable-file-in-bash-is-not-python "$OUT" "bash-disable.ipynb:cell 2:5:5: OOM201"
# shellcheck disable=SC2059
nb_with "$(printf "$LOOP" '')" '"%env CUDA_VISIBLE_DEVICES=1  # oomlint: disable=OOM101\n%env CUDA_VISIBLE_DEVICES=2\n"' >"$N/env-noqa.ipynb"
lint --format concise --select OOM101 env-noqa.ipynb
expect_contains env-magic-suppressed-on-its-line "$OUT" "env-noqa.ipynb:cell 3:2:1: OOM101 \`CUDA_VISIBLE_DEVICES\` is hardcoded to \"2\""
expect_not_contains env-magic-suppression-kept "$OUT" "cell 3:1:"

# ---- the project pass and the estimate: findings and inputs named by cell --------------
cat >"$N/llm.ipynb" <<'EOF2'
{
 "cells": [
  {"cell_type": "markdown", "metadata": {}, "source": ["# SFT"]},
  {"cell_type": "code", "metadata": {}, "outputs": [], "source": [
    "!pip install -q transformers\n",
    "from transformers import AutoModelForCausalLM, Trainer, TrainingArguments"
  ]},
  {"cell_type": "code", "metadata": {}, "outputs": [], "source": [
    "model = AutoModelForCausalLM.from_pretrained(\"meta-llama/Llama-2-7b-hf\")\n",
    "args = TrainingArguments(output_dir=\"out\", per_device_train_batch_size=8)\n",
    "Trainer(model=model, args=args).train()"
  ]}
 ],
 "metadata": {},
 "nbformat": 4,
 "nbformat_minor": 5
}
EOF2
lint --format json --gpu t4 --extend-select OOM601 llm.ipynb
jqf capacity-finding-in-its-cell "$T/out" 'length == 1 and .[0].code == "OOM601" and .[0].cell == 3 and .[0].location == {"row": 1, "column": 46} and .[0].end_location.row == 1'
lint estimate --gpu t4 llm.ipynb
expect_contains estimate-reads-the-notebook "$OUT" "meta-llama/Llama-2-7b-hf"
expect_contains estimate-inputs-by-cell "$OUT" "llm.ipynb:cell 3:2 per_device_train_batch_size"

mkdir -p "$N/ds"
printf '{"fp16": {"enabled": false}, "train_micro_batch_size_per_gpu": 4}\n' >"$N/ds/ds.json"
printf '{"cells": [{"cell_type": "markdown", "source": "x"}, {"cell_type": "code", "source": ["from transformers import TrainingArguments\\n", "args = TrainingArguments(output_dir=\\"o\\", deepspeed=\\"ds.json\\", fp16=True)\\n"]}], "nbformat": 4, "nbformat_minor": 5, "metadata": {}}\n' >"$N/ds/sft.ipynb"
lint --format concise ds
expect_contains deepspeed-mismatch-names-the-cell "$OUT" "OOM405 \`fp16.enabled\` is false here, but ds/sft.ipynb:cell 2:2 sets \`fp16=True\`"

# ---- other kernels, empty notebooks ----------------------------------------------------
printf '{"cells": [{"cell_type": "code", "source": "library(torch)\\nx <- !!y"}], "metadata": {"kernelspec": {"language": "R"}}, "nbformat": 4, "nbformat_minor": 5}\n' >"$N/r.ipynb"
lint --format concise r.ipynb
expect_rc r-kernel-not-linted 0
printf '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}\n' >"$N/empty-cells.ipynb"
lint --format concise empty-cells.ipynb
expect_rc no-cells-is-clean 0

# ---- size: outputs do not count, code does ----------------------------------------------
# 40 MiB of image output around a small code cell: linted (the file limit is 32 MiB for code).
awk 'BEGIN {
  printf "{\"cells\": [{\"cell_type\": \"code\", \"outputs\": [{\"output_type\": \"display_data\", \"metadata\": {}, \"data\": {\"image/png\": \"";
  for (i = 0; i < 40 * 1024; i++) { for (k = 0; k < 16; k++) printf "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"; }
  printf "\"}}], \"source\": [\"import os\\n\", \"os.environ[\\\"CUDA_VISIBLE_DEVICES\\\"] = \\\"0\\\"\\n\"]}], \"metadata\": {}, \"nbformat\": 4, \"nbformat_minor\": 5}\n" }' >"$N/outputs.ipynb"
lint --format concise outputs.ipynb
expect_contains large-outputs-still-linted "$OUT" "outputs.ipynb:cell 1:2:1: OOM101"
# 33 MiB of code: over the limit, reported.
awk 'BEGIN {
  printf "{\"cells\": [{\"cell_type\": \"code\", \"source\": [";
  for (i = 0; i < 33; i++) { printf "\"# "; for (k = 0; k < 1024 * 1024 / 64; k++) printf "################################################################"; printf "\\n\", " }
  printf "\"x = 1\"]}], \"nbformat\": 4, \"nbformat_minor\": 5}\n" }' >"$N/code.ipynb"
lint --format concise code.ipynb
expect_contains large-code-reported "$OUT" "code.ipynb:1:1: OOM002 Cannot lint this file: the notebook's code cells are larger than the 32 MiB limit"

# ---- --diff-base: the notebook's lines as git sees them ----------------------------------
if command -v git >/dev/null 2>&1; then
    G="$T/g"
    mkdir -p "$G" "$T/home"
    g() { (cd "$G" && HOME="$T/home" GIT_CONFIG_NOSYSTEM=1 git "$@") >/dev/null 2>&1; }
    g init -q
    g symbolic-ref HEAD refs/heads/main
    g config user.name "oomlint test"
    g config user.email "test@example.com"
    g config commit.gpgsign false
    cp "$N/finetune.ipynb" "$G/nb.ipynb"
    g add -A
    g commit -q -m base
    g checkout -q -b feature
    # only the %env line changes: OOM101 is new, OOM201 was there before
    sed 's/CUDA_VISIBLE_DEVICES=0/CUDA_VISIBLE_DEVICES=1/' "$N/finetune.ipynb" >"$G/nb.ipynb"
    (cd "$G" && "$OOMLINT" $EXAMPLE_RULES --format json --diff-base main nb.ipynb >"$T/diff.json" 2>"$T/err")
    jqf diff-base-changed-cell-line-reported "$T/diff.json" 'length == 1 and .[0].code == "OOM101" and .[0].cell == 2 and .[0].location.row == 4'
else
    skip diff-base-changed-cell-line-reported "git is not installed"
fi
