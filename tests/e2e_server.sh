#!/bin/sh
# End-to-end tests of `oomlint server`, the language server: the protocol
# test client (tests/lsp/protocol_test.js: lifecycle, diagnostics,
# incremental edits, code actions, hover, notebooks, pull diagnostics,
# watched files, settings, and every kind of bad input) and Neovim's
# built-in client, headless (tests/lsp/nvim_test.lua). OOMLINT may be a
# wrapper (tests/valgrind-oomlint.sh) or the sanitizer build.
# Same PASS/FAIL protocol as tests/e2e.sh (see tests/lib.sh).

. tests/lib.sh

if ! command -v node >/dev/null 2>&1; then
    skip "server: protocol tests" "node is not installed (make setup)"
else
    # each run of the server that ends with a sanitizer or valgrind report
    # fails: its stderr is kept and searched below
    node tests/lsp/protocol_test.js "$OOMLINT" "$TEST_TMP/protocol" 2>"$TEST_TMP/protocol.err"
    if grep -q "ERROR: AddressSanitizer\|runtime error:\|LeakSanitizer\|definitely lost\|Invalid read\|Invalid write" \
        "$TEST_TMP/protocol.err"; then
        fail "server: no sanitizer or valgrind report" "$(head -c 600 "$TEST_TMP/protocol.err")"
    else
        pass "server: no sanitizer or valgrind report"
    fi
fi

if ! command -v nvim >/dev/null 2>&1; then
    skip "nvim: Neovim's LSP client" "nvim is not installed (make setup installs Debian's neovim)"
else
    mkdir -p "$TEST_TMP/nvim"
    OUT_FILE="$TEST_TMP/nvim.out" WORK="$TEST_TMP/nvim" OOMLINT="$OOMLINT" HOME="$TEST_TMP" \
        timeout $((180 * ${LSP_TIMEOUT_FACTOR:-1})) nvim --headless -u NONE -i NONE -n -c 'luafile tests/lsp/nvim_test.lua' \
        >"$TEST_TMP/nvim.log" 2>&1 </dev/null
    rc=$?
    if [ -s "$TEST_TMP/nvim.out" ]; then cat "$TEST_TMP/nvim.out"; fi
    if [ "$rc" -eq 0 ] && grep -q '^PASS nvim: shutdown' "$TEST_TMP/nvim.out" 2>/dev/null; then
        pass "nvim: the headless session ends"
    else
        fail "nvim: the headless session ends" "exit $rc; $(tail -c 400 "$TEST_TMP/nvim.log")"
    fi
fi
