#!/bin/sh
# End-to-end tests of the pre-commit hooks (.pre-commit-hooks.yaml) with the
# real `pre-commit` client, in temporary git repositories, without network:
# the hook repository is a throwaway local git repository holding this
# checkout's .pre-commit-hooks.yaml and src/integrations/pre-commit.sh, and the
# binary under test is first on PATH (named `oomlint`), so nothing is built.
# Run from the repository root:
#   sh tests/e2e_precommit.sh                              (tests build/oomlint)
#   OOMLINT=build/asan/oomlint sh tests/e2e_precommit.sh   (tests another build)
# Each check prints one line: "PASS name", "FAIL name: why" or "SKIP name: why";
# the script exits 0 whatever the results.

. tests/lib.sh

T="$TEST_TMP"


ALL_CHECKS="hooks-file script-executable hook-repo-commit install bad-commit-fails bad-commit-shows-code \
bad-commit-shows-path bad-commit-not-made clean-commit-passes no-python-commit-passes no-python-commit-skipped \
json-file-passed notebook-passed-and-linted-by-cell all-files-reports all-files-names-every-file spaced-path-reported \
local-system-bad-commit-fails local-system-shows-finding local-system-clean-commit-passes local-system-all-files \
oomlint-system-hook-from-repo fix-hook-stops-the-commit fix-hook-fixes-the-file fix-hook-says-what-it-fixed \
fix-hook-then-commits script-uses-build-dir script-builds-with-make"

if ! command -v pre-commit >/dev/null 2>&1; then
    for c in $ALL_CHECKS; do skip "$c" "the pre-commit client is not installed (apt-get install pre-commit)"; done
    exit 0
fi
if ! command -v git >/dev/null 2>&1; then
    for c in $ALL_CHECKS; do skip "$c" "git is not installed"; done
    exit 0
fi

# A private environment: no user or system git/pre-commit configuration, no
# network, and the binary under test first on PATH as `oomlint`.
mkdir -p "$T/home" "$T/cache" "$T/bin"
ln -s "$OOMLINT" "$T/bin/oomlint"
export HOME="$T/home"
export PRE_COMMIT_HOME="$T/cache"
export XDG_CACHE_HOME="$T/cache/xdg"
export GIT_CONFIG_NOSYSTEM=1
export PRE_COMMIT_COLOR=never
export NO_COLOR=1
export PATH="$T/bin:$PATH"
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY GIT_ALTERNATE_OBJECT_DIRECTORIES \
    GIT_AUTHOR_DATE GIT_COMMITTER_DATE SKIP PRE_COMMIT 2>/dev/null
git config --global user.name "oomlint test"
git config --global user.email "test@example.com"
git config --global commit.gpgsign false
git config --global init.defaultBranch main
git config --global protocol.file.allow always

# ---------------------------------------------------------------- the hook repository

HR="$T/hookrepo"
mkdir -p "$HR/src/integrations"
if [ -f "$ROOT/.pre-commit-hooks.yaml" ] && grep -q '^- *id: *oomlint *$' "$ROOT/.pre-commit-hooks.yaml"; then
    pass hooks-file
else
    fail hooks-file "no hook 'oomlint' in $ROOT/.pre-commit-hooks.yaml"
fi
if [ -x "$ROOT/src/integrations/pre-commit.sh" ]; then pass script-executable
else fail script-executable "src/integrations/pre-commit.sh is missing or not executable"; fi
cp "$ROOT/.pre-commit-hooks.yaml" "$HR/" 2>/dev/null
cp -p "$ROOT/src/integrations/pre-commit.sh" "$HR/src/integrations/" 2>/dev/null
(
    cd "$HR" && git init -q && git add -A &&
        git update-index --chmod=+x src/integrations/pre-commit.sh &&
        git commit -q -m "oomlint hooks"
) >"$T/hr.log" 2>&1
REV="$(git -C "$HR" rev-parse HEAD 2>/dev/null)"
if [ -n "$REV" ]; then pass hook-repo-commit; else fail hook-repo-commit "$(cat "$T/hr.log")"; fi

# ---------------------------------------------------------------- helpers

# new_project DIR CONFIG_TEXT : a git repository with that .pre-commit-config.yaml
# committed and the hook installed.
# Each project turns on the opt-in OOM201 and OOM202, whose shapes are these
# tests' findings and fixes, in its own [tool.oomlint] (read by the hook).
new_project() {
    mkdir -p "$1"
    printf '%s\n' "$2" >"$1/.pre-commit-config.yaml"
    printf '[tool.oomlint]\nextend-select = ["OOM201", "OOM202"]\n' >"$1/pyproject.toml"
    (cd "$1" && git init -q && git add .pre-commit-config.yaml pyproject.toml &&
        git commit -q --no-verify -m config && pre-commit install) >"$T/install.log" 2>&1
}

# commit DIR MESSAGE : `git commit` in DIR; output in $OUT (file $T/commit.log), status in $RC.
commit() {
    (cd "$1" && git commit -m "$2") >"$T/commit.log" 2>&1 </dev/null
    RC=$?
    OUT="$(cat "$T/commit.log")"
}

ncommits() { git -C "$1" rev-list --count HEAD 2>/dev/null; }

CUDA='import os
os.environ["CUDA_VISIBLE_DEVICES"] = "0"'
LOOP='def train(model, loader, criterion):
    losses = []
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        losses.append(loss)'

# ---------------------------------------------------------------- repo: <URL> (a local clone path)

P="$T/proj"
new_project "$P" "repos:
  - repo: $HR
    rev: $REV
    hooks:
      - id: oomlint"
if [ $? -eq 0 ] && [ -f "$P/.git/hooks/pre-commit" ]; then pass install
else fail install "$(cat "$T/install.log")"; fi

mkdir -p "$P/train"
printf '%s\n' "$CUDA" >"$P/train/bad.py"
git -C "$P" add train/bad.py
before="$(ncommits "$P")"
commit "$P" "add a bad file"
if [ "$RC" -ne 0 ]; then pass bad-commit-fails; else fail bad-commit-fails "git commit exited 0: $OUT"; fi
expect_contains bad-commit-shows-code "$OUT" "OOM101"
expect_contains bad-commit-shows-path "$OUT" "train/bad.py:2:1"
if [ "$(ncommits "$P")" = "$before" ]; then pass bad-commit-not-made
else fail bad-commit-not-made "a commit was made"; fi

# Replace it with a clean file.
git -C "$P" rm -q --cached train/bad.py
rm -f "$P/train/bad.py"
printf 'x = 1\nprint(x)\n' >"$P/train/good.py"
git -C "$P" add train/good.py
commit "$P" "a clean file"
if [ "$RC" -eq 0 ] && [ "$(ncommits "$P")" = $((before + 1)) ]; then pass clean-commit-passes
else fail clean-commit-passes "exit $RC: $OUT"; fi

# A commit with no Python or JSON: the hook is skipped.
printf 'notes\n' >"$P/README.txt"
printf 'import os\nos.environ["CUDA_VISIBLE_DEVICES"] = "0"\n' >"$P/notes.md"
git -C "$P" add README.txt notes.md
commit "$P" "docs only"
if [ "$RC" -eq 0 ]; then pass no-python-commit-passes; else fail no-python-commit-passes "exit $RC: $OUT"; fi
case "$OUT" in
    *oomlint*"no files to check"*Skipped*) pass no-python-commit-skipped ;;
    *) fail no-python-commit-skipped "want 'oomlint ... (no files to check)Skipped'; got: $OUT" ;;
esac

# JSON files are handed to the hook too (types_or: [python, json]): a JSON
# file that cannot be read is reported.
printf '\377\376\000\001' >"$P/cfg.json"
git -C "$P" add cfg.json
commit "$P" "a json file"
case "$OUT" in
    *cfg.json*) pass json-file-passed ;;
    *) fail json-file-passed "exit $RC; cfg.json not in the hook's output: $OUT" ;;
esac
git -C "$P" rm -q --cached cfg.json
rm -f "$P/cfg.json"

# Notebooks (pre-commit's `jupyter` type) are handed to the hook and linted
# as notebooks: the finding names its cell.
printf '{"cells": [{"cell_type": "markdown", "source": "# x"}, {"cell_type": "code", "source": ["!nvidia-smi\\n", "%%env CUDA_VISIBLE_DEVICES=0\\n"]}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}\n' >"$P/lab.ipynb"
git -C "$P" add lab.ipynb
commit "$P" "a notebook"
case "$OUT" in
    *"lab.ipynb:cell 2:2:1: OOM101"*) pass notebook-passed-and-linted-by-cell ;;
    *) fail notebook-passed-and-linted-by-cell "exit $RC; want lab.ipynb:cell 2:2:1: OOM101; got: $OUT" ;;
esac
git -C "$P" rm -q --cached lab.ipynb
rm -f "$P/lab.ipynb"

# --all-files: findings in committed files (committed with --no-verify).
printf '%s\n' "$LOOP" >"$P/train/loop.py"
mkdir -p "$P/sp ace"
printf '%s\n' "$CUDA" >"$P/sp ace/bad file.py"
git -C "$P" add -A
(cd "$P" && git commit -q --no-verify -m "bad, unchecked") >/dev/null 2>&1
(cd "$P" && pre-commit run --all-files) >"$T/all.log" 2>&1 </dev/null
RC=$?
OUT="$(cat "$T/all.log")"
if [ "$RC" -ne 0 ] && printf '%s' "$OUT" | grep -q 'OOM201'; then pass all-files-reports
else fail all-files-reports "exit $RC: $OUT"; fi
expect_contains all-files-names-every-file "$OUT" "train/loop.py:6:9: OOM201"
expect_contains spaced-path-reported "$OUT" "sp ace/bad file.py:2:1: OOM101"

# ---------------------------------------------------------------- repo: local, language: system

L="$T/local"
new_project "$L" "repos:
  - repo: local
    hooks:
      - id: oomlint
        name: oomlint
        entry: '$T/bin/oomlint'
        language: system
        types_or: [python, json]
        require_serial: true"
printf '%s\n' "$LOOP" >"$L/loop.py"
git -C "$L" add loop.py
commit "$L" "bad"
if [ "$RC" -ne 0 ]; then pass local-system-bad-commit-fails; else fail local-system-bad-commit-fails "exit 0: $OUT"; fi
expect_contains local-system-shows-finding "$OUT" "loop.py:6:9: OOM201"
git -C "$L" rm -q --cached loop.py
rm -f "$L/loop.py"
printf 'x = 1\n' >"$L/ok.py"
git -C "$L" add ok.py
commit "$L" "good"
expect_rc local-system-clean-commit-passes 0
printf '%s\n' "$CUDA" >"$L/later.py"
git -C "$L" add later.py
(cd "$L" && git commit -q --no-verify -m unchecked) >/dev/null 2>&1
(cd "$L" && pre-commit run --all-files) >"$T/all.log" 2>&1 </dev/null
RC=$?
OUT="$(cat "$T/all.log")"
if [ "$RC" -ne 0 ] && printf '%s' "$OUT" | grep -q 'later.py:2:1: OOM101'; then pass local-system-all-files
else fail local-system-all-files "exit $RC: $OUT"; fi

# The oomlint-system hook of the hook repository (the binary on PATH).
S="$T/sys"
new_project "$S" "repos:
  - repo: $HR
    rev: $REV
    hooks:
      - id: oomlint-system"
printf '%s\n' "$CUDA" >"$S/a.py"
git -C "$S" add a.py
commit "$S" "bad"
if [ "$RC" -ne 0 ] && printf '%s' "$OUT" | grep -q 'a.py:2:1: OOM101'; then pass oomlint-system-hook-from-repo
else fail oomlint-system-hook-from-repo "exit $RC: $OUT"; fi

# ---------------------------------------------------------------- the fixing hook

# oomlint-fix applies the safe fixes: pre-commit stops the commit because the
# hook changed a file, the fix is there to review and stage, and the next
# commit passes.
X="$T/fixing"
new_project "$X" "repos:
  - repo: $HR
    rev: $REV
    hooks:
      - id: oomlint-fix"
printf '%s\n' 'import torch.nn.functional as F' '' '' 'def train(model, loader, optimizer):' \
    '    running = 0.0' '    for x, y in loader:' '        loss = F.cross_entropy(model(x), y)' \
    '        loss.backward()' '        optimizer.step()' '        running += loss' \
    '    print(f"{running / len(loader):.3f}")' >"$X/train.py"
git -C "$X" add train.py
before="$(ncommits "$X")"
commit "$X" "a fixable file"
if [ "$RC" -ne 0 ] && [ "$(ncommits "$X")" = "$before" ]; then pass fix-hook-stops-the-commit
else fail fix-hook-stops-the-commit "exit $RC: $OUT"; fi
if grep -q 'running += loss.item()' "$X/train.py"; then pass fix-hook-fixes-the-file
else fail fix-hook-fixes-the-file "$(cat "$X/train.py")"; fi
expect_contains fix-hook-says-what-it-fixed "$OUT" "Fixed 1 problem in 1 file."
git -C "$X" add train.py
commit "$X" "the fixed file"
if [ "$RC" -eq 0 ] && [ "$(ncommits "$X")" = $((before + 1)) ]; then pass fix-hook-then-commits
else fail fix-hook-then-commits "exit $RC: $OUT"; fi

# ---------------------------------------------------------------- the hook script alone

# With no oomlint on PATH it runs build/oomlint beside its repository...
NOPATH="/usr/bin:/bin"
if PATH="$NOPATH" command -v oomlint >/dev/null 2>&1; then
    skip script-uses-build-dir "an oomlint is installed in /usr/bin or /bin"
    skip script-builds-with-make "an oomlint is installed in /usr/bin or /bin"
else
    F="$T/fake"
    mkdir -p "$F/src/integrations" "$F/build"
    cp -p "$ROOT/src/integrations/pre-commit.sh" "$F/src/integrations/"
    ln -s "$OOMLINT" "$F/build/oomlint"
    printf '%s\n' "$CUDA" >"$T/x.py"
    (cd "$T" && PATH="$NOPATH" sh "$F/src/integrations/pre-commit.sh" --format concise x.py) >"$T/s.log" 2>&1
    RC=$?
    if [ "$RC" -eq 1 ] && grep -q '^x.py:2:1: OOM101' "$T/s.log"; then pass script-uses-build-dir
    else fail script-uses-build-dir "exit $RC: $(cat "$T/s.log")"; fi

    # ...and builds it there with make when it is missing (a stand-in Makefile).
    F2="$T/fake2"
    mkdir -p "$F2/src/integrations"
    cp -p "$ROOT/src/integrations/pre-commit.sh" "$F2/src/integrations/"
    printf 'all:\n\t@echo compiling lots of things\n\tmkdir -p build\n\tln -s %s build/oomlint\n' "$OOMLINT" >"$F2/Makefile"
    if PATH="$NOPATH" command -v make >/dev/null 2>&1; then
        (cd "$T" && PATH="$NOPATH" sh "$F2/src/integrations/pre-commit.sh" --format concise x.py) >"$T/s.log" 2>"$T/s.err"
        RC=$?
        if [ "$RC" -eq 1 ] && grep -q '^x.py:2:1: OOM101' "$T/s.log" && [ -x "$F2/build/oomlint" ] &&
            ! grep -q 'compiling lots of things' "$T/s.log" "$T/s.err"; then
            pass script-builds-with-make
        else
            fail script-builds-with-make "exit $RC: $(cat "$T/s.log" "$T/s.err")"
        fi
    else
        skip script-builds-with-make "make is not in /usr/bin or /bin"
    fi
fi

exit 0
