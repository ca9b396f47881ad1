// A small LSP client for the tests: starts `oomlint server` (OOMLINT, which
// may be a wrapper such as tests/valgrind-oomlint.sh), frames messages, and
// lets a test await responses and notifications. No dependencies.
'use strict';
const { spawn } = require('child_process');

class Client {
  constructor(bin, args = ['server'], opts = {}) {
    this.proc = spawn(bin, args, { stdio: ['pipe', 'pipe', 'pipe'], cwd: opts.cwd });
    this.buf = Buffer.alloc(0);
    this.nextId = 1;
    this.pending = new Map();
    this.notes = [];
    this.waiters = [];
    this.stderr = '';
    this.requests = []; // requests from the server (registerCapability)
    this.exited = new Promise((resolve) => this.proc.on('exit', (code, sig) => resolve({ code, sig })));
    this.proc.stdout.on('data', (d) => this.onData(d));
    this.proc.stderr.on('data', (d) => { this.stderr += d.toString(); });
    this.proc.stdin.on('error', () => {});
  }
  onData(d) {
    this.buf = Buffer.concat([this.buf, d]);
    for (;;) {
      const end = this.buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      const m = /Content-Length: (\d+)/i.exec(this.buf.slice(0, end).toString());
      if (!m) throw new Error('bad header from server: ' + this.buf.slice(0, end));
      const len = Number(m[1]);
      if (this.buf.length < end + 4 + len) return;
      const body = this.buf.slice(end + 4, end + 4 + len).toString('utf8');
      this.buf = this.buf.slice(end + 4 + len);
      this.onMessage(JSON.parse(body));
    }
  }
  onMessage(msg) {
    if (msg.id !== undefined && msg.method === undefined) {
      const p = this.pending.get(JSON.stringify(msg.id));
      if (p) { this.pending.delete(JSON.stringify(msg.id)); p(msg); }
      return;
    }
    if (msg.id !== undefined) { this.requests.push(msg); this.writeRaw({ jsonrpc: '2.0', id: msg.id, result: null }); return; }
    this.notes.push(msg);
    this.waiters = this.waiters.filter((w) => !w(msg));
  }
  writeRaw(obj) { this.writeBytes(Buffer.from(JSON.stringify(obj), 'utf8')); }
  writeBytes(body, header) {
    const h = header !== undefined ? header : `Content-Length: ${body.length}\r\n\r\n`;
    this.proc.stdin.write(Buffer.concat([Buffer.from(h), body]));
  }
  request(method, params, id) {
    const rid = id !== undefined ? id : this.nextId++;
    const p = new Promise((resolve) => this.pending.set(JSON.stringify(rid), resolve));
    this.writeRaw({ jsonrpc: '2.0', id: rid, method, params });
    return withTimeout(p, 20000, `response to ${method}`);
  }
  // A response to an id sent raw (writeBytes).
  response(id) {
    return withTimeout(new Promise((resolve) => this.pending.set(JSON.stringify(id), resolve)), 20000, `response ${id}`);
  }
  notify(method, params) { this.writeRaw({ jsonrpc: '2.0', method, params }); }
  // The next notification matching pred (one already received and unclaimed counts).
  waitFor(pred, what, ms = 20000) {
    const i = this.notes.findIndex(pred);
    if (i >= 0) return Promise.resolve(this.notes.splice(i, 1)[0]);
    return withTimeout(new Promise((resolve) => {
      this.waiters.push((m) => { if (!pred(m)) return false; this.notes.splice(this.notes.indexOf(m), 1); resolve(m); return true; });
    }), ms, what);
  }
  diagnostics(uri, pred = () => true, ms) {
    return this.waitFor((m) => m.method === 'textDocument/publishDiagnostics' && m.params.uri === uri && pred(m.params),
      `diagnostics for ${uri}`, ms).then((m) => m.params);
  }
  dropNotes() { this.notes = []; }
  async initialize(params = {}) {
    const r = await this.request('initialize', Object.assign({ processId: process.pid, capabilities: {}, rootUri: null }, params));
    this.notify('initialized', {});
    return r;
  }
  async shutdown() {
    await this.request('shutdown', null);
    this.notify('exit', null);
    return this.exited;
  }
  kill() { try { this.proc.kill('SIGKILL'); } catch (e) { /* gone */ } }
}

// Slow builds (valgrind, sanitizers) wait longer: LSP_TIMEOUT_FACTOR.
const FACTOR = Number(process.env.LSP_TIMEOUT_FACTOR || 1);

function withTimeout(p, ms, what) {
  ms *= FACTOR;
  let t;
  return Promise.race([p, new Promise((_, rej) => { t = setTimeout(() => rej(new Error('timed out waiting for ' + what)), ms); })])
    .finally(() => clearTimeout(t));
}

function uriOf(path) { return 'file://' + path.split('/').map(encodeURIComponent).join('/'); }

module.exports = { Client, uriOf, withTimeout };
