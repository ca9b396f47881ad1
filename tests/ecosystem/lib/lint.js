// oomlint over the corpus: every repository (and bug case) under each
// hardware configuration, in parallel, as findings keyed the way verdicts
// are: `<owner>+<name>/<path>:<line>:<CODE>`, with `@<gpu>` when only a target
// GPU brings the finding out; a bug case's are `bug:<id>/<path>:<line>:<CODE>`.
'use strict';
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const pool = require('./pool');
const { repoDirName } = require('./corpus');

const ROOT = path.resolve(__dirname, '..', '..', '..');
// A path given relative to where the command runs stays right when a lint
// runs in a repository's folder (a bare name is looked up on PATH).
const given = process.env.OOMLINT;
const OOMLINT = !given ? path.join(ROOT, 'build', 'oomlint') : given.includes('/') ? path.resolve(given) : given;
// none (hardware rules stay silent), and two pre-Ampere GPUs on which the
// hardware rules have something to say.
const CONFIGS = [
    { name: 'none', args: [] },
    { name: 'v100', args: ['--gpu', 'v100'] },
    { name: 't4', args: ['--gpu', 't4'] },
];

async function lint(cwd, targets, extraArgs) {
    const args = ['check', '--isolated', '--select', 'OOM', '--format', 'json-lines', '--exit-zero',
                  '--threads', '1', ...extraArgs, ...targets];
    const r = await pool.run(OOMLINT, args, { cwd });
    if (r.status !== 0) throw new Error(`oomlint exited ${r.status} in ${cwd}: ${r.stderr}`);
    return r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));
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
    return set.size ? set : every;
}

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

// Lines of the linted code: .py and .json files, and a notebook's code cells.
function countLines(cwd, targets) {
    let lines = 0;
    const walk = (p) => {
        const st = fs.statSync(p);
        if (st.isDirectory()) {
            for (const e of fs.readdirSync(p)) if (e !== '.oomlint-gathered') walk(path.join(p, e));
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

// The lines around `row` of `file`, numbered, for judging a finding without
// opening the file.
function contextLines(file, row, around = 4) {
    try {
        const lines = fs.readFileSync(file, 'utf8').split('\n');
        const out = [];
        for (let i = Math.max(1, row - around); i <= Math.min(lines.length, row + around); i++) {
            out.push(`${String(i).padStart(5)}${i === row ? '>' : ' '} ${lines[i - 1]}`);
        }
        return out;
    } catch (e) {
        return [];
    }
}

// A unit of work: one folder, its targets, the key prefix of its findings.
function repoUnit(dir, r) {
    const cwd = path.join(dir, 'repos', repoDirName(r.repo));
    // not gathered (its snapshot could not be had): the caller says so and
    // leaves it out of every figure, rather than count its findings as gone
    if (!fs.existsSync(cwd)) return { cwd, targets: [], prefix: repoDirName(r.repo), batch: r.batch, extra: [], missing: true };
    return { cwd, targets: r.paths.filter((p) => fs.existsSync(path.join(cwd, p))), prefix: repoDirName(r.repo),
             batch: r.batch, extra: [] };
}

function bugUnit(dir, b) {
    const cwd = path.join(dir, 'bugs', b.id);
    const present = fs.existsSync(path.join(cwd, b.path));
    return { cwd, targets: present ? [b.path] : [], prefix: `bug:${b.id}`, batch: b.batch, bug: b, missing: !present,
             extra: b.gpu ? ['--gpu', b.gpu] : [] };
}

// Lints every unit under every configuration; returns the findings (a Map
// by key: { key, code, message, batch, file, row, end }), the lines of
// repositories and of bug files, and for bug units every raw hit under the bug's own configuration.
async function lintUnits(units) {
    const tasks = [];
    for (const u of units) {
        if (!u.targets.length) continue;
        const configs = u.bug ? [{ name: 'none', args: u.extra }] : CONFIGS;
        for (const cfg of configs) tasks.push({ u, cfg });
    }
    const outputs = await pool.map(tasks, (t) => lint(t.u.cwd, t.u.targets, t.cfg.args));
    const findings = new Map();
    const bugHits = new Map();
    // configurations in order, so that a finding seen without a GPU keeps its bare key
    tasks.forEach((t, i) => {
        for (const f of outputs[i]) {
            const base = `${t.u.prefix}/${f.filename}:${f.location.row}:${f.code}`;
            const key = t.cfg.name === 'none' ? base : `${base}@${t.cfg.name}`;
            if (t.cfg.name !== 'none' && findings.has(base)) continue;
            if (!findings.has(key)) {
                findings.set(key, { key, code: f.code, message: f.message, batch: t.u.batch,
                                    file: path.join(t.u.cwd, f.filename), row: f.location.row,
                                    end: f.end_location.row });
            }
            if (t.u.bug) {
                if (!bugHits.has(t.u.bug.id)) bugHits.set(t.u.bug.id, []);
                bugHits.get(t.u.bug.id).push({ code: f.code, row: f.location.row, end: f.end_location.row });
                // a finding names the other places of its cause (one finding
                // per cause): a bug line among them is found as well
                for (const r of f.related || [])
                    if (r.filename === f.filename) bugHits.get(t.u.bug.id).push({ code: f.code, row: r.row, end: r.row });
            }
        }
    });
    // lines of repositories and of bug files, apart: the corpus figures are
    // per line of working code
    const lines = { repos: 0, bugs: 0 };
    for (const u of units) lines[u.bug ? 'bugs' : 'repos'] += countLines(u.cwd, u.targets);
    return { findings, bugHits, lines };
}

// Which of a bug case's lines a finding covers: with every rule, and with the
// default rules alone.
function bugLines(bug, hits, defaults) {
    const covered = (only) => bug.lines.filter((l) => (hits || []).some(
        (h) => (!only || only.has(h.code)) && h.row <= l && l <= h.end));
    const all = covered(null);
    return { lines: bug.lines.length, found_all: all, found_default: covered(defaults),
             codes: [...new Set((hits || []).filter((h) => bug.lines.some((l) => h.row <= l && l <= h.end))
                 .map((h) => h.code))] };
}

module.exports = { OOMLINT, CONFIGS, defaultRules, contextLines, repoUnit, bugUnit, lintUnits, bugLines };
