#!/bin/sh
# Hostile input: every case gets its expected message and exit code, and
# nothing crashes, hangs or prints raw control characters. Same PASS/FAIL
# protocol as tests/e2e.sh (see tests/lib.sh).
. tests/lib.sh
T="$TEST_TMP"
finding='import os
os.environ["CUDA_VISIBLE_DEVICES"] = "0"'

# run_limited SECONDS ARGS...: like run_oomlint, under a time limit
run_limited() {
    limit="$1"; shift
    timeout "$limit" "$OOMLINT" "$@" >"$T/out" 2>"$T/err" </dev/null
    RC=$?
    OUT="$(cat "$T/out")"
    ERR="$(cat "$T/err")"
}

# ---- sizes -------------------------------------------------------------------
truncate -s 100M "$T/huge.py"
run_limited 30 --format concise "$T/huge.py"
expect_rc "100MB-file-exit" 1
expect_contains "100MB-file-reported-not-read" "$OUT" "OOM002 Cannot lint this file: file is 100 MiB, over the 32 MiB limit"

awk 'BEGIN { for (i = 0; i < 1000000; i++) printf "x%d = %d\n", i % 100, i }' > "$T/million.py"
printf '%s\n' "$finding" >> "$T/million.py"
run_limited 300 --format concise "$T/million.py"
expect_rc "1M-line-file-exit" 1
expect_contains "1M-line-file-linted-to-the-end" "$OUT" "million.py:1000002:1: OOM101"

awk 'BEGIN { printf "x = "; for (i = 0; i < 100000; i++) printf "("; printf "1"; for (i = 0; i < 100000; i++) printf ")"; print "" }' > "$T/deep.py"
run_limited 120 --format concise "$T/deep.py"
if [ "$RC" -lt 2 ]; then pass "100000-deep-nesting-no-crash"; else fail "100000-deep-nesting-no-crash" "exit $RC: $(head -c 300 "$T/err")"; fi

awk 'BEGIN { printf "s = \""; for (i = 0; i < 80000; i++) printf "a"; print "\"; import os; os.environ[\"CUDA_VISIBLE_DEVICES\"] = \"1\"" }' > "$T/longline.py"
run_limited 30 --format json "$T/longline.py"
col=$(printf '%s' "$OUT" | jq '.[0].location.column' 2>/dev/null)
if [ "$col" = "80020" ]; then pass "80000-char-line-column"; else fail "80000-char-line-column" "column $col, want 80020"; fi

# ---- bytes ---------------------------------------------------------------------
printf 'x = 1\n\000\001binary\n' > "$T/nul.py"
run_oomlint --format concise "$T/nul.py"
expect_contains "nul-bytes-reported" "$OUT" "OOM002 Cannot lint this file: binary file (NUL byte at offset 6)"

printf 'x = "\351t\351"\n' > "$T/latin1.py"
run_oomlint --format concise "$T/latin1.py"
expect_contains "invalid-utf8-reported" "$OUT" "not valid UTF-8 (byte 0xE9 at line 1"

printf '\357\273\277%s\n' "$finding" > "$T/bom.py"
run_oomlint --format concise "$T/bom.py"
expect_contains "bom-column-stays-1" "$OUT" "bom.py:2:1: OOM101"

printf 'import os\r\n\r\nos.environ["CUDA_VISIBLE_DEVICES"] = "0"\r\n' > "$T/crlf.py"
run_oomlint --format concise "$T/crlf.py"
expect_contains "crlf-line-numbers" "$OUT" "crlf.py:3:1: OOM101"

printf 'import os\rx = 1\ros.environ["CUDA_VISIBLE_DEVICES"] = "0"\r' > "$T/cr.py"
run_oomlint --format concise "$T/cr.py"
expect_contains "lone-cr-line-numbers" "$OUT" "cr.py:3:1: OOM101"

printf 'import os\ndef f():\n\tname = "\344\270\255\346\226\207"; os.environ["CUDA_VISIBLE_DEVICES"] = "0"\n' > "$T/wide.py"
run_oomlint --format json "$T/wide.py"
col=$(printf '%s' "$OUT" | jq '.[0].location.column' 2>/dev/null)
if [ "$col" = "15" ]; then pass "tab-and-wide-chars-column"; else fail "tab-and-wide-chars-column" "column $col, want 15 (a tab and each CJK character count one)"; fi
run_oomlint --format full --color never "$T/wide.py"
caret_line=$(printf '%s\n' "$OUT" | grep -n '\^\^\^' | head -1 | cut -d: -f1)
src_line=$(printf '%s\n' "$OUT" | grep -n 'os.environ' | head -1)
# the caret must sit under "os.environ": its column in cells equals the source's
src_col=$(printf '%s\n' "$OUT" | grep 'os.environ' | head -1 | awk '{ i = index($0, "os.environ"); print i }')
caret_col=$(printf '%s\n' "$OUT" | grep '\^\^\^' | head -1 | awk '{ print index($0, "^") }')
# CJK characters are 3 bytes but 2 cells: awk counts bytes, so adjust by 2 cells
if [ -n "$src_line" ] && [ -n "$caret_line" ] && [ $((src_col - 2)) -eq "$caret_col" ]; then
    pass "caret-under-finding-with-tab-and-wide-chars"
else
    fail "caret-under-finding-with-tab-and-wide-chars" "source at byte $src_col, caret at $caret_col"
fi

printf 'import os\nos.environ["CUDA_VISIBLE_DEVICES"] = "\033]0;pwned\007\033[2J"\n' > "$T/escape.py"
run_oomlint --format full --color never "$T/escape.py"
if printf '%s' "$OUT" | LC_ALL=C grep -q "$(printf '\033')"; then
    fail "terminal-escapes-neutralised" "raw ESC in output"
else
    pass "terminal-escapes-neutralised"
fi

# ---- the file system -------------------------------------------------------------
mkdir -p "$T/tree/sub"
printf '%s\n' "$finding" > "$T/tree/sub/a.py"
ln -s .. "$T/tree/sub/loop"
run_limited 30 --format concise "$T/tree"
expect_rc "symlink-loop-terminates" 1
n=$(printf '%s\n' "$OUT" | grep -c 'OOM101')
if [ "$n" = "1" ]; then pass "symlink-loop-file-linted-once"; else fail "symlink-loop-file-linted-once" "$n findings"; fi

mkdir -p "$T/outside" "$T/tree2"
printf '%s\n' "$finding" > "$T/outside/secret.py"
ln -s "$T/outside/secret.py" "$T/tree2/link.py"
run_oomlint --format concise "$T/tree2"
expect_contains "symlink-outside-not-followed" "$OUT" "link.py:1:1: OOM002 Cannot lint this file: symbolic link to outside the linted folder"
expect_not_contains "symlink-outside-content-not-read" "$OUT" "OOM101"

mkfifo "$T/pipe.py"
run_limited 10 --format concise "$T/pipe.py"
expect_contains "named-pipe-does-not-hang" "$OUT" "OOM002 Cannot lint this file: not a regular file"
run_limited 10 --format concise /dev/zero
expect_contains "dev-zero-does-not-hang" "$OUT" "OOM002 Cannot lint this file: not a regular file"

mkdir -p "$T/x.py"
printf '%s\n' "$finding" > "$T/x.py/inner.py"
run_oomlint --format concise "$T/x.py"
expect_contains "directory-named-x.py-is-walked" "$OUT" "inner.py:2:1: OOM101"

if [ "$(id -u)" -ne 0 ]; then
    mkdir -p "$T/locked/in"
    printf '%s\n' "$finding" > "$T/locked/in/a.py"
    chmod 000 "$T/locked/in"
    run_oomlint --format concise "$T/locked"
    expect_contains "unreadable-directory-reported" "$OUT" "OOM002"
    chmod 755 "$T/locked/in"
else
    echo "SKIP unreadable-directory-reported: running as root, who can read any directory"
fi

for name in 'new
line.py' 'per%cent.py' 'co:lon.py' 'com,ma.py'; do
    printf '%s\n' "$finding" > "$T/$name"
done
run_oomlint --format json "$T/new
line.py" "$T/per%cent.py" "$T/co:lon.py" "$T/com,ma.py"
n=$(printf '%s' "$OUT" | jq 'length' 2>/dev/null)
if [ "$n" = "4" ]; then pass "odd-file-names-in-json"; else fail "odd-file-names-in-json" "got $n findings"; fi
run_oomlint --format concise "$T/new
line.py"
expect_contains "newline-in-name-shown-escaped" "$OUT" "new␊line.py:2:1: OOM101"

# ---- a user rule that backtracks catastrophically ---------------------------------
mkdir -p "$T/rules/bad"
printf '{"code":"X100","name":"bad-regex","language":"python","severity":"info","message":"m","help":"h"}' > "$T/rules/bad/rule.json"
printf '((identifier) @f (#match? @f "^(a+)+$"))' > "$T/rules/bad/query.scm"
awk 'BEGIN { for (i = 0; i < 40; i++) printf "a"; print "b = 1" }' > "$T/regex.py"
run_limited 20 --rules "$T/rules" --format concise "$T/regex.py"
expect_contains "catastrophic-regex-stopped-and-reported" "$OUT" "OOM003 Rule X100 gave up on this code"

# ---- broken notebooks: one clear finding each, never a crash or a hang -------------
# nbcase NAME FILE WANT : FILE (written by the caller) gets exactly one
# finding, which contains WANT, and the run exits 1 within 30 seconds.
nbcase() {
    run_limited 30 --format concise "$2"
    n=$(printf '%s\n' "$OUT" | grep -c 'OOM00')
    case "$OUT" in
        *"$3"*) if [ "$RC" -eq 1 ] && [ "$n" -eq 1 ]; then pass "$1"; else fail "$1" "exit $RC, $n findings: $OUT"; fi ;;
        *) fail "$1" "exit $RC; output lacks '$3'; got: $(printf '%s' "$OUT$ERR" | head -c 400)" ;;
    esac
}
printf '{"cells": [\n  {"cell_type": "code", "source": ["x = 1"]},\n  oops\n]}\n' >"$T/notjson.ipynb"
nbcase notebook-not-json "$T/notjson.ipynb" "notjson.ipynb:2:45: OOM001 Syntax error: the notebook is not valid JSON: unexpected \`, oops\`"
printf '{"cells": [{"cell_type": "code", "source": "x = 1' >"$T/truncated.ipynb"
nbcase notebook-truncated "$T/truncated.ipynb" "OOM001 Syntax error: the notebook is not valid JSON"
: >"$T/empty.ipynb"
nbcase notebook-empty-file "$T/empty.ipynb" "empty.ipynb:1:1: OOM001 Syntax error: the notebook is not valid JSON: the file holds no value"
printf '{"nbformat": 4, "metadata": {}}\n' >"$T/nocells.ipynb"
nbcase notebook-no-cells "$T/nocells.ipynb" "nocells.ipynb:1:1: OOM002 Cannot lint this file: not a Jupyter notebook: it has no \`cells\` array"
printf '{"cells": "x = 1", "nbformat": 4}\n' >"$T/cellsstring.ipynb"
nbcase notebook-cells-not-array "$T/cellsstring.ipynb" "cellsstring.ipynb:1:11: OOM002 Cannot lint this file: not a Jupyter notebook: \`cells\` is a string, not an array"
printf '["cells"]\n' >"$T/array.ipynb"
nbcase notebook-top-level-array "$T/array.ipynb" "OOM002 Cannot lint this file: not a Jupyter notebook: the file holds an array"
printf '{"cells": [\n {"cell_type": "markdown", "source": 1},\n {"cell_type": "code", "source": 42}\n]}\n' >"$T/srcnumber.ipynb"
nbcase notebook-source-number "$T/srcnumber.ipynb" "srcnumber.ipynb:3:34: OOM002 Cannot lint this file: cell 2: \`source\` is a number, not a string or a list of strings"
printf '{"cells": [{"cell_type": "code", "source": ["x = 1\\n", {"a": 1}]}]}\n' >"$T/srclist.ipynb"
nbcase notebook-source-list-of-non-strings "$T/srclist.ipynb" "OOM002 Cannot lint this file: cell 1: \`source\` holds an object, not only strings"
printf '{"cells": [{"cell_type": "code"}]}\n' >"$T/nosrc.ipynb"
nbcase notebook-code-cell-without-source "$T/nosrc.ipynb" "OOM002 Cannot lint this file: cell 1 is a code cell without \`source\`"
printf '{"cells": [7]}\n' >"$T/cellnum.ipynb"
nbcase notebook-cell-not-an-object "$T/cellnum.ipynb" "OOM002 Cannot lint this file: cell 1 is a number, not an object"
printf '{\n "nbformat": 3,\n "worksheets": [{"cells": []}]\n}\n' >"$T/v3.ipynb"
nbcase notebook-nbformat-3 "$T/v3.ipynb" "v3.ipynb:2:14: OOM002 Cannot lint this file: nbformat 3 notebook; oomlint reads nbformat 4"
printf '{"cells": [{"cell_type": "code", "source": "x = \\u0000"}]}\n' >"$T/nulescape.ipynb"
nbcase notebook-nul-escape "$T/nulescape.ipynb" "OOM002 Cannot lint this file: cell 1: \`source\` holds a NUL character"
printf '{"cells": [{"cell_type": "code", "source": "x = \\udc00"}]}\n' >"$T/surrogate.ipynb"
nbcase notebook-lone-surrogate "$T/surrogate.ipynb" "OOM002 Cannot lint this file: cell 1: \`source\` holds an escape that is not text"
printf '{"cells": [{"cell_type": "code", "source": "x = \351"}]}\n' >"$T/latin1.ipynb"
nbcase notebook-not-utf8 "$T/latin1.ipynb" "OOM002 Cannot lint this file: not valid UTF-8"
printf 'PK\003\004\000\000binary' >"$T/zip.ipynb"
nbcase notebook-binary "$T/zip.ipynb" "OOM002 Cannot lint this file: binary file"
awk 'BEGIN { printf "{\"cells\": "; for (i = 0; i < 100000; i++) printf "["; for (i = 0; i < 100000; i++) printf "]"; print "}" }' >"$T/deep.ipynb"
nbcase notebook-100000-deep-json "$T/deep.ipynb" "OOM002 Cannot lint this file: cell 1 is an array, not an object"
truncate -s 300M "$T/huge.ipynb"
nbcase notebook-over-the-notebook-limit "$T/huge.ipynb" "OOM002 Cannot lint this file: file is 300 MiB, over the 256 MiB limit"
# a broken notebook does not stop the others
run_oomlint --format concise "$T/nocells.ipynb" "$T/bom.py"
expect_contains notebook-broken-others-linted "$OUT" "bom.py:2:1: OOM101"
# wide rather than deep: 100000 cells and a 100000-string source, read in linear time
awk 'BEGIN { printf "{\"cells\": ["; for (i = 0; i < 100000; i++) printf "{\"cell_type\": \"markdown\", \"source\": \"m\"}, ";
  printf "{\"cell_type\": \"code\", \"source\": ["; for (i = 0; i < 100000; i++) printf "\"# %d\\n\", ", i;
  print "\"import os\\n\", \"os.environ[\\\"CUDA_VISIBLE_DEVICES\\\"] = \\\"0\\\"\"]}]}" }' >"$T/wide.ipynb"
run_limited 60 --format concise "$T/wide.ipynb"
expect_contains notebook-100000-cells-and-source-strings "$OUT" "wide.ipynb:cell 100001:100002:1: OOM101"

# ---- hostile YAML: one clear finding or nothing, in linear time -------------------
# yamlcase NAME FILE WANT: linted for a T4 within 20 s and 512 MiB, exit 0 or 1, WANT
# in the output ("" for no finding at all). A sanitizer build reserves terabytes of
# address space for its shadow memory: it runs under the time limit only.
vmem=524288
grep -q __asan_init "$OOMLINT" 2>/dev/null && vmem=unlimited
yamlcase() {
    ( ulimit -v "$vmem"; timeout 20 "$OOMLINT" --gpu t4 --format concise "$2" >"$T/out" 2>"$T/err" </dev/null )
    RC=$?
    OUT="$(cat "$T/out")"
    if [ "$RC" -gt 1 ]; then
        fail "$1" "exit $RC: $(head -c 300 "$T/err")"
    elif [ -z "$3" ]; then
        expect_not_contains "$1" "$OUT" "OOM"
    else
        expect_contains "$1" "$OUT" "$3"
    fi
}
# a billion laughs, and far more: 30 levels of 10 aliases each (10^30 copies if expanded)
awk 'BEGIN { print "base_model: gpt2"; print "micro_batch_size: 1"
  printf "a0: &a0 [\"lol\""; for (j = 1; j < 10; j++) printf ", \"lol\""; print "]"
  for (i = 1; i < 30; i++) { printf "a%d: &a%d [*a%d", i, i, i - 1; for (j = 1; j < 10; j++) printf ", *a%d", i - 1; print "]" }
  print "bf16: *a29"; print "tf32: true" }' >"$T/laughs.yaml"
yamlcase yaml-billion-laughs "$T/laughs.yaml" "laughs.yaml:34:1: OOM403"
# 100000 merges of one anchor (which alone makes this an axolotl config), and
# 30000 aliases: each a bounded lookup
awk 'BEGIN { print "a: &a {micro_batch_size: 1}"; printf "<<: [*a"
  for (i = 0; i < 100000; i++) printf ", *a"; print "]"; for (i = 0; i < 30000; i++) printf "k%d: *a\n", i; print "bf16: true" }' >"$T/merges.yaml"
yamlcase yaml-100000-merges-and-aliases "$T/merges.yaml" "merges.yaml:30003:1: OOM401"
# merge keys that name themselves, each other, or nothing
printf 'a: &a {x: 1}\nb: &b\n  <<: *a\n  <<: *b\nc: &c\n  <<: [*b, *a, *c]\n<<: *c\n<<: *nowhere\nbase_model: gpt2\nbf16: true\n' >"$T/cycles.yaml"
yamlcase yaml-merge-cycles "$T/cycles.yaml" "cycles.yaml:10:1: OOM401"
printf 'base_model: gpt2\nsequence_len: 512\nbf16: *undefined\n' >"$T/undefined.yaml"
yamlcase yaml-undefined-alias "$T/undefined.yaml" ""
# deep nesting: 100000 flow brackets; 300 block levels (past the YAML scanner's saved state)
awk 'BEGIN { printf "base_model: gpt2\nx: "; for (i = 0; i < 100000; i++) printf "["; for (i = 0; i < 100000; i++) printf "]"; print ""; print "bf16: true" }' >"$T/deepflow.yaml"
yamlcase yaml-100000-deep-flow "$T/deepflow.yaml" "deepflow.yaml:3:1: OOM401"
awk 'BEGIN { print "base_model: gpt2"; for (i = 0; i < 300; i++) { for (j = 0; j < i; j++) printf "  "; printf "n%d:\n", i }; print "bf16: true" }' >"$T/deepblock.yaml"
yamlcase yaml-300-deep-blocks "$T/deepblock.yaml" "deepblock.yaml:1:1: OOM001"
# a tab in indentation is not YAML: one syntax error
printf 'base_model: gpt2\nmicro_batch_size: 1\n\tbf16: true\n' >"$T/tabs.yaml"
yamlcase yaml-tab-indentation "$T/tabs.yaml" "tabs.yaml:1:1: OOM001"
# several documents: each read on its own, lines counted in the file
printf -- '---\nname: ci\non: push\n---\nbase_model: gpt2\nmicro_batch_size: 1\nbf16: true\n...\n---\n- a\n- b\n' >"$T/docs.yaml"
yamlcase yaml-several-documents "$T/docs.yaml" "docs.yaml:7:1: OOM401"
# YAML 1.1 scalars and Python tags parse, and read as PyYAML reads them
printf 'base_model: gpt2\nmicro_batch_size: 500_000\ndtype: !!python/name:torch.bfloat16\nrun: !!python/object/apply:os.system ["echo"]\nempty:\nbf16: on\n' >"$T/tags.yaml"
yamlcase yaml-python-tags-and-yaml11 "$T/tags.yaml" "tags.yaml:6:1: OOM401"
printf 'base_model: gpt2\nnote: \351t\351\nbf16: true\n' >"$T/latin1.yaml"
yamlcase yaml-not-utf8 "$T/latin1.yaml" "OOM002 Cannot lint this file: not valid UTF-8"
printf 'base_model: gpt2\n\000\001bf16: true\n' >"$T/nul.yaml"
yamlcase yaml-binary "$T/nul.yaml" "OOM002 Cannot lint this file: binary file"
awk 'BEGIN { print "base_model: gpt2"; for (i = 0; i < 40000; i++) printf "k%d: %d\n", i, i; print "bf16: true" }' >"$T/long.yaml"
yamlcase yaml-over-the-parser-line-limit "$T/long.yaml" "OOM002 Cannot lint this file: YAML file of more than 32768 lines"
# in a folder walk, YAML that is not a training config is left alone, broken or not
mkdir -p "$T/yamlwalk/.github/workflows" "$T/yamlwalk/charts"
printf 'on: push\njobs:\n  t:\n    runs-on: ubuntu-latest\n    env: {bf16: true}\n' >"$T/yamlwalk/.github/workflows/ci.yml"
printf 'spec:\n  replicas: {{ .Values.replicas }}\n\t- broken: [\n' >"$T/yamlwalk/charts/deployment.yaml"
cp "$T/long.yaml" "$T/yamlwalk/data.yaml"
printf 'base_model: gpt2\nmicro_batch_size: 1\nbf16: true\n' >"$T/yamlwalk/axolotl.yml"
run_oomlint --gpu t4 --format concise "$T/yamlwalk"
expect_contains yaml-walk-config-linted "$OUT" "axolotl.yml:3:1: OOM401"
n=$(printf '%s\n' "$OUT" | grep -c ': OOM')
if [ "$n" = 1 ]; then pass yaml-walk-others-left-alone; else fail yaml-walk-others-left-alone "$n findings: $OUT"; fi
