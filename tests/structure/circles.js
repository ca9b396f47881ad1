#!/usr/bin/env node
// The C standard of this project: no files calling each other in a circle.
// Reads every src/*/*.c (src/deps/ wraps third-party code and is left out),
// finds the functions each file defines for others (not `static`), and which
// files call them (comments and strings stripped first), then reports every
// group of files that call each other round (Tarjan's strongly connected
// components), with the calls that close it. Prints `PASS` or the circles
// and exits 1 when there is one.
'use strict';
const fs = require('fs');
const path = require('path');

const root = process.argv[2] || '.';
const files = [];
for (const dir of fs.readdirSync(path.join(root, 'src')).sort()) {
    if (dir === 'deps') continue;
    const d = path.join(root, 'src', dir);
    if (!fs.statSync(d).isDirectory()) continue;
    for (const f of fs.readdirSync(d).sort()) if (f.endsWith('.c')) files.push(path.join('src', dir, f));
}

function strip(text) {
    return text.replace(/\/\*[\s\S]*?\*\//g, ' ')
        .replace(/\/\/[^\n]*/g, ' ')
        .replace(/"(\\.|[^"\\\n])*"/g, '""')
        .replace(/'(\\.|[^'\\\n])'/g, "''");
}

const source = new Map();
const definedIn = new Map(); // function -> file
const defRe = /^(?!static\b)[A-Za-z_][\w \t*]*?\b([A-Za-z_]\w*)\s*\(([^;{}]*)\)\s*\{/gm;
for (const f of files) {
    const text = strip(fs.readFileSync(path.join(root, f), 'utf8'));
    source.set(f, text);
    for (const m of text.matchAll(defRe)) if (!['if', 'for', 'while', 'switch', 'return'].includes(m[1])) definedIn.set(m[1], f);
}

// calls: a defined name followed by `(`, or taken as a value (a function pointer)
const edges = new Map(files.map((f) => [f, new Map()]));
const names = [...definedIn.keys()];
const nameRe = /\b([A-Za-z_]\w*)\b/g;
for (const f of files) {
    const text = source.get(f);
    const seen = new Set();
    for (const m of text.matchAll(nameRe)) {
        const name = m[1];
        if (seen.has(name)) continue;
        const owner = definedIn.get(name);
        if (!owner || owner === f) continue;
        seen.add(name);
        if (!edges.get(f).has(owner)) edges.get(f).set(owner, []);
        edges.get(f).get(owner).push(name);
    }
}
void names;

let index = 0;
const idx = new Map(), low = new Map(), stack = [], on = new Set(), circles = [];
function visit(v) {
    idx.set(v, index); low.set(v, index); index++;
    stack.push(v); on.add(v);
    for (const w of edges.get(v).keys()) {
        if (!idx.has(w)) { visit(w); low.set(v, Math.min(low.get(v), low.get(w))); }
        else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
        const group = [];
        let w;
        do { w = stack.pop(); on.delete(w); group.push(w); } while (w !== v);
        if (group.length > 1) circles.push(group.sort());
    }
}
for (const f of files) if (!idx.has(f)) visit(f);

if (circles.length === 0) {
    console.log(`PASS no circle among the ${files.length} files of src/ (${definedIn.size} functions shared between files)`);
    process.exit(0);
}
for (const group of circles) {
    console.log(`FAIL these files call each other round: ${group.join(', ')}`);
    const inGroup = new Set(group);
    for (const a of group)
        for (const [b, fns] of edges.get(a)) if (inGroup.has(b)) console.log(`  ${a} -> ${b}: ${fns.slice(0, 4).join(', ')}`);
}
process.exit(1);
