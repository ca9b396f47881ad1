// Builds the corpus folder from git sources, in parallel, and resumably: a
// repository or bug case already extracted at the same commit and paths (its
// stamp says so) is left alone, and an extraction that was interrupted never
// looks complete, since it is written beside its place and renamed at the end.
'use strict';
const fs = require('fs');
const path = require('path');
const pool = require('./pool');
const { repoDirName } = require('./corpus');

const STAMP = '.oomlint-gathered';

// A git directory holding `repo`: a mirror as the search tool's fetch leaves
// it (ECOSYSTEM_MIRRORS/<owner>+<name>/repo), a bare clone there
// (<owner>+<name>.git), or a clone made from ECOSYSTEM_GIT_BASE.
async function gitDirFor(repo, dir) {
    const mirrors = process.env.ECOSYSTEM_MIRRORS || '/work/.mirror';
    for (const cand of [path.join(mirrors, repoDirName(repo), 'repo'), path.join(mirrors, repoDirName(repo) + '.git')]) {
        if (fs.existsSync(cand)) return { git: cand };
    }
    const base = process.env.ECOSYSTEM_GIT_BASE;
    if (!base) return { error: 'no git source; set ECOSYSTEM_MIRRORS or ECOSYSTEM_GIT_BASE' };
    const clone = path.join(dir, 'git', repoDirName(repo) + '.git');
    if (fs.existsSync(path.join(clone, STAMP))) return { git: clone };
    fs.rmSync(clone, { recursive: true, force: true });
    fs.mkdirSync(path.dirname(clone), { recursive: true });
    const r = await pool.run('git', ['clone', '--quiet', '--bare', '--filter=blob:none', `${base}/${repo}.git`, clone]);
    if (r.status !== 0) return { error: `git clone failed: ${r.stderr.trim().split('\n').pop()}` };
    fs.writeFileSync(path.join(clone, STAMP), 'cloned\n');
    return { git: clone };
}

async function git(gitDir, args, input) {
    const r = await pool.run('git', ['-C', gitDir, ...args]);
    if (r.status !== 0) throw new Error(r.stderr.trim().split('\n')[0] || `git ${args[0]} failed`);
    return r.stdout;
}

// Writes the Python and JSON files of `paths` at `commit` under `dest`, and the
// notebooks `paths` names one by one (a folder's are not taken: tutorials
// beside the code would swamp it); returns the number of files.
async function extract(gitDir, commit, paths, dest) {
    const stamp = JSON.stringify({ commit, paths });
    const stampFile = path.join(dest, STAMP);
    if (fs.existsSync(stampFile) && fs.readFileSync(stampFile, 'utf8') === stamp) return { files: 0, skipped: true };
    const listed = (await git(gitDir, ['ls-tree', '-r', '--name-only', commit, '--', ...paths])).split('\n')
        .filter((f) => /\.(py|json)$/.test(f) || (f.endsWith('.ipynb') && paths.includes(f)));
    const part = `${dest}.part`;
    fs.rmSync(part, { recursive: true, force: true });
    fs.mkdirSync(part, { recursive: true });
    if (listed.length) {
        // git archive | tar, without a shell: archive into a file, then unpack it.
        const tar = `${part}.tar`;
        await git(gitDir, ['archive', '--format=tar', '-o', tar, commit, '--', ...listed]);
        const r = await pool.run('tar', ['-x', '-f', tar, '-C', part]);
        fs.rmSync(tar, { force: true });
        if (r.status !== 0) throw new Error(`tar: ${r.stderr.trim()}`);
    }
    fs.writeFileSync(path.join(part, STAMP), stamp);
    fs.rmSync(dest, { recursive: true, force: true });
    fs.mkdirSync(path.dirname(dest), { recursive: true });
    fs.renameSync(part, dest);
    return { files: listed.length, skipped: false };
}

// `items`: { repo, commit, paths, dest, label }.
async function gather(dir, items) {
    const t0 = Date.now();
    const results = await pool.map(items, async (it) => {
        const src = await gitDirFor(it.repo, dir);
        if (src.error) return { it, error: src.error };
        try {
            return { it, ...(await extract(src.git, it.commit, it.paths, it.dest)) };
        } catch (e) {
            return { it, error: String(e.message).split('\n')[0] };
        }
    });
    const files = results.reduce((n, r) => n + (r.files || 0), 0);
    const skipped = results.filter((r) => r.skipped).length;
    const failed = results.filter((r) => r.error);
    console.log(`gathered ${files} files of ${results.length - skipped - failed.length} sources into ${dir}` +
                ` (${skipped} already there, ${failed.length} failed; ${((Date.now() - t0) / 1000).toFixed(1)} s)`);
    for (const r of failed) console.log(`  not gathered: ${r.it.label}: ${r.error}`);
    return failed.length;
}

function itemsFor(dir, repos, bugs) {
    return [
        ...repos.map((r) => ({ repo: r.repo, commit: r.commit, paths: r.paths, label: r.repo,
                               dest: path.join(dir, 'repos', repoDirName(r.repo)) })),
        ...bugs.map((b) => ({ repo: b.repo, commit: b.commit, paths: [b.path], label: `${b.repo} (bug ${b.id})`,
                              dest: path.join(dir, 'bugs', b.id) })),
    ];
}

module.exports = { gather, itemsFor };
