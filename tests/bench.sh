#!/bin/sh
# Benchmark (never a test): oomlint against tree-sitter parsing alone and
# against peers (Ruff's WebAssembly build, flake8, pylint) on two corpora of
# real Python: Debian's CPython 3.11 standard library and the Python sources
# of Debian's python3-torch (both installed if missing). Prints files, lines,
# median wall time of RUNS runs, lines per second, each peer's time as a
# multiple of oomlint's, thread scaling, peak RSS, the analysis overhead
# over parsing (whole runs, and file by file in one process), and the number
# of syntax-error findings on these valid-Python corpora. Run one corpus with
# CORPUS=DIR.
set -eu
# Every run here lints: the on-disk cache would answer all runs after the
# first (tests/bench_cache.sh measures it).
OOMLINT_NO_CACHE=1
export OOMLINT_NO_CACHE
cd "$(dirname "$0")/.."
RUNS="${RUNS:-5}"
if [ -z "${CORPUS:-}" ]; then
    SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
    [ -d /usr/lib/python3.11 ] || { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq libpython3.11-stdlib; }
    [ -d /usr/lib/python3/dist-packages/torch ] ||
        $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-torch ||
        echo "bench: python3-torch could not be installed; the stdlib corpus only"
    status=0
    for corpus in /usr/lib/python3.11 /usr/lib/python3/dist-packages/torch; do
        [ -d "$corpus" ] || continue
        CORPUS="$corpus" RUNS="$RUNS" sh "$0" || status=1
        echo
    done
    exit $status
fi
for tool in bc:bc /usr/bin/time:time flake8:flake8 pylint:pylint; do
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

one_run() { t0=$(now); "$@" >/dev/null 2>&1 || true; t1=$(now); echo "$t1 - $t0" | bc -l; }

parse_only() { build/tools/parse-only < "$LIST"; }
NPROC=$(nproc)
lint1() { xargs build/oomlint --threads 1 --format concise < "$LIST"; }
lintn() { xargs build/oomlint --threads "$NPROC" --format concise < "$LIST"; }
peak_rss() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }

echo "corpus: $CORPUS ($FILES files, $LINES lines), median of $RUNS runs"
# Interleaved: this machine is shared and changes speed for minutes at a
# time, so what is compared is timed side by side in each round, in the
# order A B B A (a steady drift in speed then weighs on both sides alike),
# and the overhead and the scaling are medians of each round's own ratio.
# Parsing against one thread, and one thread against all threads, are
# separate halves of a round, so that a run on every core (which may change
# how the shared host treats this machine) never sits between two runs that
# are compared.
ROUNDS="$(mktemp)"
i=0
while [ $i -lt "$RUNS" ]; do
    echo "$(one_run parse_only) $(one_run lint1) $(one_run lint1) $(one_run parse_only)" \
         "$(one_run lint1) $(one_run lintn) $(one_run lintn) $(one_run lint1)" >> "$ROUNDS"
    i=$((i + 1))
done
T_PARSE=$(awk '{print ($1 + $4) / 2}' "$ROUNDS" | median)
T_LINT=$(awk '{print ($2 + $3) / 2}' "$ROUNDS" | median)
T_LINTN=$(awk '{print ($6 + $7) / 2}' "$ROUNDS" | median)
OVERHEAD=$(awk '{print ($2 + $3 - $1 - $4) * 100 / ($1 + $4)}' "$ROUNDS" | median)
SCALING=$(awk '{print ($5 + $8) / ($6 + $7)}' "$ROUNDS" | median)
SPREAD=$(awk '{r = ($2 + $3 - $1 - $4) * 100 / ($1 + $4); if (NR == 1 || r < lo) lo = r; if (NR == 1 || r > hi) hi = r}
              END {printf "%.0f%% to %.0f%%", lo, hi}' "$ROUNDS")
rm -f "$ROUNDS"
RSS=$(command -v /usr/bin/time >/dev/null 2>&1 && peak_rss sh -c "xargs build/oomlint < '$LIST'" || echo "?")
printf '%-28s %10s %14s\n' "" "wall s" "lines/s"
printf '%-28s %10.3f %14.0f\n' "tree-sitter parse only" "$T_PARSE" "$(echo "$LINES / $T_PARSE" | bc -l)"
printf '%-28s %10.3f %14.0f\n' "oomlint, 1 thread" "$T_LINT" "$(echo "$LINES / $T_LINT" | bc -l)"
printf '%-28s %10.3f %14.0f\n' "oomlint, $NPROC threads" "$T_LINTN" "$(echo "$LINES / $T_LINTN" | bc -l)"
printf 'thread scaling: %.2fx with %s threads (median of the rounds)\n' "$SCALING" "$NPROC"
# A target GPU adds the capacity pass (OOM601/602), which takes each file's
# estimate inputs from the worker that linted it: timed against the same run
# without a GPU, side by side in each round (A B B A).
lintn_gpu() { xargs build/oomlint --threads "$NPROC" --format concise --gpu v100 --extend-select OOM601 < "$LIST"; }
GPU_ROUNDS="$(mktemp)"
i=0
while [ $i -lt "$RUNS" ]; do
    echo "$(one_run lintn) $(one_run lintn_gpu) $(one_run lintn_gpu) $(one_run lintn)" >> "$GPU_ROUNDS"
    i=$((i + 1))
done
GPU_RATIO=$(awk '{print ($2 + $3) / ($1 + $4)}' "$GPU_ROUNDS" | median)
rm -f "$GPU_ROUNDS"
RSS_GPU=$(command -v /usr/bin/time >/dev/null 2>&1 && peak_rss sh -c "xargs build/oomlint --gpu v100 < '$LIST'" || echo "?")
printf 'with --gpu v100: %.2fx the run without (%s threads, median of the rounds)   peak RSS: %s KiB\n' \
    "$GPU_RATIO" "$NPROC" "$RSS_GPU"
PEERS=1
sh src/deps/fetch.sh build/deps src/deps/bench-tools.lock >/dev/null 2>&1 || PEERS=0
RUFF_DIR=build/deps/_astral-sh-ruff-wasm-nodejs
ruff_wasm() { node tests/bench_ruff.js "$RUFF_DIR" < "$LIST"; }
flake8_all() { xargs flake8 -j "$NPROC" --exit-zero < "$LIST"; }
PYLINT_N=60
pylint_subset() { head -n "$PYLINT_N" "$LIST" | xargs pylint --exit-zero --jobs=1 --disable=all --enable=E,W; }
PYLINT_LINES=$(cat $(head -n "$PYLINT_N" "$LIST") | wc -l)
if command -v node >/dev/null 2>&1 && [ "$PEERS" = 1 ]; then
    T_RUFF=$(time_runs ruff_wasm)
    printf '%-28s %10.3f %14.0f   %5.1fx oomlint (%s threads)\n' "Ruff 0.17.4 wasm (node)" "$T_RUFF" \
        "$(echo "$LINES / $T_RUFF" | bc -l)" "$(echo "$T_RUFF / $T_LINTN" | bc -l)" "$NPROC"
fi
if command -v flake8 >/dev/null 2>&1; then
    RUNS_SAVED=$RUNS; RUNS=1
    T_FLAKE8=$(time_runs flake8_all)
    printf '%-28s %10.3f %14.0f   %5.1fx oomlint (%s threads)\n' "flake8, $NPROC jobs" "$T_FLAKE8" \
        "$(echo "$LINES / $T_FLAKE8" | bc -l)" "$(echo "$T_FLAKE8 / $T_LINTN" | bc -l)" "$NPROC"
    RUNS=$RUNS_SAVED
fi
if command -v pylint >/dev/null 2>&1; then
    RUNS_SAVED=$RUNS; RUNS=1
    T_PYLINT=$(time_runs pylint_subset)
    RATE=$(echo "$PYLINT_LINES / $T_PYLINT" | bc -l)
    printf '%-28s %10.3f %14.0f   %5.1fx oomlint, per line (first %s files, %s lines)\n' "pylint, 1 job" "$T_PYLINT" \
        "$RATE" "$(echo "($LINES / $T_LINT) / $RATE" | bc -l)" "$PYLINT_N" "$PYLINT_LINES"
    RUNS=$RUNS_SAVED
fi
# The capacity rules and the estimate read every file only with a target GPU.
rc=0; xargs build/oomlint --gpu v100 --format concise --quiet < "$LIST" >/dev/null 2>&1 || rc=$?
case $rc in 0|123) echo "oomlint --gpu v100 over the corpus: finished (exit $rc: 0 clean, 123 findings)" ;;
    *) echo "oomlint --gpu v100 over the corpus: CRASHED or failed (xargs exit $rc)" ;; esac
DIFF=$(build/tools/match-diff < "$LIST" | tail -n 1)
echo "oomlint's tree layout and query matcher against tree-sitter's cursor, every built-in pattern: $DIFF"
SYNTAX=$(xargs build/oomlint --select OOM001 --format concise --quiet < "$LIST" | grep -c OOM001 || true)
echo "syntax-error findings (OOM001) on this valid-Python corpus: $SYNTAX"
printf 'analysis overhead over parsing (1 thread): %.0f%% (median of the rounds; %s across them)   oomlint peak RSS: %s KiB\n' \
    "$OVERHEAD" "$SPREAD" "$RSS"
# The same overhead with each file parsed and linted side by side in one
# process, microseconds apart: steady where whole runs seconds apart are not.
build/tools/lint-vs-parse "$RUNS" < "$LIST" | tail -n 1
