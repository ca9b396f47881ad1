#!/bin/sh
# The whole test suite: builds oomlint (plain and with ASan+UBSan), checks
# that our sources compile warning-free with gcc and clang, runs the unit
# tests, the fixture runner and the end-to-end CLI tests against both builds,
# and ends with "N passed, N failed". Exits non-zero on any failure.
set -u
cd "$(dirname "$0")/.."
LOG="$(mktemp -d "${TMPDIR:-/tmp}/oomlint-run.XXXXXX")"
trap 'rm -rf "$LOG"' EXIT
# The runs here (valgrind, match-diff's oomlint) keep their cache in $LOG,
# never in the repository; the suites each set their own (tests/lib.sh).
OOMLINT_CACHE_DIR="$LOG/cache"
export OOMLINT_CACHE_DIR
JOBS="$(nproc 2>/dev/null || echo 2)"
# QUICK=1 (make quick): the plain build's unit tests, fixtures and CLI suites
# only, no warning builds, valgrind or sanitizers; FIXTURES=DIR narrows the
# fixture runner to one folder (fixtures/rules/OOM201).
QUICK="${QUICK:-0}"
FIXTURES="${FIXTURES:-fixtures}"

results="$LOG/results"
: > "$results"

record() { # record NAME STATUS(0 ok) [LOGFILE]
    if [ "$2" -eq 0 ]; then
        echo "PASS $1" | tee -a "$results"
    else
        echo "FAIL $1" | tee -a "$results"
        [ -n "${3:-}" ] && tail -n 30 "$3"
    fi
}

section() { echo; echo "== $1"; }

# Keeps the PASS/FAIL lines of a test program's output (failures shown in full).
keep_results() { # keep_results LABEL OUTPUT-FILE EXIT-STATUS
    label="$1" out="$2" rc="$3"
    sed -n "s/^PASS /PASS $label: /p; s/^FAIL /FAIL $label: /p; s/^SKIP /SKIP $label: /p" "$out" >> "$results"
    grep -v '^PASS ' "$out" || true
    n_pass=$(grep -c '^PASS ' "$out")
    echo "$label: $n_pass passed, $(grep -c '^FAIL ' "$out") failed, $(grep -c '^SKIP ' "$out") skipped"
    # the programs and scripts exit 0 after reporting their checks: anything
    # else is a crash or a sanitizer report (UBSan exits 1)
    if [ "$rc" -ne 0 ]; then
        echo "FAIL $label: the test program itself exited with status $rc" >> "$results"
    fi
}

# Runs a test program and keeps its results.
collect() { # collect LABEL COMMAND...
    label="$1"; shift
    "$@" > "$LOG/out" 2>&1
    keep_results "$label" "$LOG/out" $?
}

# The end-to-end suites are independent (each its own temporary folder):
# they run $JOBS at a time, and their results are kept in the order named.
collect_suites() { # collect_suites OOMLINT SUITE...
    bin="$1"; shift
    running=0
    for suite in "$@"; do
        [ -f "tests/e2e_$suite.sh" ] || continue
        (env OOMLINT="$bin" sh "tests/e2e_$suite.sh" > "$LOG/suite-$suite" 2>&1; echo $? > "$LOG/suite-$suite.rc") &
        running=$((running + 1))
        if [ "$running" -ge "$JOBS" ]; then
            wait
            running=0
        fi
    done
    wait
    for suite in "$@"; do
        [ -f "$LOG/suite-$suite.rc" ] && keep_results "e2e $suite" "$LOG/suite-$suite" "$(cat "$LOG/suite-$suite.rc")"
        rm -f "$LOG/suite-$suite.rc"
    done
}

section "build"
make -j"$JOBS" unit > "$LOG/build" 2>&1
record "build (make unit)" $? "$LOG/build"

[ "$QUICK" = 1 ] || section "warnings: -Wall -Wextra -Werror with gcc and clang"
[ "$QUICK" = 1 ] || for cc in gcc clang; do
    if command -v "$cc" >/dev/null 2>&1; then
        ok=0
        # src/deps/ only wraps third-party sources (compiled without our warnings)
        for f in $(ls src/*/*.c tests/unit/*.c tests/fuzz/*.c | grep -v '^src/deps/'); do
            private="" # the one file that reads tree-sitter's private headers (Makefile)
            [ "$f" = src/lang/layout.c ] && private="-isystem build/deps/tree-sitter/vendor/tree-sitter/lib/src"
            "$cc" -std=c11 -D_GNU_SOURCE -fsyntax-only -Wall -Wextra -Wshadow -Wstrict-prototypes \
                -Werror -Iinclude -Isrc -Ibuild/deps/tree-sitter/vendor/tree-sitter/lib/include $private \
                $(pkg-config --cflags libcjson libpcre2-8) "$f" >> "$LOG/warn-$cc" 2>&1 || ok=1
        done
        record "no warnings with $cc" $ok "$LOG/warn-$cc"
    fi
done

section "structure: no files calling each other in a circle (tests/structure/circles.js)"
node tests/structure/circles.js . > "$LOG/circles" 2>&1
rc=$?
cat "$LOG/circles"
record "structure: the files of src/ call each other in no circle" $rc "$LOG/circles"
node tests/structure/circles.js tests/structure/circle > "$LOG/circles-fixture" 2>&1
[ $? -eq 1 ] && grep -q "call each other round: src/parts/one.c, src/parts/two.c$" "$LOG/circles-fixture"
record "structure: a circle of two files is reported, the file calling into it is not in it" $? "$LOG/circles-fixture"

if [ -x build/oomlint-tests ]; then
    section "unit tests and fixtures"
    collect "unit" build/oomlint-tests "$FIXTURES"
    section "query matcher against tree-sitter's cursor (every built-in pattern, every fixture)"
    find fixtures -name '*.py' -o -name '*.json' -o -name '*.yaml' -o -name '*.yml' | sort | build/tools/match-diff > "$LOG/match-diff" 2>&1
    rc=$?
    tail -n 1 "$LOG/match-diff"
    record "match-diff: oomlint's matcher and layout agree with tree-sitter's cursor" $rc "$LOG/match-diff"
    section "fuzz regression inputs, replayed (fixtures/fuzz/<target>/)"
    for t in python json toml yaml suppress rule match notebook fix launch rpc; do
        [ -d "fixtures/fuzz/$t" ] && collect "replay $t" build/tools/replay-$t "$t" fixtures/fuzz/$t/*
    done
    section "end-to-end"
    collect "e2e" env OOMLINT=build/oomlint sh tests/e2e.sh
    collect "e2e cache" env OOMLINT=build/oomlint sh tests/e2e_cache.sh
    collect "readme usage" sh tests/readme_usage.sh check build/oomlint
    make test-tools > "$LOG/tools" 2>&1 || echo "SKIP tools: the SARIF validator could not be fetched" >> "$results"
    collect_suites build/oomlint fix hostile formats precommit notebook estimate config project server
fi

if [ "$QUICK" != 1 ] && command -v valgrind >/dev/null 2>&1 && [ -x build/oomlint ]; then
    section "valgrind memcheck (no errors, no leaks) on the fixtures"
    valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=all \
        --show-leak-kinds=all build/oomlint --format json fixtures > /dev/null 2> "$LOG/valgrind"
    rc=$?
    [ "$rc" -eq 0 ] || [ "$rc" -eq 1 ]
    record "valgrind: lint every fixture" $? "$LOG/valgrind"
    printf 'import torch\nwith torch.no_grad(:\n    x = model(\n' > "$LOG/broken.py"
    valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=all \
        build/oomlint --format full "$LOG/broken.py" "$LOG/missing.py" > /dev/null 2> "$LOG/valgrind2"
    [ $? -eq 2 ]
    record "valgrind: syntax error and missing path" $? "$LOG/valgrind2"
    # the whole CLI suite again, each run under memcheck (exit 99 on any error or leak)
    collect "valgrind e2e cache" env OOMLINT=tests/valgrind-oomlint.sh sh tests/e2e_cache.sh
    collect "valgrind e2e" env OOMLINT=tests/valgrind-oomlint.sh sh tests/e2e.sh
    # the language server's sessions, each server under memcheck
    collect "valgrind e2e server" env OOMLINT=tests/valgrind-oomlint.sh LSP_TIMEOUT_FACTOR=15 sh tests/e2e_server.sh
fi

if [ "$QUICK" != 1 ]; then
    section "sanitizers: ASan + UBSan build"
    make -j"$JOBS" asan > "$LOG/asan-build" 2>&1
    record "build with ASan+UBSan (make asan)" $? "$LOG/asan-build"
fi
if [ "$QUICK" != 1 ] && [ -x build/asan/oomlint-tests ]; then
    export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:exitcode=99"
    export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
    collect "asan unit" build/asan/oomlint-tests fixtures
    for t in python json toml yaml suppress rule match notebook fix launch rpc; do
        [ -d "fixtures/fuzz/$t" ] && collect "asan replay $t" \
            env LSAN_OPTIONS=suppressions=tests/fuzz/lsan.supp build/asan/tools/replay-$t "$t" fixtures/fuzz/$t/*
    done
    collect "asan e2e" env OOMLINT=build/asan/oomlint sh tests/e2e.sh
    collect "asan e2e notebook" env OOMLINT=build/asan/oomlint sh tests/e2e_notebook.sh
    collect "asan e2e hostile" env OOMLINT=build/asan/oomlint sh tests/e2e_hostile.sh
    collect "asan e2e cache" env OOMLINT=build/asan/oomlint sh tests/e2e_cache.sh
    collect "asan e2e fix" env OOMLINT=build/asan/oomlint sh tests/e2e_fix.sh
    collect "asan e2e server" env OOMLINT=build/asan/oomlint LSP_TIMEOUT_FACTOR=5 sh tests/e2e_server.sh
    if grep -q "ERROR: AddressSanitizer\|runtime error:\|LeakSanitizer" "$LOG/out" 2>/dev/null; then
        echo "FAIL asan: sanitizer reports in the e2e run" >> "$results"
    fi
fi

# Each test counted once: the unit tests, replays and CLI checks run again
# under the sanitizer build (and the CLI suite under valgrind); a test passes
# when it passes in every build it ran in, fails when it failed in any.
unique="$LOG/unique"
awk '{
    status = $1; test = substr($0, length($1) + 2)
    sub(/^(asan|valgrind) /, "", test)
    if (!(test in state)) { order[++n] = test; state[test] = status }
    else if (status == "FAIL" || (status == "PASS" && state[test] == "SKIP")) state[test] = status
} END { for (i = 1; i <= n; i++) print state[order[i]] " " order[i] }' "$results" > "$unique"
runs=$(grep -c '^\(PASS\|FAIL\) ' "$results")
passed=$(grep -c '^PASS ' "$unique")
failed=$(grep -c '^FAIL ' "$unique")
skipped=$(grep -c '^SKIP ' "$unique")
echo
echo "$runs checks run across the builds, $((passed + failed + skipped)) distinct tests"
if [ "$failed" -gt 0 ]; then
    echo
    echo "Failures:"
    grep '^FAIL ' "$results"
fi
if [ "$skipped" -gt 0 ]; then
    echo
    echo "Skipped:"
    grep '^SKIP ' "$results"
    echo
    echo "$passed passed, $failed failed, $skipped skipped"
else
    echo
    echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
