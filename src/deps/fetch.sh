#!/bin/sh
# Fetch the pinned packages listed in a lock file (default: deps.lock, the
# tree-sitter sources) into $1 (build/deps). Usage: fetch.sh DEST [LOCKFILE]
# Each tarball is verified against its sha512 before it is unpacked; a mismatch
# stops the build. A package already unpacked with the same hash is skipped, so
# a rebuild needs no network.
set -eu
lock="${2:-$(dirname "$0")/deps.lock}"
dest="$1"
mkdir -p "$dest"

if ! command -v npm >/dev/null 2>&1; then
    echo "error: npm is needed to fetch the tree-sitter sources; install it with: apt-get install npm" >&2
    exit 1
fi

grep -v '^#' "$lock" | while read -r name version sha; do
    [ -n "$name" ] || continue
    dir="$dest/$(echo "$name" | tr '@/' '_-')"
    if [ -f "$dir/.sha512" ] && [ "$(cat "$dir/.sha512")" = "$sha" ]; then
        continue
    fi
    tmp="$dest/.download"
    rm -rf "$tmp" "$dir"
    mkdir -p "$tmp"
    echo "fetching $name@$version from the npm registry" >&2
    (cd "$tmp" && npm pack --silent --ignore-scripts "$name@$version" >/dev/null)
    tarball="$(ls "$tmp"/*.tgz)"
    got="$(sha512sum "$tarball" | cut -d' ' -f1)"
    if [ "$got" != "$sha" ]; then
        echo "error: $name@$version: sha512 mismatch (expected $sha, got $got)" >&2
        rm -rf "$tmp"
        exit 1
    fi
    mkdir -p "$dir"
    tar -xzf "$tarball" -C "$dir" --strip-components=1
    echo "$sha" > "$dir/.sha512"
    rm -rf "$tmp"
done
