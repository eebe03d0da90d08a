#!/usr/bin/env bash
# Benchmark (not a test): the HTML page of a 100,000-file cache (scripts/gen_cache.py) opened in
# headless Chromium, and the time from navigation to the page's first render as the page itself
# measures it (performance.now() when its script has drawn the lists). Target: under 3 s.
#   scripts/bench-html.sh [FILES]   (default 100000; needs chromium and python3-websocket)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
files=${1:-100000}
bin="${SDSCPROV_BUILD_DIR:-$root/build}/sdscprov"
work=$(mktemp -d "${TMPDIR:-/tmp}/sdscprov-bench-html-XXXXXX")
trap 'rm -rf "$work"' EXIT
python3 "$root/scripts/gen_cache.py" "$work/cache" --files "$files" --jobs "$(nproc)" >&2
start=$(date +%s.%N)
"$bin" scan --format html "$work/cache" > "$work/page.html"
end=$(date +%s.%N)
echo "bench-html: $files files: page written in $(echo "$end - $start" | bc) s, $(($(stat -c %s "$work/page.html") / 1024)) KiB"
python3 - "$root/scripts" "$work/page.html" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from html_browser import Browser
with Browser() as b:
    runs = [b.open(sys.argv[2], ready_timeout=120) for _ in range(3)]
    assert not b.errors and not b.requests, (b.errors, b.requests)
    rows = b.eval("document.querySelectorAll('.row').length")
    kernels = b.eval("document.getElementById('kernel-count').textContent")
    times = ', '.join(f'{t:.2f}' for t in runs)
    print(f"bench-html: first render {times} s (best {min(runs):.2f} s; target < 3 s), "
          f"{rows} rows in the DOM, {kernels}")
PY
