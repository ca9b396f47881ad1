#!/bin/sh
# Where oomlint's time goes, in instructions (valgrind's callgrind), which,
# unlike wall time, does not move with the load of a shared machine. For each
# corpus (Debian's CPython 3.11 standard library and the Python sources of
# python3-torch), on every STRIDE-th file: tree-sitter parsing alone, then
# oomlint with one thread split into its stages. Never a test.
set -eu
# Every run here lints: the on-disk cache would answer all runs after the
# first (tests/bench_cache.sh measures it).
OOMLINT_NO_CACHE=1
export OOMLINT_NO_CACHE
cd "$(dirname "$0")/.."
STRIDE="${STRIDE:-7}"
command -v valgrind >/dev/null 2>&1 || { echo "profile: valgrind is needed (make setup)"; exit 1; }
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT

# inclusive instructions of one function in a callgrind output
incl() { # the largest count listed for the function (callgrind names it more than one way)
    callgrind_annotate --inclusive=yes --threshold=100 "$1" 2>/dev/null |
        awk -v f="$2" '$0 ~ (":" f "( \\[|$)") {gsub(",", "", $1); if ($1 + 0 > best) best = $1 + 0}
                       END {printf "%.0f\n", best}'
}
total() { callgrind_annotate "$1" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1; exit}'; }
pct() { echo "$1 * 100 / $2" | bc; }

profile_corpus() {
    corpus="$1"
    find "$corpus" -name __pycache__ -prune -o -name '*.py' -type f -print | sort |
        awk -v s="$STRIDE" 'NR % s == 0' > "$OUT/list"
    files=$(wc -l < "$OUT/list")
    lines=$(cat $(cat "$OUT/list") | wc -l)
    valgrind --tool=callgrind --callgrind-out-file="$OUT/parse.cg" build/tools/parse-only < "$OUT/list" >/dev/null 2>&1
    xargs valgrind --tool=callgrind --callgrind-out-file="$OUT/lint.cg" build/oomlint --threads 1 \
        --format concise < "$OUT/list" >/dev/null 2>&1 || true
    p_only=$(total "$OUT/parse.cg")
    all=$(total "$OUT/lint.cg")
    parse=$(incl "$OUT/lint.cg" ts_parser_parse_string)
    layout=$(incl "$OUT/lint.cg" oom_nodes_build)
    query=$(incl "$OUT/lint.cg" oom_query_exec)
    model=$(incl "$OUT/lint.cg" oom_pymodel_build_from)
    compile=$(incl "$OUT/lint.cg" oom_compiled_new)
    preds=$(incl "$OUT/lint.cg" oom_preds_hold)
    facts=$(incl "$OUT/lint.cg" take_facts)
    join=$(incl "$OUT/lint.cg" oom_project_run_checks)
    analysis=$((all - p_only))
    echo "corpus: $corpus (every ${STRIDE}th file: $files files, $lines lines)"
    printf '  %-44s %14s %8s\n' "" "instructions" "% parse"
    printf '  %-44s %14s %8s\n' "tree-sitter parse only (read, parse, free)" "$p_only" 100
    printf '  %-44s %14s %8s\n' "oomlint, 1 thread, all of it" "$all" "$(pct "$all" "$p_only")"
    printf '  %-44s %14s %8s\n' "  of which parsing" "$parse" "$(pct "$parse" "$p_only")"
    printf '  %-44s %14s %8s\n' "  laying out the tree (one walk)" "$layout" "$(pct "$layout" "$p_only")"
    printf '  %-44s %14s %8s\n' "  matching the rules (with predicates)" "$query" "$(pct "$query" "$p_only")"
    printf '  %-44s %14s %8s\n' "  compiling the rules (once per process)" "$compile" "$(pct "$compile" "$p_only")"
    printf '  %-44s %14s %8s\n' "  semantic model (over the laid-out tree)" "$model" "$(pct "$model" "$p_only")"
    printf '  %-44s %14s %8s\n' "  predicates" "$preds" "$(pct "$preds" "$p_only")"
    printf '  %-44s %14s %8s\n' "  each file's facts for the project (workers)" "$facts" "$(pct "$facts" "$p_only")"
    printf '  %-44s %14s %8s\n' "  joining the project (one pass)" "$join" "$(pct "$join" "$p_only")"
    printf '  analysis overhead over parsing: %s%%; the cross-file part (facts + join): %s%% of the whole run\n' \
        "$(pct "$analysis" "$p_only")" "$(pct "$((facts + join))" "$all")"
}

for corpus in /usr/lib/python3.11 /usr/lib/python3/dist-packages/torch; do
    [ -d "$corpus" ] && profile_corpus "$corpus" && echo
done
