#!/bin/sh
# End-to-end tests of oomlint's CI side: every --format parsed by the tool
# that consumes it (jq, xmllint, Microsoft's SARIF validator), hostile file
# names and messages, --output-file, --statistics, --fail-on, --exit-zero,
# --quiet, the GitHub step summary, --diff-base in a temporary git repository,
# and the GitHub Action's shell step (src/integrations/github-action.sh) run
# with the GITHUB_* variables pointing at temporary files.
# Run from the repository root:
#   sh tests/e2e_formats.sh                              (tests build/oomlint)
#   OOMLINT=build/asan/oomlint sh tests/e2e_formats.sh   (tests another build)
# Each check prints one line: "PASS name", "FAIL name: why" or "SKIP name: why";
# the script exits 0 whatever the results (tests/run.sh counts the lines).

. tests/lib.sh

# OOM201 and OOM202 are opt-in; their fixtures are these tests' examples of fixes
# and reports, so every run here turns them on.
EXAMPLE_RULES="--extend-select OOM201,OOM202,OOM601"

T="$TEST_TMP"
VALIDATOR="${SARIF_MULTITOOL:-$ROOT/build/deps/_microsoft-sarif-multitool-linux/Sarif.Multitool}"
ACTION_SH="$ROOT/src/integrations/github-action.sh"

CR="$(printf '\r')"
NL='
'


# check NAME WHY COMMAND... : PASS when COMMAND succeeds, else FAIL NAME: WHY.
check() {
    _n="$1"; _w="$2"; shift 2
    if "$@" >/dev/null 2>&1; then pass "$_n"; else fail "$_n" "$_w"; fi
}

# jqtrue FILE FILTER [jq options...] : FILE is JSON on which FILTER yields
# exactly `true` (an empty file yields nothing, which is not true).
jqtrue() {
    _f="$1"; _q="$2"; shift 2
    [ "$(jq "$@" "$_q" "$_f" 2>/dev/null)" = true ]
}

# jqf NAME FILE FILTER [jq options...] : the jq FILTER is true on FILE.
jqf() {
    _n="$1"; _f="$2"; _q="$3"; shift 3
    if jqtrue "$_f" "$_q" "$@"; then
        pass "$_n"
    else
        fail "$_n" "jq '$_q' is not true; got: $(head -c 400 "$_f" 2>/dev/null)"
    fi
}

# jqs NAME FILE FILTER : like jqf, over all the JSON values of FILE as one array.
jqs() {
    _n="$1"; _f="$2"; _q="$3"
    if [ -s "$_f" ] && jqtrue "$_f" "$_q" -s; then
        pass "$_n"
    else
        fail "$_n" "jq -s '$_q' is not true; got: $(head -c 400 "$_f" 2>/dev/null)"
    fi
}

# lines_all_match NAME FILE ERE WANT_COUNT : FILE has WANT_COUNT lines, each
# matching ERE (bytes compared in the C locale).
lines_all_match() {
    _total="$(wc -l <"$2" | tr -d ' ')"
    _bad="$(LC_ALL=C grep -c -v -E "$3" "$2")"
    if [ "$_total" -eq "$4" ] && [ "$_bad" -eq 0 ]; then
        pass "$1"
    else
        fail "$1" "want $4 lines all matching /$3/, got $_total lines, $_bad not matching: $(LC_ALL=C grep -v -E "$3" "$2" | head -c 300)"
    fi
}

# has_line NAME FILE ERE : some line of FILE matches ERE.
has_line() {
    if LC_ALL=C grep -q -E "$3" "$2"; then pass "$1"
    else fail "$1" "no line matches /$3/; got: $(head -c 400 "$2")"; fi
}

# no_line NAME FILE ERE : no line of FILE matches ERE.
no_line() {
    if LC_ALL=C grep -q -E "$3" "$2"; then fail "$1" "a line matches /$3/: $(LC_ALL=C grep -E "$3" "$2" | head -c 300)"
    else pass "$1"; fi
}

# lint DIR OUTFILE ARGS... : runs oomlint in DIR, stdout to OUTFILE, stderr to
# $T/err, status in $RC.
lint() {
    _d="$1"; _o="$2"; shift 2
    (cd "$_d" && "$OOMLINT" $EXAMPLE_RULES "$@" >"$_o" 2>"$T/err" </dev/null)
    RC=$?
    cat "$T/err" >>"$T/all-stderr"
}

# ---------------------------------------------------------------- inputs

W="$T/w"
mkdir -p "$W"
write_samples "$W"
# The same finding over two lines: no column pair in GitHub annotations.
cat >"$W/multi.py" <<'EOF'
def train(model, loader, criterion):
    losses = []
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        losses.append(
            loss)
EOF
# OOM206, an info finding (a GitHub "notice").
printf 'def step(opt):\n    opt.zero_grad(set_to_none=False)\n    torch.cuda.synchronize()\n' >"$W/info.py"
printf 'x = 1\nprint(x)\n' >"$W/clean.py"
# A '%' inside the message (OOM101 quotes the value).
printf 'import os\nos.environ["CUDA_VISIBLE_DEVICES"] = "0%%1"\n' >"$W/pct.py"
MAIN="cuda.py loop.py info.py multi.py"   # 4 findings: OOM101, OOM201 x2, OOM206

# Hostile file names, each with one OOM101 finding.
H="$W/h"
mkdir -p "$H/dir, x:"
for n in "sp ace \"dq\" 'sq'.py" "pct%41%.py" "co:lon,comma.py" "new${NL}line.py" \
    "ünï日本.py" "cr${CR}ret.py" "amp&lt<gt>|pipe\\back.py" "dir, x:/in.py"; do
    cp "$W/cuda.py" "$H/$n"
done
H_COUNT=8
cat >"$T/hnames.json" <<'EOF'
["h/sp ace \"dq\" 'sq'.py", "h/pct%41%.py", "h/co:lon,comma.py", "h/new\nline.py",
 "h/ünï日本.py", "h/cr\rret.py", "h/amp&lt<gt>|pipe\\back.py", "h/dir, x:/in.py"]
EOF

# A rule of our own whose message holds '%', CR, LF, ':' and ','.
XR="$T/xrules/python/OOM901-odd-message"
mkdir -p "$XR"
cat >"$XR/rule.json" <<'EOF'
{
  "code": "OOM901",
  "name": "odd-message",
  "language": "python",
  "severity": "warning",
  "message": "100% odd:\r\nline, two",
  "help": "none",
  "url": "https://example.com/oom901"
}
EOF
printf '((call function: (_) @fn) @report (#oom-qualname? @fn "print"))\n' >"$XR/query.scm"
printf '## What it does\nReports print calls with an odd message.\n\n## Why is this bad?\nIt is a test.\n' >"$XR/doc.md"
printf 'print(1)\n' >"$W/odd.py"
HOST_COUNT=$((H_COUNT + 1))

run_main() { lint "$W" "$T/$1.out" --format "$1" $MAIN; }
run_hostile() { lint "$W" "$T/$1.h.out" --format "$1" --rules "$T/xrules" h odd.py; }

# Sanity: the rule of our own loads.
lint "$W" "$T/sanity" --format json --rules "$T/xrules" odd.py
if [ "$RC" -eq 1 ] && jqtrue "$T/sanity" '.[0].code == "OOM901"'; then pass custom-rule-loads
else fail custom-rule-loads "exit $RC; $(head -c 300 "$T/err" 2>/dev/null) $(head -c 300 "$T/sanity" 2>/dev/null)"; fi

# ---------------------------------------------------------------- json-lines

run_main json-lines
expect_rc json-lines-rc 1
lines_all_match json-lines-one-object-per-line "$T/json-lines.out" '^\{.*\}$' 4
jqs json-lines-parses "$T/json-lines.out" 'length == 4 and all(.[]; type == "object")'
lint "$W" "$T/json.out" --format json $MAIN
if [ "$(jq -c '[.[] | keys]' "$T/json.out" 2>/dev/null)" = "$(jq -s -c '[.[] | keys]' "$T/json-lines.out" 2>/dev/null)" ] &&
    [ -n "$(jq -c '.[0]' "$T/json.out" 2>/dev/null)" ]; then
    pass json-lines-same-fields-as-json
else
    fail json-lines-same-fields-as-json "json: $(jq -c '.[0] | keys' "$T/json.out" 2>&1 | head -c 200) json-lines: $(jq -s -c '.[0] | keys' "$T/json-lines.out" 2>&1 | head -c 200)"
fi
jqs json-lines-oom101 "$T/json-lines.out" 'any(.[]; .code == "OOM101" and .severity == "warning" and .filename == "cuda.py" and .location.row == 2 and .location.column == 1)'
jqs json-lines-oom201 "$T/json-lines.out" 'any(.[]; .code == "OOM201" and .severity == "error" and .filename == "loop.py" and .location.row == 6)'

run_hostile json-lines
lines_all_match json-lines-hostile-one-per-line "$T/json-lines.h.out" '^\{.*\}$' "$HOST_COUNT"
if [ -s "$T/json-lines.h.out" ] && jqtrue "$T/json-lines.h.out" \
    '([.[] | select(.code == "OOM101") | .filename] | sort) == ($names[0] | sort)' -s --slurpfile names "$T/hnames.json"; then
    pass json-lines-hostile-names-round-trip
else
    fail json-lines-hostile-names-round-trip "filenames: $(jq -s -c '[.[].filename]' "$T/json-lines.h.out" 2>&1 | head -c 400)"
fi
jqs json-lines-hostile-message "$T/json-lines.h.out" 'any(.[]; .code == "OOM901" and .message == "100% odd:\r\nline, two")'

# ---------------------------------------------------------------- json (hostile)

run_hostile json
jqf json-hostile-parses "$T/json.h.out" "type == \"array\" and length == $HOST_COUNT"
if jqtrue "$T/json.h.out" \
    '([.[] | select(.code == "OOM101") | .filename] | sort) == ($names[0] | sort)' --slurpfile names "$T/hnames.json"; then
    pass json-hostile-names-round-trip
else
    fail json-hostile-names-round-trip "filenames: $(jq -c '[.[].filename]' "$T/json.h.out" 2>&1 | head -c 400)"
fi

# ---------------------------------------------------------------- sarif

run_main sarif
S="$T/sarif.out"
expect_rc sarif-rc 1
jqf sarif-parses "$S" '.version == "2.1.0" and (."$schema" | type == "string" and test("sarif"))'
jqf sarif-one-run "$S" '.runs | length == 1'
VERSION="$("$OOMLINT" --version 2>/dev/null | awk '{print $NF}')"
jqf sarif-driver "$S" '.runs[0].tool.driver | .name == "oomlint" and (.version | type == "string" and length > 0) and (.informationUri | test("^https?://"))'
jqf sarif-driver-version-matches-binary "$S" '.runs[0].tool.driver.version == $v' --arg v "$VERSION"
NRULES="$("$OOMLINT" rules 2>/dev/null | grep -c '^OOM')"
jqf sarif-every-rule "$S" '.runs[0].tool.driver.rules | length == $n and ([.[].id] | unique | length) == $n' --argjson n "$NRULES"
jqf sarif-rule-fields "$S" '.runs[0].tool.driver.rules | length > 0 and all(.[];
    (.id | test("^OOM[0-9]{3}$")) and (.name | type == "string" and length > 0)
    and (.shortDescription.text | type == "string" and length > 0)
    and (.fullDescription.text | type == "string" and length > 0)
    and (.helpUri | type == "string" and test("^https?://"))
    and (.defaultConfiguration.level | IN("error", "warning", "note")))'
# The short description is the rule's documentation (the first sentence that
# `oomlint rules` prints after code, name, severity, default and fix), and the
# full description holds at least as much.
SHORT201="$("$OOMLINT" rules 2>/dev/null | awk '$1 == "OOM201" { $1 = ""; $2 = ""; $3 = ""; $4 = ""; $5 = ""; sub(/^ +/, ""); print }')"
jqf sarif-short-description-from-docs "$S" '.runs[0].tool.driver.rules[] | select(.id == "OOM201") | .shortDescription.text == $s' --arg s "$SHORT201"
jqf sarif-full-description-from-docs "$S" '.runs[0].tool.driver.rules[] | select(.id == "OOM201") | (.fullDescription.text | contains($s))' --arg s "$SHORT201"
jqf sarif-default-levels "$S" '.runs[0].tool.driver.rules | (map(select(.id == "OOM101"))[0].defaultConfiguration.level == "warning") and (map(select(.id == "OOM201"))[0].defaultConfiguration.level == "error") and (map(select(.id == "OOM206"))[0].defaultConfiguration.level == "note")'
jqf sarif-opt-in-rules-disabled "$S" '.runs[0].tool.driver.rules | (map(select(.id == "OOM103"))[0].defaultConfiguration.enabled == false) and (map(select(.id == "OOM201"))[0].defaultConfiguration.enabled == false) and (map(select(.id == "OOM301"))[0].defaultConfiguration | has("enabled") | not)'
jqf sarif-result-count "$S" '.runs[0].results | length == 4'
jqf sarif-rule-index "$S" '.runs[0] as $r | all($r.results[]; (.ruleIndex | type == "number") and $r.tool.driver.rules[.ruleIndex].id == .ruleId)'
jqf sarif-levels "$S" '.runs[0].results | (map(select(.ruleId == "OOM101"))[0].level == "warning") and (map(select(.ruleId == "OOM201")) | length == 2 and all(.[]; .level == "error")) and (map(select(.ruleId == "OOM206"))[0].level == "note")'
jqf sarif-message "$S" 'all(.runs[0].results[]; .message.text | type == "string" and length > 0)'
jqf sarif-relative-uri "$S" '.runs[0] as $r | all($r.results[]; .locations[0].physicalLocation.artifactLocation | (.uri | test("^[^/:]*(/|$)")) and (.uri | test("^file:|^/") | not) and (.uriBaseId | type == "string") and ($r.originalUriBaseIds[.uriBaseId] != null))'
jqf sarif-region-fields "$S" 'all(.runs[0].results[]; .locations[0].physicalLocation.region | (.startLine | type == "number") and (.startColumn | type == "number") and (.endLine | type == "number") and (.endColumn | type == "number"))'
jqf sarif-oom101-region "$S" 'any(.runs[0].results[]; .ruleId == "OOM101" and (.locations[0].physicalLocation | .artifactLocation.uri == "cuda.py" and .region.startLine == 2 and .region.startColumn == 1 and .region.endLine == 2 and .region.endColumn > 1))'
jqf sarif-multiline-region "$S" 'any(.runs[0].results[]; .locations[0].physicalLocation | .artifactLocation.uri == "multi.py" and .region.startLine == 6 and .region.endLine == 7)'
jqf sarif-partial-fingerprints "$S" 'all(.runs[0].results[]; .partialFingerprints | type == "object" and length > 0 and all(.[]; type == "string" and length > 0))'
jqf sarif-fingerprints-distinct "$S" '[.runs[0].results[].partialFingerprints | tojson] | (unique | length) == length'

# Stable across two runs, and when lines are inserted above the finding.
run_main sarif
cp "$T/sarif.out" "$T/sarif.2.out"
FP='[.runs[0].results[] | {r: .ruleId, u: .locations[0].physicalLocation.artifactLocation.uri, f: .partialFingerprints}] | sort_by(.u, .r)'
if [ "$(jq -c "$FP" "$S" 2>/dev/null)" = "$(jq -c "$FP" "$T/sarif.2.out" 2>/dev/null)" ] && [ -n "$(jq -c "$FP" "$S" 2>/dev/null)" ]; then
    pass sarif-fingerprints-stable-across-runs
else
    fail sarif-fingerprints-stable-across-runs "$(jq -c "$FP" "$S" 2>&1 | head -c 200) vs $(jq -c "$FP" "$T/sarif.2.out" 2>&1 | head -c 200)"
fi
W2="$T/w2"
mkdir -p "$W2"
{ printf 'import torch\n\n# three lines above the finding\n'; cat "$W/loop.py"; } >"$W2/loop.py"
lint "$W" "$T/fp1" --format sarif loop.py
lint "$W2" "$T/fp2" --format sarif loop.py
FPL='.runs[0].results[0] | {r: .ruleId, f: .partialFingerprints}'
if [ "$(jq -c '.runs[0].results[0].locations[0].physicalLocation.region.startLine' "$T/fp2" 2>/dev/null)" = 9 ] &&
    [ "$(jq -c "$FPL" "$T/fp1" 2>/dev/null)" = "$(jq -c "$FPL" "$T/fp2" 2>/dev/null)" ]; then
    pass sarif-fingerprints-stable-across-line-shift
else
    fail sarif-fingerprints-stable-across-line-shift "before: $(jq -c "$FPL" "$T/fp1" 2>&1 | head -c 200) after 3 lines inserted: $(jq -c "$FPL" "$T/fp2" 2>&1 | head -c 200)"
fi

# Hostile names: valid relative URI references that decode to the names.
cat >"$T/uri.jq" <<'EOF'
# canon: a URI with every byte but unreserved ones and '/' percent-encoded,
# hex in upper case, so that two encodings of one name compare equal.
def canon: explode | map([.] | implode | if test("^[A-Za-z0-9._~/%-]$") then . else @uri end)
    | join("") | gsub("%(?<h>[0-9a-fA-F]{2})"; "%" + (.h | ascii_upcase));
[.runs[0].results[] | select(.ruleId == "OOM101") | .locations[0].physicalLocation.artifactLocation] as $locs
| ($locs | length) == ($names[0] | length)
  and all($locs[]; (.uri | test("^([A-Za-z0-9._~/!$&'()*+,;=@:-]|%[0-9A-Fa-f]{2})+$")) and (.uri | test("^[^/:]*(/|$)")) and .uriBaseId != null)
  and (($locs | map(.uri | canon) | sort) == ($names[0] | map(@uri | gsub("%2F"; "/")) | sort))
EOF
run_hostile sarif
jqf sarif-hostile-parses "$T/sarif.h.out" ".runs[0].results | length == $HOST_COUNT"
if [ "$(jq --slurpfile names "$T/hnames.json" -f "$T/uri.jq" "$T/sarif.h.out" 2>/dev/null)" = true ]; then
    pass sarif-hostile-uris
else
    fail sarif-hostile-uris "uris: $(jq -c '[.runs[0].results[].locations[0].physicalLocation.artifactLocation.uri]' "$T/sarif.h.out" 2>&1 | head -c 400)"
fi
jqf sarif-hostile-message "$T/sarif.h.out" 'any(.runs[0].results[]; .ruleId == "OOM901" and (.message.text | startswith("100% odd:\r\nline, two")))'
lint "$W" "$T/sarif.clean.out" --format sarif clean.py
jqf sarif-clean-empty-results "$T/sarif.clean.out" '.runs | length == 1 and (.[0].results | type == "array" and length == 0)'

# Microsoft's validator, GitHub ingestion rules included: no error, no warning.
# A result without a level is a warning; notifications of the tool count too.
VBAD='[(.runs[].results[]? | select((.level // "warning") | IN("note", "none") | not) | {ruleId, level: (.level // "warning"), at: .message.arguments[0]?}),
      (.runs[].invocations[]? | (.toolConfigurationNotifications[]?, .toolExecutionNotifications[]?)
        | select(.level == "error") | {id: .descriptor.id, text: .message.text})]'
validate() { # validate NAME FILE
    rm -f "$T/validated.sarif"
    if ! jqtrue "$2" '.version == "2.1.0"'; then
        fail "$1" "the input is not a SARIF 2.1.0 log: $(head -c 200 "$2" 2>/dev/null)"
        return
    fi
    timeout 120 "$VALIDATOR" validate --rule-kind "Sarif;Gh" --level "Error;Warning;Note" \
        -o "$T/validated.sarif" "$2" >"$T/validator.log" 2>&1
    if [ ! -s "$T/validated.sarif" ]; then
        fail "$1" "the validator wrote no report: $(tail -c 400 "$T/validator.log")"
    elif jqtrue "$T/validated.sarif" "$VBAD | length == 0"; then
        pass "$1"
    else
        fail "$1" "$(jq -c "$VBAD" "$T/validated.sarif" 2>&1 | head -c 500)"
    fi
}
if [ -x "$VALIDATOR" ]; then
    validate sarif-validator "$S"
    validate sarif-validator-hostile-names "$T/sarif.h.out"
    validate sarif-validator-no-results "$T/sarif.clean.out"
else
    for n in sarif-validator sarif-validator-hostile-names sarif-validator-no-results; do
        skip "$n" "the SARIF validator is not fetched ($VALIDATOR; run make test-tools)"
    done
fi

# ---------------------------------------------------------------- github

# ::LEVEL file=F,line=L,endLine=E[,col=C,endColumn=D],title=T::MESSAGE, with
# '%' only as an escape (%25, %0D, %0A; in properties also %3A, %2C).
PROP='([^,:%]|%(25|0D|0A|3A|2C))+'
GH_RE="^::(error|warning|notice) file=$PROP,line=[0-9]+,endLine=[0-9]+(,col=[0-9]+,endColumn=[0-9]+)?,title=$PROP::([^%]|%(25|0D|0A))+\$"

run_main github
G="$T/github.out"
expect_rc github-rc 1
lines_all_match github-lines-are-workflow-commands "$G" "$GH_RE" 4
has_line github-warning-with-columns "$G" '^::warning file=cuda\.py,line=2,endLine=2,col=1,endColumn=[0-9]+,title=OOM101[^,:]*::'
has_line github-error "$G" '^::error file=loop\.py,line=6,endLine=6,col=9,endColumn=[0-9]+,title=OOM201[^,:]*::'
has_line github-notice-for-info "$G" '^::notice file=info\.py,line=2,endLine=2,'
has_line github-multiline-no-columns "$G" '^::error file=multi\.py,line=6,endLine=7,title=OOM201'
no_line github-multiline-never-col "$G" '^::[a-z]+ file=multi\.py,.*(col=|endColumn=)'
if LC_ALL=C grep -q "$CR" "$G"; then fail github-no-raw-cr "a raw CR in the output"; else pass github-no-raw-cr; fi

lint "$W" "$T/github.pct" --format github pct.py
has_line github-message-percent-escaped "$T/github.pct" '^::warning .*::.*0%251'

run_hostile github
GH="$T/github.h.out"
lines_all_match github-hostile-lines-are-workflow-commands "$GH" "$GH_RE" "$HOST_COUNT"
has_line github-message-cr-lf-percent-escaped "$GH" '::.*100%25 odd:%0D%0Aline, two'
has_line github-property-colon-comma-escaped "$GH" '^::warning file=h/co%3Alon%2Ccomma\.py,line=2,'
has_line github-property-dir-colon-comma-escaped "$GH" '^::warning file=h/dir%2C x%3A/in\.py,line=2,'
has_line github-property-lf-escaped "$GH" '^::warning file=h/new%0Aline\.py,line=2,'
has_line github-property-cr-escaped "$GH" '^::warning file=h/cr%0Dret\.py,line=2,'
has_line github-property-percent-escaped "$GH" '^::warning file=h/pct%2541%25\.py,line=2,'
has_line github-property-non-ascii-kept "$GH" '^::warning file=h/ünï日本\.py,line=2,'
if LC_ALL=C grep -q "$CR" "$GH"; then fail github-hostile-no-raw-cr "a raw CR in the output"; else pass github-hostile-no-raw-cr; fi

# Step summary: appended, a Markdown table with the counts per rule and files.
SUM="$T/summary.md"
printf '# an earlier step\n\n' >"$SUM"
(cd "$W" && GITHUB_STEP_SUMMARY="$SUM" "$OOMLINT" $EXAMPLE_RULES --format github $MAIN >/dev/null 2>&1)
if [ "$(head -n 1 "$SUM")" = "# an earlier step" ]; then pass summary-appended
else fail summary-appended "the earlier content is gone: $(head -c 200 "$SUM")"; fi
has_line summary-table-header "$SUM" '^\|.*\|$'
has_line summary-table-separator "$SUM" '^\|( *:?-+:? *\|)+$'
has_line summary-count-oom201 "$SUM" '^\| *`?OOM201`?.*\| *2 *\|$'
has_line summary-count-oom101 "$SUM" '^\| *`?OOM101`?.*\| *1 *\|$'
has_line summary-count-oom206 "$SUM" '^\| *`?OOM206`?.*\| *1 *\|$'
has_line summary-total "$SUM" '(^|[^0-9])4 (problems|findings)'
has_line summary-files "$SUM" '^\|.*loop\.py.*\| *1 *\|$'

SUMH="$T/summary.h.md"
: >"$SUMH"
(cd "$W" && GITHUB_STEP_SUMMARY="$SUMH" "$OOMLINT" $EXAMPLE_RULES --format github h >/dev/null 2>&1)
# Each hostile file is one table row of its own: the row starts with "| h/",
# ends with "| 1 |" and has only its 3 cell separators ('|' in a name escaped).
rows="$(LC_ALL=C grep -E '^\| *`?h/.*\| *1 *\|$' "$SUMH" | sed 's/\\|//g' | awk -F'|' 'NF == 4' | wc -l | tr -d ' ')"
if [ "$rows" -eq "$H_COUNT" ]; then pass summary-hostile-names-one-row-each
else fail summary-hostile-names-one-row-each "want $H_COUNT well-formed rows, got $rows: $(head -c 600 "$SUMH")"; fi

rm -f "$T/summary.json.md"
(cd "$W" && GITHUB_STEP_SUMMARY="$T/summary.json.md" "$OOMLINT" $EXAMPLE_RULES --format json $MAIN >/dev/null 2>&1)
if [ -s "$T/summary.json.md" ]; then fail summary-only-with-github-format "--format json wrote a step summary"
else pass summary-only-with-github-format; fi

# ---------------------------------------------------------------- gitlab

GL_Q='type == "array" and length == $n and all(.[]; (.description | type == "string" and length > 0)
    and (.check_name | test("^OOM[0-9]{3}$")) and (.fingerprint | type == "string" and length > 0)
    and (.severity | IN("info", "minor", "major", "critical", "blocker"))
    and (.location.path | type == "string" and length > 0) and (.location.lines.begin | type == "number"))
    and ([.[].fingerprint] | unique | length) == length'
run_main gitlab
expect_rc gitlab-rc 1
jqf gitlab-fields "$T/gitlab.out" "$GL_Q" --argjson n 4
jqf gitlab-oom101 "$T/gitlab.out" 'any(.[]; .check_name == "OOM101" and .location.path == "cuda.py" and .location.lines.begin == 2)'
jqf gitlab-severity-order "$T/gitlab.out" 'def rank: {"info": 0, "minor": 1, "major": 2, "critical": 3, "blocker": 4}[.];
    (map(select(.check_name == "OOM201"))[0].severity | rank) > (map(select(.check_name == "OOM101"))[0].severity | rank)
    and (map(select(.check_name == "OOM101"))[0].severity | rank) > (map(select(.check_name == "OOM206"))[0].severity | rank)'
run_hostile gitlab
jqf gitlab-hostile-parses "$T/gitlab.h.out" "$GL_Q" --argjson n "$HOST_COUNT"
if jqtrue "$T/gitlab.h.out" \
    '([.[] | select(.check_name == "OOM101") | .location.path] | sort) == ($names[0] | sort)' --slurpfile names "$T/hnames.json"; then
    pass gitlab-hostile-names-round-trip
else
    fail gitlab-hostile-names-round-trip "paths: $(jq -c '[.[].location.path]' "$T/gitlab.h.out" 2>&1 | head -c 400)"
fi
lint "$W" "$T/gitlab.clean" --format gitlab clean.py
jqf gitlab-clean-empty-array "$T/gitlab.clean" 'type == "array" and length == 0'

# ---------------------------------------------------------------- junit

xml_count() { xmllint --xpath "$2" "$1" 2>/dev/null; }
run_main junit
expect_rc junit-rc 1
check junit-well-formed "xmllint: $(xmllint --noout "$T/junit.out" 2>&1 | head -c 300)" xmllint --noout "$T/junit.out"
n="$(xml_count "$T/junit.out" 'count(//testcase)')"
if [ "$n" = 4 ]; then pass junit-one-testcase-per-finding; else fail junit-one-testcase-per-finding "want 4 testcases, got '$n'"; fi
n="$(xml_count "$T/junit.out" 'count(//testsuite)')"
if [ "$n" = 4 ]; then pass junit-grouped-by-file; else fail junit-grouped-by-file "want 4 testsuites (one per file), got '$n'"; fi
n="$(xml_count "$T/junit.out" 'count(//testcase[failure])')"
if [ "$n" = 4 ]; then pass junit-failures; else fail junit-failures "want 4 testcases with a failure, got '$n'"; fi
n="$(xml_count "$T/junit.out" 'count(//testsuite[testcase/failure[contains(@type, "OOM201")]])')"
if [ "$n" = 2 ]; then pass junit-oom201-in-two-files; else fail junit-oom201-in-two-files "want 2 suites with OOM201, got '$n'"; fi
run_hostile junit
check junit-hostile-well-formed "xmllint: $(xmllint --noout "$T/junit.h.out" 2>&1 | head -c 300)" xmllint --noout "$T/junit.h.out"
n="$(xml_count "$T/junit.h.out" 'count(//testcase)')"
if [ "$n" = "$HOST_COUNT" ]; then pass junit-hostile-testcases; else fail junit-hostile-testcases "want $HOST_COUNT testcases, got '$n'"; fi
lint "$W" "$T/junit.clean" --format junit clean.py
check junit-clean-well-formed "xmllint: $(xmllint --noout "$T/junit.clean" 2>&1 | head -c 300)" xmllint --noout "$T/junit.clean"

# ---------------------------------------------------------------- pylint

PL_RE='^[^ ].*:[0-9]+: \[OOM[0-9]{3}\] .+$'
run_main pylint
expect_rc pylint-rc 1
lines_all_match pylint-lines "$T/pylint.out" "$PL_RE" 4
has_line pylint-oom101 "$T/pylint.out" '^cuda\.py:2: \[OOM101\] '
run_hostile pylint
lines_all_match pylint-hostile-one-line-each "$T/pylint.h.out" "$PL_RE" "$HOST_COUNT"

# ---------------------------------------------------------------- rdjson

RD_Q='(.source.name == "oomlint") and (.diagnostics | type == "array" and length == $n and all(.[];
    (.message | type == "string" and length > 0) and (.location.path | type == "string")
    and (.location.range.start.line | type == "number") and (.location.range.start.column | type == "number")
    and (.severity | IN("ERROR", "WARNING", "INFO")) and (.code.value | test("^OOM[0-9]{3}$"))))'
run_main rdjson
expect_rc rdjson-rc 1
jqf rdjson-fields "$T/rdjson.out" "$RD_Q" --argjson n 4
jqf rdjson-oom101 "$T/rdjson.out" 'any(.diagnostics[]; .code.value == "OOM101" and .severity == "WARNING" and .location.path == "cuda.py" and .location.range.start.line == 2 and .location.range.start.column == 1)'
jqf rdjson-severities "$T/rdjson.out" 'any(.diagnostics[]; .code.value == "OOM201" and .severity == "ERROR") and any(.diagnostics[]; .code.value == "OOM206" and .severity == "INFO")'
run_hostile rdjson
jqf rdjson-hostile-parses "$T/rdjson.h.out" "$RD_Q" --argjson n "$HOST_COUNT"
if jqtrue "$T/rdjson.h.out" \
    '([.diagnostics[] | select(.code.value == "OOM101") | .location.path] | sort) == ($names[0] | sort)' --slurpfile names "$T/hnames.json"; then
    pass rdjson-hostile-names-round-trip
else
    fail rdjson-hostile-names-round-trip "paths: $(jq -c '[.diagnostics[].location.path]' "$T/rdjson.h.out" 2>&1 | head -c 400)"
fi

# ---------------------------------------------------------------- full, concise (hostile)

run_hostile concise
n="$(LC_ALL=C grep -c -E ':[0-9]+:[0-9]+: OOM[0-9]{3} ' "$T/concise.h.out")"
t="$(LC_ALL=C grep -c -v -E '^$|^Found |^No fixes with |^\[\*\] [0-9]+ fixable|:[0-9]+:[0-9]+: OOM[0-9]{3} ' "$T/concise.h.out")"
if [ "$n" -eq "$HOST_COUNT" ] && [ "$t" -eq 0 ]; then pass concise-hostile-one-line-each
else fail concise-hostile-one-line-each "want $HOST_COUNT finding lines and no stray line, got $n and $t stray: $(head -c 400 "$T/concise.h.out" 2>/dev/null)"; fi
run_hostile full
n="$(LC_ALL=C grep -c -E '^[^ |=].*:[0-9]+:[0-9]+: OOM[0-9]{3} ' "$T/full.h.out")"
if [ "$n" -eq "$HOST_COUNT" ]; then pass full-hostile-one-header-each
else fail full-hostile-one-header-each "want $HOST_COUNT header lines, got $n"; fi
if LC_ALL=C grep -q "$CR" "$T/full.h.out" "$T/concise.h.out"; then fail full-concise-no-raw-cr "a raw CR in the output"
else pass full-concise-no-raw-cr; fi

# ---------------------------------------------------------------- --output-file

O="$T/o"
mkdir -p "$O"
lint "$W" "$T/stdout" --format json --output-file "$O/report.json" $MAIN
expect_rc output-file-rc 1
if [ ! -s "$T/stdout" ]; then pass output-file-stdout-empty; else fail output-file-stdout-empty "stdout: $(head -c 200 "$T/stdout" 2>/dev/null)"; fi
jqf output-file-written "$O/report.json" 'type == "array" and length == 4'
if cmp -s "$O/report.json" "$T/json.out"; then pass output-file-same-as-stdout
else fail output-file-same-as-stdout "the file differs from the --format json stdout"; fi
lint "$W" "$T/stdout" --format sarif -o "$O/report.sarif" $MAIN
if [ ! -s "$T/stdout" ] && jqtrue "$O/report.sarif" '.runs[0].results | length == 4'; then pass output-file-short-flag-sarif
else fail output-file-short-flag-sarif "exit $RC; stdout: $(head -c 200 "$T/stdout" 2>/dev/null)"; fi
echo "old report" >"$O/old.txt"
lint "$W" "$T/stdout" --format concise -o "$O/old.txt" cuda.py
if grep -q OOM101 "$O/old.txt" && ! grep -q "old report" "$O/old.txt"; then pass output-file-replaces
else fail output-file-replaces "$(head -c 200 "$O/old.txt" 2>/dev/null)"; fi

# Unwritable paths: exit 2, a message naming the path, nothing left behind.
: >"$T/plainfile"
lint "$W" "$T/stdout" --format json -o "$T/plainfile/r.json" $MAIN
expect_rc output-file-parent-is-file-rc-2 2
expect_contains output-file-error-names-path "$(cat "$T/err")" "plainfile/r.json"
lint "$W" "$T/stdout" --format json -o "$T/nodir/sub/r.json" $MAIN
expect_rc output-file-missing-dir-rc-2 2
if [ -e "$T/nodir" ]; then fail output-file-missing-dir-nothing-created "$T/nodir exists"; else pass output-file-missing-dir-nothing-created; fi
mkdir -p "$T/od/target"
lint "$W" "$T/stdout" --format sarif -o "$T/od/target" $MAIN
expect_rc output-file-onto-directory-rc-2 2
left="$(ls -A "$T/od" | tr '\n' ' ')"
if [ "$left" = "target " ] && [ -z "$(ls -A "$T/od/target")" ]; then pass output-file-no-partial-file
else fail output-file-no-partial-file "left behind: $left / $(ls -A "$T/od/target" | tr '\n' ' ')"; fi
if [ "$(id -u)" -ne 0 ]; then
    mkdir -p "$T/ro"
    chmod 555 "$T/ro"
    lint "$W" "$T/stdout" --format json -o "$T/ro/r.json" $MAIN
    expect_rc output-file-read-only-dir-rc-2 2
    if [ -z "$(ls -A "$T/ro")" ]; then pass output-file-read-only-dir-no-file
    else fail output-file-read-only-dir-no-file "left behind: $(ls -A "$T/ro" | tr '\n' ' ')"; fi
    chmod 755 "$T/ro"
fi

# ---------------------------------------------------------------- run control

lint "$W" "$T/stats" --statistics $MAIN
expect_rc statistics-rc 1
has_line statistics-oom201-2 "$T/stats" '^ *2[[:space:]]+OOM201([[:space:]]|$)'
has_line statistics-oom101-1 "$T/stats" '^ *1[[:space:]]+OOM101([[:space:]]|$)'
has_line statistics-oom206-1 "$T/stats" '^ *1[[:space:]]+OOM206([[:space:]]|$)'
no_line statistics-no-finding-lines "$T/stats" 'cuda\.py:2:1'

lint "$W" "$T/x" --format concise --fail-on error cuda.py
expect_rc fail-on-error-only-warning-0 0
expect_contains fail-on-error-still-reports "$(cat "$T/x")" "OOM101"
lint "$W" "$T/x" --format concise --fail-on error cuda.py loop.py
expect_rc fail-on-error-with-error-1 1
lint "$W" "$T/x" --format concise --fail-on warning cuda.py
expect_rc fail-on-warning-with-warning-1 1
lint "$W" "$T/x" --format concise --fail-on warning info.py
expect_rc fail-on-warning-only-info-0 0
lint "$W" "$T/x" --format concise --fail-on info info.py
expect_rc fail-on-info-with-info-1 1
lint "$W" "$T/x" --format concise --fail-on bogus cuda.py
expect_rc fail-on-bad-level-2 2

lint "$W" "$T/x" --format concise --exit-zero loop.py
expect_rc exit-zero-rc-0 0
expect_contains exit-zero-still-reports "$(cat "$T/x")" "loop.py:6:9: OOM201"

lint "$W" "$T/x" --format concise --quiet cuda.py
expect_rc quiet-rc 1
expect_contains quiet-keeps-findings "$(cat "$T/x")" "cuda.py:2:1: OOM101"
expect_not_contains quiet-no-summary "$(cat "$T/x")" "Found "
lint "$W" "$T/x" -q cuda.py
expect_not_contains quiet-short-flag-full-format "$(cat "$T/x")" "Found "
lint "$W" "$T/x" --quiet clean.py
expect_not_contains quiet-clean-no-summary "$(cat "$T/x")" "All checks passed"

# ---------------------------------------------------------------- --diff-base

if command -v git >/dev/null 2>&1; then
    GR="$T/g"
    mkdir -p "$GR" "$T/home"
    g() { (cd "$GR" && HOME="$T/home" GIT_CONFIG_NOSYSTEM=1 git "$@") >/dev/null 2>&1; }
    g init -q
    g symbolic-ref HEAD refs/heads/main
    g config user.name "oomlint test"
    g config user.email "test@example.com"
    g config commit.gpgsign false
    cp "$W/cuda.py" "$GR/a.py"            # its line 2 changes on the branch
    cp "$W/loop.py" "$GR/b.py"            # finding on an unchanged line
    cp "$W/cuda.py" "$GR/old.py"          # renamed on the branch
    cp "$W/cuda.py" "$GR/z.py"            # changed on main after the fork
    printf 'x = 1\n' >"$GR/sp ace ü.py"   # a finding added on the branch
    g add -A
    g commit -q -m base
    g checkout -q -b feature
    printf 'import os\nos.environ["CUDA_VISIBLE_DEVICES"] = "1"\n' >"$GR/a.py"
    printf '    # a comment\n' >>"$GR/b.py"
    g mv old.py renamed.py
    cp "$W/loop.py" "$GR/c.py"            # a new file, committed
    g add -A
    g commit -q -m feature
    cp "$W/cuda.py" "$GR/new.py"          # a new file, untracked
    g checkout -q main
    printf 'import os\nos.environ["CUDA_VISIBLE_DEVICES"] = "7"\n' >"$GR/z.py"
    g commit -q -a -m "main moves on"
    g checkout -q feature
    cat "$W/cuda.py" >>"$GR/sp ace ü.py"  # uncommitted change on the branch: line 3

    # jqd NAME FILE FILTER : jqf, showing file:row of each finding on failure.
    jqd() {
        if jqtrue "$2" "$3"; then pass "$1"
        else fail "$1" "jq '$3' is not true; findings: $(jq -c '[.[] | "\(.filename):\(.location.row) \(.code)"]' "$2" 2>&1 | head -c 300)"; fi
    }
    D="$T/diff.json"
    lint "$GR" "$D" --format json --diff-base main .
    expect_rc diff-base-rc 1
    FN='(.filename | ltrimstr("./"))'
    jqd diff-base-changed-line-reported "$D" "any(.[]; $FN == \"a.py\" and .code == \"OOM101\" and .location.row == 2)"
    jqd diff-base-unchanged-line-not-reported "$D" "all(.[]; $FN != \"b.py\")"
    jqd diff-base-new-committed-file-reported "$D" "any(.[]; $FN == \"c.py\" and .code == \"OOM201\")"
    jqd diff-base-untracked-file-reported "$D" "any(.[]; $FN == \"new.py\" and .code == \"OOM101\")"
    jqd diff-base-renamed-file-not-reported "$D" "all(.[]; $FN != \"renamed.py\" and $FN != \"old.py\")"
    jqd diff-base-against-merge-base "$D" "all(.[]; $FN != \"z.py\")"
    jqd diff-base-file-name-with-space "$D" "any(.[]; $FN == \"sp ace ü.py\" and .location.row == 3)"
    jqd diff-base-exact-set "$D" '[.[] | (.filename | ltrimstr("./"))] | sort == ["a.py", "c.py", "new.py", "sp ace ü.py"]'

    lint "$GR" "$T/x" --format json --diff-base main a.py b.py
    jqd diff-base-explicit-files "$T/x" "length == 1 and (.[0] | $FN == \"a.py\")"

    # The user's own git configuration does not change what counts as changed.
    ROWS='map(.filename + ":" + (.location.row | tostring)) | sort'
    broke=""
    for kv in diff.mnemonicPrefix=true diff.noprefix=true color.ui=always color.diff=always \
        diff.renames=false diff.relative=true diff.external=false core.quotePath=true; do
        g config "${kv%%=*}" "${kv#*=}"
        lint "$GR" "$T/x" --format json --diff-base main .
        g config --unset "${kv%%=*}"
        if [ "$(jq -c "$ROWS" "$T/x" 2>/dev/null)" != "$(jq -c "$ROWS" "$D" 2>/dev/null)" ]; then
            broke="$broke $kv: $(jq -c "$ROWS" "$T/x" 2>&1 | head -c 120);"
        fi
    done
    if [ "$(jq -c "$ROWS | length" "$D" 2>/dev/null)" = 0 ] || [ ! -s "$D" ]; then
        fail diff-base-ignores-user-git-config "no findings without any configuration either"
    elif [ -z "$broke" ]; then pass diff-base-ignores-user-git-config
    else fail diff-base-ignores-user-git-config "without config: $(jq -c "$ROWS" "$D" 2>&1 | head -c 120); with$broke"; fi

    lint "$GR" "$T/x" --format json --diff-base no-such-ref .
    expect_rc diff-base-unknown-ref-rc-2 2
    expect_contains diff-base-unknown-ref-message "$(cat "$T/err")" "no-such-ref"

    OUTSIDE="$T/outside"
    mkdir -p "$OUTSIDE"
    cp "$W/cuda.py" "$OUTSIDE/x.py"
    if (cd "$OUTSIDE" && git rev-parse --is-inside-work-tree) >/dev/null 2>&1; then
        skip diff-base-outside-work-tree-rc-2 "$T is inside a git work tree"
        skip diff-base-outside-work-tree-message "$T is inside a git work tree"
        skip diff-base-path-outside-work-tree-rc-2 "$T is inside a git work tree"
    else
        lint "$OUTSIDE" "$T/x" --format json --diff-base main x.py
        expect_rc diff-base-outside-work-tree-rc-2 2
        if grep -q '^oomlint: error:.*git' "$T/err"; then pass diff-base-outside-work-tree-message
        else fail diff-base-outside-work-tree-message "want an 'oomlint: error:' line about git; stderr: $(head -c 300 "$T/err" 2>/dev/null)"; fi
        # From inside the repository, a path that lies outside it.
        lint "$GR" "$T/x" --format json --diff-base main "$OUTSIDE/x.py"
        expect_rc diff-base-path-outside-work-tree-rc-2 2
    fi
else
    skip diff-base "git is not installed"
fi

# ---------------------------------------------------------------- GitHub Action shell step

# action.yml: a composite action with the documented inputs, calling the script.
A="$ROOT/action.yml"
if [ -f "$A" ]; then
    ok=1
    grep -q '^ *using: *["'"'"']\{0,1\}composite' "$A" || ok=0
    for i in paths gpu args diff-base fail-on sarif-file; do
        grep -q "^  $i:" "$A" || ok=0
    done
    grep -q 'src/integrations/github-action.sh' "$A" || ok=0
    if [ "$ok" -eq 1 ]; then pass action-yml-composite-inputs
    else fail action-yml-composite-inputs "action.yml lacks using: composite, an input or the script"; fi
    if command -v python3 >/dev/null 2>&1 && python3 -c 'import yaml' 2>/dev/null; then
        if python3 - "$A" >"$T/x" 2>&1 <<'EOF'
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
assert d["runs"]["using"] == "composite"
assert set(d["inputs"]) >= {"paths", "gpu", "args", "diff-base", "fail-on", "sarif-file"}
assert d["inputs"]["paths"]["default"] == "."
assert "github.base_ref" in d["inputs"]["diff-base"]["default"]
assert any("github-action.sh" in s.get("run", "") for s in d["runs"]["steps"])
EOF
        then pass action-yml-parses
        else fail action-yml-parses "$(tail -c 300 "$T/x")"; fi
    fi
else
    fail action-yml-composite-inputs "no action.yml at the repository root"
fi

# run_action WORKSPACE VAR=VALUE... : runs the action's script like GitHub
# would, without building; stdout in $T/act.out, stderr in $T/act.err.
run_action() {
    _ws="$1"; shift
    : >"$T/act.summary"
    : >"$T/act.output"
    env -u GITHUB_BASE_REF -u INPUT_PATHS -u INPUT_ARGS -u INPUT_GPU -u INPUT_DIFF_BASE \
        -u INPUT_FAIL_ON -u INPUT_SARIF_FILE \
        GITHUB_WORKSPACE="$_ws" GITHUB_STEP_SUMMARY="$T/act.summary" GITHUB_OUTPUT="$T/act.output" \
        OOMLINT_SKIP_BUILD=1 OOMLINT="$OOMLINT" HOME="$T/home" GIT_CONFIG_NOSYSTEM=1 INPUT_ARGS="$EXAMPLE_RULES" "$@" \
        sh "$ACTION_SH" >"$T/act.out" 2>"$T/act.err" </dev/null
    RC=$?
    cat "$T/act.err" >>"$T/all-stderr"
}

if [ -f "$ACTION_SH" ]; then
    AW="$T/aw"
    mkdir -p "$AW/src" "$AW/sp ace"
    for f in $MAIN clean.py; do cp "$W/$f" "$AW/src/$f"; done
    cp "$W/cuda.py" "$AW/sp ace/x.py"
    run_action "$AW" INPUT_PATHS=src INPUT_SARIF_FILE=reports/oomlint.sarif INPUT_GPU=A100-80GB INPUT_FAIL_ON= INPUT_ARGS="$EXAMPLE_RULES" INPUT_DIFF_BASE=
    expect_rc action-rc-1-on-findings 1
    lines_all_match action-annotations "$T/act.out" "$GH_RE" 4
    has_line action-annotation-oom101 "$T/act.out" '^::warning file=src/cuda\.py,line=2,endLine=2,col=1,'
    has_line action-summary-table "$T/act.summary" '^\| *`?OOM201`?.*\| *2 *\|$'
    has_line action-output-exit-code "$T/act.output" '^exit-code=1$'
    has_line action-output-sarif-file "$T/act.output" '^sarif-file=reports/oomlint\.sarif$'
    if grep -qx "binary=$OOMLINT" "$T/act.output"; then pass action-output-binary
    else fail action-output-binary "want binary=$OOMLINT; got: $(cat "$T/act.output")"; fi
    jqf action-sarif-written "$AW/reports/oomlint.sarif" '.version == "2.1.0" and (.runs[0].results | length == 4)'
    jqf action-sarif-relative-uris "$AW/reports/oomlint.sarif" 'all(.runs[0].results[]; .locations[0].physicalLocation.artifactLocation | (.uri | startswith("src/")) and .uriBaseId != null)'
    if "$OOMLINT" --help 2>/dev/null | grep -q -- '--gpu'; then
        pass action-gpu-input-passed-when-supported
    elif grep -q 'gpu' "$T/act.err"; then
        pass action-gpu-input-ignored-when-unsupported
    else
        fail action-gpu-input-ignored-when-unsupported "no note about the gpu input on stderr: $(head -c 200 "$T/act.err" 2>/dev/null)"
    fi

    run_action "$AW" INPUT_PATHS=src/cuda.py INPUT_FAIL_ON=error
    expect_rc action-fail-on-error-only-warning-0 0
    has_line action-fail-on-still-annotates "$T/act.out" '^::warning file=src/cuda\.py,'
    has_line action-output-exit-code-0 "$T/act.output" '^exit-code=0$'

    run_action "$AW" INPUT_PATHS=src "INPUT_ARGS=--select OOM1"
    lines_all_match action-args-passed "$T/act.out" '^::warning file=src/cuda\.py,.*title=OOM101' 1

    run_action "$AW" "INPUT_PATHS=sp ace/x.py${NL}src/info.py${NL}"
    if [ "$RC" -eq 1 ] && grep -q '^::warning file=sp ace/x\.py,' "$T/act.out" && grep -q '^::notice file=src/info\.py,' "$T/act.out"; then
        pass action-paths-one-per-line
    else
        fail action-paths-one-per-line "exit $RC; $(head -c 300 "$T/act.out" 2>/dev/null) $(head -c 300 "$T/act.err" 2>/dev/null)"
    fi

    run_action "$AW"
    if [ "$RC" -eq 1 ] && [ "$(wc -l <"$T/act.out" | tr -d ' ')" -eq 5 ]; then pass action-default-paths-dot
    else fail action-default-paths-dot "exit $RC, want 5 annotations for '.'; $(head -c 300 "$T/act.out" 2>/dev/null) $(head -c 300 "$T/act.err" 2>/dev/null)"; fi

    if [ -d "${GR:-/nonexistent}/.git" ]; then
        # In a pull request the base defaults to origin/$GITHUB_BASE_REF.
        g update-ref refs/remotes/origin/main main
        run_action "$GR" GITHUB_BASE_REF=main INPUT_DIFF_BASE=
        if [ "$RC" -eq 1 ] && grep -q '^::warning file=a\.py,line=2,' "$T/act.out" && ! grep -q 'file=b\.py' "$T/act.out" &&
            ! grep -q 'file=z\.py' "$T/act.out"; then
            pass action-diff-base-defaults-to-pr-base
        else
            fail action-diff-base-defaults-to-pr-base "exit $RC; $(head -c 400 "$T/act.out" 2>/dev/null) $(head -c 300 "$T/act.err" 2>/dev/null)"
        fi
        run_action "$GR" GITHUB_BASE_REF=main INPUT_DIFF_BASE=none
        if grep -q '^::error file=b\.py,line=6,' "$T/act.out"; then pass action-diff-base-none-reports-all
        else fail action-diff-base-none-reports-all "exit $RC; $(head -c 400 "$T/act.out" 2>/dev/null) $(head -c 300 "$T/act.err" 2>/dev/null)"; fi
        run_action "$GR" INPUT_DIFF_BASE=main INPUT_SARIF_FILE=out.sarif
        if grep -q 'file=a\.py' "$T/act.out" && ! grep -q 'file=b\.py' "$T/act.out"; then pass action-diff-base-input
        else fail action-diff-base-input "exit $RC; $(head -c 400 "$T/act.out" 2>/dev/null) $(head -c 300 "$T/act.err" 2>/dev/null)"; fi
        jqf action-sarif-lists-every-finding "$GR/out.sarif" 'any(.runs[0].results[]; .locations[0].physicalLocation.artifactLocation.uri == "b.py")'
        rm -f "$GR/out.sarif"
    fi

    run_action "$AW" INPUT_PATHS=src/no-such-file.py
    expect_rc action-run-failure-rc-2 2
else
    fail action-script "no $ACTION_SH"
fi

# ------------------------------------------------------ one finding per cause

# Three places that pin GPU 0 in one function, two forwards of one evaluation
# function: one finding each, the other places related in every format.
CAUSE="$ROOT/fixtures/realistic/ddp_fixed_device_and_eval_once_per_cause.py"
"$OOMLINT" --extend-select OOM105 --no-cache --format json "$CAUSE" >"$T/cause.json" 2>>"$T/all-stderr"
jqf cause-one-finding-per-function "$T/cause.json" '[.[] | .code] == ["OOM105", "OOM301"]'
jqf cause-json-related "$T/cause.json" \
    '(.[0].related | map(.row)) == [24, 25] and (.[1].related | map(.row)) == [49, 34] and (.[0].related[0].filename | endswith("once_per_cause.py"))'
jqf cause-message-names-places "$T/cause.json" '.[0].message | endswith("(also at lines 24 and 25)")'
"$OOMLINT" --extend-select OOM105 --no-cache --format sarif "$CAUSE" >"$T/cause.sarif" 2>>"$T/all-stderr"
jqf cause-sarif-related-locations "$T/cause.sarif" \
    '[.runs[0].results[0].relatedLocations[] | .physicalLocation.region.startLine] == [24, 25] and .runs[0].results[0].relatedLocations[0].id == 1'
OUT="$("$OOMLINT" --extend-select OOM105 --no-cache "$CAUSE" 2>>"$T/all-stderr")"
expect_contains cause-text-also-lines "$OUT" "= also: $CAUSE:25: \`torch.device(\"cuda\", 0)\`"
if [ -x "$VALIDATOR" ]; then
    validate sarif-validator-related-locations "$T/cause.sarif"
else
    skip sarif-validator-related-locations "the SARIF validator is not fetched ($VALIDATOR; run make test-tools)"
fi

# ---------------------------------------------------------------- sanitizers

# (Meaningful for the ASan+UBSan build: its reports go to oomlint's stderr.)
if LC_ALL=C grep -q -E 'AddressSanitizer|LeakSanitizer|runtime error:' "$T/all-stderr" 2>/dev/null; then
    fail no-sanitizer-reports "$(LC_ALL=C grep -E 'AddressSanitizer|LeakSanitizer|runtime error:' "$T/all-stderr" | head -c 400)"
else
    pass no-sanitizer-reports
fi

exit 0
