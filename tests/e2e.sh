#!/bin/sh
# End-to-end tests of the oomlint command line. Run from the repository root:
#   sh tests/e2e.sh                              (tests build/oomlint)
#   OOMLINT=build/asan/oomlint sh tests/e2e.sh   (tests another build)
# Each check prints one line, "PASS name" or "FAIL name: why"; the script
# exits 0 whatever the results (tests/run.sh counts the FAIL lines).

. tests/lib.sh

T="$TEST_TMP"
ESC="$(printf '\033')"


# ---------------------------------------------------------------- helpers

# expect_jq NAME FILTER : checks that stdout ($TEST_TMP/out) is JSON for
# which the jq FILTER yields true.
expect_jq() {
    if jq -e "$2" "$T/out" >/dev/null 2>&1; then
        pass "$1"
    else
        fail "$1" "jq '$2' is not true; got: $(head -c 400 "$T/out")"
    fi
}

# expect_rc_in NAME CODES... : checks $RC is one of CODES.
expect_rc_in() {
    _n="$1"; shift
    for _c in "$@"; do
        if [ "$RC" -eq "$_c" ]; then pass "$_n"; return; fi
    done
    fail "$_n" "exit $RC, want one of: $*; stderr: $(head -c 300 "$T/err")"
}

# expect_no_esc NAME HAYSTACK : no ESC byte at all.
expect_no_esc() {
    case "$2" in
        *"$ESC"*) fail "$1" "output has an ESC byte; got: $(printf '%s' "$2" | head -c 300 | od -c | head -5)" ;;
        *) pass "$1" ;;
    esac
}

# run_stdin INPUT ARGS... : like run_oomlint, but feeds INPUT (printf format
# string without arguments) on stdin.
run_stdin() {
    _in="$1"; shift
    printf "$_in" | "$OOMLINT" "$@" >"$T/out" 2>"$T/err"
    RC=$?
    OUT="$(cat "$T/out")"
    ERR="$(cat "$T/err")"
}

# count_lines HAYSTACK ERE : prints how many lines of HAYSTACK match ERE.
count_lines() {
    printf '%s\n' "$1" | grep -c -E "$2"
}

CUDA='os.environ["CUDA_VISIBLE_DEVICES"] = "0"'

# Source files used by many checks.
write_samples "$T"
# OOM101 on line 2, OOM201 on line 8, OOM202 on line 9.
cat >"$T/mixed.py" <<'EOF'
import os
os.environ["CUDA_VISIBLE_DEVICES"] = "0"
def train(model, loader, criterion):
    losses = []
    total = 0
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        losses.append(loss)
        total += loss
EOF

# ---------------------------------------------------------------- exit codes

run_oomlint "$T/clean.py"
expect_rc rc-clean-0 0

run_oomlint "$T/cuda.py"
expect_rc rc-finding-1 1

run_oomlint --bogus "$T/clean.py"
expect_rc rc-unknown-flag-2 2
n="$(count_lines "$ERR" '^oomlint: error:')"
if [ "$n" -eq 1 ]; then pass unknown-flag-one-error-line
else fail unknown-flag-one-error-line "want 1 line starting 'oomlint: error:', got $n; stderr: $(printf '%s' "$ERR" | head -c 300)"; fi
expect_contains unknown-flag-names-flag "$(printf '%s\n' "$ERR" | grep '^oomlint: error:')" "--bogus"

run_oomlint --format xml "$T/cuda.py"
expect_rc rc-bad-format-2 2

run_oomlint --color sometimes "$T/cuda.py"
expect_rc rc-bad-color-2 2

run_oomlint --select 'foo!' "$T/cuda.py"
expect_rc rc-bad-select-2 2

run_oomlint "$T/no-such-file.py" "$T/cuda.py"
expect_rc missing-path-rc-2 2
expect_contains missing-path-named-in-stderr "$ERR" "no-such-file.py"
expect_contains missing-path-others-still-linted "$OUT" "cuda.py:2:1: OOM101"

# ---------------------------------------------------------------- findings

run_oomlint --format concise "$T/cuda.py"
expect_contains oom101-at-2-1 "$OUT" "cuda.py:2:1: OOM101"

run_oomlint --format concise "$T/loop.py"
expect_not_contains oom201-opt-in "$OUT" "OOM201"
run_oomlint --format concise --extend-select OOM201 "$T/loop.py"
expect_contains oom201-on-append-line "$OUT" "loop.py:6:9: OOM201"
run_oomlint --format concise --extend-select OOM201 --ignore OOM20 "$T/loop.py"
expect_contains extend-select-wins-over-a-shorter-ignore "$OUT" "loop.py:6:9: OOM201"
run_oomlint --format concise --extend-select OOM2 --ignore OOM201 "$T/loop.py"
expect_not_contains extend-select-yields-to-a-longer-ignore "$OUT" "OOM201"
run_oomlint --format concise --select OOM1 --extend-select OOM201 "$T/loop.py"
expect_contains extend-select-adds-to-select "$OUT" "loop.py:6:9: OOM201"
run_oomlint --format concise --extend-select OOM9 "$T/loop.py"
expect_rc extend-select-unknown-code-rc 2
expect_contains extend-select-unknown-code-named "$ERR" "extend-select: no rule has a code starting with 'OOM9'"

# ---------------------------------------------------------------- --format full

run_oomlint "$T/cuda.py"
expect_contains full-header-line "$OUT" "$T/cuda.py:2:1: OOM101 "
expect_contains full-frame-source "$OUT" "$CUDA"
expect_contains full-frame-underline "$OUT" "^^^"
expect_contains full-help "$OUT" "help:"
expect_contains full-summary "$OUT" "Found 1 problem (1 warning) in 1 file."

run_oomlint --format full "$T/cuda.py"
expect_contains full-explicit "$OUT" "$T/cuda.py:2:1: OOM101 "

run_oomlint "$T/clean.py"
case "$(printf '%s\n' "$OUT" | grep -v '^$' | tail -n 1)" in
    "All checks passed"*) pass full-clean-summary ;;
    *) fail full-clean-summary "last line does not start with 'All checks passed'; got: $(printf '%s' "$OUT" | head -c 300)" ;;
esac

# ---------------------------------------------------------------- --format concise

run_oomlint --format concise "$T/cuda.py"
n="$(count_lines "$OUT" ':[0-9]+:[0-9]+: OOM[0-9]+ ')"
if [ "$n" -eq 1 ]; then pass concise-one-line-per-finding
else fail concise-one-line-per-finding "want 1 finding line, got $n; out: $(printf '%s' "$OUT" | head -c 300)"; fi
expect_not_contains concise-no-frame "$OUT" "^^^"
expect_not_contains concise-no-help "$OUT" "help:"
expect_contains concise-summary "$OUT" "Found 1 problem"
n="$(printf '%s\n' "$OUT" | grep -c -v '^$')"
if [ "$n" -eq 3 ]; then pass concise-only-finding-summary-and-fixes
else fail concise-only-finding-summary-and-fixes "want 3 non-empty lines, got $n; out: $(printf '%s' "$OUT" | head -c 300)"; fi
# the OOM101 fix is unsafe: no [*] mark, and the last line says which flag applies it
expect_not_contains concise-unsafe-fix-not-marked "$OUT" "[*]"
expect_contains concise-unsafe-fix-counted "$OUT" 'No fixes with `--fix`; 1 with `--unsafe-fixes`.'

run_oomlint --format concise "$T/clean.py"
expect_rc concise-clean-rc 0
expect_contains concise-clean-summary "$OUT" "All checks passed"

# ---------------------------------------------------------------- --format json

run_oomlint --format json "$T/cuda.py"
expect_rc json-rc 1
expect_jq json-valid-array 'type == "array" and length == 1'
expect_jq json-fields '.[0] | has("code") and has("severity") and has("message") and has("help") and has("filename") and has("location") and has("end_location") and has("url") and has("fix")'
expect_jq json-code '.[0].code == "OOM101"'
expect_jq json-severity '.[0].severity == "warning"'
expect_jq json-location '.[0].location.row == 2 and .[0].location.column == 1'
expect_jq json-end-location '.[0].end_location.row == 2 and (.[0].end_location.column | type == "number") and .[0].end_location.column > 1'
expect_jq json-filename '.[0].filename | endswith("cuda.py")'
expect_jq json-fix-object '.[0].fix | .applicability == "unsafe" and (.message | type == "string") and (.edits | length == 1)'
expect_jq json-fix-edit '.[0].fix.edits[0] | .content == "os.environ.setdefault(\"CUDA_VISIBLE_DEVICES\", \"0\")" and .location == {"row": 2, "column": 1} and .end_location.row == 2'
expect_jq json-strings '.[0] | (.message | type == "string" and length > 0) and (.help | type == "string" and length > 0) and (.url | type == "string")'
expect_not_contains json-no-summary "$OUT" "Found 1 problem"

run_oomlint --format json "$T/clean.py"
expect_rc json-empty-rc 0
expect_jq json-empty-array 'type == "array" and length == 0'

run_oomlint --format json --extend-select OOM201 "$T/loop.py"
expect_jq json-oom201-row '.[0].code == "OOM201" and .[0].location.row == 6'

# ---------------------------------------------------------------- colour

run_oomlint --color always "$T/cuda.py"
expect_contains color-always-has-esc "$OUT" "$ESC["

run_oomlint --color never "$T/cuda.py"
expect_no_esc color-never-no-esc "$OUT"

run_oomlint "$T/cuda.py"
expect_no_esc color-default-pipe-no-esc "$OUT"

NO_COLOR=1 "$OOMLINT" --color auto "$T/cuda.py" >"$T/out" 2>"$T/err" </dev/null
expect_no_esc color-no-color-env "$(cat "$T/out")"

# With a real terminal (only where util-linux `script` can give one):
# auto colours a terminal, and NO_COLOR turns that off.
if command -v script >/dev/null 2>&1 &&
   script -q -e -c 'echo ok' /dev/null </dev/null 2>/dev/null | grep -q ok; then
    script -q -e -c "env -u NO_COLOR '$OOMLINT' --color auto '$T/cuda.py'" /dev/null \
        </dev/null >"$T/out" 2>"$T/err"
    expect_contains color-auto-tty-has-esc "$(cat "$T/out")" "$ESC["
    script -q -e -c "env NO_COLOR=1 '$OOMLINT' --color auto '$T/cuda.py'" /dev/null \
        </dev/null >"$T/out" 2>"$T/err"
    expect_contains color-no-color-tty-ran "$(cat "$T/out")" "OOM101"
    expect_no_esc color-no-color-tty-no-esc "$(cat "$T/out")"
fi

run_oomlint --color always --format concise "$T/cuda.py"
expect_contains color-always-concise "$OUT" "$ESC["

# ---------------------------------------------------------------- --select / --ignore

run_oomlint --format concise --select OOM1 "$T/mixed.py"
expect_contains select-prefix-keeps "$OUT" ": OOM101 "
expect_not_contains select-prefix-drops-201 "$OUT" "OOM201"
expect_not_contains select-prefix-drops-202 "$OUT" "OOM202"

run_oomlint --format concise --ignore OOM101 --extend-select OOM201 "$T/mixed.py"
expect_not_contains ignore-drops "$OUT" "OOM101"
expect_contains ignore-keeps-others "$OUT" ": OOM201 "

run_oomlint --format concise --select OOM2 --ignore OOM201 "$T/mixed.py"
expect_contains select-ignore-keeps-202 "$OUT" ": OOM202 "
expect_not_contains select-ignore-drops-201 "$OUT" "OOM201"
expect_not_contains select-ignore-drops-101 "$OUT" "OOM101"

run_oomlint --format concise --select OOM2,OOM101 "$T/mixed.py"
expect_contains select-list-101 "$OUT" ": OOM101 "
expect_contains select-list-201 "$OUT" ": OOM201 "

run_oomlint --select OOM101 "$T/loop.py"
expect_rc select-nothing-left-rc-0 0

# ---------------------------------------------------------------- stdin

run_stdin 'import os\nos.environ["CUDA_VISIBLE_DEVICES"] = "0"\n' --format concise -
expect_rc stdin-rc 1
expect_contains stdin-name "$OUT" "<stdin>:2:1: OOM101"

run_stdin 'import os\nos.environ["CUDA_VISIBLE_DEVICES"] = "0"\n' --format concise --stdin-filename train.py -
expect_contains stdin-filename "$OUT" "train.py:2:1: OOM101"
expect_not_contains stdin-filename-not-stdin "$OUT" "<stdin>"

run_stdin 'x = 1\n' -
expect_rc stdin-clean-rc 0

# ---------------------------------------------------------------- suppression

sup() { # sup NAME SUFFIX WANT_RC
    printf 'import os\n%s  %s\n' "$CUDA" "$2" >"$T/sup.py"
    run_oomlint --format concise "$T/sup.py"
    expect_rc "$1" "$3"
}
sup noqa-bare '# noqa' 0
sup noqa-code '# noqa: OOM101' 0
sup noqa-prefix-list '# noqa: OOM201, OOM101' 0
sup oomlint-disable '# oomlint: disable=OOM101' 0
sup noqa-other-code '# noqa: OOM999' 1
expect_contains noqa-other-code-reported "$OUT" ": OOM101 "

printf '# oomlint: disable-file\nimport os\n%s\n' "$CUDA" >"$T/dfile.py"
run_oomlint --format concise "$T/dfile.py"
expect_rc disable-file 0

printf '# oomlint: disable-file=OOM2\nimport os\n%s\n%s\n' "$SAMPLE_CUDA" "$SAMPLE_LOOP" >"$T/dfile2.py"
run_oomlint --format concise "$T/dfile2.py"
expect_contains disable-file-code-keeps-101 "$OUT" ": OOM101 "
expect_not_contains disable-file-code-drops-201 "$OUT" "OOM201"

# Not on a line of its own: the comment only applies as a line comment.
printf 'import os\n%s\nx = 1  # oomlint: disable-file\n' "$CUDA" >"$T/dfile3.py"
run_oomlint --format concise "$T/dfile3.py"
expect_rc disable-file-trailing-not-file-wide 1

# ---------------------------------------------------------------- directory walk

W="$T/walk"
for f in a.py sub/b.py .venv/lib.py venv/x.py env2/y.py node_modules/z.py \
         __pycache__/c.py site-packages/d.py .git/e.py; do
    mkdir -p "$W/$(dirname "$f")"
    printf 'import os\n%s\n' "$CUDA" >"$W/$f"
done
printf 'home = /usr/bin\n' >"$W/env2/pyvenv.cfg"

run_oomlint --format concise "$W"
expect_rc walk-rc 1
expect_contains walk-a "$OUT" "a.py:2:1: OOM101"
expect_contains walk-sub-b "$OUT" "sub/b.py:2:1: OOM101"
n="$(count_lines "$OUT" ': OOM101 ')"
if [ "$n" -eq 2 ]; then pass walk-only-two
else fail walk-only-two "want 2 findings, got $n; out: $(printf '%s' "$OUT" | head -c 600)"; fi
for skip in .venv/lib.py venv/x.py env2/y.py node_modules/z.py __pycache__/c.py site-packages/d.py .git/e.py; do
    expect_not_contains "walk-skips-$(dirname "$skip")" "$OUT" "$skip"
done

run_oomlint --format concise --exclude 'sub' "$W"
expect_contains exclude-dir-keeps-a "$OUT" "a.py:2:1: OOM101"
expect_not_contains exclude-dir-drops-b "$OUT" "b.py"

run_oomlint --format concise --exclude '*.py' "$W"
expect_rc exclude-glob-rc-0 0
expect_not_contains exclude-glob-drops-all "$OUT" "OOM101"

run_oomlint --format concise --exclude '*.py' "$W/a.py"
expect_rc exclude-explicit-file-rc 1
expect_contains exclude-explicit-file-linted "$OUT" "a.py:2:1: OOM101"

run_oomlint --format concise --exclude 'sub' --exclude 'a.py' "$W"
expect_rc exclude-repeatable 0

# ---------------------------------------------------------------- bad input

printf 'x = 1\000\000\001\002\n' >"$T/binary.py"
run_oomlint --format json "$T/binary.py" "$T/cuda.py"
expect_rc binary-rc 1
expect_jq binary-one-oom002 '[.[] | select(.code == "OOM002")] | length == 1'
expect_jq binary-oom002-names-file '[.[] | select(.code == "OOM002")][0].filename | endswith("binary.py")'
expect_jq binary-others-reported '[.[] | select(.code == "OOM101" and (.filename | endswith("cuda.py")))] | length == 1'

printf '\377\376 x = 1\n' >"$T/latin.py"
run_oomlint --format json "$T/latin.py" "$T/cuda.py"
expect_rc not-utf8-rc 1
expect_jq not-utf8-one-oom002 '[.[] | select(.code == "OOM002")] | length == 1'
expect_jq not-utf8-others-reported '[.[] | select(.code == "OOM101")] | length == 1'

mkfifo "$T/fifo.py"
timeout 10 "$OOMLINT" --format json "$T/fifo.py" "$T/cuda.py" >"$T/out" 2>"$T/err" </dev/null
RC=$?
if [ "$RC" -eq 124 ] || [ "$RC" -ge 128 ]; then
    fail fifo-no-hang "exit $RC (timed out or killed)"
else
    pass fifo-no-hang
fi
expect_rc fifo-rc 1
expect_jq fifo-one-oom002 '[.[] | select(.code == "OOM002")] | length == 1'
expect_jq fifo-others-reported '[.[] | select(.code == "OOM101")] | length == 1'

mkdir -p "$T/dirpy/x.py"
printf 'import os\n%s\n' "$CUDA" >"$T/dirpy/x.py/inner.py"
run_oomlint --format json "$T/dirpy/x.py"
expect_rc dir-named-py-rc 1
expect_jq dir-named-py-walked '[.[] | select(.code == "OOM101" and (.filename | endswith("inner.py")))] | length == 1'
expect_jq dir-named-py-no-oom002 '[.[] | select(.code == "OOM002")] | length == 0'

: >"$T/empty.py"
run_oomlint "$T/empty.py"
expect_rc empty-file-rc-0 0

printf '\357\273\277%s\n' "$CUDA" >"$T/bom.py"
run_oomlint --format json "$T/bom.py"
expect_rc bom-rc 1
expect_jq bom-column-1 '.[0].code == "OOM101" and .[0].location.row == 1 and .[0].location.column == 1'

printf '\357\273\277import os\n%s\n' "$CUDA" >"$T/bom2.py"
run_oomlint --format json "$T/bom2.py"
expect_jq bom-line2-column-1 '.[0].code == "OOM101" and .[0].location.row == 2 and .[0].location.column == 1'

cat >"$T/syntax.py" <<'EOF'
import os
os.environ["CUDA_VISIBLE_DEVICES"] = "0"
def broken(:
    pass
EOF
run_oomlint --format json "$T/syntax.py"
expect_rc syntax-error-rc 1
expect_jq syntax-error-oom001 '[.[] | select(.code == "OOM001")] | length == 1'
expect_jq syntax-error-still-finds '[.[] | select(.code == "OOM101" and .location.row == 2)] | length == 1'

awk 'BEGIN { s = "x = "; for (i = 0; i < 10000; i++) s = s "("; s = s "1";
             for (i = 0; i < 10000; i++) s = s ")"; print s }' >"$T/deep.py"
timeout 60 "$OOMLINT" "$T/deep.py" >"$T/out" 2>"$T/err" </dev/null
RC=$?
expect_rc_in deep-nesting-no-crash 0 1

printf 'import os\n\303\251 = 1; %s\n' "$CUDA" >"$T/utf8.py"
run_oomlint --format json "$T/utf8.py"
expect_jq non-ascii-column-chars '.[0].code == "OOM101" and .[0].location.row == 2 and .[0].location.column == 8'
run_oomlint --format concise "$T/utf8.py"
expect_contains non-ascii-column-text "$OUT" "utf8.py:2:8: OOM101"

printf 'import os\ndef f():\n\t%s\n' "$CUDA" >"$T/tab.py"
run_oomlint --format json "$T/tab.py"
expect_jq tab-column-one-char '.[0].code == "OOM101" and .[0].location.row == 3 and .[0].location.column == 2'

printf 'import os\n%s; s = "\033[31m red \033]0;title\007"\n' "$CUDA" >"$T/esc.py"
run_oomlint --color never "$T/esc.py"
expect_rc escape-in-source-rc 1
expect_no_esc escape-in-source-not-raw "$OUT"
expect_contains escape-in-source-frame-shown "$OUT" "CUDA_VISIBLE_DEVICES"

printf 'import os\nos.environ["CUDA_VISIBLE_DEVICES"] = "\033[2J\033[31m0"\n' >"$T/esc2.py"
run_oomlint --color never "$T/esc2.py"
expect_no_esc escape-in-value-not-raw "$OUT"
run_oomlint --format concise --color never "$T/esc2.py"
expect_no_esc escape-in-value-concise-not-raw "$OUT"

# ---------------------------------------------------------------- rules / rule / version / help

run_oomlint rules
expect_rc rules-rc 0
for code in OOM001 OOM002 OOM101 OOM201 OOM202 OOM301; do
    n="$(count_lines "$OUT" "^$code[[:space:]]+[a-z][a-z0-9-]*")"
    if [ "$n" -eq 1 ]; then pass "rules-lists-$code"
    else fail "rules-lists-$code" "no '$code name' line; out: $(printf '%s' "$OUT" | head -c 400)"; fi
done

run_oomlint rule OOM201
expect_rc rule-doc-rc 0
for sect in '## What it does' '## Why is this bad?' '## Example' '## Use instead' '## References'; do
    expect_contains "rule-doc-$(printf '%s' "$sect" | tr -cd 'a-zA-Z' )" "$OUT" "$sect"
done

run_oomlint rule OOM999
expect_rc rule-unknown-rc-2 2

run_oomlint --version
expect_rc version-rc 0
case "$OUT" in
    "oomlint "[0-9]*) pass version-text ;;
    *) fail version-text "want 'oomlint VERSION'; got: $(printf '%s' "$OUT" | head -c 200)" ;;
esac

run_oomlint -V
expect_contains version-short "$OUT" "oomlint "

run_oomlint --help
expect_rc help-rc 0
expect_contains help-usage "$OUT" "--select"

# ---------------------------------------------------------------- --rules DIR

R="$T/rules-ok"
mkdir -p "$R/my-rule"
cat >"$R/my-rule/rule.json" <<'EOF'
{"code":"X100","name":"print-call","language":"python","severity":"info","message":"print of {{arg}}","help":"use logging"}
EOF
cat >"$R/my-rule/query.scm" <<'EOF'
((call function: (identifier) @f arguments: (argument_list (_) @arg)) @report (#eq? @f "print"))
EOF
printf 'print(1)\n' >"$T/print.py"
run_oomlint --format json --rules "$R" "$T/print.py"
expect_rc extra-rule-rc 1
expect_jq extra-rule-code '[.[] | select(.code == "X100")] | length == 1'
expect_jq extra-rule-message '[.[] | select(.code == "X100")][0].message == "print of 1"'
expect_jq extra-rule-location '[.[] | select(.code == "X100")][0].location == {"row": 1, "column": 1}'

run_oomlint --format concise --rules "$R" "$T/cuda.py"
expect_contains extra-rule-keeps-builtin "$OUT" ": OOM101 "

run_oomlint --format concise --rules "$R" --ignore X100 "$T/print.py"
expect_rc extra-rule-ignorable 0

R="$T/rules-badjson"
mkdir -p "$R/bad"
printf '{"code": "X200",\n "name": ,\n "language": "python"}\n' >"$R/bad/rule.json"
printf '(identifier) @report\n' >"$R/bad/query.scm"
run_oomlint --rules "$R" "$T/clean.py"
expect_rc bad-rule-json-rc-2 2
if printf '%s\n' "$ERR" | grep -q -E 'rule\.json:[0-9]+:[0-9]+'; then pass bad-rule-json-line-col
else fail bad-rule-json-line-col "stderr lacks 'rule.json:LINE:COL'; got: $(printf '%s' "$ERR" | head -c 300)"; fi

R="$T/rules-badquery"
mkdir -p "$R/bad"
printf '{"code":"X300","name":"bad-query","language":"python","severity":"info","message":"m","help":"h"}\n' >"$R/bad/rule.json"
printf '; comment\n((call function: (identifier) @f) @report\n' >"$R/bad/query.scm"
run_oomlint --rules "$R" "$T/clean.py"
expect_rc bad-query-rc-2 2
if printf '%s\n' "$ERR" | grep -q -E 'query\.scm:[0-9]+:[0-9]+'; then pass bad-query-line-col
else fail bad-query-line-col "stderr lacks 'query.scm:LINE:COL'; got: $(printf '%s' "$ERR" | head -c 300)"; fi

R="$T/rules-badpred"
mkdir -p "$R/bad"
printf '{"code":"X400","name":"bad-pred","language":"python","severity":"info","message":"m","help":"h"}\n' >"$R/bad/rule.json"
printf '((identifier) @f @report (#oom-bogus? @f))\n' >"$R/bad/query.scm"
run_oomlint --rules "$R" "$T/clean.py"
expect_rc unknown-predicate-rc-2 2

R="$T/rules-redos"
mkdir -p "$R/redos"
printf '{"code":"X500","name":"redos","language":"python","severity":"info","message":"m","help":"h"}\n' >"$R/redos/rule.json"
printf '((identifier) @f @report (#match? @f "(a+)+$"))\n' >"$R/redos/query.scm"
awk 'BEGIN { s = ""; for (i = 0; i < 5000; i++) s = s "a"; print s "b = 1" }' >"$T/redos.py"
timeout 20 "$OOMLINT" --rules "$R" "$T/redos.py" >"$T/out" 2>"$T/err" </dev/null
RC=$?
if [ "$RC" -eq 124 ] || [ "$RC" -ge 128 ]; then
    fail regex-predicate-finishes "exit $RC (timed out or crashed); stderr: $(head -c 300 "$T/err")"
else
    pass regex-predicate-finishes
fi

# ---------------------------------------------------------------- adding a rule

# every rule folder is named CODE-name after its rule.json
for rule_json in rules/*/*/rule.json; do
    folder=$(basename "$(dirname "$rule_json")")
    code=$(sed -n 's/^ *"code": *"\([^"]*\)".*/\1/p' "$rule_json")
    name=$(sed -n 's/^ *"name": *"\([^"]*\)".*/\1/p' "$rule_json")
    if [ "$folder" = "$code-$name" ]; then
        pass "rule-folder-named-for-its-rule-$code"
    else
        fail "rule-folder-named-for-its-rule-$code" "$rule_json says $code-$name, its folder is $folder"
    fi
done

# make new-rule scaffolds a rule that loads and passes its two fixtures at once
SCAFFOLD="$T/scaffold"
mkdir -p "$SCAFFOLD"
ROOT="$SCAFFOLD" sh src/tools/new_rule.sh OOM799 replace-me-call > "$T/out" 2> "$T/err"
RC=$?
expect_rc "new-rule-scaffolds" 0
run_oomlint --isolated --rules "$SCAFFOLD/rules/python" --select OOM799 --format concise \
    "$SCAFFOLD/fixtures/rules/OOM799/fires_example.py"
expect_contains "new-rule-fires-on-its-fixture" "$OUT" "fires_example.py:4:1: OOM799"
run_oomlint --isolated --rules "$SCAFFOLD/rules/python" --select OOM799 --format concise \
    "$SCAFFOLD/fixtures/rules/OOM799/quiet_example.py"
expect_rc "new-rule-quiet-on-its-fixture" 0
run_oomlint --isolated --rules "$SCAFFOLD/rules/python" rule OOM799
expect_contains "new-rule-doc-has-the-five-parts" "$OUT" "## References"
# codes are never reused, names are unique, and bad spellings are refused
ROOT="$SCAFFOLD" sh src/tools/new_rule.sh OOM799 another-name > "$T/out" 2> "$T/err"
RC=$?
expect_rc "new-rule-refuses-a-taken-code" 2
ROOT="$SCAFFOLD" sh src/tools/new_rule.sh OOM798 replace-me-call > "$T/out" 2> "$T/err"
RC=$?
expect_rc "new-rule-refuses-a-taken-name" 2
ROOT="$SCAFFOLD" sh src/tools/new_rule.sh OOM7 Bad_Name > "$T/out" 2> "$T/err"
RC=$?
expect_rc "new-rule-refuses-bad-spellings" 2
expect_contains "new-rule-says-what-is-wrong" "$(cat "$T/err")" "CODE must be OOM followed by three digits"

# oomlint predicates lists the engine's own table
run_oomlint predicates
expect_contains "predicates-lists-the-table" "$OUT" "#oom-carries-graph? @x"

# torch.cuda.is_bf16_supported() checks the hardware only before PyTorch 2.4;
# from 2.4 (and by default: current PyTorch) it answers true on a V100
run_oomlint --format concise --isolated --gpu v100 fixtures/rules/OOM401/fires_despite_an_emulating_bf16_check.py
expect_contains "bf16-check-emulates-from-torch-2.4" "$OUT" "OOM401"
run_oomlint --format concise --isolated --gpu v100 --torch-version 2.3 fixtures/rules/OOM401/fires_despite_an_emulating_bf16_check.py
expect_not_contains "bf16-check-is-capability-before-torch-2.4" "$OUT" "OOM401"

exit 0
