#!/usr/bin/env bash
# The whole test suite: set-up (installs missing packages, builds Release), then ctest.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SDSCPROV_TEST_TOOLS=1 "$root/scripts/setup.sh"
cd "${SDSCPROV_BUILD_DIR:-$root/build}"
ctest --output-on-failure -j "$(nproc)" "$@"
