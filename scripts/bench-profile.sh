#!/usr/bin/env bash
# Profile benchmark: builds Release, generates a 1 GB trace (with its cache and sidecar) once in
# $SDSCPROV_BENCH_DIR (default /tmp/sdscprov-bench), and prints sdscprov profile side by side with
# the bare read + simdjson DOM parse of the same file (the limit) and the obvious Python script
# (json.load + loops), with peak memory. Options: --bytes B, --runs R, --py-runs P, --gzip.
# It needs about 2 GB of disk (4 GB with --gzip) and, for the Python run, about 12 GB of memory.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${SDSCPROV_BUILD_DIR:-$root/build}
"$root/scripts/setup.sh" >/dev/null
cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build_dir" -j "$(nproc)" >/dev/null
SDSCPROV_BUILD_DIR=$build_dir exec python3 "$root/scripts/bench.py" profile "$@"
