#!/bin/sh
# The shell step of the oomlint GitHub Action (action.yml). It also runs
# outside GitHub: the test suite runs it with the GITHUB_* variables pointing at
# temporary files.
#
# Inputs, as environment variables (action.yml sets them from `with:`):
#   INPUT_PATHS       files or folders to lint, separated by blanks, or one per
#                     line when a path has blanks (default: .)
#   INPUT_ARGS        more oomlint arguments (split on blanks)
#   INPUT_GPU         passed as --gpu when this oomlint has that option
#   INPUT_DIFF_BASE   git ref: report only lines changed since it; empty: the
#                     pull request's base (origin/$GITHUB_BASE_REF) in a pull
#                     request, else everything; "none": everything
#   INPUT_FAIL_ON     error, warning or info (default: any finding fails)
#   INPUT_SARIF_FILE  also write a SARIF report of every finding there
#                     (for github/codeql-action/upload-sarif)
# Environment:
#   OOMLINT            the oomlint binary to run (default: build it here)
#   OOMLINT_SKIP_BUILD=1  install nothing and build nothing: use $OOMLINT,
#                      else `oomlint` on PATH, else build/oomlint here
#   GITHUB_WORKSPACE   where to lint from (default: the current directory)
#   GITHUB_STEP_SUMMARY, GITHUB_OUTPUT  written when set (outputs:
#                      exit-code, sarif-file, binary)
# Exit status: oomlint's (0 clean, 1 findings, 2 the run failed).
set -u

action_dir="$(CDPATH='' cd -- "$(dirname -- "$0")/../.." && pwd -P)" || exit 2

log() { printf 'oomlint-action: %s\n' "$*" >&2; }

sudo_cmd() {
    if [ "$(id -u)" -eq 0 ]; then "$@"
    elif command -v sudo >/dev/null 2>&1; then sudo "$@"
    else log "need root to run: $*"; return 1; fi
}

# Build dependencies (Debian/Ubuntu runners): only those missing. npm fetches
# the pinned tree-sitter sources during make.
install_deps() {
    need=""
    command -v cc >/dev/null 2>&1 || need="$need gcc"
    command -v make >/dev/null 2>&1 || need="$need make"
    command -v pkg-config >/dev/null 2>&1 || need="$need pkg-config"
    command -v npm >/dev/null 2>&1 || need="$need npm"
    if command -v pkg-config >/dev/null 2>&1; then
        pkg-config --exists libcjson 2>/dev/null || need="$need libcjson-dev"
        pkg-config --exists libpcre2-8 2>/dev/null || need="$need libpcre2-dev"
    else
        need="$need libcjson-dev libpcre2-dev"
    fi
    [ -z "$need" ] && return 0
    if ! command -v apt-get >/dev/null 2>&1; then
        log "please install:$need"
        return 1
    fi
    log "installing:$need"
    sudo_cmd apt-get update -qq &&
        sudo_cmd env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need
}

build() {
    echo "::group::Build oomlint"
    install_deps || { echo "::endgroup::"; return 1; }
    make -C "$action_dir" -j"$(nproc 2>/dev/null || echo 2)"
    rc=$?
    echo "::endgroup::"
    return $rc
}

# ------------------------------------------------------------ the binary
bin="${OOMLINT:-}"
if [ -n "$bin" ]; then
    case "$bin" in
        */*) bin="$(CDPATH='' cd -- "$(dirname -- "$bin")" && pwd -P)/$(basename -- "$bin")" ;;
    esac
elif [ "${OOMLINT_SKIP_BUILD:-0}" = 1 ]; then
    if command -v oomlint >/dev/null 2>&1; then bin=oomlint
    else bin="$action_dir/build/oomlint"; fi
else
    build || { log "building oomlint failed"; exit 2; }
    bin="$action_dir/build/oomlint"
fi
if ! command -v "$bin" >/dev/null 2>&1; then
    log "no oomlint binary at '$bin'"
    exit 2
fi

cd "${GITHUB_WORKSPACE:-.}" || exit 2

# ------------------------------------------------------------ arguments
# diff-base: explicit, else the pull request's base branch.
base="${INPUT_DIFF_BASE:-}"
if [ -z "$base" ] && [ -n "${GITHUB_BASE_REF:-}" ]; then
    base="origin/$GITHUB_BASE_REF"
fi
case "$base" in none | false | off) base="" ;; esac

if [ -n "$base" ]; then
    # actions/checkout fetches one commit by default: get the base branch and
    # enough history for the merge base when they are missing.
    if ! git rev-parse -q --verify "$base^{commit}" >/dev/null 2>&1; then
        case "$base" in
            origin/*)
                log "fetching ${base#origin/} from origin"
                git fetch -q --no-tags origin "+refs/heads/${base#origin/}:refs/remotes/$base" >&2 || true ;;
        esac
    fi
    if ! git merge-base "$base" HEAD >/dev/null 2>&1 &&
        [ "$(git rev-parse --is-shallow-repository 2>/dev/null)" = true ]; then
        log "fetching the history needed for the merge base with $base"
        git fetch -q --no-tags --unshallow origin >&2 || true
    fi
fi

# The argument list, built in "$@" without eval: the paths first (one per
# line when the input has several lines, else split on blanks), then the
# options are appended and the paths rotated to the end, after "--".
set -f  # no globbing while splitting the inputs
nl='
'
case "${INPUT_PATHS:-}" in
    *"$nl"*) old_ifs="$IFS"; IFS="$nl"; set -- ${INPUT_PATHS}; IFS="$old_ifs" ;;
    *[![:space:]]*) set -- ${INPUT_PATHS} ;;
    *) set -- ;;
esac
n=$#
while [ "$n" -gt 0 ]; do  # drop blank lines of a multi-line list
    p="$1"; shift; n=$((n - 1))
    case "$p" in *[![:space:]]*) set -- "$@" "$p" ;; esac
done
[ $# -gt 0 ] || set -- .
npaths=$#

for a in ${INPUT_ARGS:-}; do set -- "$@" "$a"; done
if [ -n "${INPUT_FAIL_ON:-}" ]; then set -- "$@" --fail-on "$INPUT_FAIL_ON"; fi
if [ -n "${INPUT_GPU:-}" ]; then
    if "$bin" --help 2>/dev/null | grep -q -- '--gpu'; then
        set -- "$@" --gpu "$INPUT_GPU"
    else
        log "this oomlint has no --gpu option; the gpu input ($INPUT_GPU) is ignored"
    fi
fi
set -- "$@" --
while [ "$npaths" -gt 0 ]; do
    p="$1"; shift; set -- "$@" "$p"; npaths=$((npaths - 1))
done
set +f

# ------------------------------------------------------------ run
# Annotations on stdout; oomlint appends the step summary itself.
"$bin" ${base:+--diff-base} ${base:+"$base"} --format github "$@"
rc=$?

# SARIF for code scanning: every finding (code scanning compares a pull
# request with its base itself), never failing the step on findings.
if [ -n "${INPUT_SARIF_FILE:-}" ] && [ "$rc" -ne 2 ]; then
    mkdir -p -- "$(dirname -- "$INPUT_SARIF_FILE")" || exit 2
    if ! "$bin" --format sarif --quiet --exit-zero --output-file "$INPUT_SARIF_FILE" "$@"; then
        log "writing the SARIF report to $INPUT_SARIF_FILE failed"
        rc=2
    fi
fi

if [ -n "${GITHUB_OUTPUT:-}" ]; then
    {
        echo "exit-code=$rc"
        echo "binary=$(command -v "$bin")"
        [ -n "${INPUT_SARIF_FILE:-}" ] && echo "sarif-file=$INPUT_SARIF_FILE"
    } >>"$GITHUB_OUTPUT"
fi
exit "$rc"
