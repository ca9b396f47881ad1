#!/bin/sh
# Scaffolds a new rule: its folder under rules/<language>/ (rule.json,
# query.scm, doc.md in the five-part shape every rule's documentation has)
# and two fixtures under fixtures/rules/<CODE>/, one that must fire and one
# that must stay quiet. Run by `make new-rule CODE=OOM7xx NAME=kebab-name`.
# A rule that also reads JSON or YAML configs adds a query.json.scm or
# query.yaml.scm beside its query.scm (see rules/python/OOM401-*).
#
# The query it writes matches a placeholder call, so the new rule builds,
# loads and passes its fixtures at once; CONTRIBUTING.md says what to change
# next. ROOT (default: the repository) is where the files go.
set -eu

CODE="${1:-}"
NAME="${2:-}"
ROOT="${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}"

die() { echo "new-rule: $*" >&2; exit 2; }

[ -n "$CODE" ] && [ -n "$NAME" ] || die "usage: make new-rule CODE=OOM7xx NAME=kebab-name"
printf '%s' "$CODE" | grep -Eq '^OOM[1-9][0-9]{2}$' ||
    die "CODE must be OOM followed by three digits, the first not 0 (OOM0xx are the engine's): got '$CODE'"
printf '%s' "$NAME" | grep -Eq '^[a-z][a-z0-9]*(-[a-z0-9]+)*$' ||
    die "NAME must be lowercase words joined by hyphens (tensor-with-graph-stored): got '$NAME'"
# codes are stable and never reused: refuse one that any rule folder has
for existing in "$ROOT"/rules/*/"$CODE"-*; do
    [ -e "$existing" ] && die "$CODE is taken by ${existing#"$ROOT"/}"
done
for existing in "$ROOT"/rules/*/*-"$NAME"; do
    [ -e "$existing" ] && die "the name $NAME is taken by ${existing#"$ROOT"/}"
done
[ -e "$ROOT/fixtures/rules/$CODE" ] && die "fixtures/rules/$CODE already exists"

RULE="$ROOT/rules/python/$CODE-$NAME"
FIX="$ROOT/fixtures/rules/$CODE"
mkdir -p "$RULE" "$FIX"

cat > "$RULE/rule.json" <<EOF
{
  "code": "$CODE",
  "name": "$NAME",
  "language": "python",
  "severity": "warning",
  "message": "\`{{call}}\` ... one short sentence that names the offending code and what it costs",
  "help": "What to write instead, as code",
  "url": "https://docs.pytorch.org/docs/stable/notes/cuda.html"
}
EOF

cat > "$RULE/query.scm" <<'EOF'
; What the rule matches, as tree-sitter patterns over the Python tree, and
; the predicates that decide (see CONTRIBUTING.md, and `oomlint predicates`
; for the semantic ones: #oom-in-loop?, #oom-grad-enabled?, #oom-carries-graph?, ...).
; @report is where the finding is reported; other captures can be quoted
; in the message as {{name}}.
((call
  function: (identifier) @fn) @call @report
  (#eq? @fn "replace_me"))
EOF
cat > "$FIX/fires_example.py" <<EOF
# The shape $CODE reports, written as real code writes it: aliases, keyword
# and positional arguments, helpers, nested loops. Each line that must
# produce the finding ends with its annotation.
replace_me()  # expect: $CODE
EOF
cat > "$FIX/quiet_example.py" <<'EOF'
# The correct code next to the shape, which must produce nothing: any line
# here that reports is a false positive, and fails the suite.
keep_me()
EOF

cat > "$RULE/doc.md" <<EOF
## What it does
Checks for ... (one sentence: the pattern, in the user's terms).

The rule fires on ... (every spelling it understands: aliases, keyword and
positional arguments, names bound earlier, helpers).

It stays quiet for ... (the correct code next to it, and the look-alikes).

## Why is this bad?
What the pattern costs in GPU memory, with a number and its source.

## Example
\`\`\`python
replace_me()
\`\`\`

## Use instead
\`\`\`python
keep_me()
\`\`\`

## References
- A primary source (PyTorch or Hugging Face documentation, a paper, a fixed issue).
EOF

echo "new-rule: wrote ${RULE#"$ROOT"/}/ and ${FIX#"$ROOT"/}/"
echo "next: edit the query and the fixtures, then \`make quick FIXTURES=fixtures/rules/$CODE\` and \`make ecosystem\`"
