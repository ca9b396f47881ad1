// The ecosystem check: oomlint on pinned public training code, every finding
// held against a reviewed verdict (tests/ecosystem/verdicts.json), and the
// bug cases (files just before a public fix of an out-of-memory report)
// against the line that caused them. A benchmark that prints a table, never
// a CI test: the corpus is not in the repository.
//
//   node tests/ecosystem/ecosystem.js gather DIR    build DIR from git sources
//   node tests/ecosystem/ecosystem.js check DIR     lint DIR, print the table
//   node tests/ecosystem/ecosystem.js list DIR      every finding with its verdict
//   node tests/ecosystem/ecosystem.js pending DIR   findings without a verdict,
//                                                    as verdict stubs (JSON)
//   node tests/ecosystem/ecosystem.js estimate DIR  how many training scripts
//                                                    `oomlint estimate` sizes
//                                                    without flags (the list:
//                                                    estimate_scripts.json)
//
// Layout of DIR: repos/<owner>+<name>/<path> (only the listed paths, at the
// pinned commit) and bugs/<id>/<path> (the file at the commit before the fix).
'use strict';
const fs = require('fs');
const path = require('path');
const { execFileSync, spawnSync } = require('child_process');

const HERE = __dirname;
const ROOT = path.resolve(HERE, '..', '..');
const OOMLINT = process.env.OOMLINT || path.join(ROOT, 'build', 'oomlint');
// The hardware configurations linted: none (hardware rules stay silent),
// and two pre-Ampere GPUs on which the hardware rules have something to say.
const CONFIGS = [
    { name: 'none', args: [] },
    { name: 'v100', args: ['--gpu', 'v100'] },
    { name: 't4', args: ['--gpu', 't4'] },
];

function readJson(file) {
    return JSON.parse(fs.readFileSync(path.join(HERE, file), 'utf8'));
}

function repoDirName(repo) {
    return repo.replace('/', '+');
}

// ---------------------------------------------------------------- gather --

// A git directory holding `repo`: a mirror laid out as the search tool's
// fetch leaves it (ECOSYSTEM_MIRRORS/<owner>+<name>/repo), a bare clone
// (<owner>+<name>.git) there, or a clone made from ECOSYSTEM_GIT_BASE.
function gitDirFor(repo, dir) {
    const mirrors = process.env.ECOSYSTEM_MIRRORS || '/work/.mirror';
    for (const cand of [path.join(mirrors, repoDirName(repo), 'repo'),
                        path.join(mirrors, repoDirName(repo) + '.git')]) {
        if (fs.existsSync(cand)) return cand;
    }
    const base = process.env.ECOSYSTEM_GIT_BASE;
    if (!base) return null;
    const clone = path.join(dir, 'git', repoDirName(repo) + '.git');
    if (!fs.existsSync(clone)) {
        fs.mkdirSync(path.dirname(clone), { recursive: true });
        const r = spawnSync('git', ['clone', '--bare', '--filter=blob:none', `${base}/${repo}.git`, clone],
                            { stdio: 'inherit' });
        if (r.status !== 0) return null;
    }
    return clone;
}

// Writes the Python and JSON files of `paths` at `commit` under `dest` (only
// those: a folder's data files are not linted, and a mirror may lack its
// large ones), and the notebooks `paths` names one by one (a folder's are
// not taken: tutorials beside the code would swamp it); returns the number
// of files.
function extract(gitDir, commit, paths, dest) {
    fs.mkdirSync(dest, { recursive: true });
    const files = execFileSync('git', ['-C', gitDir, 'ls-tree', '-r', '--name-only', commit, '--', ...paths],
                               { encoding: 'utf8', maxBuffer: 1 << 28 })
        .split('\n').filter((f) => /\.(py|json)$/.test(f) || (f.endsWith('.ipynb') && paths.includes(f)));
    if (!files.length) return 0;
    const tar = execFileSync('git', ['-C', gitDir, 'archive', '--format=tar', commit, '--', ...files],
                             { maxBuffer: 1 << 30 });
    execFileSync('tar', ['-x', '-C', dest], { input: tar });
    return execFileSync('find', [dest, '-type', 'f'], { encoding: 'utf8' }).split('\n').filter(Boolean).length;
}

function gather(dir) {
    const missing = [];
    let files = 0;
    for (const r of readJson('repos.json')) {
        const git = gitDirFor(r.repo, dir);
        if (!git) { missing.push(r.repo); continue; }
        const dest = path.join(dir, 'repos', repoDirName(r.repo));
        fs.rmSync(dest, { recursive: true, force: true });
        try {
            files += extract(git, r.commit, r.paths, dest);
        } catch (e) {
            missing.push(`${r.repo} (${String(e.message).split('\n')[0]})`);
        }
    }
    for (const b of readJson('bugs.json')) {
        const git = gitDirFor(b.repo, dir);
        if (!git) { missing.push(`${b.repo} (bug ${b.id})`); continue; }
        const dest = path.join(dir, 'bugs', b.id);
        fs.rmSync(dest, { recursive: true, force: true });
        try {
            files += extract(git, b.commit, [b.path], dest);
        } catch (e) {
            missing.push(`${b.repo} (bug ${b.id}: ${String(e.message).split('\n')[0]})`);
        }
    }
    console.log(`gathered ${files} files into ${dir}`);
    if (missing.length) {
        console.log(`not gathered (no git source; set ECOSYSTEM_MIRRORS or ECOSYSTEM_GIT_BASE):`);
        for (const m of missing) console.log(`  ${m}`);
    }
}

// ----------------------------------------------------------------- check --

function lint(cwd, targets, extraArgs) {
    const args = ['check', '--isolated', '--select', 'OOM', '--format', 'json-lines', '--exit-zero',
                  '--threads', '2', ...extraArgs, ...targets];
    const r = spawnSync(OOMLINT, args, { cwd, encoding: 'utf8', maxBuffer: 1 << 28 });
    if (r.status !== 0) {
        throw new Error(`oomlint exited ${r.status} in ${cwd}: ${r.stderr}`);
    }
    return r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

// A notebook's lines are those of its code cells (its JSON is not code).
function notebookCodeLines(file) {
    try {
        const nb = JSON.parse(fs.readFileSync(file, 'utf8'));
        let n = 0;
        for (const c of nb.cells || []) {
            if (c.cell_type !== 'code') continue;
            const src = Array.isArray(c.source) ? c.source.join('') : String(c.source || '');
            if (src.length) n += src.split('\n').length - (src.endsWith('\n') ? 1 : 0);
        }
        return n;
    } catch (e) {
        return 0;
    }
}

function countLines(cwd, targets) {
    let lines = 0;
    const walk = (p) => {
        const st = fs.statSync(p);
        if (st.isDirectory()) {
            for (const e of fs.readdirSync(p)) walk(path.join(p, e));
        } else if (/\.(py|json)$/.test(p)) {
            const text = fs.readFileSync(p, 'utf8');
            lines += text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
        } else if (p.endsWith('.ipynb')) {
            lines += notebookCodeLines(p);
        }
    };
    for (const t of targets) {
        const p = path.join(cwd, t);
        if (fs.existsSync(p)) walk(p);
    }
    return lines;
}

// Every finding on the corpus, keyed `<owner>+<name>/<path>:<line>:<CODE>`;
// a finding seen only with a target GPU gets `@<gpu>` on its key.
function corpusFindings(dir) {
    const findings = new Map();
    let lines = 0;
    let files = 0;
    for (const r of readJson('repos.json')) {
        const cwd = path.join(dir, 'repos', repoDirName(r.repo));
        if (!fs.existsSync(cwd)) throw new Error(`${cwd} is missing: run gather again`);
        const targets = r.paths.filter((p) => fs.existsSync(path.join(cwd, p)));
        lines += countLines(cwd, targets);
        files += targets.length;
        for (const cfg of CONFIGS) {
            for (const f of lint(cwd, targets, cfg.args)) {
                const base = `${repoDirName(r.repo)}/${f.filename}:${f.location.row}:${f.code}`;
                if (cfg.name === 'none' || !findings.has(base)) {
                    const key = cfg.name === 'none' ? base : `${base}@${cfg.name}`;
                    if (!findings.has(key)) findings.set(key, { code: f.code, message: f.message, key });
                }
            }
        }
    }
    return { findings, lines };
}

function bugResults(dir) {
    const out = [];
    for (const b of readJson('bugs.json')) {
        const cwd = path.join(dir, 'bugs', b.id);
        if (!fs.existsSync(path.join(cwd, b.path))) { out.push({ bug: b, missing: true }); continue; }
        const args = b.gpu ? ['--gpu', b.gpu] : [];
        const hits = lint(cwd, [b.path], args).filter((f) => b.lines.some(
            (l) => f.location.row <= l && l <= f.end_location.row));
        out.push({ bug: b, hits });
    }
    return out;
}

function pct(a, b) {
    return b ? `${(100 * a / b).toFixed(1)}%` : '-';
}

// Which rules run without --select: the column `oomlint rules` prints.
function defaultRules() {
    const out = execFileSync(OOMLINT, ['rules'], { encoding: 'utf8' });
    const set = new Set(), every = new Set();
    for (const line of out.split('\n')) {
        const f = line.split(/\s+/);
        if (f[0]) every.add(f[0]);
        if (f[3] === 'default') set.add(f[0]);
    }
    // an oomlint from before opt-in rules existed has no such column: every
    // rule is on by default there
    return set.size ? set : every;
}

function fmtRow(label, r, lines) {
    return `${label.padEnd(16)} ${String(r.findings).padStart(8)} ${String(r.tru).padStart(6)} ` +
        `${String(r.fals).padStart(6)} ${String(r.open).padStart(5)}   ${pct(r.tru, r.tru + r.fals).padStart(9)}` +
        `  ${(r.fals * 10000 / lines).toFixed(2).padStart(8)}`;
}

function check(dir) {
    const verdicts = readJson('verdicts.json');
    const defaults = defaultRules();
    const { findings, lines } = corpusFindings(dir);
    const perRule = new Map();
    const empty = () => ({ findings: 0, tru: 0, fals: 0, open: 0 });
    for (const f of findings.values()) {
        if (!perRule.has(f.code)) perRule.set(f.code, empty());
        const r = perRule.get(f.code);
        r.findings++;
        const v = verdicts[f.key];
        if (!v) r.open++;
        else if (v.verdict === true) r.tru++;
        else r.fals++;
    }
    const all = empty(), deflt = empty(), noGpu = empty();
    for (const f of findings.values()) {
        if (!defaults.has(f.code) || f.key.includes('@')) continue;
        const v = verdicts[f.key];
        noGpu.findings++;
        if (!v) noGpu.open++;
        else if (v.verdict === true) noGpu.tru++;
        else noGpu.fals++;
    }
    console.log(`oomlint ecosystem check: ${readJson('repos.json').length} repositories, ${lines} lines ` +
                `(no GPU, --gpu v100, --gpu t4; every rule selected)\n`);
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

    const bugs = bugResults(dir);
    const found = bugs.filter((b) => b.hits && b.hits.length);
    console.log(`\nbug cases: ${found.length} of ${bugs.length} found (recall ${pct(found.length, bugs.length)}; ` +
                'any rule, selected explicitly, at the line that caused it)');
    for (const b of bugs) {
        const status = b.missing ? 'missing (gather)' : b.hits.length ? `found ${b.hits.map((h) => h.code).join(',')}`
            : 'MISSED';
        console.log(`  ${b.bug.id.padEnd(54)} ${(b.bug.expect || []).join(',').padEnd(14)} ${status}`);
    }

    const vanished = Object.keys(verdicts).filter((k) => !findings.has(k));
    const fresh = [...findings.keys()].filter((k) => !verdicts[k]);
    console.log(`\nagainst the recorded verdicts: ${fresh.length} new finding(s), ${vanished.length} vanished ` +
                `(${vanished.filter((k) => verdicts[k].verdict).length} of them true)`);
    for (const k of fresh) console.log(`  new       ${k}  ${findings.get(k).message}`);
    for (const k of vanished) {
        console.log(`  vanished  ${k}  (was ${verdicts[k].verdict ? 'true' : 'false'}: ${verdicts[k].reason})`);
    }
    const precision = deflt.tru / Math.max(1, deflt.tru + deflt.fals);
    const per25k = deflt.fals * 25000 / lines;
    console.log(`\ntargets (default rules): precision ${pct(deflt.tru, deflt.tru + deflt.fals)} (>= 95%), ` +
                `${per25k.toFixed(2)} false per 25,000 lines (<= 1), ` +
                `recall ${pct(found.length, bugs.length)} (>= 90%)` +
                (precision >= 0.95 && per25k <= 1 && found.length >= 0.9 * bugs.length ? ': met' : ': not met'));
}

function current(dir) {
    const verdicts = readJson("verdicts.json");
    const { findings } = corpusFindings(dir);
    for (const [k, f] of findings) {
        const v = verdicts[k];
        console.log(`${v ? (v.verdict ? "TRUE " : "FALSE") : "OPEN "} ${k}  ${v ? v.reason : f.message}`);
    }
}

function pending(dir) {
    const verdicts = readJson('verdicts.json');
    const { findings } = corpusFindings(dir);
    const out = {};
    for (const [k, f] of findings) {
        if (!verdicts[k]) out[k] = { verdict: null, reason: '', message: f.message };
    }
    console.log(JSON.stringify(out, null, 2));
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

function main() {
    const [cmd, dir] = process.argv.slice(2);
    if (!cmd || !dir) {
        console.error('usage: ecosystem.js gather|check|list|pending|estimate DIR');
        process.exit(2);
    }
    const abs = path.resolve(dir);
    if (cmd === 'gather') gather(abs);
    else if (cmd === 'check') check(abs);
    else if (cmd === 'pending') pending(abs);
    else if (cmd === 'list') current(abs);
    else if (cmd === 'estimate') estimateCoverage(abs);
    else { console.error(`unknown command ${cmd}`); process.exit(2); }
}

main();
