// The first run of a batch: oomlint on code no rule was tuned on, recorded
// once (the record is never overwritten) and judged in place; and the table
// of every batch's first run, the figure a new user meets.
'use strict';
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const corpus = require('./corpus');
const L = require('./lint');

// The commit the binary was built from: `<binary>.commit` beside a frozen
// copy, else the repository's head (marked when the tree has changes).
function binaryCommit() {
    const stamp = `${L.OOMLINT}.commit`;
    if (fs.existsSync(stamp)) return fs.readFileSync(stamp, 'utf8').trim();
    try {
        const root = path.resolve(__dirname, '..', '..', '..');
        const head = execFileSync('git', ['-C', root, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
        const dirty = execFileSync('git', ['-C', root, 'status', '--porcelain', '--', 'src', 'rules', 'include'],
                                   { encoding: 'utf8' }).trim();
        return dirty ? `${head}+changes` : head;
    } catch (e) {
        return 'unknown';
    }
}

async function record(dir, name) {
    const file = corpus.firstRunFile(name);
    if (fs.existsSync(file)) {
        throw new Error(`${path.relative(process.cwd(), file)} exists: a batch has one first run, and it is recorded`);
    }
    const batch = corpus.readBatch(name);
    const defaults = L.defaultRules();
    const units = [...batch.repos.map((r) => L.repoUnit(dir, r)), ...batch.bugs.map((b) => L.bugUnit(dir, b))];
    const missing = units.filter((u) => u.missing || !u.targets.length).map((u) => u.prefix);
    if (missing.length) throw new Error(`not gathered (run gather --batch ${name}): ${missing.join(', ')}`);
    const { findings, bugHits, lines } = await L.lintUnits(units);
    const out = {
        batch: name, oomlint: binaryCommit(), date: new Date().toISOString(),
        repos: batch.repos.length, bug_cases: batch.bugs.length, lines: lines.repos + lines.bugs,
        defaults: [...defaults].sort(),
        findings: {}, bugs: {},
    };
    for (const [k, f] of [...findings].sort((a, b) => a[0].localeCompare(b[0]))) {
        out.findings[k] = { code: f.code, default: defaults.has(f.code), verdict: null, reason: '',
                            message: f.message, context: L.contextLines(f.file, f.row) };
    }
    for (const b of batch.bugs) out.bugs[b.id] = L.bugLines(b, bugHits.get(b.id), defaults);
    fs.writeFileSync(`${file}.tmp`, JSON.stringify(out, null, 2) + '\n');
    fs.renameSync(`${file}.tmp`, file);
    console.log(`recorded the first run of ${name}: ${Object.keys(out.findings).length} findings ` +
                `(${Object.values(out.findings).filter((f) => f.default).length} from default rules), ` +
                `${out.lines} lines; judge them in ${path.relative(process.cwd(), file)}`);
}

function pct(a, b) {
    return b ? `${(100 * a / b).toFixed(1)}%` : '-';
}

function tally(rec, onlyDefault) {
    const t = { findings: 0, tru: 0, fals: 0, open: 0, bugLines: 0, bugFound: 0 };
    for (const f of Object.values(rec.findings)) {
        if (onlyDefault && !f.default) continue;
        t.findings++;
        if (f.verdict === true) t.tru++;
        else if (f.verdict === false) t.fals++;
        else t.open++;
    }
    for (const b of Object.values(rec.bugs)) {
        t.bugLines += b.lines;
        t.bugFound += (onlyDefault ? b.found_default : b.found_all).length;
    }
    return t;
}

function add(a, b) {
    const out = {};
    for (const k of Object.keys(a)) out[k] = a[k] + b[k];
    return out;
}

// One row per batch and a total, default rules and all rules.
function rows() {
    const out = [];
    let totD = null, totA = null, totR = { repos: 0, bug_cases: 0, lines: 0 };
    for (const name of corpus.batchNames()) {
        const rec = corpus.readFirstRun(name);
        if (!rec) { out.push({ name, pending: true }); continue; }
        const d = tally(rec, true), a = tally(rec, false);
        out.push({ name, rec, d, a });
        totD = totD ? add(totD, d) : d;
        totA = totA ? add(totA, a) : a;
        totR = { repos: totR.repos + rec.repos, bug_cases: totR.bug_cases + rec.bug_cases, lines: totR.lines + rec.lines };
    }
    if (totD) out.push({ name: 'all batches', rec: totR, d: totD, a: totA });
    return out;
}

function cell(t) {
    const judged = `${t.findings} / ${t.tru} / ${t.fals}${t.open ? ` (+${t.open} open)` : ''}`;
    return { judged, precision: pct(t.tru, t.tru + t.fals), bugs: t.bugLines ? `${t.bugFound} / ${t.bugLines}` : '-' };
}

function table(markdown) {
    const rs = rows();
    if (!rs.length) { console.log('no batches yet (tests/ecosystem/batches/)'); return; }
    const head = ['batch', 'oomlint', 'repos', 'bug cases', 'lines',
                  'default: findings / true / false', 'precision', 'bug lines found',
                  'all rules: findings / true / false', 'precision', 'bug lines found'];
    const body = rs.map((r) => {
        if (r.pending) return [r.name, 'not run yet', '', '', '', '', '', '', '', '', ''];
        const d = cell(r.d), a = cell(r.a);
        return [r.name, r.rec.oomlint ? String(r.rec.oomlint).slice(0, 7) : '', String(r.rec.repos), String(r.rec.bug_cases),
                String(r.rec.lines), d.judged, d.precision, d.bugs, a.judged, a.precision, a.bugs];
    });
    if (markdown) {
        console.log(`| ${head.join(' | ')} |`);
        console.log(`|${head.map(() => '---').join('|')}|`);
        for (const b of body) console.log(`| ${b.join(' | ')} |`);
        return;
    }
    const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
    const line = (cells) => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
    console.log('first contact: each batch on its first run, before any change made for it');
    console.log(line(head));
    for (const b of body) console.log(line(b));
}

// The bar a default rule meets on first contact: a rule that is almost never
// right on code it was not tuned on does not belong in the default set. It is
// measured over every batch's first run, so a rule earns its place on code
// that arrived after it, never on the corpus it was fixed on.
const BAR = { minJudged: 5, minPrecision: 0.1 };

function codeOf(key) {
    return key.split(':').pop().replace(/@.*/, '');
}

// Per rule, over every recorded first run: findings judged true and false,
// and the bug cases whose lines the rule's findings covered.
function ruleRows() {
    const by = new Map();
    const get = (code) => {
        if (!by.has(code)) by.set(code, { code, tru: 0, fals: 0, open: 0, bugs: 0 });
        return by.get(code);
    };
    for (const name of corpus.batchNames()) {
        const rec = corpus.readFirstRun(name);
        if (!rec) continue;
        for (const [k, f] of Object.entries(rec.findings)) {
            const r = get(codeOf(k));
            if (f.verdict === true) r.tru++;
            else if (f.verdict === false) r.fals++;
            else r.open++;
        }
        for (const b of Object.values(rec.bugs)) {
            if (!b.found_all.length) continue;
            for (const c of new Set(b.codes || [])) get(c).bugs++;
        }
    }
    const defaults = L.defaultRules();
    return [...by.values()].sort((a, b) => a.code.localeCompare(b.code)).map((r) => {
        const judged = r.tru + r.fals;
        const below = judged >= BAR.minJudged && r.tru / judged <= BAR.minPrecision;
        return { ...r, isDefault: defaults.has(r.code), below };
    });
}

function rulesTable() {
    const rs = ruleRows();
    console.log(`first contact per rule, every batch's first run (the default-set bar: more than ` +
                `${100 * BAR.minPrecision}% true once ${BAR.minJudged} findings are judged)`);
    console.log(['rule', 'default', 'true', 'false', 'open', 'precision', 'bug cases found', 'bar'].join('\t'));
    let failing = 0;
    for (const r of rs) {
        const bar = r.below ? (r.isDefault ? 'BELOW (default)' : 'below (opt-in)') : '';
        if (r.below && r.isDefault) failing++;
        console.log([r.code, r.isDefault ? 'yes' : 'no', r.tru, r.fals, r.open, pct(r.tru, r.tru + r.fals), r.bugs, bar].join('\t'));
    }
    console.log(failing ? `${failing} default rules below the bar` : 'every default rule meets the bar');
    return failing;
}

module.exports = { record, table, rulesTable, binaryCommit };
