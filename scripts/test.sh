#!/usr/bin/env bash
# The whole test suite: set-up (installs missing packages, builds Release), then ctest; then the
# same suite built with clang under AddressSanitizer and UndefinedBehaviorSanitizer (in
# build-sanitize/), and a 10-second smoke of each libFuzzer target (build-fuzz/).
# SDSCPROV_SKIP_SANITIZE=1 skips both for a quick local run. Arguments go to ctest (e.g. -R scan).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SDSCPROV_TEST_TOOLS=1 "$root/scripts/setup.sh"
(cd "${SDSCPROV_BUILD_DIR:-$root/build}" && ctest --output-on-failure -j "$(nproc)" "$@")

if [ "${SDSCPROV_SKIP_SANITIZE:-0}" = 1 ]; then
    exit 0
fi
sanitize_dir=${SDSCPROV_SANITIZE_BUILD_DIR:-$root/build-sanitize}
if [ ! -f "$sanitize_dir/CMakeCache.txt" ]; then
    CC=clang CXX=clang++ cmake -S "$root" -B "$sanitize_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DSDSCPROV_SANITIZE=ON >/dev/null
fi
cmake --build "$sanitize_dir" -j "$(nproc)" >/dev/null
echo "test: the suite again, built with clang -fsanitize=address,undefined" >&2
cd "$sanitize_dir"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --output-on-failure -j "$(nproc)" "$@"

# A short smoke of every libFuzzer target (10 s each, after replaying fuzz/regressions/).
cd "$root"
./scripts/fuzz.sh --smoke
