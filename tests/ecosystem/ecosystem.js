// The ecosystem check: oomlint on pinned public training code, every finding
// held against a reviewed verdict, the bug cases (files just before a public
// fix of an out-of-memory report) against the lines the fix changed, and the
// first run of every batch of new code (first contact). A benchmark that
// prints tables, never a CI test: the corpus is not in the repository.
//
//   node tests/ecosystem/ecosystem.js gather DIR [--batch NAME]
//                                  build DIR from git sources (parallel, resumable)
//   node tests/ecosystem/ecosystem.js check DIR [--batch NAME]
//                                  lint DIR, print the tables
//   node tests/ecosystem/ecosystem.js list DIR     every finding with its verdict
//   node tests/ecosystem/ecosystem.js pending DIR [--batch NAME]
//                                  findings without a verdict, as verdict stubs
//                                  with the code around the line (JSON)
//   node tests/ecosystem/ecosystem.js record FILE  add judged stubs to verdicts.json
//   node tests/ecosystem/ecosystem.js first-run DIR NAME
//                                  record batch NAME's first run (once)
//   node tests/ecosystem/ecosystem.js first-runs [--markdown]
//   node tests/ecosystem/ecosystem.js rules   (first contact per rule, against the default-set bar)
//                                  every batch's first-run figures
//   node tests/ecosystem/ecosystem.js estimate DIR how many training scripts
//                                  `oomlint estimate` sizes without flags
//   node tests/ecosystem/ecosystem.js projects DIR
//                                  issue 27's held-out projects (projects.json):
//                                  each checked out whole, its documented command
//                                  through `oomlint estimate -- COMMAND`
//   node tests/ecosystem/ecosystem.js projects-first-run DIR
//                                  the same, recorded once in projects.first-run.json
//
// Layout of DIR: repos/<owner>+<name>/<path> (only the listed paths, at the
// pinned commit) and bugs/<id>/<path> (the file at the commit before the fix).
// ECOSYSTEM_JOBS sets how many oomlint or git processes run at once.
'use strict';
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');
const corpus = require('./lib/corpus');
const { gather, itemsFor } = require('./lib/gather');
const L = require('./lib/lint');
const firstRun = require('./lib/firstrun');
const projects = require('./lib/projects');

const { readJson, repoDirName, HERE } = corpus;
const OOMLINT = L.OOMLINT;
const ROOT = path.resolve(__dirname, '..', '..'); // the repository: fixture paths are relative to it

function pct(a, b) {
    return b ? `${(100 * a / b).toFixed(1)}%` : '-';
}

// What a command runs on: the corpus and the batches already run, or one batch
// (`gather` alone, withUnrun, also takes the batches that await their first run).
function selected(batch, withUnrun = false) {
    if (!batch) return { repos: corpus.allRepos(withUnrun), bugs: corpus.allBugs(withUnrun) };
    if (batch !== 'corpus' && !withUnrun && !fs.existsSync(corpus.firstRunFile(batch))) {
        throw new Error(`batch ${batch} has no first run yet: record it with first-run before anything else runs on it`);
    }
    const b = batch === 'corpus' ? { repos: readJson('repos.json'), bugs: readJson('bugs.json') } : corpus.readBatch(batch);
    return { repos: b.repos.map((r) => ({ batch, ...r })), bugs: b.bugs.map((x) => ({ batch, ...x })) };
}

async function lintCorpus(dir, batch) {
    const { repos, bugs } = selected(batch);
    const units = [...repos.map((r) => L.repoUnit(dir, r)), ...bugs.map((b) => L.bugUnit(dir, b))];
    const res = await L.lintUnits(units);
    const repoFindings = new Map([...res.findings].filter(([k]) => !k.startsWith('bug:')));
    return { repos, bugs, units, findings: repoFindings, all: res.findings, bugHits: res.bugHits, lines: res.lines };
}

function fmtRow(label, r, lines) {
    return `${label.padEnd(16)} ${String(r.findings).padStart(8)} ${String(r.tru).padStart(6)} ` +
        `${String(r.fals).padStart(6)} ${String(r.open).padStart(5)}   ${pct(r.tru, r.tru + r.fals).padStart(9)}` +
        `  ${(r.fals * 10000 / Math.max(1, lines)).toFixed(2).padStart(8)}`;
}

function perRuleTable(findings, verdicts, defaults, lines) {
    const perRule = new Map();
    const empty = () => ({ findings: 0, tru: 0, fals: 0, open: 0 });
    const count = (r, f) => {
        const v = verdicts[f.key];
        r.findings++;
        if (!v) r.open++;
        else if (v.verdict === true) r.tru++;
        else r.fals++;
    };
    const noGpu = empty();
    for (const f of findings.values()) {
        if (!perRule.has(f.code)) perRule.set(f.code, empty());
        count(perRule.get(f.code), f);
        if (defaults.has(f.code) && !f.key.includes('@')) count(noGpu, f);
    }
    const all = empty(), deflt = empty();
    console.log('rule             findings   true  false  open   precision  false/10k lines');
    for (const code of [...perRule.keys()].sort()) {
        const r = perRule.get(code);
        for (const k of Object.keys(all)) {
            all[k] += r[k];
            if (defaults.has(code)) deflt[k] += r[k];
        }
        console.log(fmtRow(defaults.has(code) ? code : `${code} (opt-in)`, r, lines));
    }
    console.log(fmtRow('default rules', deflt, lines));
    console.log(fmtRow('  without a GPU', noGpu, lines));
    console.log(fmtRow('all rules', all, lines));
    return deflt;
}

function bugTable(bugs, bugHits, defaults) {
    let cases = 0, found = 0, lines = 0, linesAll = 0, linesDefault = 0;
    const rows = [];
    for (const b of bugs) {
        cases++;
        const hits = bugHits.get(b.id);
        const r = L.bugLines(b, hits, defaults);
        lines += r.lines;
        linesAll += r.found_all.length;
        linesDefault += r.found_default.length;
        if (r.found_all.length) found++;
        rows.push({ b, r });
    }
    console.log(`\nbug cases: ${found} of ${cases} found (${pct(found, cases)}); bug lines found: ` +
                `${linesAll} of ${lines} with every rule (${pct(linesAll, lines)}), ${linesDefault} with the default rules ` +
                `(${pct(linesDefault, lines)})`);
    for (const { b, r } of rows) {
        const status = r.found_all.length ? `found ${r.codes.join(',')} (${r.found_all.length}/${r.lines} lines)` : 'MISSED';
        console.log(`  ${b.id.padEnd(58)} ${(b.expect || []).join(',').padEnd(14)} ${status}`);
    }
    return { cases, found, lines, linesAll };
}

async function check(dir, batch) {
    const verdicts = corpus.allVerdicts();
    const defaults = L.defaultRules();
    const t0 = Date.now();
    const res = await lintCorpus(dir, batch);
    const lines = res.lines.repos;
    const absent = res.units.filter((u) => u.missing && !u.bug).map((u) => u.prefix);
    if (absent.length) {
        console.log(`${absent.length} repositories not gathered, left out of every figure below ` +
                    `(their recorded verdicts are not counted as vanished): ${absent.join(', ')}\n`);
    }
    console.log(`oomlint ecosystem check: ${res.repos.length} repositories and ${res.bugs.length} bug cases, ` +
                `${lines} lines${batch ? ` (batch ${batch})` : ''}; no GPU, --gpu v100, --gpu t4; every rule selected; ` +
                `${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
    const deflt = perRuleTable(res.findings, verdicts, defaults, lines);
    const bugs = bugTable(res.bugs, res.bugHits, defaults);

    const gathered = (k) => !absent.some((p) => k.startsWith(`${p}/`));
    const inScope = (k) => gathered(k) &&
        (!batch || res.findings.has(k) || res.repos.some((r) => k.startsWith(`${repoDirName(r.repo)}/`)));
    const vanished = Object.keys(verdicts).filter((k) => !k.startsWith('bug:') && inScope(k) && !res.findings.has(k));
    const fresh = [...res.findings.keys()].filter((k) => !verdicts[k]);
    console.log(`\nagainst the recorded verdicts: ${fresh.length} new finding(s), ${vanished.length} vanished ` +
                `(${vanished.filter((k) => verdicts[k].verdict).length} of them true)`);
    for (const k of fresh) console.log(`  new       ${k}  ${res.findings.get(k).message}`);
    for (const k of vanished) {
        console.log(`  vanished  ${k}  (was ${verdicts[k].verdict ? 'true' : 'false'}: ${verdicts[k].reason})`);
    }
    console.log(`\ndefault rules on the corpus: precision ${pct(deflt.tru, deflt.tru + deflt.fals)}, ` +
                `${(deflt.fals * 25000 / Math.max(1, lines)).toFixed(2)} false per 25,000 lines; ` +
                `bug lines found ${pct(bugs.linesAll, bugs.lines)}\n`);
    firstRun.table(false);
}

async function current(dir) {
    const verdicts = corpus.allVerdicts();
    const { findings } = await lintCorpus(dir);
    for (const [k, f] of findings) {
        const v = verdicts[k];
        console.log(`${v ? (v.verdict ? 'TRUE ' : 'FALSE') : 'OPEN '} ${k}  ${v ? v.reason : f.message}`);
    }
}

async function pending(dir, batch) {
    const verdicts = corpus.allVerdicts();
    const { findings } = await lintCorpus(dir, batch);
    const out = {};
    for (const [k, f] of findings) {
        if (!verdicts[k]) out[k] = { verdict: null, reason: '', message: f.message, context: L.contextLines(f.file, f.row) };
    }
    console.log(JSON.stringify(out, null, 2));
}

// Judged stubs (pending's output with verdict and reason filled in) into
// verdicts.json; a stub still unjudged is refused, so none is recorded blind.
function recordVerdicts(file) {
    const stubs = JSON.parse(fs.readFileSync(file, 'utf8'));
    const verdicts = readJson('verdicts.json');
    const unjudged = Object.keys(stubs).filter((k) => typeof stubs[k].verdict !== 'boolean' || !stubs[k].reason);
    if (unjudged.length) throw new Error(`${unjudged.length} stub(s) without a verdict and a reason: ${unjudged.slice(0, 5).join(', ')}`);
    let added = 0;
    for (const [k, s] of Object.entries(stubs)) {
        if (!(k in verdicts)) added++;
        verdicts[k] = { verdict: s.verdict, reason: s.reason, message: s.message };
    }
    const target = path.join(HERE, 'verdicts.json');
    fs.writeFileSync(`${target}.tmp`, JSON.stringify(verdicts, null, 2) + '\n');
    fs.renameSync(`${target}.tmp`, target);
    console.log(`recorded ${Object.keys(stubs).length} verdict(s), ${added} new`);
}

// -------------------------------------------------------------- estimate --

// `oomlint estimate SCRIPT --format json`, no flags, run where the script
// lives: the model it sized, or null when it sized none.
function estimateModel(cwd, script) {
    const r = spawnSync(OOMLINT, ['estimate', '--isolated', '--format', 'json', script],
                        { cwd, encoding: 'utf8', maxBuffer: 1 << 26 });
    if (r.status !== 0) return null;
    try {
        return JSON.parse(r.stdout).model || null;
    } catch (e) {
        return null;
    }
}

// Of the scripts that train and load a model the knowledge base knows (the
// list in estimate_scripts.json), how many `oomlint estimate` sizes with no
// flags, and with the model a run without flags loads. OOMLINT=<an older
// binary> measures the same for it.
function estimateCoverage(dir) {
    const list = readJson('estimate_scripts.json');
    const rows = [];
    for (const f of list.fixtures) rows.push({ group: 'fixtures/realistic', cwd: ROOT, path: f.path, model: f.model });
    for (const s of list.scripts) {
        if (!s.model) continue;
        rows.push({ group: 'ecosystem corpus', cwd: path.join(dir, 'repos', repoDirName(s.repo)), path: s.path,
                    model: s.model, label: `${repoDirName(s.repo)}/${s.path}` });
    }
    const groups = new Map();
    console.log(`oomlint estimate without flags (${OOMLINT})\n`);
    for (const r of rows) {
        const exists = fs.existsSync(path.join(r.cwd, r.path));
        const got = exists ? estimateModel(r.cwd, r.path) : null;
        const g = groups.get(r.group) || { scripts: 0, sized: 0, right: 0 };
        g.scripts++;
        if (got) g.sized++;
        if (got === r.model) g.right++;
        groups.set(r.group, g);
        const mark = !exists ? 'MISSING' : got === r.model ? 'sized  ' : got ? 'WRONG  ' : 'not    ';
        console.log(`  ${mark} ${(r.label || r.path).padEnd(92)} ${got || '-'}${got && got !== r.model ? ` (want ${r.model})` : ''}`);
    }
    console.log(`\n${'scripts that load a known model'.padEnd(34)} ${'scripts'.padStart(8)} ${'sized'.padStart(6)} ${'right model'.padStart(12)}`);
    let all = { scripts: 0, sized: 0, right: 0 };
    for (const [name, g] of groups) {
        console.log(`${name.padEnd(34)} ${String(g.scripts).padStart(8)} ${String(g.sized).padStart(6)} ${String(g.right).padStart(12)}`);
        all = { scripts: all.scripts + g.scripts, sized: all.sized + g.sized, right: all.right + g.right };
    }
    console.log(`${'all'.padEnd(34)} ${String(all.scripts).padStart(8)} ${String(all.sized).padStart(6)} ${String(all.right).padStart(12)}`);
    const wrong = list.scripts.filter((s) => !s.model)
        .map((s) => ({ s, got: estimateModel(path.join(dir, 'repos', repoDirName(s.repo)), s.path) }))
        .filter((x) => x.got);
    for (const { s, got } of wrong) console.log(`  sized ${got} where a run without flags loads none: ${repoDirName(s.repo)}/${s.path}`);
}

function option(args, name) {
    const i = args.indexOf(name);
    if (i < 0) return null;
    if (i + 1 >= args.length) throw new Error(`${name} needs a value`);
    const v = args[i + 1];
    args.splice(i, 2);
    return v;
}

const USAGE = 'usage: ecosystem.js gather|check|list|pending DIR [--batch NAME] | record FILE | ' +
    'first-run DIR NAME | first-runs [--markdown] | rules | estimate DIR | projects DIR | projects-first-run DIR';

async function main() {
    const args = process.argv.slice(2);
    const batch = option(args, '--batch');
    const markdown = args.includes('--markdown');
    const [cmd, arg, arg2] = args.filter((a) => a !== '--markdown');
    if (cmd === 'first-runs') return firstRun.table(markdown);
    if (cmd === 'rules') { firstRun.rulesTable(); return; }
    if (!cmd || !arg) throw new Error(USAGE);
    if (cmd === 'record') return recordVerdicts(arg);
    const dir = path.resolve(arg);
    if (cmd === 'gather') {
        const { repos, bugs } = selected(batch, true);
        if (await gather(dir, itemsFor(dir, repos, bugs))) process.exitCode = 1;
    } else if (cmd === 'check') await check(dir, batch);
    else if (cmd === 'pending') await pending(dir, batch);
    else if (cmd === 'list') await current(dir);
    else if (cmd === 'first-run') {
        if (!arg2) throw new Error('usage: ecosystem.js first-run DIR NAME');
        await firstRun.record(dir, arg2);
    } else if (cmd === 'estimate') estimateCoverage(dir);
    else if (cmd === 'projects') await projects.projects(dir);
    else if (cmd === 'projects-first-run') await projects.firstRun(dir);
    else throw new Error(`unknown command ${cmd}\n${USAGE}`);
}

main().catch((e) => {
    console.error(`ecosystem: ${e.message}`);
    process.exit(2);
});
