// Runs child processes a few at a time: the corpus is linted repository by
// repository, and on a machine with N cores N of them run at once.
'use strict';
const os = require('os');
const { spawn } = require('child_process');

function jobs() {
    const n = parseInt(process.env.ECOSYSTEM_JOBS || '', 10);
    return n > 0 ? n : Math.max(1, os.cpus().length);
}

// Resolves to { status, stdout, stderr } (status null when it could not start).
function run(cmd, args, opts = {}) {
    return new Promise((resolve) => {
        const child = spawn(cmd, args, { cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
        const out = [], err = [];
        child.stdout.on('data', (d) => out.push(d));
        child.stderr.on('data', (d) => err.push(d));
        child.on('error', (e) => resolve({ status: null, stdout: '', stderr: String(e.message) }));
        child.on('close', (status) => resolve({
            status, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'),
        }));
    });
}

// Calls `task(item)` for every item, at most `limit` at once; resolves to
// the results in the items' order.
async function map(items, task, limit = jobs()) {
    const results = new Array(items.length);
    let next = 0;
    const worker = async () => {
        while (next < items.length) {
            const i = next++;
            results[i] = await task(items[i], i);
        }
    };
    await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
    return results;
}

module.exports = { jobs, run, map };
