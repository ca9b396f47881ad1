#!/bin/sh
# The on-disk cache end to end (src/cache/, README's Cache): a second run
# answers unchanged files from the cache with the same report; a changed
# file, setting, rule or build misses; the project pass sees cached files'
# facts; a broken, foreign or unwritable cache is only slower. Each run
# says what the cache did with the hidden --cache-stats:
# "oomlint: cache: H from the cache, L linted, W written". Same PASS/FAIL
# protocol as the other suites.
. tests/lib.sh

# OOM201 and OOM202 are opt-in; their fixtures are these tests' examples of fixes
# and reports, so every run here turns them on.
EXAMPLE_RULES="--extend-select OOM201,OOM202,OOM601"
unset OOMLINT_CACHE_DIR OOMLINT_NO_CACHE # each check names its own
T="$TEST_TMP/cache-tests"
mkdir -p "$T"
P="$T/p"
mkdir -p "$P"
write_samples "$P"

# Under valgrind (exit 99) or the sanitizers (their reports on stderr) a run
# that reports the right thing still fails its check.
memory_errors() {
    [ "${RC:-0}" -ge 99 ] || grep -q -e '^==[0-9]*== ' -e 'runtime error:' -e 'ERROR: AddressSanitizer' \
        -e 'ERROR: LeakSanitizer' "$TEST_TMP/err"
}
# stats NAME WANT: the --cache-stats line of the last run
stats() {
    got=$(grep '^oomlint: cache: ' "$TEST_TMP/err" | sed 's/^oomlint: cache: //')
    if memory_errors; then fail "$1" "exit $RC; $(grep -v '^oomlint: cache' "$TEST_TMP/err" | head -c 400)"
    elif [ "$got" = "$2" ]; then pass "$1"
    else fail "$1" "cache: '$got', want '$2'; stderr: $(head -c 300 "$TEST_TMP/err")"; fi
}
# direct BIN ARGS...: a run of another binary (or with stdin), for stats
direct() {
    "$@" > "$TEST_TMP/out" 2> "$TEST_TMP/err"
    RC=$?
    OUT="$(cat "$TEST_TMP/out")"
    ERR="$(cat "$TEST_TMP/err")"
}
# same NAME FILE-A FILE-B: two reports byte for byte
same() {
    if cmp -s "$2" "$3"; then pass "$1"; else fail "$1" "$(diff "$2" "$3" | head -c 400)"; fi
}
C="$T/c1"
lint() { run_oomlint $EXAMPLE_RULES --cache-stats --cache-dir "$C" "$@"; }

# ---------------------------------------------------------------- hit and miss
lint --format concise "$P"
cp "$TEST_TMP/out" "$T/cold.txt"
expect_rc cache-cold-rc 1
stats cache-cold-lints-all "0 from the cache, 3 linted, 3 written"
lint --format concise "$P"
expect_rc cache-warm-rc 1
stats cache-warm-answers-all "3 from the cache, 0 linted, 0 written"
same cache-warm-same-report "$T/cold.txt" "$TEST_TMP/out"
if [ -f "$C/CACHEDIR.TAG" ] && grep -qx '\*' "$C/.gitignore"; then pass cache-dir-tagged-and-ignored
else fail cache-dir-tagged-and-ignored "no CACHEDIR.TAG or .gitignore in $C"; fi

# every field of every finding (fixes, help, related context) comes back
run_oomlint $EXAMPLE_RULES --no-cache --format json --show-fixes "$P"
cp "$TEST_TMP/out" "$T/fresh.json"
lint --format json --show-fixes "$P"
same cache-json-identical "$T/fresh.json" "$TEST_TMP/out"
run_oomlint $EXAMPLE_RULES --no-cache --format sarif "$P"
cp "$TEST_TMP/out" "$T/fresh.sarif"
lint --format sarif "$P"
same cache-sarif-identical "$T/fresh.sarif" "$TEST_TMP/out"

# the content is the key: touching a file changes nothing, editing it misses
touch "$P/loop.py"
lint --format concise "$P"
stats cache-touch-still-hits "3 from the cache, 0 linted, 0 written"
printf 'x = 2\n' > "$P/loop.py"
lint --format concise "$P"
stats cache-edit-misses-that-file "2 from the cache, 1 linted, 1 written"
expect_not_contains cache-edit-new-result "$OUT" "OOM201"
write_samples "$P"
lint --format concise "$P"
stats cache-edit-back-hits-again "3 from the cache, 0 linted, 0 written"
same cache-edit-back-same-report "$T/cold.txt" "$TEST_TMP/out"

# ---------------------------------------------------------------- settings
run_oomlint --cache-stats --cache-dir "$C" --format concise --select OOM101 "$P"
stats cache-select-misses "0 from the cache, 3 linted, 3 written"
expect_not_contains cache-select-applied "$OUT" "OOM201"
run_oomlint --cache-stats --cache-dir "$C" --format concise --select OOM101 "$P"
stats cache-select-then-hits "3 from the cache, 0 linted, 0 written"
lint --format concise --ignore OOM101 "$P"
stats cache-ignore-misses "0 from the cache, 3 linted, 3 written"
lint --format concise --gpu v100 "$P"
stats cache-gpu-misses "0 from the cache, 3 linted, 3 written"
lint --format concise --gpu t4 "$P"
stats cache-other-gpu-misses "0 from the cache, 3 linted, 3 written"
lint --format concise --gpu t4 --num-gpus 2 "$P"
stats cache-num-gpus-misses "0 from the cache, 3 linted, 3 written"
lint --format concise --torch-version 1.12 --gpu t4 --num-gpus 2 "$P"
stats cache-torch-version-misses "0 from the cache, 3 linted, 3 written"
# what is applied to the findings afterwards needs no new lint
lint --format json --statistics --exit-zero "$P"
stats cache-format-and-exit-hit "3 from the cache, 0 linted, 0 written"
expect_rc cache-exit-zero-applied 0

# a setting from [tool.oomlint] is a setting like a flag
Q="$T/q"
mkdir -p "$Q/src"
write_samples "$Q/src"
printf '[tool.oomlint]\nselect = ["OOM101"]\n' > "$Q/pyproject.toml"
lint --format concise "$Q/src"
stats cache-pyproject-cold "0 from the cache, 3 linted, 3 written"
printf '[tool.oomlint]\nselect = ["OOM2"]\n' > "$Q/pyproject.toml"
lint --format concise "$Q/src"
stats cache-pyproject-select-misses "0 from the cache, 3 linted, 3 written"
expect_contains cache-pyproject-select-applied "$OUT" "OOM201"
expect_not_contains cache-pyproject-select-applied-2 "$OUT" "OOM101"

# ---------------------------------------------------------------- rules and builds
R="$T/rules"
mkdir -p "$R/my-rule"
printf '{"code":"X100","name":"print-call","language":"python","severity":"info","message":"print of {{arg}}","help":"use logging"}\n' > "$R/my-rule/rule.json"
printf '((call function: (identifier) @f arguments: (argument_list (_) @arg)) @report (#eq? @f "print"))\n' > "$R/my-rule/query.scm"
lint --format concise --rules "$R" "$P"
stats cache-user-rules-miss "0 from the cache, 3 linted, 3 written"
expect_contains cache-user-rule-reports "$OUT" "print of x"
lint --format concise --rules "$R" "$P"
stats cache-user-rules-hit "3 from the cache, 0 linted, 0 written"
printf '{"code":"X100","name":"print-call","language":"python","severity":"info","message":"printed {{arg}}","help":"use logging"}\n' > "$R/my-rule/rule.json"
lint --format concise --rules "$R" "$P"
stats cache-changed-rule-misses "0 from the cache, 3 linted, 3 written"
expect_contains cache-changed-rule-new-message "$OUT" "printed x"
printf '((call function: (identifier) @f) @report (#eq? @f "nothing"))\n' > "$R/my-rule/query.scm"
lint --format concise --rules "$R" "$P"
stats cache-changed-query-misses "0 from the cache, 3 linted, 3 written"
expect_not_contains cache-changed-query-applied "$OUT" "X100"

# another build of oomlint never reads this one's entries: a copy without
# its ELF build id is known by its bytes instead, and a copy changed by one
# byte is another build again
# (not where OOMLINT is a wrapper script, as under valgrind)
if command -v objcopy >/dev/null 2>&1 &&
    objcopy --remove-section .note.gnu.build-id "$OOMLINT" $EXAMPLE_RULES "$T/oomlint-b" 2>/dev/null; then
    cp "$T/oomlint-b" "$T/oomlint-c" && printf '\n' >> "$T/oomlint-c"
    direct "$T/oomlint-b" --cache-stats --cache-dir "$C" --format concise "$P"
    stats cache-other-build-misses "0 from the cache, 3 linted, 3 written"
    same cache-other-build-same-report "$T/cold.txt" "$TEST_TMP/out"
    direct "$T/oomlint-b" --cache-stats --cache-dir "$C" --format concise "$P"
    stats cache-build-without-id-hits "3 from the cache, 0 linted, 0 written"
    direct "$T/oomlint-c" --cache-stats --cache-dir "$C" --format concise "$P"
    stats cache-changed-binary-misses "0 from the cache, 3 linted, 3 written"
else
    skip cache-other-build-misses "no objcopy, or OOMLINT is not an ELF binary"
fi

# ---------------------------------------------------------------- where the cache goes
run_oomlint $EXAMPLE_RULES --cache-stats --no-cache --cache-dir "$T/never" --format concise "$P"
expect_rc cache-no-cache-rc 1
if [ ! -e "$T/never" ] && ! grep -q '^oomlint: cache:' "$TEST_TMP/err"; then pass cache-no-cache-writes-nothing
else fail cache-no-cache-writes-nothing "$T/never was created or stats were printed"; fi
OOMLINT_NO_CACHE=1 run_oomlint $EXAMPLE_RULES --cache-dir "$T/never" --format concise "$P"
if [ ! -e "$T/never" ]; then pass cache-env-no-cache; else fail cache-env-no-cache "$T/never was created"; fi
OOMLINT_CACHE_DIR="$T/from-env" run_oomlint $EXAMPLE_RULES --format concise "$P"
if [ -d "$T/from-env/0.1.0" ] || ls "$T/from-env"/*/ >/dev/null 2>&1; then pass cache-env-dir; else fail cache-env-dir "nothing in $T/from-env"; fi
OOMLINT_CACHE_DIR="$T/from-env" run_oomlint $EXAMPLE_RULES --cache-dir "$T/from-flag" --format concise "$P"
if [ -d "$T/from-flag" ]; then pass cache-flag-over-env; else fail cache-flag-over-env "nothing in $T/from-flag"; fi

# the default: .oomlint_cache beside the pyproject.toml, whatever the working folder
D="$T/d"
mkdir -p "$D/proj/src" "$D/elsewhere"
write_samples "$D/proj/src"
printf '[tool.oomlint]\n' > "$D/proj/pyproject.toml"
(cd "$D/elsewhere" && "$OOMLINT" $EXAMPLE_RULES --format concise ../proj/src > /dev/null 2>&1)
if [ -f "$D/proj/.oomlint_cache/CACHEDIR.TAG" ] && [ ! -e "$D/elsewhere/.oomlint_cache" ]; then
    pass cache-default-beside-pyproject
else fail cache-default-beside-pyproject "$(find "$D" -name .oomlint_cache)"; fi
# and the walk never lints it
(cd "$D/proj" && "$OOMLINT" $EXAMPLE_RULES --format json . > "$TEST_TMP/out" 2>/dev/null)
expect_not_contains cache-folder-not-walked "$(cat "$TEST_TMP/out")" ".oomlint_cache"
# without a pyproject.toml: the working folder
mkdir -p "$D/bare"
write_samples "$D/bare"
(cd "$D/bare" && "$OOMLINT" $EXAMPLE_RULES --isolated --format concise . > /dev/null 2>&1)
if [ -d "$D/bare/.oomlint_cache" ]; then pass cache-default-working-folder; else fail cache-default-working-folder "no $D/bare/.oomlint_cache"; fi
# cache-dir in [tool.oomlint], relative to its pyproject.toml
printf '[tool.oomlint]\ncache-dir = "build/lint-cache"\n' > "$D/proj/pyproject.toml"
(cd "$D/elsewhere" && "$OOMLINT" $EXAMPLE_RULES --format concise ../proj/src > /dev/null 2>&1)
if [ -f "$D/proj/build/lint-cache/CACHEDIR.TAG" ]; then pass cache-pyproject-cache-dir
else fail cache-pyproject-cache-dir "no $D/proj/build/lint-cache"; fi
OOMLINT_CACHE_DIR="$T/env-over-pyproject" run_oomlint $EXAMPLE_RULES --format concise "$D/proj/src"
if [ -d "$T/env-over-pyproject" ]; then pass cache-env-over-pyproject; else fail cache-env-over-pyproject "not used"; fi
printf '[tool.oomlint]\ncache-dir = 3\n' > "$D/proj/pyproject.toml"
run_oomlint $EXAMPLE_RULES --format concise "$D/proj/src"
expect_rc cache-bad-pyproject-value-rc 2
expect_contains cache-bad-pyproject-value-says "$ERR" "cache-dir must be"
printf '[tool.oomlint]\n' > "$D/proj/pyproject.toml"

# ---------------------------------------------------------------- stdin is always linted; notebooks are cached
printf 'import os\n%s\n' "$SAMPLE_CUDA" > "$T/in.py"
direct "$OOMLINT" $EXAMPLE_RULES --cache-stats --cache-dir "$C" --format concise - < "$T/in.py"
direct "$OOMLINT" $EXAMPLE_RULES --cache-stats --cache-dir "$C" --format concise - < "$T/in.py"
stats cache-stdin-never-cached "0 from the cache, 0 linted, 0 written"
expect_contains cache-stdin-still-linted "$(cat "$TEST_TMP/out")" "OOM101"
NB="fixtures/rules/OOM101/fires_notebook_env_magic.ipynb"
run_oomlint $EXAMPLE_RULES --no-cache --format json "$NB"
cp "$TEST_TMP/out" "$T/nb-fresh.json"
lint --format json "$NB"
stats cache-notebook-cold "0 from the cache, 1 linted, 1 written"
lint --format json "$NB"
stats cache-notebook-warm "1 from the cache, 0 linted, 0 written"
same cache-notebook-same-cells "$T/nb-fresh.json" "$TEST_TMP/out"
# a project finding (the estimate) placed in the cell of a notebook answered from the cache
cat > "$T/llm.ipynb" <<'EOF'
{"cells": [
  {"cell_type": "markdown", "metadata": {}, "source": ["# SFT"]},
  {"cell_type": "code", "metadata": {}, "outputs": [], "source": [
    "!pip install -q transformers\n",
    "from transformers import AutoModelForCausalLM, Trainer, TrainingArguments"]},
  {"cell_type": "code", "metadata": {}, "outputs": [], "source": [
    "model = AutoModelForCausalLM.from_pretrained(\"meta-llama/Llama-2-7b-hf\")\n",
    "args = TrainingArguments(output_dir=\"out\", per_device_train_batch_size=8)\n",
    "Trainer(model=model, args=args).train()"]}],
 "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
EOF
run_oomlint $EXAMPLE_RULES --no-cache --format json --gpu t4 "$T/llm.ipynb"
cp "$TEST_TMP/out" "$T/llm-fresh.json"
expect_contains cache-notebook-estimate-fresh "$OUT" '"cell": 3'
lint --format json --gpu t4 "$T/llm.ipynb"
lint --format json --gpu t4 "$T/llm.ipynb"
stats cache-notebook-estimate-warm "1 from the cache, 0 linted, 0 written"
same cache-notebook-estimate-same-cell "$T/llm-fresh.json" "$TEST_TMP/out"

# ---------------------------------------------------------------- broken caches
E="$T/e"
mkdir -p "$E"
write_samples "$E"
C="$T/c-broken"
lint --format concise "$E"
cp "$TEST_TMP/out" "$T/e.txt"
entries() { find "$C" -type f ! -name CACHEDIR.TAG ! -name .gitignore; }
for f in $(entries); do printf 'garbage' > "$f"; done
lint --format concise "$E"
stats cache-corrupt-entries-miss "0 from the cache, 3 linted, 3 written"
same cache-corrupt-same-report "$T/e.txt" "$TEST_TMP/out"
lint --format concise "$E"
stats cache-corrupt-entries-rewritten "3 from the cache, 0 linted, 0 written"
for f in $(entries); do
    size=$(wc -c < "$f")
    head -c $((size / 2)) "$f" > "$f.half" && mv "$f.half" "$f"
done
lint --format concise "$E"
stats cache-truncated-entries-miss "0 from the cache, 3 linted, 3 written"
same cache-truncated-same-report "$T/e.txt" "$TEST_TMP/out"
# one byte flipped in the middle of each entry: the payload's hash refuses it
for f in $(entries); do
    size=$(wc -c < "$f")
    { head -c $((size / 2)) "$f"; printf 'Z'; tail -c $((size - size / 2 - 1)) "$f"; } > "$f.flip" && mv "$f.flip" "$f"
done
lint --format concise "$E"
stats cache-flipped-byte-misses "0 from the cache, 3 linted, 3 written"
same cache-flipped-same-report "$T/e.txt" "$TEST_TMP/out"
# a whole, valid entry of another file in the place of each: its key is not this one's
set -- $(entries)
first="$1"
for f in "$@"; do [ "$f" = "$first" ] || cp "$first" "$f"; done
lint --format concise "$E"
stats cache-foreign-entries-miss "1 from the cache, 2 linted, 2 written"
same cache-foreign-same-report "$T/e.txt" "$TEST_TMP/out"
# empty, huge (sparse) and unreadable things where entries should be
set -- $(entries)
: > "$1"
truncate -s 40M "$2" 2>/dev/null || : > "$2"
rm -f "$3" && mkdir "$3"
lint --format concise "$E"
expect_rc cache-odd-entries-rc 1
same cache-odd-entries-same-report "$T/e.txt" "$TEST_TMP/out"
expect_contains cache-odd-entries-miss "$ERR" "0 from the cache, 3 linted"
rmdir "$3" 2>/dev/null

# a cache that cannot be written: a clear warning, and the run goes on
printf 'not a folder\n' > "$T/a-file"
run_oomlint $EXAMPLE_RULES --cache-stats --cache-dir "$T/a-file/cache" --format concise "$E"
expect_rc cache-uncreatable-rc 1
same cache-uncreatable-same-report "$T/e.txt" "$TEST_TMP/out"
expect_contains cache-uncreatable-warns "$ERR" "warning: cannot create the cache folder"
# A folder it may read and not write. Root writes anywhere, so as root the
# runs are made as nobody (setpriv), in a folder nobody can reach.
AS=""
if [ "$(id -u)" -eq 0 ]; then
    AS="setpriv --reuid=65534 --regid=65534 --clear-groups"
    command -v setpriv >/dev/null 2>&1 && $AS test -x "$OOMLINT" $EXAMPLE_RULES 2>/dev/null || AS="none"
fi
if [ "$AS" != none ]; then
    RO="$(mktemp -d "${TMPDIR:-/tmp}/oomlint-ro.XXXXXX")"
    chmod 755 "$RO"
    mkdir -p "$RO/src" "$RO/cache"
    write_samples "$RO/src"
    chmod 777 "$RO/cache"
    chmod 666 "$RO/src"/*
    direct $AS "$OOMLINT" $EXAMPLE_RULES --cache-stats --cache-dir "$RO/cache" --format concise "$RO/src"
    cp "$TEST_TMP/out" "$T/ro.txt"
    chmod -R a-w "$RO/cache"
    printf 'y = 1\n' >> "$RO/src/clean.py"
    direct $AS "$OOMLINT" $EXAMPLE_RULES --cache-stats --cache-dir "$RO/cache" --format concise "$RO/src"
    expect_rc cache-read-only-rc 1
    expect_contains cache-read-only-warns "$ERR" "warning: cannot write to the cache folder"
    stats cache-read-only-still-reads "2 from the cache, 1 linted, 0 written"
    same cache-read-only-same-report "$T/ro.txt" "$TEST_TMP/out"
    chmod -R u+w "$RO"
    rm -rf "$RO"
else
    skip cache-read-only-warns "running as root without setpriv to run as another user"
fi

# ---------------------------------------------------------------- two runs at once
M="$T/many"
mkdir -p "$M"
# enough files for the two runs to overlap (fewer under valgrind, which is slow)
case "$OOMLINT" in
    *valgrind*) cp -r fixtures/rules/OOM201 fixtures/rules/OOM101 "$M/" ;;
    *) cp -r fixtures/rules "$M/" ;;
esac
C="$T/c-many"
run_oomlint $EXAMPLE_RULES --no-cache --format concise "$M"
cp "$TEST_TMP/out" "$T/many.txt"
"$OOMLINT" $EXAMPLE_RULES --cache-dir "$C" --format concise "$M" > "$T/run1.txt" 2> "$T/run1.err" &
pid1=$!
"$OOMLINT" $EXAMPLE_RULES --cache-dir "$C" --format concise "$M" > "$T/run2.txt" 2> "$T/run2.err" &
pid2=$!
wait $pid1
wait $pid2
same cache-concurrent-run-1 "$T/many.txt" "$T/run1.txt"
same cache-concurrent-run-2 "$T/many.txt" "$T/run2.txt"
if [ ! -s "$T/run1.err" ] && [ ! -s "$T/run2.err" ]; then pass cache-concurrent-no-warnings-or-errors
else fail cache-concurrent-no-warnings-or-errors "$(cat "$T/run1.err" "$T/run2.err" | head -c 300)"; fi
lint --format concise "$M"
same cache-concurrent-then-warm "$T/many.txt" "$TEST_TMP/out"
expect_contains cache-concurrent-then-all-hits "$ERR" " 0 linted, 0 written"
if [ -z "$(find "$C" -name '*.tmp-*')" ]; then pass cache-no-temporary-left; else fail cache-no-temporary-left "$(find "$C" -name '*.tmp-*' | head -3)"; fi

# ---------------------------------------------------------------- --fix
F="$T/fix"
mkdir -p "$F"
FX="$(ls fixtures/fix/OOM201/*.py | head -n 1)"
cp "$FX" "$F/a.py"
C="$T/c-fix"
lint --format concise "$F"
lint --fix --format concise "$F"
same cache-fix-rewrites-file "$FX.fixed" "$F/a.py"
cp "$TEST_TMP/out" "$T/fixed-report.txt"
run_oomlint $EXAMPLE_RULES --no-cache --format concise "$F/a.py"
cp "$TEST_TMP/out" "$T/after-fresh.txt"
lint --format concise "$F/a.py"
stats cache-after-fix-hits-fixed-text "1 from the cache, 0 linted, 0 written"
same cache-after-fix-same-report "$T/after-fresh.txt" "$TEST_TMP/out"
cp "$FX" "$F/a.py"
lint --diff "$F/a.py"
cp "$TEST_TMP/out" "$T/diff-cached.txt"
run_oomlint $EXAMPLE_RULES --no-cache --diff "$F/a.py"
same cache-diff-same "$T/diff-cached.txt" "$TEST_TMP/out"

# ---------------------------------------------------------------- the project pass from cached facts
for expected in fixtures/projects/*/expected-cli.txt; do
    dir=$(dirname "$expected")
    name=$(basename "$dir")
    gpu=""
    [ -f "$dir/gpu.txt" ] && gpu="--gpu $(cat "$dir/gpu.txt")"
    C="$T/c-project-$name"
    ok=1
    for round in cold warm; do
        # shellcheck disable=SC2086
        "$OOMLINT" $EXAMPLE_RULES --cache-stats --cache-dir "$C" --format concise --quiet --isolated $gpu "$dir" \
            2>"$TEST_TMP/err" </dev/null | sed 's/: OOM\([0-9]*\) .*/: OOM\1/' > "$TEST_TMP/got"
        diff -u "$expected" "$TEST_TMP/got" > "$TEST_TMP/diff" || ok=0
    done
    if [ $ok = 1 ] && grep -q ' 0 linted, 0 written' "$TEST_TMP/err"; then pass "cache-project-$name"
    else fail "cache-project-$name" "$(tr '\n' ' ' < "$TEST_TMP/diff" | head -c 300) $(cat "$TEST_TMP/err")"; fi
done

# a project finding made from a cached file's links, every field of it
# (its related location, which no CLI format prints, is in the unit test)
C="$T/c-related"
run_oomlint $EXAMPLE_RULES --no-cache --format json --isolated fixtures/projects/deepspeed_mismatch
cp "$TEST_TMP/out" "$T/related-fresh.json"
lint --format json --isolated fixtures/projects/deepspeed_mismatch
lint --format json --isolated fixtures/projects/deepspeed_mismatch
expect_contains cache-deepspeed-warm-finds "$OUT" "OOM405"
same cache-deepspeed-warm-same "$T/related-fresh.json" "$TEST_TMP/out"

# one file changed, the other answered from the cache: the join is still right
J="$T/meters"
cp -r fixtures/projects/meters_in_another_module "$J"
C="$T/c-meters"
lint --format concise --isolated "$J"
expect_contains cache-meters-cold-finds "$OUT" "OOM202"
printf 'class AverageMeter:\n    def update(self, val, n=1):\n        self.last = float(val)\n' > "$J/meters.py"
lint --format concise --isolated "$J"
stats cache-meters-one-linted "1 from the cache, 1 linted, 1 written"
expect_not_contains cache-meters-cached-caller-rejoined "$OUT" "OOM202"
cp fixtures/projects/meters_in_another_module/meters.py "$J/meters.py"
lint --format concise --isolated "$J"
stats cache-meters-both-cached "2 from the cache, 0 linted, 0 written"
expect_contains cache-meters-finding-back "$OUT" "OOM202"

# a file the lint read besides the script (a local model's config.json)
B="$T/bert"
cp -r fixtures/projects/bert_local_model_v100 "$B"
C="$T/c-bert"
lint --format concise --isolated --gpu v100 "$B/train.py"
expect_contains cache-read-file-cold "$OUT" "OOM501"
sed 's/"max_position_embeddings": 512/"max_position_embeddings": 8192/' \
    fixtures/projects/bert_local_model_v100/my_model/config.json > "$B/my_model/config.json"
lint --format concise --isolated --gpu v100 "$B/train.py"
stats cache-read-file-changed-misses "0 from the cache, 1 linted, 1 written"
expect_not_contains cache-read-file-new-result "$OUT" "OOM501"

# a file whose presence decides a link (a DeepSpeed config beside the script)
K="$T/ds"
mkdir -p "$K/sub"
printf 'from transformers import TrainingArguments\nargs = TrainingArguments(output_dir="o", per_device_train_batch_size=4, deepspeed="ds.json")\n' > "$K/sub/train.py"
C="$T/c-ds"
lint --format concise --isolated "$K/sub"
expect_not_contains cache-ds-absent-quiet "$OUT" "OOM405"
printf '{"train_micro_batch_size_per_gpu": 64}\n' > "$K/sub/ds.json"
lint --format concise --isolated "$K/sub"
expect_contains cache-ds-created-found "$OUT" "OOM405"
run_oomlint $EXAMPLE_RULES --no-cache --format concise --isolated "$K/sub"
cp "$TEST_TMP/out" "$T/ds-fresh.txt"
lint --format concise --isolated "$K/sub"
same cache-ds-warm-same "$T/ds-fresh.txt" "$TEST_TMP/out"
