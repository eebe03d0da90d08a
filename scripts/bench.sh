#!/usr/bin/env bash
# The benchmark table (README, "Speed"): builds Release, generates caches of N and 10 N files
# (default N = 10,000; kept in $SDSCPROV_BENCH_DIR, default /tmp/sdscprov-bench, for the next run)
# and prints one table of ratios, each command side by side with its baseline in this run:
# scan vs the read + simdjson DOM limit and vs the Python audit script; annotate (durability none
# and batch) vs cp -r (and sync), and vs the Python load/insert/dump script; strip vs cp -r; scan's
# time per file at 10 N vs N files; peak RSS of scan and annotate at 10 N files.
# Options: --files N, --runs R, --py-runs P, --big-runs B, --jobs J (default 2), --before BINARY
# (another build's sdscprov, e.g. main's: every sdscprov row is run with it too, in the same
# interleaving, and printed in a last column; default $SDSCPROV_BEFORE).
# At the default size it needs about 10 GB of disk and several minutes: run it on a quiet machine.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${SDSCPROV_BUILD_DIR:-$root/build}
"$root/scripts/setup.sh" >/dev/null
# setup.sh configures Release only on a fresh build directory: make sure of it here.
cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build_dir" -j "$(nproc)" >/dev/null
SDSCPROV_BUILD_DIR=$build_dir exec python3 "$root/scripts/bench.py" table "$@"
