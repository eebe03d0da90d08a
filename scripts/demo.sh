#!/usr/bin/env bash
# The main job on the bundled demo: install what is missing, build (Release), then report the
# provenance of the SimpleMLP demo kernel cache (testdata/demo, the compile of the audit).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/setup.sh"
bin="${SDSCPROV_BUILD_DIR:-$root/build}/sdscprov"
cd "$root"
echo
echo "\$ sdscprov scan testdata/demo"
"$bin" scan testdata/demo
