#!/bin/sh
# Installs what building and testing oomlint needs on Debian or Ubuntu:
# a C compiler, make, pkg-config, cJSON and PCRE2 headers, npm (to fetch the
# pinned tree-sitter sources), jq (the tests check JSON output with it) and
# valgrind; for the integration tests: git, patch, xmllint (libxml2-utils), the
# pre-commit client, ICU for the .NET SARIF validator, and Neovim (its built-in
# LSP client drives `oomlint server` in tests/e2e_server.sh). Only packages that
# are missing are installed.
set -eu
need=""
have_cmd() { command -v "$1" >/dev/null 2>&1; }
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

have_cmd cc || need="$need gcc"
have_cmd make || need="$need make"
have_cmd pkg-config || need="$need pkg-config"
have_cmd npm || need="$need npm"
have_cmd jq || need="$need jq"
have_cmd valgrind || need="$need valgrind"
have_cmd clang || need="$need clang"
have_cmd git || need="$need git"
have_cmd xmllint || need="$need libxml2-utils"
have_cmd pre-commit || need="$need pre-commit"
have_cmd bc || need="$need bc"
have_cmd patch || need="$need patch" # the --diff output is checked by applying it
have_cmd nvim || need="$need neovim" # the language server's test with a real client (tests/e2e_server.sh)
for p in libcjson-dev libpcre2-dev libicu72; do have_pkg "$p" || need="$need $p"; done

if [ -z "$need" ]; then
    echo "setup: everything needed is installed"
    exit 0
fi
if ! have_cmd apt-get; then
    echo "setup: please install:$need" >&2
    exit 1
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "setup: installing$need"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $need
