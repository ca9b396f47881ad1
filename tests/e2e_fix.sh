#!/bin/sh
# End-to-end tests of fixing from the command line: --fix, --unsafe-fixes,
# --diff (its exit codes, a patch that applies), --fix-only, --show-fixes,
# stdin, notebooks, a file changed on disk during the run, a fix that would
# break the syntax, modes kept, the [tool.oomlint] keys, the fix in every
# report format; then the property check over every fixture: fixed with
# every fix, each fixed finding is gone, nothing stops parsing, a second
# --fix changes nothing and two runs give the same bytes.
# Run from the repository root:
#   sh tests/e2e_fix.sh                              (tests build/oomlint)
#   OOMLINT=build/asan/oomlint sh tests/e2e_fix.sh   (tests another build)
# Each check prints one line: "PASS name", "FAIL name: why" or "SKIP name: why";
# the script exits 0 whatever the results.

. tests/lib.sh

# OOM201 and OOM202 are opt-in; their fixtures are these tests' examples of fixes
# and reports, so every run here turns them on.
EXAMPLE_RULES="--extend-select OOM201,OOM202,OOM601"

T="$TEST_TMP"
export NO_COLOR=1

# The fixture of the rule's fix, copied where a test may change it.
fixture() { # fixture RULE NAME DEST
    cp "$ROOT/fixtures/fix/$1/$2" "$3"
}

same_bytes() { cmp -s "$1" "$2"; }

# ---------------------------------------------------------------- --diff

D="$T/diff"
mkdir -p "$D"
fixture OOM202 running_totals.py "$D/t.py"
cp "$D/t.py" "$D/orig.py"
(cd "$D" && "$OOMLINT" $EXAMPLE_RULES --isolated --diff t.py) >"$T/out" 2>"$T/err"
RC=$?
expect_rc diff-rc-1-when-something-to-fix 1
if same_bytes "$D/t.py" "$D/orig.py"; then pass diff-writes-nothing; else fail diff-writes-nothing "t.py changed"; fi
expect_contains diff-headers "$(cat "$T/out")" "--- t.py"
expect_contains diff-shows-the-safe-fix "$(cat "$T/out")" "+        running += loss.item()  # expect: OOM202"
expect_not_contains diff-leaves-unsafe-out "$(cat "$T/out")" "(loss * x.size(0)).detach()"
expect_contains diff-counts-on-stderr "$(cat "$T/err")" "Would fix 2 problems in 1 file."
if command -v patch >/dev/null 2>&1; then
    (cd "$D" && patch -p0 -s <"$T/out") >/dev/null 2>&1
    if same_bytes "$D/t.py" "$ROOT/fixtures/fix/OOM202/running_totals.py.fixed"; then pass diff-applies-as-a-patch
    else fail diff-applies-as-a-patch "patch -p0 did not give the .fixed file"; fi
else
    skip diff-applies-as-a-patch "patch is not installed"
fi
cp "$D/orig.py" "$D/t.py"
run_oomlint $EXAMPLE_RULES --isolated --diff --unsafe-fixes "$D/t.py"
expect_contains diff-unsafe-fixes "$OUT" "(loss * x.size(0)).detach()"
printf 'x = 1\n' >"$D/clean.py"
run_oomlint $EXAMPLE_RULES --isolated --diff "$D/clean.py"
expect_rc diff-rc-0-when-nothing-to-fix 0
if [ -z "$OUT" ]; then pass diff-empty-when-nothing-to-fix; else fail diff-empty-when-nothing-to-fix "$OUT"; fi
# only unsafe fixes, not asked for: nothing to fix
fixture OOM206 set_to_none.py "$D/z.py"
run_oomlint $EXAMPLE_RULES --isolated --diff "$D/z.py"
expect_rc diff-rc-0-with-only-unsafe-fixes 0
run_oomlint $EXAMPLE_RULES --isolated --diff --fix "$D/z.py"
expect_rc diff-and-fix-refused 2
run_oomlint $EXAMPLE_RULES --isolated --fix --diff-base HEAD "$D/z.py"
expect_rc fix-and-diff-base-refused 2

# ---------------------------------------------------------------- --fix

F="$T/fix"
mkdir -p "$F"
fixture OOM202 running_totals.py "$F/t.py"
chmod 0750 "$F/t.py"
run_oomlint $EXAMPLE_RULES --isolated --fix "$F/t.py"
expect_rc fix-rc-1-while-findings-remain 1
if same_bytes "$F/t.py" "$ROOT/fixtures/fix/OOM202/running_totals.py.fixed"; then pass fix-writes-the-safe-fixes
else fail fix-writes-the-safe-fixes "$(diff "$F/t.py" "$ROOT/fixtures/fix/OOM202/running_totals.py.fixed" | head -c 300)"; fi
if [ "$(stat -c %a "$F/t.py")" = 750 ]; then pass fix-keeps-the-mode
else fail fix-keeps-the-mode "mode $(stat -c %a "$F/t.py")"; fi
expect_contains fix-says-what-it-fixed "$OUT" "Fixed 2 problems in 1 file."
expect_contains fix-reports-what-is-left "$OUT" "Found 1 problem (1 error) in 1 file."
expect_contains fix-counts-the-unsafe-one-left "$OUT" 'No fixes with `--fix`; 1 with `--unsafe-fixes`.'
ls "$F" | grep -q oomlint- && fail fix-leaves-no-temporary-file "$(ls "$F")" || pass fix-leaves-no-temporary-file
run_oomlint $EXAMPLE_RULES --isolated --fix --unsafe-fixes "$F/t.py"
expect_rc fix-rc-0-when-all-fixed 0
if same_bytes "$F/t.py" "$ROOT/fixtures/fix/OOM202/running_totals.py.unsafe-fixed"; then pass fix-unsafe-fixes
else fail fix-unsafe-fixes "$(diff "$F/t.py" "$ROOT/fixtures/fix/OOM202/running_totals.py.unsafe-fixed" | head -c 300)"; fi
expect_contains fix-all-checks-passed "$OUT" "All checks passed"
cp "$F/t.py" "$F/once.py"
run_oomlint $EXAMPLE_RULES --isolated --fix --unsafe-fixes "$F/t.py"
if same_bytes "$F/t.py" "$F/once.py"; then pass fix-twice-changes-nothing; else fail fix-twice-changes-nothing "changed"; fi

# the marks and the summary without fixing
fixture OOM201 item_or_detach.py "$F/m.py"
run_oomlint $EXAMPLE_RULES --isolated --format concise "$F/m.py"
n="$(printf '%s\n' "$OUT" | grep -c ' OOM201 \[\*\] ')"
if [ "$n" -eq 2 ]; then pass fixable-findings-marked; else fail fixable-findings-marked "$n marked: $OUT"; fi
expect_contains fixable-summary-line "$OUT" '[*] 2 fixable with `--fix`, 1 more with `--unsafe-fixes`.'
run_oomlint $EXAMPLE_RULES --isolated --format concise --unsafe-fixes "$F/m.py"
n="$(printf '%s\n' "$OUT" | grep -c ' OOM201 \[\*\] ')"
if [ "$n" -eq 3 ]; then pass unsafe-fixes-marked-when-enabled; else fail unsafe-fixes-marked-when-enabled "$n marked"; fi

# --show-fixes: each fix under its finding; with --fix, what was fixed
run_oomlint $EXAMPLE_RULES --isolated --show-fixes "$F/m.py"
expect_contains show-fixes-kind "$OUT" '= safe fix: Store the number: `loss.item()`'
expect_contains show-fixes-before "$OUT" "13 |-         losses.append(loss)  # expect: OOM201"
expect_contains show-fixes-after "$OUT" "13 |+         losses.append(loss.item())  # expect: OOM201"
run_oomlint $EXAMPLE_RULES --isolated --fix --show-fixes "$F/m.py"
expect_contains show-fixes-lists-what-was-fixed "$OUT" "    2 × OOM201 (tensor-with-graph-stored)"

# --fix-only: the fixes, no report, exit 0 whatever is left
fixture OOM201 item_or_detach.py "$F/o.py"
run_oomlint $EXAMPLE_RULES --isolated --fix-only "$F/o.py"
expect_rc fix-only-rc-0 0
expect_not_contains fix-only-reports-no-finding "$OUT" "OOM201"
expect_contains fix-only-says-what-it-fixed "$OUT" "Fixed 2 problems in 1 file."
if grep -q 'losses.append(loss.item())' "$F/o.py"; then pass fix-only-fixes; else fail fix-only-fixes "not fixed"; fi

# machine formats stay machine-readable: the summary goes to standard error
fixture OOM201 item_or_detach.py "$F/j.py"
run_oomlint $EXAMPLE_RULES --isolated --fix --format json "$F/j.py"
if jq -e 'length == 2 and all(.[]; .code == "OOM201" and .fix.applicability != "safe")' "$TEST_TMP/out" >/dev/null 2>&1
then pass fix-json-lists-what-is-left; else fail fix-json-lists-what-is-left "$OUT"; fi
expect_contains fix-json-summary-on-stderr "$ERR" "Fixed 2 problems in 1 file."

# ---------------------------------------------------------------- stdin

S="$T/stdin"
mkdir -p "$S"
"$OOMLINT" $EXAMPLE_RULES --isolated --fix - <"$ROOT/fixtures/fix/OOM202/running_totals.py" >"$S/out" 2>"$S/err"
RC=$?
expect_rc stdin-fix-rc 1
if same_bytes "$S/out" "$ROOT/fixtures/fix/OOM202/running_totals.py.fixed"; then pass stdin-fix-writes-code-to-stdout
else fail stdin-fix-writes-code-to-stdout "$(head -c 300 "$S/out")"; fi
expect_contains stdin-fix-report-on-stderr "$(cat "$S/err")" "<stdin>:32:9: OOM202"
"$OOMLINT" $EXAMPLE_RULES --isolated --fix-only --stdin-filename train.py - <"$ROOT/fixtures/fix/OOM202/running_totals.py" >"$S/out" 2>"$S/err"
RC=$?
expect_rc stdin-fix-only-rc 0
if same_bytes "$S/out" "$ROOT/fixtures/fix/OOM202/running_totals.py.fixed" && [ ! -s "$S/err" ]; then
    pass stdin-fix-only-code-alone
else fail stdin-fix-only-code-alone "stderr: $(head -c 300 "$S/err")"; fi
printf 'x = 1\n' | "$OOMLINT" $EXAMPLE_RULES --isolated --fix - >"$S/out" 2>/dev/null
if [ "$(cat "$S/out")" = "x = 1" ]; then pass stdin-fix-echoes-clean-code; else fail stdin-fix-echoes-clean-code "$(cat "$S/out")"; fi
"$OOMLINT" $EXAMPLE_RULES --isolated --diff --stdin-filename t.py - <"$ROOT/fixtures/fix/OOM202/running_totals.py" >"$S/out" 2>/dev/null
RC=$?
expect_rc stdin-diff-rc 1
expect_contains stdin-diff "$(cat "$S/out")" "+        running += loss.item()  # expect: OOM202"
"$OOMLINT" $EXAMPLE_RULES --isolated --fix-only --unsafe-fixes --stdin-filename n.ipynb - \
    <"$ROOT/fixtures/fix/notebook/cells_fixed_in_place.ipynb" >"$S/out" 2>/dev/null
if same_bytes "$S/out" "$ROOT/fixtures/fix/notebook/cells_fixed_in_place.ipynb.unsafe-fixed"; then pass stdin-notebook-fixed
else fail stdin-notebook-fixed "$(diff "$S/out" "$ROOT/fixtures/fix/notebook/cells_fixed_in_place.ipynb.unsafe-fixed" | head -c 300)"; fi

# ---------------------------------------------------------------- notebooks

N="$T/nb"
mkdir -p "$N"
fixture notebook cells_fixed_in_place.ipynb "$N/n.ipynb"
run_oomlint $EXAMPLE_RULES --isolated --fix "$N/n.ipynb"
if same_bytes "$N/n.ipynb" "$ROOT/fixtures/fix/notebook/cells_fixed_in_place.ipynb.fixed"; then pass notebook-fix
else fail notebook-fix "$(diff "$N/n.ipynb" "$ROOT/fixtures/fix/notebook/cells_fixed_in_place.ipynb.fixed" | head -c 300)"; fi
expect_contains notebook-fix-reports-by-cell "$OUT" "n.ipynb:cell 4:3:13: OOM301"
run_oomlint $EXAMPLE_RULES --isolated --format json "$N/n.ipynb"
if jq -e '[.[] | select(.code == "OOM301")][0] | .cell == 4 and .fix.edits[0].location == {"row": 1, "column": 1}' \
    "$TEST_TMP/out" >/dev/null 2>&1; then pass notebook-fix-edits-in-cell-rows
else fail notebook-fix-edits-in-cell-rows "$OUT"; fi
if jq -e '[.[] | select(.code == "OOM101" and .cell == 2)][0].fix == null' "$TEST_TMP/out" >/dev/null 2>&1
then pass notebook-ipython-line-not-fixed; else fail notebook-ipython-line-not-fixed "$OUT"; fi
run_oomlint $EXAMPLE_RULES --isolated --format github "$N/n.ipynb"
expect_contains notebook-github-fix-names-the-cell "$OUT" "cell 4, line 1, column 1: insert \`@torch.no_grad()\`"
run_oomlint $EXAMPLE_RULES --isolated --format rdjson "$N/n.ipynb"
expect_not_contains notebook-rdjson-no-suggestion-at-ipynb-lines "$OUT" "suggestions"
run_oomlint $EXAMPLE_RULES --isolated --format sarif "$N/n.ipynb"
expect_not_contains notebook-sarif-no-fix-at-ipynb-lines "$OUT" "artifactChanges"

# ---------------------------------------------------------------- nothing lost

# the same file under two names: read twice, fixed once, the second write
# finds it changed since it was read and leaves it
L="$T/link"
mkdir -p "$L"
fixture OOM202 running_totals.py "$L/a.py"
ln -s a.py "$L/b.py"
run_oomlint $EXAMPLE_RULES --isolated --fix "$L/a.py" "$L/b.py"
expect_contains changed-on-disk-reported "$ERR" "b.py: changed on disk while oomlint was fixing it; not written"
if same_bytes "$L/a.py" "$ROOT/fixtures/fix/OOM202/running_totals.py.fixed"; then pass changed-on-disk-not-overwritten
else fail changed-on-disk-not-overwritten "$(diff "$L/a.py" "$ROOT/fixtures/fix/OOM202/running_totals.py.fixed" | head -c 300)"; fi
if [ -L "$L/b.py" ]; then pass fix-keeps-symlinks; else fail fix-keeps-symlinks "b.py is no longer a link"; fi

# a rule whose fix would break the syntax: the file is left as it was
R="$T/rules/X1-broken-fix"
mkdir -p "$R"
cat >"$R/rule.json" <<'EOF'
{"code": "X1", "name": "broken-fix", "language": "python", "severity": "warning",
 "message": "print", "help": "h",
 "fix": {"applicability": "safe", "message": "break it", "edits": [{"replace": "call", "with": "print(("}]}}
EOF
printf '((call function: (identifier) @fn) @call @report (#eq? @fn "print"))\n' >"$R/query.scm"
printf 'print(1)\nx = 2\n' >"$T/p.py"
cp "$T/p.py" "$T/p0.py"
run_oomlint $EXAMPLE_RULES --isolated --rules "$T/rules" --select X1 --fix "$T/p.py"
if same_bytes "$T/p.py" "$T/p0.py"; then pass syntax-breaking-fix-leaves-the-file; else fail syntax-breaking-fix-leaves-the-file "$(cat "$T/p.py")"; fi
expect_contains syntax-breaking-fix-reported "$ERR" "p.py: not fixed: the fixes would leave a syntax error (line"
expect_rc syntax-breaking-fix-rc-1 1
# a fix that keeps making its own finding: 10 rounds, then a word about it
R2="$T/rules2/X2-endless"
mkdir -p "$R2"
cat >"$R2/rule.json" <<'EOF'
{"code": "X2", "name": "endless", "language": "python", "severity": "warning",
 "message": "f", "help": "h",
 "fix": {"applicability": "safe", "message": "wrap", "edits": [{"replace": "arg", "with": "g({{arg}})"}]}}
EOF
printf '((call function: (identifier) @fn arguments: (argument_list . (_) @arg .)) @report (#eq? @fn "f"))\n' >"$R2/query.scm"
printf 'f(x)\n' >"$T/e.py"
run_oomlint $EXAMPLE_RULES --isolated --rules "$T/rules2" --select X2 --fix "$T/e.py"
expect_contains endless-fixes-stop-at-10-rounds "$ERR" "e.py: fixes still applied after 10 rounds"
if [ "$(cat "$T/e.py")" = "f(g(g(g(g(g(g(g(g(g(g(x)))))))))))" ]; then pass endless-fixes-written-as-far-as-they-went
else fail endless-fixes-written-as-far-as-they-went "$(cat "$T/e.py")"; fi
# a file with a syntax error is not fixed at all
printf 'print(1)\ndef (:\n' >"$T/s.py"
cp "$T/s.py" "$T/s0.py"
run_oomlint $EXAMPLE_RULES --isolated --rules "$T/rules2" --select X2,OOM001 --fix "$T/s.py"
if same_bytes "$T/s.py" "$T/s0.py"; then pass syntax-error-file-not-fixed; else fail syntax-error-file-not-fixed "changed"; fi

# ---------------------------------------------------------------- [tool.oomlint]

P="$T/proj"
mkdir -p "$P"
fixture OOM202 running_totals.py "$P/t.py"
printf '[tool.oomlint]\nunsafe-fixes = true\n' >"$P/pyproject.toml"
(cd "$P" && "$OOMLINT" $EXAMPLE_RULES --fix t.py) >/dev/null 2>&1
if same_bytes "$P/t.py" "$ROOT/fixtures/fix/OOM202/running_totals.py.unsafe-fixed"; then pass config-unsafe-fixes
else fail config-unsafe-fixes "$(diff "$P/t.py" "$ROOT/fixtures/fix/OOM202/running_totals.py.unsafe-fixed" | head -c 300)"; fi
fixture OOM202 running_totals.py "$P/t.py"
(cd "$P" && "$OOMLINT" $EXAMPLE_RULES --fix --no-unsafe-fixes t.py) >/dev/null 2>&1
if same_bytes "$P/t.py" "$ROOT/fixtures/fix/OOM202/running_totals.py.fixed"; then pass flag-overrides-config-unsafe-fixes
else fail flag-overrides-config-unsafe-fixes "not the safe fixes"; fi
fixture OOM201 item_or_detach.py "$P/u.py"
printf '[tool.oomlint]\nunfixable = ["OOM201"]\n' >"$P/pyproject.toml"
(cd "$P" && "$OOMLINT" $EXAMPLE_RULES --format concise u.py) >"$T/out" 2>&1
expect_not_contains config-unfixable-not-marked "$(cat "$T/out")" "[*]"
(cd "$P" && "$OOMLINT" $EXAMPLE_RULES --fix --format json u.py) >"$T/out" 2>&1
if same_bytes "$P/u.py" "$ROOT/fixtures/fix/OOM201/item_or_detach.py"; then pass config-unfixable-not-fixed
else fail config-unfixable-not-fixed "changed"; fi
if jq -e 'all(.[]; .fix == null)' "$T/out" >/dev/null 2>&1; then pass config-unfixable-fix-dropped-from-reports
else fail config-unfixable-fix-dropped-from-reports "$(head -c 300 "$T/out")"; fi
fixture OOM202 running_totals.py "$P/t.py"
printf '[tool.oomlint]\nfixable = ["OOM1"]\n' >"$P/pyproject.toml"
(cd "$P" && "$OOMLINT" $EXAMPLE_RULES --fix t.py) >/dev/null 2>&1
if same_bytes "$P/t.py" "$ROOT/fixtures/fix/OOM202/running_totals.py"; then pass config-fixable-limits
else fail config-fixable-limits "changed"; fi
(cd "$P" && "$OOMLINT" $EXAMPLE_RULES --fix --fixable OOM2 t.py) >/dev/null 2>&1
if same_bytes "$P/t.py" "$ROOT/fixtures/fix/OOM202/running_totals.py.fixed"; then pass flag-fixable-overrides-config
else fail flag-fixable-overrides-config "not fixed"; fi
printf '[tool.oomlint]\nunsafe-fixes = "yes"\n' >"$P/pyproject.toml"
(cd "$P" && "$OOMLINT" $EXAMPLE_RULES t.py) >"$T/out" 2>"$T/err"
RC=$?
expect_rc config-unsafe-fixes-must-be-bool 2
expect_contains config-unsafe-fixes-error-placed "$(cat "$T/err")" "pyproject.toml:2:16: unsafe-fixes must be true or false"
printf '[tool.oomlint]\nunfixable = ["oops!"]\n' >"$P/pyproject.toml"
(cd "$P" && "$OOMLINT" $EXAMPLE_RULES t.py) >/dev/null 2>"$T/err"
RC=$?
expect_rc config-unfixable-codes-checked 2
printf '[tool.oomlint.per-file-ignores]\n"t.py" = ["OOM202"]\n' >"$P/pyproject.toml"
fixture OOM202 running_totals.py "$P/t.py"
(cd "$P" && "$OOMLINT" $EXAMPLE_RULES --fix --unsafe-fixes --select OOM202 t.py) >/dev/null 2>&1
if same_bytes "$P/t.py" "$ROOT/fixtures/fix/OOM202/running_totals.py"; then pass per-file-ignored-not-fixed
else fail per-file-ignored-not-fixed "changed"; fi

# ---------------------------------------------------------------- the fix in the reports

Q="$T/fmt"
mkdir -p "$Q"
fixture OOM201 item_or_detach.py "$Q/m.py"
(cd "$Q" && "$OOMLINT" $EXAMPLE_RULES --isolated --format json m.py) >"$T/j.json" 2>/dev/null
if jq -e '[.[] | select(.location.row == 13)][0].fix | .applicability == "safe" and .message == "Store the number: `loss.item()`"
    and .edits == [{"content": "loss.item()", "location": {"row": 13, "column": 23}, "end_location": {"row": 13, "column": 27}}]' \
    "$T/j.json" >/dev/null 2>&1; then pass json-fix-shape; else fail json-fix-shape "$(head -c 400 "$T/j.json")"; fi
if jq -e '[.[] | select(.location.row == 44)][0].fix == null' "$T/j.json" >/dev/null 2>&1; then pass json-no-fix-null
else fail json-no-fix-null "row 44 has a fix"; fi
(cd "$Q" && "$OOMLINT" $EXAMPLE_RULES --isolated --format sarif m.py) >"$T/s.sarif" 2>/dev/null
if jq -e '[.runs[0].results[] | select(.locations[0].physicalLocation.region.startLine == 13)][0].fixes[0] |
    (.description.text | test("loss.item")) and .artifactChanges[0].artifactLocation.uri == "m.py"
    and .artifactChanges[0].replacements[0].deletedRegion == {"startLine": 13, "startColumn": 23, "endLine": 13, "endColumn": 27}
    and .artifactChanges[0].replacements[0].insertedContent.text == "loss.item()"' "$T/s.sarif" >/dev/null 2>&1
then pass sarif-fixes; else fail sarif-fixes "$(head -c 400 "$T/s.sarif")"; fi
VALIDATOR="${SARIF_MULTITOOL:-$ROOT/build/deps/_microsoft-sarif-multitool-linux/Sarif.Multitool}"
if [ -x "$VALIDATOR" ]; then
    timeout 120 "$VALIDATOR" validate --rule-kind "Sarif;Gh" --level "Error;Warning" -o "$T/v.sarif" "$T/s.sarif" \
        >/dev/null 2>&1
    if jq -e '[.runs[].results[]? | select((.level // "warning") | IN("error", "warning"))] | length == 0' "$T/v.sarif" \
        >/dev/null 2>&1; then pass sarif-fixes-validate
    else fail sarif-fixes-validate "$(jq -c '[.runs[].results[]? | .ruleId]' "$T/v.sarif" 2>&1 | head -c 300)"; fi
else
    skip sarif-fixes-validate "the SARIF validator is not fetched (make test-tools)"
fi
(cd "$Q" && "$OOMLINT" $EXAMPLE_RULES --isolated --format rdjson m.py) >"$T/r.json" 2>/dev/null
if jq -e '[.diagnostics[] | select(.location.range.start.line == 13)][0].suggestions ==
    [{"range": {"start": {"line": 13, "column": 23}, "end": {"line": 13, "column": 27}}, "text": "loss.item()"}]' \
    "$T/r.json" >/dev/null 2>&1; then pass rdjson-suggestions; else fail rdjson-suggestions "$(head -c 400 "$T/r.json")"; fi
(cd "$Q" && "$OOMLINT" $EXAMPLE_RULES --isolated --format github m.py) >"$T/g.out" 2>/dev/null
expect_contains github-fix-in-annotation "$(cat "$T/g.out")" \
    '%0Afix (safe, oomlint --fix): Store the number: `loss.item()`%0A  line 13, column 23 to line 13, column 27: `loss.item()`'

# ---------------------------------------------------------------- every fixture, every fix

# Each group of fixtures (by the target GPU they name) is linted, fixed with
# every fix (unsafe included) and linted again.
prop_run() { # prop_run DIR : fixes the fixture tree in DIR; writes $T/prop/*
    mkdir -p "$T/prop"
    rm -f "$T/prop/"*
    (cd "$1" && find . -type f \( -name '*.py' -o -name '*.json' -o -name '*.ipynb' -o -name '*.yaml' -o -name '*.yml' \) |
        sort) | while read -r f; do
        g=""
        case "$f" in
            *.json | *.yaml | *.yml)
                [ -f "$1/$f.expect" ] && g="$(sed -n 's/^gpu: \([a-z0-9-]*\).*/\1/p' "$1/$f.expect" | head -n 1)" ;;
            *.py) g="$(sed -n 's/.*fixture: gpu=\([a-z0-9-]*\).*/\1/p' "$1/$f" | head -n 1)" ;;
        esac
        echo "$f" >>"$T/prop/group-${g:-none}"
    done
    for list in "$T/prop"/group-*; do
        g="${list##*group-}"
        set -- --isolated --select ALL
        [ "$g" != none ] && set -- "$@" --gpu "$g"
        (cd "$D0" && xargs "$OOMLINT" $EXAMPLE_RULES "$@" --format json <"$list") >"$T/prop/before-$g.json" 2>/dev/null
        (cd "$D0" && xargs "$OOMLINT" $EXAMPLE_RULES "$@" --fix-only --unsafe-fixes --show-fixes <"$list") >"$T/prop/fixed-$g.txt" 2>"$T/prop/fixed-$g.err"
        (cd "$D0" && xargs "$OOMLINT" $EXAMPLE_RULES "$@" --format json <"$list") >"$T/prop/after-$g.json" 2>/dev/null
    done
}

tree_sum() { (cd "$1" && find . -type f | sort | xargs sha256sum) | sha256sum | cut -c1-64; }

A="$T/propA"
cp -r "$ROOT/fixtures" "$A"
D0="$A"
prop_run "$A"
ok=1
why=""
for before in "$T/prop"/before-*.json; do
    g="${before##*before-}"
    g="${g%.json}"
    after="$T/prop/after-$g.json"
    fixed="$T/prop/fixed-$g.txt"
    # per code: the findings before, after, and the fixes applied
    for code in $(jq -r '.[].code' "$before" | sort -u); do
        b="$(jq --arg c "$code" '[.[] | select(.code == $c)] | length' "$before")"
        a="$(jq --arg c "$code" '[.[] | select(.code == $c)] | length' "$after")"
        n="$(awk -v c="$code" '$2 == "×" && $3 == c { s += $1 } END { print s + 0 }' "$fixed")"
        # a fix may bring out a finding of the same code that a later round fixes
        # (OOM106's map_location="cpu" beside an OOM103 load): then n > b
        left=$((b > n ? b - n : 0))
        if [ "$n" -gt 0 ] && [ "$a" -gt "$left" ]; then
            ok=0
            why="$why $g/$code: $b before, $n fixed, $a after;"
        fi
    done
    if [ "$(jq '[.[] | select(.code == "OOM001")] | length' "$after")" -gt "$(jq '[.[] | select(.code == "OOM001")] | length' "$before")" ]; then
        ok=0
        why="$why $g: a new OOM001;"
    fi
    if [ "$(jq '[.[] | select(.fix != null and .fix.applicability != "display-only")] | length' "$after")" -ne 0 ]; then
        ok=0
        why="$why $g: a fix still applies after fixing: $(jq -c '[.[] | select(.fix != null and .fix.applicability != "display-only") | .filename]' "$after" | head -c 200);"
    fi
    if grep -q 'not fixed' "$T/prop/fixed-$g.err"; then
        ok=0
        why="$why $g: $(head -c 200 "$T/prop/fixed-$g.err");"
    fi
done
total="$(cat "$T/prop"/fixed-*.txt | awk '/^Fixed [0-9]+ problem/ { s += $2 } END { print s + 0 }')"
if [ "$ok" -eq 1 ] && [ "$total" -gt 100 ]; then pass every-fixture-fixed-findings-gone
else fail every-fixture-fixed-findings-gone "$total fixes;$why"; fi
first="$(tree_sum "$A")"
prop_run "$A"
if [ "$(tree_sum "$A")" = "$first" ]; then pass every-fixture-second-fix-changes-nothing
else fail every-fixture-second-fix-changes-nothing "the tree changed"; fi
B="$T/propB"
cp -r "$ROOT/fixtures" "$B"
D0="$B"
prop_run "$B"
if [ "$(tree_sum "$B")" = "$first" ]; then pass every-fixture-two-runs-same-bytes
else fail every-fixture-two-runs-same-bytes "the two runs differ"; fi

exit 0
