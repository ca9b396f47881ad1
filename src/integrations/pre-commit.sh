#!/bin/sh
# Entry point of the `oomlint` pre-commit hook (.pre-commit-hooks.yaml,
# language: script). pre-commit runs it from its clone of this repository with
# the staged file names as arguments (and the hook's `args:` before them).
# It runs, in this order of preference:
#   1. `oomlint` found on PATH (an installed binary: nothing to build),
#   2. build/oomlint in the repository this script belongs to,
#   3. that same binary, built there first with `make` (once; output shown
#      only when the build fails).
set -u

here="$(CDPATH='' cd -- "$(dirname -- "$0")" && pwd -P)" || exit 2
root="$(CDPATH='' cd -- "$here/../.." && pwd -P)" || exit 2

if command -v oomlint >/dev/null 2>&1; then
    exec oomlint "$@"
fi

bin="$root/build/oomlint"
if [ ! -x "$bin" ]; then
    if ! command -v make >/dev/null 2>&1; then
        echo "oomlint: not on PATH and not built in $root, and make is missing; install oomlint or use the oomlint-system hook" >&2
        exit 2
    fi
    log="$(mktemp "${TMPDIR:-/tmp}/oomlint-build.XXXXXX")" || exit 2
    echo "oomlint: building it in $root (once) ..." >&2
    jobs="$(nproc 2>/dev/null || echo 2)"
    if ! make -C "$root" -s -j"$jobs" >"$log" 2>&1 || [ ! -x "$bin" ]; then
        echo "oomlint: the build failed (make -C $root):" >&2
        tail -n 40 "$log" >&2
        rm -f "$log"
        exit 2
    fi
    rm -f "$log"
fi
exec "$bin" "$@"
