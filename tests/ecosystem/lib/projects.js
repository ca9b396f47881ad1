// Issue 27's held-out check: real training projects (projects.json), each
// checked out whole at its pinned commit, its documented launch command run
// through `oomlint estimate --format json -- COMMAND...` from the project's
// root (or the folder its docs run it from), and the model, batch and
// precision oomlint reads compared with those written down from the docs
// before any run.
//
// Layout of DIR: projects/<owner>+<name>/ (the whole tree at the commit, with
// a stamp naming it; an interrupted checkout is written beside its place and
// renamed at the end, so it never looks complete).
'use strict';
const fs = require('fs');
const path = require('path');
const { spawn, spawnSync } = require('child_process');
const pool = require('./pool');
const { readJson, repoDirName, HERE } = require('./corpus');
const L = require('./lint');
const { binaryCommit } = require('./firstrun');

const STAMP = '.oomlint-project';
const TIMEOUT_MS = 120000;
const RECORD = path.join(HERE, 'projects.first-run.json');

function gitDirFor(repo) {
    const mirrors = process.env.ECOSYSTEM_MIRRORS || '/work/.mirror';
    for (const cand of [path.join(mirrors, repoDirName(repo), 'repo'), path.join(mirrors, repoDirName(repo) + '.git')]) {
        if (fs.existsSync(cand)) return cand;
    }
    return null;
}

function missingBlobs(git, commit) {
    const ls = spawnSync('git', ['-C', git, 'ls-tree', '-r', '-z', commit], { encoding: 'utf8', maxBuffer: 1 << 28 });
    if (ls.status !== 0) return [];
    const entries = ls.stdout.split('\0').filter(Boolean).map((e) => {
        const [meta, file] = e.split('\t');
        const [, type, oid] = meta.split(' ');
        return { type, oid, file };
    }).filter((e) => e.type === 'blob');
    const chk = spawnSync('git', ['-C', git, 'cat-file', '--batch-check=%(objectname) %(objecttype)'],
                          { input: entries.map((e) => e.oid).join('\n') + '\n', encoding: 'utf8', maxBuffer: 1 << 28 });
    const missing = new Set(chk.stdout.split('\n').filter((l) => l.endsWith(' missing')).map((l) => l.split(' ')[0]));
    return entries.filter((e) => missing.has(e.oid)).map((e) => e.file);
}

async function checkout(dir, p) {
    const dest = path.join(dir, 'projects', repoDirName(p.repo));
    const stampFile = path.join(dest, STAMP);
    if (fs.existsSync(stampFile) && fs.readFileSync(stampFile, 'utf8') === p.commit) return { dest, skipped: true };
    const git = gitDirFor(p.repo);
    if (!git) return { dest, error: 'no mirror (fetch github:' + p.repo + ')' };
    const part = `${dest}.part`;
    fs.rmSync(part, { recursive: true, force: true });
    fs.mkdirSync(part, { recursive: true });
    const tar = `${part}.tar`;
    // A mirror may lack its largest blobs (listed in the tree, absent): those
    // files are left out, and named in the stamp's companion file.
    const absent = missingBlobs(git, p.commit);
    const excl = absent.map((f) => `:(exclude,literal)${f}`);
    let r = await pool.run('git', ['-C', git, 'archive', '--format=tar', '-o', tar, p.commit, ...(excl.length ? ['--', '.', ...excl] : [])]);
    if (r.status !== 0) return { dest, error: `git archive: ${r.stderr.trim().split('\n')[0]}` };
    r = await pool.run('tar', ['-x', '-f', tar, '-C', part]);
    fs.rmSync(tar, { force: true });
    if (r.status !== 0) return { dest, error: `tar: ${r.stderr.trim().split('\n')[0]}` };
    if (absent.length) fs.writeFileSync(path.join(part, `${STAMP}-absent`), absent.join('\n') + '\n');
    fs.writeFileSync(path.join(part, STAMP), p.commit);
    fs.rmSync(dest, { recursive: true, force: true });
    fs.renameSync(part, dest);
    return { dest, skipped: false };
}

function runEstimate(cwd, command) {
    return new Promise((resolve) => {
        const child = spawn(L.OOMLINT, ['estimate', '--format', 'json', '--', ...command],
                            { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
        const out = [], err = [];
        const timer = setTimeout(() => child.kill('SIGKILL'), TIMEOUT_MS);
        child.stdout.on('data', (d) => out.push(d));
        child.stderr.on('data', (d) => err.push(d));
        child.on('error', (e) => { clearTimeout(timer); resolve({ status: null, stdout: '', stderr: e.message }); });
        child.on('close', (status, signal) => {
            clearTimeout(timer);
            resolve({ status, signal, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
        });
    });
}

// What oomlint read, against what the docs say.
function judge(p, r) {
    const want = p.model;
    const row = { repo: p.repo, domain: p.domain, status: r.status, signal: r.signal || null,
                  model: null, params: 0, batch: null, precision: null, model_source: null,
                  sized: false, right_model: false, batch_right: null, precision_right: null };
    let j = null;
    try { j = JSON.parse(r.stdout); } catch (e) { j = null; }
    if (!j) {
        row.error = (r.stderr || r.stdout || (r.signal ? `killed (${r.signal})` : 'no output')).trim().split('\n').slice(-3).join(' | ');
        return row;
    }
    const inp = j.inputs || {};
    row.model = j.model || '';
    row.params = j.params || 0;
    row.model_source = inp.model ? `${inp.model.assumed ? 'assumed: ' : ''}${inp.model.source}` : null;
    row.batch = inp.batch ? inp.batch.value : null;
    row.batch_source = inp.batch ? `${inp.batch.assumed ? 'assumed: ' : ''}${inp.batch.source}` : null;
    row.precision = inp.precision ? inp.precision.value : null;
    row.precision_source = inp.precision ? `${inp.precision.assumed ? 'assumed: ' : ''}${inp.precision.source}` : null;
    if (j.launch) row.launch = { launcher: j.launch.launcher, script: j.launch.script, script_exists: j.launch.script_exists,
                                 processes: j.launch.processes, notes: j.launch.notes };
    row.sized = row.params > 0 && !(inp.model && inp.model.assumed);
    row.right_model = row.sized && Math.abs(row.params - want.params) <= 0.05 * want.params;
    if (want.batch != null) row.batch_right = row.sized && String(row.batch) === String(want.batch);
    if (want.precision) row.precision_right = row.sized && !!row.precision && row.precision.startsWith(want.precision);
    return row;
}

async function runAll(dir) {
    const list = readJson('projects.json');
    const t0 = Date.now();
    const co = await pool.map(list.projects, (p) => checkout(dir, p));
    const rows = await pool.map(list.projects, async (p, i) => {
        if (co[i].error) return { repo: p.repo, domain: p.domain, error: `not checked out: ${co[i].error}`,
                                  sized: false, right_model: false, batch_right: p.model.batch != null ? false : null,
                                  precision_right: p.model.precision ? false : null };
        // a mistake in the list found after the first run is mended by the
        // entry's `correction`, never by changing what was written
        const dir = (p.correction && p.correction.cwd) || p.cwd;
        const cwd = dir ? path.join(co[i].dest, dir) : co[i].dest;
        return judge(p, await runEstimate(cwd, p.command));
    });
    return { list, rows, seconds: (Date.now() - t0) / 1000 };
}

function totals(list, rows) {
    const n = list.projects.length;
    const count = (k) => rows.filter((r) => r[k] === true).length;
    const withBatch = list.projects.filter((p) => p.model.batch != null).length;
    const withPrec = list.projects.filter((p) => p.model.precision).length;
    return { projects: n, sized: count('sized'), right_model: count('right_model'),
             batch: count('batch_right'), batch_written: withBatch,
             precision: count('precision_right'), precision_written: withPrec };
}

function fmtParams(x) {
    if (!x) return '-';
    return x >= 1e9 ? `${(x / 1e9).toFixed(2)}B` : x >= 1e6 ? `${(x / 1e6).toFixed(1)}M` : `${(x / 1e3).toFixed(1)}k`;
}

function print(list, rows, seconds) {
    const mark = (v) => (v === true ? 'yes' : v === false ? 'no' : '-');
    console.log(`oomlint estimate -- COMMAND on ${list.projects.length} projects (${L.OOMLINT}; ${seconds.toFixed(1)} s)\n`);
    console.log(`${'project'.padEnd(46)} ${'domain'.padEnd(24)} ${'want'.padStart(8)} ${'got'.padStart(8)} ` +
                `${'sized'.padEnd(5)} ${'right'.padEnd(5)} ${'batch'.padEnd(12)} ${'precision'.padEnd(26)} model`);
    list.projects.forEach((p, i) => {
        const r = rows[i];
        const b = p.model.batch != null ? `${mark(r.batch_right)} ${r.batch ?? '-'}/${p.model.batch}` : `- ${r.batch ?? '-'}`;
        const pr = p.model.precision ? `${mark(r.precision_right)} ${r.precision || '-'}` : `- ${r.precision || '-'}`;
        console.log(`${p.repo.padEnd(46)} ${p.domain.padEnd(24)} ${fmtParams(p.model.params).padStart(8)} ` +
                    `${fmtParams(r.params).padStart(8)} ${mark(r.sized).padEnd(5)} ${mark(r.right_model).padEnd(5)} ` +
                    `${b.padEnd(12)} ${pr.padEnd(26)} ${r.error ? `ERROR ${r.error.slice(0, 120)}` : (r.model || '(own class)')}`);
    });
    const t = totals(list, rows);
    console.log(`\nsized ${t.sized}/${t.projects}, right model ${t.right_model}, batch ${t.batch} (of ${t.batch_written} written), ` +
                `precision ${t.precision} (of ${t.precision_written} written)`);
    return t;
}

async function projects(dir) {
    const { list, rows, seconds } = await runAll(dir);
    print(list, rows, seconds);
}

async function firstRun(dir) {
    if (fs.existsSync(RECORD)) {
        throw new Error(`${path.relative(process.cwd(), RECORD)} exists: the projects have one first run, and it is recorded`);
    }
    const { list, rows, seconds } = await runAll(dir);
    const t = print(list, rows, seconds);
    const out = { oomlint: binaryCommit(), date: new Date().toISOString(), totals: t, results: rows };
    fs.writeFileSync(`${RECORD}.tmp`, JSON.stringify(out, null, 1) + '\n');
    fs.renameSync(`${RECORD}.tmp`, RECORD);
    console.log(`recorded in ${path.relative(process.cwd(), RECORD)}`);
}

module.exports = { projects, firstRun };
