// Protocol-level tests of `oomlint server`: lifecycle, diagnostics,
// incremental edits (UTF-16 and UTF-8), code actions, hover, notebooks,
// pull diagnostics, watched files, settings, and every kind of bad input.
// Prints "PASS name" / "FAIL name: why" lines (tests/run.sh counts them).
// Usage: node tests/lsp/protocol_test.js OOMLINT WORKDIR
'use strict';
const fs = require('fs');
const path = require('path');
const { Client, uriOf } = require('./client.js');

const bin = process.argv[2];
const work = process.argv[3];
let failures = 0;
function pass(n) { console.log('PASS server: ' + n); }
function fail(n, why) { failures++; console.log('FAIL server: ' + n + ': ' + String(why).replace(/\s+/g, ' ').slice(0, 500)); }
function check(n, cond, why) { if (cond) pass(n); else fail(n, typeof why === 'function' ? why() : why); }

const LOOP = 'def train(model, loader, criterion):\n    losses = []\n    for x, y in loader:\n' +
  '        loss = criterion(model(x), y)\n        loss.backward()\n        losses.append(loss)\n';
const CLEAN = 'def train(model, loader, criterion):\n    losses = []\n    for x, y in loader:\n' +
  '        loss = criterion(model(x), y)\n        loss.backward()\n        losses.append(loss.item())\n';

async function session(name, fn, opts = {}) {
  const dir = path.join(work, name);
  fs.mkdirSync(dir, { recursive: true });
  if (opts.files) for (const [f, t] of Object.entries(opts.files)) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.writeFileSync(path.join(dir, f), t);
  }
  const c = new Client(bin);
  try {
    await fn(c, dir);
  } catch (e) {
    fail(name, e.stack || e);
  } finally {
    c.kill();
  }
}

const init = (c, dir, extra = {}) => c.initialize(Object.assign({
  rootUri: uriOf(dir), capabilities: { textDocument: { publishDiagnostics: { relatedInformation: true } } },
  initializationOptions: { debounceMs: 10, extendSelect: ['OOM201', 'OOM202'] },
}, extra));
const open = (c, uri, text, languageId = 'python', version = 1) =>
  c.notify('textDocument/didOpen', { textDocument: { uri, languageId, version, text } });

async function lifecycle() {
  await session('lifecycle', async (c, dir) => {
    const early = await c.request('textDocument/hover', { textDocument: { uri: 'file:///x.py' }, position: { line: 0, character: 0 } });
    check('a request before initialize gets ServerNotInitialized', early.error && early.error.code === -32002, JSON.stringify(early));
    const r = await init(c, dir, { capabilities: { general: { positionEncodings: ['utf-8', 'utf-16'] } } });
    const caps = r.result.capabilities;
    check('initialize: UTF-8 when the client offers it', caps.positionEncoding === 'utf-8', caps.positionEncoding);
    check('initialize: incremental sync', caps.textDocumentSync.change === 2, JSON.stringify(caps.textDocumentSync));
    check('initialize: code actions, hover, pull diagnostics, notebooks',
      caps.hoverProvider && caps.codeActionProvider.codeActionKinds.includes('source.fixAll.oomlint') &&
      caps.diagnosticProvider && caps.notebookDocumentSync, JSON.stringify(caps));
    check('initialize: serverInfo names oomlint', r.result.serverInfo.name === 'oomlint', JSON.stringify(r.result.serverInfo));
    const again = await c.request('initialize', { capabilities: {} });
    check('a second initialize is an InvalidRequest', again.error && again.error.code === -32600, JSON.stringify(again));
    const log = await c.waitFor((m) => m.method === 'window/logMessage', 'a log line');
    check('window/logMessage carries the server log', /oomlint/.test(log.params.message), JSON.stringify(log));
    const unknown = await c.request('textDocument/definition', { textDocument: { uri: 'file:///x.py' }, position: { line: 0, character: 0 } });
    check('an unknown request gets MethodNotFound', unknown.error && unknown.error.code === -32601, JSON.stringify(unknown));
    c.notify('$/someExtension', {});
    c.notify('$/setTrace', { value: 'verbose' });
    const s = await c.request('shutdown', null);
    check('shutdown answers null', s.result === null && !s.error, JSON.stringify(s));
    const after = await c.request('textDocument/hover', { textDocument: { uri: 'file:///x.py' }, position: { line: 0, character: 0 } });
    check('a request after shutdown is an InvalidRequest', after.error && after.error.code === -32600, JSON.stringify(after));
    c.notify('exit', null);
    const e = await c.exited;
    check('exit after shutdown: status 0', e.code === 0, JSON.stringify(e));
  });
  await session('lifecycle-utf16', async (c, dir) => {
    const r = await init(c, dir);
    check('initialize: UTF-16 by default', r.result.capabilities.positionEncoding === 'utf-16', r.result.capabilities.positionEncoding);
    c.proc.stdin.end();
    const e = await c.exited;
    check('end of input without shutdown: exits, status 1', e.code === 1, JSON.stringify(e));
  });
}

async function diagnostics() {
  await session('diagnostics', async (c, dir) => {
    await init(c, dir);
    const uri = uriOf(path.join(dir, 'train.py'));
    open(c, uri, LOOP);
    let d = await c.diagnostics(uri);
    const g = d.diagnostics[0];
    check('didOpen: the finding arrives', d.diagnostics.length === 1 && g.code === 'OOM201', JSON.stringify(d));
    check('the range is the finding\'s', g.range.start.line === 5 && g.range.start.character === 8 && g.range.end.character === 27, JSON.stringify(g.range));
    check('severity, source, codeDescription.href', g.severity === 1 && g.source === 'oomlint' &&
      /OOM201-tensor-with-graph-stored\/doc.md$/.test(g.codeDescription.href), JSON.stringify(g));
    check('the published version is the document\'s', d.version === 1, d.version);
    // an incremental edit: `loss` -> `loss.item()` at line 5, characters 22..26
    c.notify('textDocument/didChange', { textDocument: { uri, version: 2 },
      contentChanges: [{ range: { start: { line: 5, character: 26 }, end: { line: 5, character: 26 } }, text: '.item()' }] });
    d = await c.diagnostics(uri);
    check('an incremental edit that fixes it clears the finding', d.diagnostics.length === 0 && d.version === 2, JSON.stringify(d));
    c.notify('textDocument/didChange', { textDocument: { uri, version: 3 },
      contentChanges: [{ range: { start: { line: 5, character: 26 }, end: { line: 5, character: 33 } }, text: '' }] });
    d = await c.diagnostics(uri);
    check('an edit that brings it back brings the finding back', d.diagnostics.length === 1 && d.version === 3, JSON.stringify(d));
    // a burst of edits is one lint (debounced): 20 edits, then one publish
    for (let i = 0; i < 20; i++)
      c.notify('textDocument/didChange', { textDocument: { uri, version: 4 + i },
        contentChanges: [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: '#\n' }] });
    d = await c.diagnostics(uri, (p) => p.version === 23);
    check('a burst of edits: the last version is published, the finding moved down 20 lines',
      d.diagnostics.length === 1 && d.diagnostics[0].range.start.line === 25, JSON.stringify(d));
    // a whole-document change
    c.notify('textDocument/didChange', { textDocument: { uri, version: 30 }, contentChanges: [{ text: CLEAN }] });
    d = await c.diagnostics(uri, (p) => p.version === 30);
    check('a full-text change is applied', d.diagnostics.length === 0, JSON.stringify(d));
    c.notify('textDocument/didClose', { textDocument: { uri } });
    d = await c.diagnostics(uri);
    check('didClose clears the document\'s diagnostics', d.diagnostics.length === 0, JSON.stringify(d));
    // JSON and YAML configs
    const ds = uriOf(path.join(dir, 'ds_config.json'));
    open(c, ds, '{"train_micro_batch_size_per_gpu": 4,\n "fp16": {"enabled": true\n', 'json');
    d = await c.diagnostics(ds);
    check('a broken training JSON config gets its syntax finding', d.diagnostics.some((x) => x.code === 'OOM001'), JSON.stringify(d));
    const pkg = uriOf(path.join(dir, 'package.json'));
    open(c, pkg, '{ // not ours\n', 'json');
    d = await c.diagnostics(pkg);
    check('a JSON file that is no training config gets no syntax finding', d.diagnostics.length === 0, JSON.stringify(d));
    const y = uriOf(path.join(dir, 'recipe.yaml'));
    open(c, y, 'model_name_or_path: gpt2\nper_device_train_batch_size: 8\n', 'yaml');
    d = await c.diagnostics(y);
    check('a YAML config is linted', Array.isArray(d.diagnostics), JSON.stringify(d));
    await c.shutdown();
  });
}

async function positions() {
  await session('positions', async (c, dir) => {
    await init(c, dir);
    const uri = uriOf(path.join(dir, 'wide.py'));
    // an astral character (2 UTF-16 units, 4 bytes) before the finding on its line
    const text = LOOP.replace('        losses.append(loss)', '        losses.append(loss) if "😀" else None');
    const t2 = LOOP.replace('        losses.append(loss)\n', '        s = "😀"; losses.append(loss)\n');
    open(c, uri, t2);
    const d = await c.diagnostics(uri);
    const r = d.diagnostics[0] && d.diagnostics[0].range;
    // `s = "😀"; ` is 9 code points, 10 UTF-16 units
    check('UTF-16: a character past an emoji counts two units', r && r.start.character === 8 + 10, JSON.stringify(d));
    c.notify('textDocument/didChange', { textDocument: { uri, version: 2 },
      contentChanges: [{ range: { start: { line: 5, character: 18 + 18 }, end: { line: 5, character: 18 + 18 } }, text: '.item()' }] });
    const d2 = await c.diagnostics(uri, (p) => p.version === 2);
    check('UTF-16: an edit placed after the emoji lands where it should', d2.diagnostics.length === 0, JSON.stringify(d2));
    // past the end of a line and of the document: clamped, not a crash
    c.notify('textDocument/didChange', { textDocument: { uri, version: 3 },
      contentChanges: [{ range: { start: { line: 999, character: 5 }, end: { line: 1200, character: 0 } }, text: '\nx = 1\n' }] });
    c.notify('textDocument/didChange', { textDocument: { uri, version: 4 },
      contentChanges: [{ range: { start: { line: 0, character: 500 }, end: { line: 0, character: 900 } }, text: '' }] });
    c.notify('textDocument/didChange', { textDocument: { uri, version: 5 },
      contentChanges: [{ range: { start: { line: 2, character: 0 }, end: { line: 1, character: 0 } }, text: '' }, { range: 'bad', text: 'x' }, { nothing: 1 }] });
    const d3 = await c.request('textDocument/diagnostic', { textDocument: { uri } });
    check('positions past the end and backwards ranges are clamped', d3.result && Array.isArray(d3.result.items), JSON.stringify(d3));
    const warned = c.notes.some((m) => m.method === 'window/logMessage' && /malformed range/.test(m.params.message));
    check('a malformed change is logged', warned, JSON.stringify(c.notes.map((m) => m.params.message)));
    const h = await c.request('textDocument/hover', { textDocument: { uri }, position: { line: 10000, character: 10000 } });
    check('hover past the end answers null', h.result === null && !h.error, JSON.stringify(h));
    void text;
    await c.shutdown();
  });
  await session('positions-utf8', async (c, dir) => {
    await init(c, dir, { capabilities: { general: { positionEncodings: ['utf-8'] } } });
    const uri = uriOf(path.join(dir, 'wide.py'));
    open(c, uri, LOOP.replace('        losses.append(loss)\n', '        s = "é"; losses.append(loss)\n'));
    const d = await c.diagnostics(uri);
    const r = d.diagnostics[0] && d.diagnostics[0].range;
    // `s = "é"; ` is 9 code points, 10 bytes
    check('UTF-8: characters are bytes', r && r.start.character === 8 + 10, JSON.stringify(d));
    await c.shutdown();
  });
}

async function actions() {
  await session('actions', async (c, dir) => {
    await init(c, dir);
    const uri = uriOf(path.join(dir, 'train.py'));
    open(c, uri, LOOP);
    const d = await c.diagnostics(uri);
    const a = await c.request('textDocument/codeAction', { textDocument: { uri }, range: d.diagnostics[0].range, context: { diagnostics: d.diagnostics } });
    const list = a.result || [];
    const fix = list.find((x) => x.kind === 'quickfix' && /item/.test(x.title));
    check('a quick fix from the rule\'s fix, preferred (safe)', fix && fix.isPreferred &&
      fix.edit.changes[uri][0].newText === 'loss.item()', JSON.stringify(list));
    const noqa = list.find((x) => x.title === 'Disable OOM201 for this line');
    check('"Disable OOM201 for this line" inserts # noqa: OOM201', noqa &&
      noqa.edit.changes[uri][0].newText === '  # noqa: OOM201' && noqa.edit.changes[uri][0].range.start.character === 27, JSON.stringify(noqa));
    const all = list.find((x) => x.kind === 'source.fixAll.oomlint');
    check('source.fixAll.oomlint: the fixer\'s edit', all && all.edit.changes[uri][0].newText === '.item()', JSON.stringify(all));
    const only = await c.request('textDocument/codeAction', { textDocument: { uri }, range: d.diagnostics[0].range,
      context: { diagnostics: [], only: ['source.fixAll'] } });
    check('only: [source.fixAll] gives fix-all alone', only.result.length === 1 && only.result[0].kind === 'source.fixAll.oomlint', JSON.stringify(only.result));
    const none = await c.request('textDocument/codeAction', { textDocument: { uri }, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, context: { diagnostics: [], only: ['quickfix'] } });
    check('no quick fix away from the finding', Array.isArray(none.result) && none.result.length === 0, JSON.stringify(none.result));
    // apply the noqa edit: the finding goes
    c.notify('textDocument/didChange', { textDocument: { uri, version: 2 },
      contentChanges: [{ range: noqa.edit.changes[uri][0].range, text: noqa.edit.changes[uri][0].newText }] });
    const d2 = await c.diagnostics(uri, (p) => p.version === 2);
    check('after the noqa edit, the finding is suppressed', d2.diagnostics.length === 0, JSON.stringify(d2));
    // unsafe fixes are labelled: OOM202-like? use a rule with an unsafe fix if any offers one
    const unknown = await c.request('textDocument/codeAction', { textDocument: { uri: uriOf('/never/opened.py') }, range: d.diagnostics[0].range, context: { diagnostics: [] } });
    check('a code action on a document never opened: InvalidParams', unknown.error && unknown.error.code === -32602, JSON.stringify(unknown));
    await c.shutdown();
  });
}

async function hover() {
  await session('hover', async (c, dir) => {
    await init(c, dir);
    const uri = uriOf(path.join(dir, 'train.py'));
    open(c, uri, LOOP.replace('losses = []', 'losses = []  # see OOM101'));
    const d = await c.diagnostics(uri);
    const h = await c.request('textDocument/hover', { textDocument: { uri }, position: { line: 5, character: 12 } });
    const v = h.result && h.result.contents.value;
    check('hover on a finding: Markdown with the message and the rule\'s doc', h.result && h.result.contents.kind === 'markdown' &&
      /\*\*OOM201\*\*/.test(v) && /# tensor-with-graph-stored \(OOM201\)/.test(v) && /## What it does/.test(v), v);
    const off = await c.request('textDocument/hover', { textDocument: { uri }, position: { line: 0, character: 2 } });
    check('hover away from any finding: null', off.result === null, JSON.stringify(off));
    const code = await c.request('textDocument/hover', { textDocument: { uri }, position: { line: 1, character: 25 } });
    check('hover on a rule code in a comment: that rule\'s doc', code.result && /\(OOM101\)/.test(code.result.contents.value), JSON.stringify(code));
    const bad = await c.request('textDocument/hover', { textDocument: { uri }, position: { line: -1 } });
    check('hover with a malformed position: InvalidParams', bad.error && bad.error.code === -32602, JSON.stringify(bad));
    void d;
    await c.shutdown();
  });
}

function notebookCells(nbUri) {
  return [
    { uri: nbUri + '#c0', languageId: 'markdown', version: 1, text: '# Fine-tune\n`losses.append(loss)` in prose.' },
    { uri: nbUri + '#c1', languageId: 'python', version: 1, text: 'import torch\nlosses = []\n' },
    { uri: nbUri + '#c2', languageId: 'python', version: 1, text: 'for x, y in loader:\n    loss = criterion(model(x), y)\n    loss.backward()\n    losses.append(loss)\n' },
  ];
}

async function notebooks() {
  await session('notebooks', async (c, dir) => {
    await init(c, dir);
    const nb = uriOf(path.join(dir, 'finetune.ipynb'));
    const cells = notebookCells(nb).map((t) => t.uri.replace('file://', 'vscode-notebook-cell://'));
    const docs = notebookCells(nb).map((t, i) => Object.assign({}, t, { uri: cells[i] }));
    c.notify('notebookDocument/didOpen', { notebookDocument: { uri: nb, notebookType: 'jupyter-notebook', version: 1,
      cells: docs.map((t, i) => ({ kind: i === 0 ? 1 : 2, document: t.uri })) }, cellTextDocuments: docs });
    const d = await c.diagnostics(cells[2], (p) => p.diagnostics.length > 0);
    const r = d.diagnostics[0].range;
    check('a notebook: the finding is in its cell, at the cell\'s row', d.diagnostics[0].code === 'OOM201' && r.start.line === 3 && r.start.character === 4, JSON.stringify(d));
    const h = await c.request('textDocument/hover', { textDocument: { uri: cells[2] }, position: { line: 3, character: 6 } });
    check('hover in a cell', h.result && /OOM201/.test(h.result.contents.value), JSON.stringify(h));
    const a = await c.request('textDocument/codeAction', { textDocument: { uri: cells[2] }, range: r, context: { diagnostics: d.diagnostics } });
    const fix = (a.result || []).find((x) => /item/.test(x.title));
    check('a quick fix in a cell edits the cell', fix && fix.edit.changes[cells[2]][0].range.start.line === 3, JSON.stringify(a.result));
    // edit the cell: the fix typed in
    c.notify('notebookDocument/didChange', { notebookDocument: { uri: nb, version: 2 }, change: { cells: { textContent: [
      { document: { uri: cells[2], version: 2 }, changes: [{ range: { start: { line: 3, character: 22 }, end: { line: 3, character: 22 } }, text: '.item()' }] }] } } });
    const d2 = await c.diagnostics(cells[2]);
    check('a cell edit clears its finding', d2.diagnostics.length === 0, JSON.stringify(d2));
    // a new cell inserted at the top moves nothing of the old cells' positions
    const newCell = nb.replace('file://', 'vscode-notebook-cell://') + '#new';
    c.notify('notebookDocument/didChange', { notebookDocument: { uri: nb, version: 3 }, change: { cells: { structure: {
      array: { start: 0, deleteCount: 0, cells: [{ kind: 2, document: newCell }] },
      didOpen: [{ uri: newCell, languageId: 'python', version: 1, text: 'import os\nos.environ["CUDA_VISIBLE_DEVICES"] = "0"\n' }] } } } });
    const d3 = await c.diagnostics(newCell, (p) => p.diagnostics.length > 0);
    check('a cell inserted by a structure change is linted in place', d3.diagnostics[0].code === 'OOM101' && d3.diagnostics[0].range.start.line === 1, JSON.stringify(d3));
    c.notify('notebookDocument/didClose', { notebookDocument: { uri: nb }, cellTextDocuments: [] });
    const d4 = await c.diagnostics(newCell);
    check('closing the notebook clears its cells', d4.diagnostics.length === 0, JSON.stringify(d4));
    // an .ipynb opened as text (an editor without notebooks): the JSON line of the code
    const ipynb = { cells: [{ cell_type: 'code', metadata: {}, outputs: [], execution_count: null,
      source: ['losses = []\n', 'for x, y in loader:\n', '    loss = criterion(model(x), y)\n', '    loss.backward()\n', '    losses.append(loss)\n'] }],
      metadata: { language_info: { name: 'python' } }, nbformat: 4, nbformat_minor: 5 };
    const text = JSON.stringify(ipynb, null, 1);
    const raw = uriOf(path.join(dir, 'raw.ipynb'));
    open(c, raw, text, 'json');
    const d5 = await c.diagnostics(raw, (p) => p.diagnostics.length > 0);
    const lines = text.split('\n');
    const want = lines.findIndex((l) => l.includes('losses.append(loss)'));
    const col = lines[want].indexOf('losses.append');
    check('an .ipynb opened as text: the finding at its JSON line and column',
      d5.diagnostics[0].range.start.line === want && d5.diagnostics[0].range.start.character === col, JSON.stringify(d5) + ' want ' + want + ':' + col);
    await c.shutdown();
  });
}

async function pull() {
  await session('pull', async (c, dir) => {
    await init(c, dir, { capabilities: { textDocument: { diagnostic: { dynamicRegistration: false } } } });
    const uri = uriOf(path.join(dir, 'train.py'));
    open(c, uri, LOOP);
    const r = await c.request('textDocument/diagnostic', { textDocument: { uri } });
    check('textDocument/diagnostic: a full report', r.result.kind === 'full' && r.result.items.length === 1 && r.result.items[0].code === 'OOM201', JSON.stringify(r));
    const again = await c.request('textDocument/diagnostic', { textDocument: { uri }, previousResultId: r.result.resultId });
    check('the same resultId again: unchanged', again.result.kind === 'unchanged', JSON.stringify(again));
    c.notify('textDocument/didChange', { textDocument: { uri, version: 2 }, contentChanges: [{ text: CLEAN }] });
    const after = await c.request('textDocument/diagnostic', { textDocument: { uri }, previousResultId: r.result.resultId });
    check('after an edit (pulled before the debounce): the new findings', after.result.kind === 'full' && after.result.items.length === 0, JSON.stringify(after));
    const pushed = c.notes.filter((m) => m.method === 'textDocument/publishDiagnostics' && m.params.uri === uri);
    check('a client that pulls is not pushed to', pushed.length === 0, JSON.stringify(pushed));
    const ws = await c.request('workspace/diagnostic', { previousResultIds: [] });
    const other = ws.result.items.find((i) => /other\.py$/.test(i.uri));
    check('workspace/diagnostic: the workspace\'s closed files too', other && other.items.length === 1 && other.items[0].code === 'OOM101', JSON.stringify(ws));
    const never = await c.request('textDocument/diagnostic', { textDocument: { uri: uriOf('/never/opened.py') } });
    check('pull on a document never opened: InvalidParams', never.error && never.error.code === -32602, JSON.stringify(never));
    await c.shutdown();
  }, { files: { 'other.py': 'import os\nos.environ["CUDA_VISIBLE_DEVICES"] = "0"\n' } });
}

const DS_SCRIPT = 'from transformers import TrainingArguments\nargs = TrainingArguments("out", per_device_train_batch_size=4, deepspeed="ds.json")\n';
const DS_JSON = '{\n  "train_micro_batch_size_per_gpu": 16\n}\n';

async function project() {
  await session('project', async (c, dir) => {
    await init(c, dir, { capabilities: { workspace: { didChangeWatchedFiles: { dynamicRegistration: true } },
      textDocument: { publishDiagnostics: { relatedInformation: true } } } });
    const ds = uriOf(path.join(dir, 'ds.json'));
    open(c, ds, DS_JSON, 'json');
    let d = await c.diagnostics(ds);
    const f = d.diagnostics.find((x) => x.code === 'OOM405');
    check('a cross-file finding from a workspace file on disk (OOM405)', f, JSON.stringify(d));
    check('relatedInformation names the TrainingArguments line', f && f.relatedInformation &&
      /train\.py$/.test(f.relatedInformation[0].location.uri) && f.relatedInformation[0].location.range.start.line === 1, JSON.stringify(f));
    const reg = c.requests.find((m) => m.method === 'client/registerCapability');
    check('watched files are registered with the client', reg && reg.params.registrations[0].method === 'workspace/didChangeWatchedFiles', JSON.stringify(c.requests));
    // the script on disk changes to agree: the finding goes when the watcher says so
    fs.writeFileSync(path.join(dir, 'train.py'), DS_SCRIPT.replace('=4', '=16'));
    c.notify('workspace/didChangeWatchedFiles', { changes: [{ uri: uriOf(path.join(dir, 'train.py')), type: 2 }] });
    d = await c.diagnostics(ds);
    check('didChangeWatchedFiles: the changed file\'s facts are read again', !d.diagnostics.some((x) => x.code === 'OOM405'), JSON.stringify(d));
    // an open, unsaved buffer wins over the disk
    const tr = uriOf(path.join(dir, 'train.py'));
    open(c, tr, DS_SCRIPT.replace('=4', '=2'));
    d = await c.diagnostics(ds, (p) => p.diagnostics.some((x) => x.code === 'OOM405'));
    check('an unsaved buffer\'s facts are used for the other files', /2/.test(d.diagnostics[0].message), JSON.stringify(d));
    await c.shutdown();
  }, { files: { 'train.py': DS_SCRIPT, 'ds.json': '{}\n' } });
}

async function settings() {
  await session('settings', async (c, dir) => {
    await init(c, dir);
    const uri = uriOf(path.join(dir, 'train.py'));
    open(c, uri, LOOP + 'import os\nos.environ["CUDA_VISIBLE_DEVICES"] = "0"\n');
    let d = await c.diagnostics(uri);
    check('[tool.oomlint] ignore is read', d.diagnostics.length === 1 && d.diagnostics[0].code === 'OOM201', JSON.stringify(d));
    c.notify('workspace/didChangeConfiguration', { settings: { oomlint: { ignore: ['OOM201'] } } });
    d = await c.diagnostics(uri);
    check('didChangeConfiguration overrides it', d.diagnostics.length === 1 && d.diagnostics[0].code === 'OOM101', JSON.stringify(d));
    c.notify('workspace/didChangeConfiguration', { settings: { oomlint: { ignore: [], select: 'OOM2' } } });
    d = await c.diagnostics(uri);
    check('select from the client', d.diagnostics.length === 1 && d.diagnostics[0].code === 'OOM201', JSON.stringify(d));
    c.notify('workspace/didChangeConfiguration', { settings: { oomlint: { select: ['ALL'], gpu: 'no-such-gpu' } } });
    const log = await c.waitFor((m) => m.method === 'window/logMessage' && /unknown GPU/.test(m.params.message), 'a log line about the GPU');
    check('an unknown GPU is logged, not fatal', log, '');
    d = await c.diagnostics(uri);
    check('linting goes on with the other settings', d.diagnostics.length >= 2, JSON.stringify(d));
    // the pyproject changes on disk
    fs.writeFileSync(path.join(dir, 'pyproject.toml'), '[tool.oomlint]\nignore = ["OOM201"]\n');
    c.notify('workspace/didChangeConfiguration', { settings: { oomlint: { select: null, ignore: null, gpu: null } } });
    await c.diagnostics(uri);
    fs.writeFileSync(path.join(dir, 'pyproject.toml'), '[tool.oomlint]\nignore = ["OOM1"]\n');
    c.notify('workspace/didChangeWatchedFiles', { changes: [{ uri: uriOf(path.join(dir, 'pyproject.toml')), type: 2 }] });
    d = await c.diagnostics(uri, (p) => p.diagnostics.every((x) => x.code !== 'OOM101'));
    check('pyproject.toml changed: the settings are read again', d.diagnostics.length === 1 && d.diagnostics[0].code === 'OOM201', JSON.stringify(d));
    fs.writeFileSync(path.join(dir, 'pyproject.toml'), '[tool.oomlint]\nignore = [1\n');
    c.notify('workspace/didChangeWatchedFiles', { changes: [{ uri: uriOf(path.join(dir, 'pyproject.toml')), type: 2 }] });
    const bad = await c.waitFor((m) => m.method === 'window/logMessage' && /pyproject/.test(m.params.message) && m.params.type <= 2, 'a log line about the broken config');
    check('a broken pyproject.toml is logged and linting goes on', bad, '');
    await c.shutdown();
  }, { files: { 'pyproject.toml': '[tool.oomlint]\nignore = ["OOM101"]\n' } });
}

async function badInput() {
  await session('bad-input', async (c, dir) => {
    await init(c, dir);
    const errs = [];
    const waitErr = () => c.response(null);
    let p = waitErr();
    c.writeBytes(Buffer.from('{not json'));
    let r = await p;
    check('a body that is not JSON: ParseError', r.error && r.error.code === -32700, JSON.stringify(r));
    p = waitErr();
    c.writeBytes(Buffer.from('[1,2]'));
    r = await p;
    check('a JSON array: InvalidRequest', r.error && r.error.code === -32600, JSON.stringify(r));
    p = waitErr();
    c.writeBytes(Buffer.from('{"jsonrpc":"2.0","id":{"x":1},"method":"shutdown"}'));
    r = await p;
    check('an id that is an object: InvalidRequest', r.error && r.error.code === -32600, JSON.stringify(r));
    // headers: missing Content-Length, garbage, a bad number, a huge length
    c.proc.stdin.write('Content-Type: application/json\r\n\r\n');
    c.proc.stdin.write('garbage garbage\r\n\r\n');
    c.proc.stdin.write('Content-Length: twelve\r\n\r\n');
    c.proc.stdin.write('Content-Length: 99999999999999999999999\r\n\r\n');
    c.proc.stdin.write(Buffer.alloc(20000, 0x41)); // bytes that are no header at all
    c.proc.stdin.write('\r\n\r\n');
    const ok1 = await c.request('textDocument/hover', { textDocument: { uri: uriOf('/never.py') }, position: { line: 0, character: 0 } });
    check('after bad headers and garbage, the next message is answered', ok1.error && ok1.error.code === -32602, JSON.stringify(ok1));
    const logs = c.notes.filter((m) => m.method === 'window/logMessage' && /bad input/.test(m.params.message));
    check('each bad header is logged', logs.length >= 3, JSON.stringify(logs.map((m) => m.params.message)));
    // a body over the limit (declared 200 MB, then a few bytes): skipped as it arrives
    c.proc.stdin.write('Content-Length: 200000000\r\n\r\n');
    c.proc.stdin.write(Buffer.alloc(1 << 20, 0x20));
    const log = await c.waitFor((m) => m.method === 'window/logMessage' && /over the limit/.test(m.params.message), 'the over-limit log');
    check('a message over the size limit is logged', log, '');
    // the rest of that body is discarded; send it, then a request
    c.proc.stdin.write(Buffer.alloc(200000000 - (1 << 20), 0x20));
    const ok2 = await c.request('shutdown', null, 777);
    check('after a huge message, the session goes on', ok2.result === null, JSON.stringify(ok2));
    c.notify('exit', null);
    const e = await c.exited;
    check('and exits cleanly', e.code === 0, JSON.stringify(e));
    void errs;
  });
  await session('bad-docs', async (c, dir) => {
    await init(c, dir);
    c.notify('textDocument/didChange', { textDocument: { uri: uriOf('/never/opened.py'), version: 2 }, contentChanges: [{ text: 'x' }] });
    const warn = await c.waitFor((m) => m.method === 'window/logMessage' && /not open/.test(m.params.message), 'a log line');
    check('didChange for a document never opened is logged', warn, '');
    c.notify('textDocument/didOpen', { textDocument: { uri: 'file:///x.py' } });
    const uri = uriOf(path.join(dir, 'bin.py'));
    open(c, uri, 'x = 1\u0000\u0001\u0002 binary');
    let d = await c.diagnostics(uri);
    check('binary text: a finding that says so, not a crash', Array.isArray(d.diagnostics), JSON.stringify(d));
    const big = uriOf(path.join(dir, 'big.py'));
    open(c, big, 'x = 1\n'.repeat(6 * 1024 * 1024));
    d = await c.diagnostics(big, () => true, 60000);
    check('a file over the size limit: OOM002', d.diagnostics.length === 1 && d.diagnostics[0].code === 'OOM002', JSON.stringify(d).slice(0, 300));
    const untitled = 'untitled:Untitled-1';
    open(c, untitled, LOOP);
    d = await c.diagnostics(untitled);
    check('an untitled buffer is linted', d.diagnostics.length === 1, JSON.stringify(d));
    const cancelled = c.response(4242);
    c.writeBytes(Buffer.concat([
      frame({ jsonrpc: '2.0', id: 4242, method: 'textDocument/hover', params: { textDocument: { uri: untitled }, position: { line: 5, character: 10 } } }),
      frame({ jsonrpc: '2.0', method: '$/cancelRequest', params: { id: 4242 } })]), '');
    const cr = await cancelled;
    check('$/cancelRequest before the request is handled: RequestCancelled', cr.error && cr.error.code === -32800, JSON.stringify(cr));
    c.notify('$/cancelRequest', { id: 999999 });
    const r = await c.request('textDocument/hover', { textDocument: { uri: untitled }, position: { line: 5, character: 10 } });
    check('a cancellation for no request is harmless', r.result && /OOM201/.test(r.result.contents.value), JSON.stringify(r));
    c.kill();
    const e = await c.exited;
    check('a client killed mid-session leaves nothing hanging', e.sig === 'SIGKILL' || e.code !== null, JSON.stringify(e));
  });
  await session('client-vanishes', async (c, dir) => {
    await init(c, dir);
    open(c, uriOf(path.join(dir, 't.py')), LOOP);
    c.proc.stdout.destroy(); // the client stops reading
    c.proc.stdin.end();
    const e = await c.exited;
    check('a client that disappears: the server exits on its own', e.code === 1 || e.code === 0, JSON.stringify(e));
  });
}

function frame(obj) {
  const body = Buffer.from(JSON.stringify(obj));
  return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]);
}

(async () => {
  for (const t of [lifecycle, diagnostics, positions, actions, hover, notebooks, pull, project, settings, badInput]) {
    try { await t(); } catch (e) { fail(t.name, e.stack || e); }
  }
  process.exit(0);
})();
