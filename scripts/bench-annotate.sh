#!/usr/bin/env bash
# Annotate benchmark: builds Release, generates a 10,000-file cache without handles (and its
# origins map) once, and prints, side by side: annotate --durability none vs cp -r, annotate
# (default durability) vs cp -r && sync, the Python load/insert/dump script vs annotate, and the
# file system's floor (sdscprov-bench-write-floor: read, insert, write a temporary, rename).
# Options: --files N, --runs R, --jobs J. The cache lives in $SDSCPROV_BENCH_DIR (default
# /tmp/sdscprov-bench); SDSCPROV_BENCH_DIR=/dev/shm/sdscprov-bench measures on tmpfs.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/setup.sh" >/dev/null
exec python3 "$root/scripts/bench.py" annotate "$@"
