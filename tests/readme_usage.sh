#!/bin/sh
# The README's usage block is `oomlint --help`'s options, as the option table
# in src/cli/options.c prints them: `readme_usage.sh check` says whether the
# two agree, `readme_usage.sh update` rewrites the block (make readme-usage).
# The block is the first ``` fence after the "## Usage" heading.
set -eu
mode=$1
oomlint=${2:-build/oomlint}
readme=${3:-README.md}
want=$(mktemp)
trap 'rm -f "$want" "$want.new"' EXIT
# from "Usage:" up to the blank line that ends the estimate options
"$oomlint" --help | awk '/^Usage:/ {on = 1} on && /^Estimate options/ {est = 1}
    on && est && /^$/ {exit} on {print}' > "$want"
awk -v want="$want" '
    /^## Usage/ {usage = 1}
    usage && !done && /^```/ {
        if (!inside) { print; while ((getline line < want) > 0) print line; inside = 1; next }
        inside = 0; done = 1
    }
    !inside {print}
' "$readme" > "$want.new"
if [ "$mode" = update ]; then
    cat "$want.new" > "$readme"
    exit 0
fi
if cmp -s "$want.new" "$readme"; then
    echo "PASS readme-usage: the README's usage block is oomlint --help's options"
else
    echo "FAIL readme-usage: the README's usage block differs from oomlint --help (run make readme-usage):"
    diff "$readme" "$want.new" | head -20 | sed 's/^/  /'
fi
