#!/bin/sh
# Benchmark (never a test): oomlint against tree-sitter parsing alone on the
# CPython standard library (Debian's libpython3.11-stdlib, installed if
# missing). Prints files, lines, median wall time of RUNS runs, lines per
# second and the overhead of oomlint's analysis over parsing.
set -eu
cd "$(dirname "$0")/.."
CORPUS="${CORPUS:-/usr/lib/python3.11}"
RUNS="${RUNS:-5}"
if [ ! -d "$CORPUS" ]; then
    echo "bench: installing libpython3.11-stdlib for the corpus"
    SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
    $SUDO apt-get update -qq && $SUDO apt-get install -y -qq libpython3.11-stdlib
fi
for tool in bc:bc /usr/bin/time:time; do
    command -v "${tool%%:*}" >/dev/null 2>&1 || { SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo; $SUDO apt-get install -y -qq "${tool#*:}"; }
done
LIST="$(mktemp)"
trap 'rm -f "$LIST"' EXIT
# The files oomlint would walk (same skips), listed once for both tools.
find "$CORPUS" \( -name .git -o -name __pycache__ -o -name site-packages -o -name node_modules \
    -o -name .venv -o -name venv \) -prune -o -name '*.py' -type f -print | sort > "$LIST"
FILES=$(wc -l < "$LIST")
LINES=$(cat $(cat "$LIST") | wc -l)

now() { date +%s.%N; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

time_runs() { # time_runs COMMAND... -> median seconds
    i=0
    while [ $i -lt "$RUNS" ]; do
        t0=$(now); "$@" >/dev/null 2>&1 || true; t1=$(now)
        echo "$t1 - $t0" | bc -l
        i=$((i + 1))
    done | median
}

parse_only() { build/tools/parse-only < "$LIST"; }
NPROC=$(nproc)
lint1() { xargs build/oomlint --threads 1 --format concise < "$LIST"; }
lintn() { xargs build/oomlint --threads "$NPROC" --format concise < "$LIST"; }
peak_rss() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }

echo "corpus: $CORPUS ($FILES files, $LINES lines), median of $RUNS runs"
T_PARSE=$(time_runs parse_only)
T_LINT=$(time_runs lint1)
T_LINTN=$(time_runs lintn)
RSS=$(command -v /usr/bin/time >/dev/null 2>&1 && peak_rss sh -c "xargs build/oomlint < '$LIST'" || echo "?")
printf '%-28s %10s %14s\n' "" "wall s" "lines/s"
printf '%-28s %10.3f %14.0f\n' "tree-sitter parse only" "$T_PARSE" "$(echo "$LINES / $T_PARSE" | bc -l)"
printf '%-28s %10.3f %14.0f\n' "oomlint, 1 thread" "$T_LINT" "$(echo "$LINES / $T_LINT" | bc -l)"
printf '%-28s %10.3f %14.0f\n' "oomlint, $NPROC threads" "$T_LINTN" "$(echo "$LINES / $T_LINTN" | bc -l)"
printf 'thread scaling: %.2fx with %s threads\n' "$(echo "$T_LINT / $T_LINTN" | bc -l)" "$NPROC"
printf 'analysis overhead over parsing (1 thread): %.0f%%   oomlint peak RSS: %s KiB\n' \
    "$(echo "($T_LINT - $T_PARSE) * 100 / $T_PARSE" | bc -l)" "$RSS"
