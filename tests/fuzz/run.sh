#!/bin/sh
# Runs each libFuzzer target for SECONDS on a corpus seeded from the fixtures
# and the rules; a crash, leak or timeout leaves its input in build/fuzz/ and
# fails the run. Prints executions and coverage per target.
set -u
cd "$(dirname "$0")/../.."
SECONDS_EACH="$1"; shift
status=0
seed() { # seed TARGET DIR
    mkdir -p "$2"
    case "$1" in
    python) find fixtures -name '*.py' -exec cp {} "$2"/ \; ;;
    fix) find fixtures/fix fixtures/realistic -name '*.py' -exec cp {} "$2"/ \; ;;
    json) find fixtures -name '*.json' -exec cp {} "$2"/ \; 2>/dev/null
          printf '{"zero_optimization": {"stage": 3}, "train_micro_batch_size_per_gpu": "auto"}' > "$2/ds.json" ;;
    yaml) find fixtures -name '*.yml' -exec cp {} "$2"/ \; 2>/dev/null; find fixtures -name '*.yaml' -exec cp {} "$2"/ \; 2>/dev/null
          printf 'a: &a [x, x]\nb: &b [*a, *a]\n<<: *c\nbase_model: gpt2\nbf16: *b\n---\ntrainer: {precision: bf16-mixed}\n' > "$2/anchors.yaml" ;;
    toml) printf '[tool.oomlint]\ngpu = "a100-80gb"\nselect = ["OOM2"]\n[tool.oomlint.per-file-ignores]\n"tests/*" = ["OOM301"]\n' > "$2/pyproject.toml" ;;
    suppress) printf '# noqa: OOM201,OOM202' > "$2/a"; printf '# oomlint: disable-file=OOM2' > "$2/b"
              printf '# type: ignore  # noqa' > "$2/c"; printf '# oomlint: disable=OOM101' > "$2/d" ;;
    rule) for d in rules/python/*/; do
              { cat "$d/rule.json"; printf '\000'; cat "$d/query.scm"; } > "$2/$(basename "$d")"
          done ;;
    match) for d in rules/python/*/; do cp "$d/query.scm" "$2/$(basename "$d").scm"; done ;;
    rpc) cp fixtures/fuzz/rpc/* "$2"/ ;;
    notebook) find fixtures -name '*.ipynb' -exec cp {} "$2"/ \;
              printf '%%%%time\nfor x in y:\n    !echo {x}\n    l.append(x)\n' > "$2/cell-time"
              printf 'if a:\n    %%env CUDA_VISIBLE_DEVICES=0  # noqa\ns = """\n!ls\n"""\nf = !ls \\\n  -la\nx?\n' > "$2/cell-mixed" ;;
    esac
}
for t in "$@"; do
    corpus="build/fuzz/corpus/$t"
    [ -d "$corpus" ] || seed "$t" "$corpus"
    [ -d "fixtures/fuzz/$t" ] && cp fixtures/fuzz/$t/* "$corpus"/
    echo "== fuzz_$t for ${SECONDS_EACH}s"
    log="build/fuzz/fuzz_$t.log"
    LSAN_OPTIONS="suppressions=tests/fuzz/lsan.supp" build/fuzz/fuzz_$t -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 \
        -max_len=65536 -artifact_prefix="build/fuzz/crash-$t-" -print_final_stats=1 "$corpus" \
        > "$log" 2>&1
    rc=$?
    grep -E "^stat::number_of_executed_units|^#[0-9]+.*DONE|cov:" "$log" | tail -2
    if [ $rc -ne 0 ]; then
        echo "fuzz_$t FAILED (exit $rc); see $log"
        grep -E "ERROR|SUMMARY" "$log" | head -5
        status=1
    fi
done
exit $status
