// The language server's benchmark (not a test): time from didChange to
// publishDiagnostics, median and worst of 100 edits, on a 2,000-line
// training script and on a file of the PyTorch sources; then the server's
// resident memory after 10,000 edits against after the first 100 (it must
// not grow). Each edit toggles a finding, so that every lint publishes.
// Usage: node tests/bench_server.js OOMLINT [TORCH_FILE]
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { Client, uriOf } = require('./lsp/client.js');

const bin = process.argv[2];
const torchFile = process.argv[3] || '/usr/lib/python3/dist-packages/torch/nn/modules/module.py';

function trainingScript(lines) {
  const block = [
    'def train_epoch_{i}(model, loader, optimizer, criterion, device):',
    '    model.train()',
    '    total = 0.0',
    '    for step, (x, y) in enumerate(loader):',
    '        x, y = x.to(device), y.to(device)',
    '        optimizer.zero_grad(set_to_none=True)',
    '        out = model(x)',
    '        loss = criterion(out, y)',
    '        loss.backward()',
    '        optimizer.step()',
    '        total += loss.item()',
    '    return total / max(1, len(loader))',
    '',
  ];
  const out = ['import torch', 'import torch.nn as nn', ''];
  for (let i = 0; out.length < lines - 8; i++) out.push(...block.map((l) => l.replace('{i}', i)));
  return out.join('\n') + '\n';
}

// The edited tail: the last line toggles between a finding and none.
const TAIL = 'def _bench(model, loader, criterion):\n    losses = []\n    for x, y in loader:\n' +
  '        loss = criterion(model(x), y)\n        loss.backward()\n        losses.append(loss)\n';

function rssKiB(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : NaN;
}

async function run(name, text, edits, rssAt) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'oomlint-bench-'));
  const file = path.join(dir, 'bench.py');
  const full = text + TAIL;
  fs.writeFileSync(file, full);
  const c = new Client(bin);
  await c.initialize({ rootUri: uriOf(dir), initializationOptions: { debounceMs: 0 } });
  const uri = uriOf(file);
  c.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'python', version: 1, text: full } });
  await c.diagnostics(uri, () => true, 60000);
  const line = full.split('\n').length - 2; // "        losses.append(loss)"
  const times = [];
  const rss = {};
  let fixed = false;
  for (let v = 2; v < edits + 2; v++) {
    const change = fixed
      ? { range: { start: { line, character: 26 }, end: { line, character: 33 } }, text: '' }
      : { range: { start: { line, character: 26 }, end: { line, character: 26 } }, text: '.item()' };
    fixed = !fixed;
    const t0 = process.hrtime.bigint();
    c.notify('textDocument/didChange', { textDocument: { uri, version: v }, contentChanges: [change] });
    await c.diagnostics(uri, (p) => p.version === v, 60000);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (rssAt.includes(v - 1)) rss[v - 1] = rssKiB(c.proc.pid);
  }
  await c.shutdown();
  fs.rmSync(dir, { recursive: true, force: true });
  const sorted = times.slice(0, 100).sort((a, b) => a - b);
  const median = (sorted[49] + sorted[50]) / 2;
  console.log(`${name}: ${full.split('\n').length - 1} lines; didChange -> publishDiagnostics over the first 100 edits: ` +
    `median ${median.toFixed(1)} ms, worst ${sorted[sorted.length - 1].toFixed(1)} ms`);
  for (const k of Object.keys(rss)) console.log(`${name}: server RSS after ${k} edits: ${(rss[k] / 1024).toFixed(1)} MiB`);
}

(async () => {
  await run('2,000-line training script', trainingScript(2000), Number(process.env.BENCH_EDITS || 10000), [100, 1000, 10000]);
  if (fs.existsSync(torchFile)) await run(path.relative('/usr/lib/python3/dist-packages', torchFile), fs.readFileSync(torchFile, 'utf8') + '\n', 100, [100]);
  else console.log(`${torchFile}: not installed (tests/bench.sh installs python3-torch); skipped`);
})().catch((e) => { console.error(e); process.exit(1); });
