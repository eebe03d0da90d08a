#!/usr/bin/env bash
# Annotate benchmark: builds Release, generates a 10,000-file cache without handles (and its
# origins map) once, and prints, side by side: annotate --durability none vs cp -r, annotate
# (default durability) vs cp -r && sync, and the Python load/insert/dump script vs annotate.
# Options: --files N, --runs R, --jobs J.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/setup.sh" >/dev/null
exec python3 "$root/scripts/bench.py" annotate "$@"
