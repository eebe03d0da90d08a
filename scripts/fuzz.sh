#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, clang with ASan + UBSan) in build-fuzz/ and runs each for
# SECONDS (default 60), one after another, then prints per target how many inputs it ran and
# whether it found anything. Exit status 1 when a target crashed (its input is in
# build-fuzz/artifacts/<target>/) or an input of fuzz/regressions/ fails again, 2 for a usage or
# build error.
#
#   scripts/fuzz.sh                 # every target, 60 s each
#   scripts/fuzz.sh 600 writer      # one target, 10 minutes
#   scripts/fuzz.sh --smoke         # CI: every target for 10 s, after replaying the regressions
#   scripts/fuzz.sh --keep-going 300 scan   # fork mode: record every crash, not just the first
#
# The work corpus of each target (build-fuzz/corpus/<target>/) is seeded from fuzz/seeds/<target>/
# and the demo cache in testdata/, and keeps what the fuzzer adds between runs. Inputs that once
# crashed a target belong in fuzz/regressions/<target>/: they are replayed before fuzzing and
# checked by the unit tests (tests/unit/fuzz/test_fuzz_regressions.cpp).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build="${SDSCPROV_FUZZ_BUILD_DIR:-$root/build-fuzz}"
all_targets=(scan handle origins bundle upstream writer spyre trace ideal)

usage() {
    sed -n '2,16p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
    exit 2
}

seconds=60
keep_going=0
targets=()
while (($#)); do
    case "$1" in
    --smoke) seconds=10 ;;
    --keep-going) keep_going=1 ;;
    -h | --help) usage ;;
    [0-9]*)
        [[ "$1" =~ ^[0-9]+$ && "$1" -gt 0 ]] || usage
        seconds=$1
        ;;
    *)
        [[ " ${all_targets[*]} " == *" $1 "* ]] || {
            echo "fuzz.sh: unknown target '$1' (targets: ${all_targets[*]})" >&2
            exit 2
        }
        targets+=("$1")
        ;;
    esac
    shift
done
((${#targets[@]})) || targets=("${all_targets[@]}")

command -v clang++ >/dev/null || {
    echo "fuzz.sh: clang++ not found (Debian: apt-get install clang)" >&2
    exit 2
}

# ---- Build ----------------------------------------------------------------------------------
mkdir -p "$build/logs"
if ! {
    cmake -S "$root" -B "$build" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DSDSCPROV_FUZZ=ON -DSDSCPROV_BUILD_TESTS=OFF >"$build/logs/configure.log" 2>&1 &&
        cmake --build "$build" -j "$(nproc)" --target fuzz-targets >"$build/logs/build.log" 2>&1
}; then
    echo "fuzz.sh: building the fuzz targets failed:" >&2
    tail -n 30 "$build/logs/configure.log" "$build/logs/build.log" >&2 2>/dev/null || true
    exit 2
fi

# ---- Seeds: per target, what fuzz/seeds/ and testdata/ hold of its format -------------------
testdata_seeds() {
    case "$1" in
    scan | writer) find "$root/testdata" -name 'sdsc_*.json' -type f ;;
    origins) find "$root/testdata" -name 'origins.json' -type f ;;
    bundle) find "$root/testdata" -name 'bundle.mlir' -type f ;;
    spyre) find "$root/testdata/spyre" -name '*.json' -type f ;;
    esac
}

seed_corpus() {
    local target=$1 corpus=$2 file name
    mkdir -p "$corpus"
    local dirs=("$root/fuzz/seeds/$target")
    [[ "$target" == writer ]] && dirs+=("$root/fuzz/seeds/scan")
    while IFS= read -r file; do
        name=${file#"$root"/}
        cp -f "$file" "$corpus/seed-${name//\//_}"
    done < <(find "${dirs[@]}" -type f 2>/dev/null; testdata_seeds "$target")
}

dict_of() {
    case "$1" in
    writer) echo "$root/fuzz/scan.dict" ;;
    *) echo "$root/fuzz/$1.dict" ;;
    esac
}

# ---- Run ------------------------------------------------------------------------------------
failed=0
summary=()
for target in "${targets[@]}"; do
    bin="$build/fuzz/fuzz_$target"
    corpus="$build/corpus/$target"
    artifacts="$build/artifacts/$target"
    log="$build/logs/$target.log"
    seed_corpus "$target" "$corpus"
    mkdir -p "$artifacts"

    # Inputs that crashed this target before: each must pass now.
    mapfile -t regressions < <(find "$root/fuzz/regressions/$target" -type f 2>/dev/null | sort)
    replay_log="$build/logs/$target.regressions.log"
    if ((${#regressions[@]})) && ! "$bin" "${regressions[@]}" >"$replay_log" 2>&1; then
        summary+=("$(printf '%-9s regressions FAIL (fuzz/regressions/%s; log: %s)' \
            "$target" "$target" "$replay_log")")
        failed=1
        continue
    fi

    echo "fuzz.sh: fuzz_$target for ${seconds}s ..."
    options=(-max_total_time="$seconds" -dict="$(dict_of "$target")" -max_len=65536 -timeout=25
        -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$artifacts/")
    if ((keep_going)); then
        options+=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
    fi
    before=$(find "$artifacts" -type f | wc -l)
    status=0
    "$bin" "${options[@]}" "$corpus" >"$log" 2>&1 || status=$?
    found=$(($(find "$artifacts" -type f | wc -l) - before))

    # Executions: the final stats, or in fork mode the last "#<runs>:" progress line.
    runs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
    [[ -n "$runs" ]] || runs=$(sed -n 's/^#\([0-9]*\)[: ].*/\1/p' "$log" | tail -n 1)
    if ((status != 0 || found > 0)); then
        failed=1
        newest=$(find "$artifacts" -type f -printf '%T@ %p\n' | sort -n | tail -n 1 |
            cut -d' ' -f2-)
        summary+=("$(printf '%-9s %12s runs  FOUND %d input(s), newest %s (exit %d; log: %s)' \
            "$target" "${runs:-?}" "$found" "${newest:-none}" "$status" "$log")")
    else
        summary+=("$(printf '%-9s %12s runs  nothing found' "$target" "${runs:-?}")")
    fi
done

echo
echo "fuzz.sh: ${seconds}s per target (corpora: $build/corpus, logs: $build/logs)"
printf '%s\n' "${summary[@]}"
exit "$failed"
