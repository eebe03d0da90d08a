#!/usr/bin/env bash
# Scan benchmark (issue: scan speed): builds Release, generates a 10,000-file cache once, and
# prints sdscprov scan side by side with the bare read + simdjson DOM loop (the limit) and the
# Python audit-style script. Options: --files N, --runs R, --jobs J, --rss-files 100000.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/setup.sh" >/dev/null
exec python3 "$root/scripts/bench.py" scan "$@"
