// The corpus as lists: the original corpus (repos.json, bugs.json) and the
// batches added since (batches/<NAME>.json), each batch a self-contained file
// committed before oomlint first ran on it, with its first run recorded beside
// it (batches/<NAME>.first-run.json). Verdicts are looked up in verdicts.json
// first (the corpus's living record), then in the first-run records.
'use strict';
const fs = require('fs');
const path = require('path');

const HERE = path.resolve(__dirname, '..');
const BATCHES = path.join(HERE, 'batches');

function readJson(file) {
    return JSON.parse(fs.readFileSync(path.isAbsolute(file) ? file : path.join(HERE, file), 'utf8'));
}

function repoDirName(repo) {
    return repo.replace('/', '+');
}

// Every batch file, in name order (F1 < F2 < ... < F10 by number where names
// share a prefix), without the first-run records.
function batchNames() {
    if (!fs.existsSync(BATCHES)) return [];
    const names = fs.readdirSync(BATCHES).filter((f) => /^[A-Za-z0-9_-]+\.json$/.test(f) && !f.includes('.first-run'))
        .map((f) => f.replace(/\.json$/, ''));
    return names.sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
}

function readBatch(name) {
    const file = path.join(BATCHES, `${name}.json`);
    if (!fs.existsSync(file)) throw new Error(`no batch ${name}: ${file} does not exist`);
    const b = readJson(file);
    if (b.batch !== name) throw new Error(`${file}: "batch" is ${JSON.stringify(b.batch)}, not ${name}`);
    for (const k of ['repos', 'bugs']) if (!Array.isArray(b[k])) throw new Error(`${file}: "${k}" must be a list`);
    b.repos.forEach((r) => { r.batch = name; });
    b.bugs.forEach((x) => { x.batch = name; });
    return b;
}

function firstRunFile(name) {
    return path.join(BATCHES, `${name}.first-run.json`);
}

function readFirstRun(name) {
    const f = firstRunFile(name);
    return fs.existsSync(f) ? readJson(f) : null;
}

// The batches whose first run is recorded. A batch without one is not run by
// anything but `first-run`: a look at its findings before the record would
// spoil the one figure it exists for. `gather` alone takes every batch.
function runBatchNames(withUnrun) {
    return batchNames().filter((n) => withUnrun || fs.existsSync(firstRunFile(n)));
}

// The whole corpus; a repository or bug id listed twice is an error, since
// each is extracted into one folder at one commit.
function allRepos(withUnrun = false) {
    const out = readJson('repos.json').map((r) => ({ ...r, batch: r.batch || 'corpus' }));
    for (const n of runBatchNames(withUnrun)) out.push(...readBatch(n).repos);
    const seen = new Map();
    for (const r of out) {
        if (seen.has(r.repo)) throw new Error(`${r.repo} is listed twice (${seen.get(r.repo)}, ${r.batch})`);
        seen.set(r.repo, r.batch);
    }
    return out;
}

function allBugs(withUnrun = false) {
    const out = readJson('bugs.json').map((b) => ({ ...b, batch: b.batch || 'corpus' }));
    for (const n of runBatchNames(withUnrun)) out.push(...readBatch(n).bugs);
    const seen = new Set();
    for (const b of out) {
        if (seen.has(b.id)) throw new Error(`bug case ${b.id} is listed twice`);
        seen.add(b.id);
    }
    return out;
}

// verdicts.json, then every first-run record's judged findings.
function allVerdicts() {
    const v = { ...readJson('verdicts.json') };
    for (const n of batchNames()) {
        const fr = readFirstRun(n);
        if (!fr) continue;
        for (const [k, f] of Object.entries(fr.findings || {})) {
            if (!(k in v) && typeof f.verdict === 'boolean') v[k] = { verdict: f.verdict, reason: f.reason, message: f.message };
        }
    }
    return v;
}

module.exports = {
    HERE, BATCHES, readJson, repoDirName, batchNames, runBatchNames, readBatch, firstRunFile, readFirstRun,
    allRepos, allBugs, allVerdicts,
};
