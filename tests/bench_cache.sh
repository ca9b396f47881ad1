#!/bin/sh
# Benchmark (never a test) of the on-disk cache: `oomlint .` over the Python
# sources of Debian's python3-torch (installed if missing; CORPUS=DIR for
# another tree), copied to a temporary folder so that a file can be changed.
# Times, as medians of RUNS runs: the run without a cache (--no-cache), the
# first run with an empty cache (which writes it), the second run with
# nothing changed, and a run after one file changed; prints each as a ratio
# of the run without a cache (the goal for the second run: 0.1 or less) and
# checks that the cached report is the uncached one, byte for byte.
# ARGS="--gpu v100" adds options to every run (the capacity pass's facts).
set -eu
cd "$(dirname "$0")/.."
RUNS="${RUNS:-5}"
ARGS="${ARGS:-}"
unset OOMLINT_NO_CACHE OOMLINT_CACHE_DIR
CORPUS="${CORPUS:-/usr/lib/python3/dist-packages/torch}"
if [ ! -d "$CORPUS" ]; then
    SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-torch ||
        { echo "bench-cache: $CORPUS missing and python3-torch could not be installed"; exit 1; }
fi
command -v bc >/dev/null 2>&1 || { SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo; $SUDO apt-get install -y -qq bc; }
BIN="$(pwd -P)/build/oomlint"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/oomlint-bench-cache.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
# the files oomlint walks (.py, .ipynb, .json, .yaml), with their folders
(cd "$CORPUS" && find . \( -name '*.py' -o -name '*.ipynb' -o -name '*.json' -o -name '*.yaml' -o -name '*.yml' \) \
    -type f -print | tar -cf - -T -) | (mkdir -p "$WORK/src" && cd "$WORK/src" && tar -xf -)
FILES=$(find "$WORK/src" -type f | wc -l)
LINES=$(find "$WORK/src" -name '*.py' -type f -exec cat {} + | wc -l)
NPROC=$(nproc)

now() { date +%s.%N; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# lint OUT ARGS...: one `oomlint . ARGS` in the copy, its report in OUT; prints seconds
lint() {
    out="$1"; shift
    t0=$(now)
    # shellcheck disable=SC2086
    (cd "$WORK/src" && "$BIN" --format concise --threads "$NPROC" $ARGS "$@" . > "$out" 2>/dev/null) || true
    t1=$(now)
    echo "$t1 - $t0" | bc -l
}

CHANGED="$(cd "$WORK/src" && find . -name '*.py' -size +8k | sort | head -n 1)"
cp "$WORK/src/$CHANGED" "$WORK/changed.orig"
: > "$WORK/none" && : > "$WORK/cold" && : > "$WORK/warm" && : > "$WORK/one"
i=0
while [ $i -lt "$RUNS" ]; do
    rm -rf "$WORK/cache"
    lint "$WORK/report-none" --no-cache >> "$WORK/none"
    lint "$WORK/report-cold" --cache-dir "$WORK/cache" >> "$WORK/cold"
    lint "$WORK/report-warm" --cache-dir "$WORK/cache" >> "$WORK/warm"
    printf '\n# changed by the benchmark, run %s\nx_%s = %s\n' "$i" "$i" "$i" >> "$WORK/src/$CHANGED"
    lint "$WORK/report-one" --cache-dir "$WORK/cache" >> "$WORK/one"
    cp "$WORK/changed.orig" "$WORK/src/$CHANGED"
    i=$((i + 1))
done
T_NONE=$(median < "$WORK/none")
T_COLD=$(median < "$WORK/cold")
T_WARM=$(median < "$WORK/warm")
T_ONE=$(median < "$WORK/one")
SIZE=$(du -sk "$WORK/cache" | cut -f1)

echo "cache benchmark: oomlint . $ARGS over $CORPUS ($FILES files, $LINES lines of Python), $NPROC threads, median of $RUNS runs"
printf '%-44s %8s %10s\n' "" "wall s" "ratio"
printf '%-44s %8.3f %10s\n' "no cache (--no-cache)" "$T_NONE" "1"
printf '%-44s %8.3f %10.3f\n' "first run, empty cache (writes it)" "$T_COLD" "$(echo "$T_COLD / $T_NONE" | bc -l)"
printf '%-44s %8.3f %10.3f   (goal: 0.1 or less)\n' "second run, nothing changed" "$T_WARM" "$(echo "$T_WARM / $T_NONE" | bc -l)"
printf '%-44s %8.3f %10.3f\n' "one file changed ($CHANGED)" "$T_ONE" "$(echo "$T_ONE / $T_NONE" | bc -l)"
echo "cache size: $SIZE KiB for $FILES files"
if cmp -s "$WORK/report-none" "$WORK/report-warm" && cmp -s "$WORK/report-none" "$WORK/report-cold"; then
    echo "reports: the cached runs' reports are the uncached run's, byte for byte"
else
    echo "reports: DIFFER between the cached and uncached runs"
    exit 1
fi
