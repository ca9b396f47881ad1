// Lints the files listed on stdin with Ruff's WebAssembly build (rules
// E4, E7, E9, F: Ruff's defaults), in one Node.js process, for tests/bench.sh.
const path = require('path');
const fs = require('fs');
const { Workspace, PositionEncoding } = require(path.resolve(process.argv[2], 'ruff_wasm.js'));
const files = fs.readFileSync(0, 'utf8').split('\n').filter(Boolean);
const ws = new Workspace({ lint: { select: ['E4', 'E7', 'E9', 'F'] } }, PositionEncoding.Utf16);
let diagnostics = 0;
for (const f of files) {
    try {
        diagnostics += ws.check(fs.readFileSync(f, 'utf8')).length;
    } catch (e) {
        // a file Ruff cannot read as UTF-8 is skipped, as oomlint reports it
    }
}
console.log(`${files.length} files, ${diagnostics} diagnostics`);
