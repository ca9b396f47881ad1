# Shared helpers for the shell test suites. Each check prints one line,
# "PASS name" or "FAIL name: why"; tests/run.sh counts them.
# Source this file; set OOMLINT to the binary under test first.

: "${OOMLINT:=build/oomlint}"
TEST_TMP="$(mktemp -d "${TMPDIR:-/tmp}/oomlint-test.XXXXXX")"
trap 'chmod -R u+rwx "$TEST_TMP" 2>/dev/null; rm -rf "$TEST_TMP"' EXIT
# Every run of a suite keeps its cache in the suite's own folder: nothing is
# written into the repository or the fixtures, and no run of the suite sees
# what an earlier one (or another build) cached. Runs after the first of the
# same file and settings are answered from it, as a user's would be.
OOMLINT_CACHE_DIR="$TEST_TMP/cache"
export OOMLINT_CACHE_DIR

# The repository root, and OOMLINT as an absolute path, so that a test may
# change directory (a temporary git repository, a project folder).
ROOT="$(pwd -P)"
case "$OOMLINT" in
    /*) ;;
    */*) OOMLINT="$ROOT/$OOMLINT" ;;
    *) OOMLINT="$(command -v "$OOMLINT" || echo "$OOMLINT")" ;;
esac

pass() { echo "PASS $1"; }
# Every FAIL stays on one line (the runner counts lines that start with
# PASS/FAIL/SKIP): newlines and control bytes in captured output are flattened.
fail() {
    printf 'FAIL %s: %s\n' "$1" "$(printf '%s' "$2" | tr '\n\r\t' '   ' | tr -d '\000-\010\013-\037\177' | head -c 600)"
}
skip() { printf 'SKIP %s: %s\n' "$1" "$2"; }

# run_oomlint ARGS... : runs the binary, capturing stdout, stderr and status
# into $OUT, $ERR and $RC (files $TEST_TMP/out, $TEST_TMP/err).
run_oomlint() {
    "$OOMLINT" "$@" >"$TEST_TMP/out" 2>"$TEST_TMP/err" </dev/null
    RC=$?
    OUT="$(cat "$TEST_TMP/out")"
    ERR="$(cat "$TEST_TMP/err")"
}

# expect_rc NAME WANT : checks $RC.
expect_rc() {
    if [ "$RC" -eq "$2" ]; then pass "$1"; else fail "$1" "exit $RC, want $2; stderr: $(head -c 300 "$TEST_TMP/err")"; fi
}

# expect_contains NAME HAYSTACK NEEDLE
expect_contains() {
    case "$2" in
        *"$3"*) pass "$1" ;;
        *) fail "$1" "output lacks '$3'; got: $(printf '%s' "$2" | head -c 400)" ;;
    esac
}

# expect_not_contains NAME HAYSTACK NEEDLE
expect_not_contains() {
    case "$2" in
        *"$3"*) fail "$1" "output has '$3'; got: $(printf '%s' "$2" | head -c 400)" ;;
        *) pass "$1" ;;
    esac
}

# The sources most checks lint, written into DIR: cuda.py (OOM101 at 2:1),
# loop.py (OOM201 on line 6, the append) and clean.py (nothing).
SAMPLE_CUDA='os.environ["CUDA_VISIBLE_DEVICES"] = "0"'
SAMPLE_LOOP='def train(model, loader, criterion):
    losses = []
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        losses.append(loss)'
write_samples() {
    printf 'import os\n%s\n' "$SAMPLE_CUDA" >"$1/cuda.py"
    printf '%s\n' "$SAMPLE_LOOP" >"$1/loop.py"
    printf 'x = 1\nprint(x)\n' >"$1/clean.py"
}
