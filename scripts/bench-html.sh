#!/usr/bin/env bash
# Benchmark (not a test): the HTML pages of a large cache and of a large trace, opened in headless
# Chromium. For each page: the seconds to write it, its size, and the time from navigation to the
# page's first render as the page itself measures it (performance.now() when its script has drawn
# the lists): the best of two writes and of five openings, the pages opened in turn so that both
# binaries see the same machine. Target: under 3 s for a 100,000-file cache.
#   scripts/bench-html.sh [--vs OTHER_SDSCPROV] [FILES] [TRACE_BYTES]
# FILES (default 100000) is the scan page's cache (scripts/gen_cache.py); TRACE_BYTES (default
# 0: no profile page) the profile page's trace (scripts/gen_trace.py --files FILES/5
# --target-bytes). With --vs, the same pages from another binary are measured in the same run,
# side by side, with the ratio (this build / the other). Needs chromium and python3-websocket.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
other=""
if [[ "${1:-}" == "--vs" ]]; then
    other=$(realpath "$2")
    shift 2
fi
files=${1:-100000}
trace_bytes=${2:-0}
bin="${SDSCPROV_BUILD_DIR:-$root/build}/sdscprov"
work=$(mktemp -d "${TMPDIR:-/tmp}/sdscprov-bench-html-XXXXXX")
trap 'rm -rf "$work"' EXIT
python3 "$root/scripts/gen_cache.py" "$work/cache" --files "$files" --jobs "$(nproc)" >&2
if [[ "$trace_bytes" != 0 ]]; then
    python3 "$root/scripts/gen_trace.py" "$work/trace" --files $((files / 5)) \
        --target-bytes "$trace_bytes" >&2
fi

# write BIN NAME ARGS...: the page NAME.html written by BIN, twice; prints "seconds KiB" (the
# faster write).
write() {
    local b=$1 name=$2
    shift 2
    local start end times=""
    for _ in 1 2; do
        start=$(date +%s.%N)
        "$b" "$@" --format html > "$work/$name.html" || [[ $? == 1 ]]
        end=$(date +%s.%N)
        times+="$(echo "$end - $start" | bc)"$'\n'
    done
    echo "$(sort -g <<< "${times%$'\n'}" | head -n 1) $(($(stat -c %s "$work/$name.html") / 1024))"
}

pages=()
for side in this other; do
    b=$bin
    if [[ $side == other ]]; then
        [[ -n "$other" ]] || continue
        b=$other
    fi
    pages+=("$side scan $(write "$b" "$side-scan" scan "$work/cache")")
    if [[ "$trace_bytes" != 0 ]]; then
        pages+=("$side profile $(write "$b" "$side-profile" profile "$work/trace/trace.json" \
            "$work/trace/cache" --origins "$work/trace/spyre_provenance.json")")
    fi
done

python3 - "$root/scripts" "$work" "$files" "${pages[@]}" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from html_browser import Browser
work, files, pages = sys.argv[2], sys.argv[3], sys.argv[4:]
results, runs = {}, {entry: [] for entry in pages}
with Browser() as b:
    for _ in range(5):
        for entry in pages:
            side, page = entry.split()[:2]
            runs[entry].append(b.open(f'{work}/{side}-{page}.html', ready_timeout=120))
            assert not b.errors and not b.requests, (b.errors, b.requests)
    for entry in pages:
        side, page, written, kib = entry.split()
        times = runs[entry]
        results[side, page] = (float(written), int(kib), min(times))
        print(f"bench-html: {side:5s} {page:7s} ({files} files): written in {float(written):.2f} s, "
              f"{int(kib)} KiB; first render {', '.join(f'{t:.2f}' for t in times)} s "
              f"(best {min(times):.2f} s)")
for (side, page), (written, kib, render) in results.items():
    if side == 'this' and ('other', page) in results:
        w, k, r = results['other', page]
        print(f"bench-html: {page:7s} this / other: written {written / w:.2f}x, size {kib / k:.2f}x, "
              f"first render {render / r:.2f}x")
PY
