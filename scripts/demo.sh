#!/usr/bin/env bash
# The main job on the bundled demo: install what is missing, build the binary (Release), then on
# a temporary copy of the SimpleMLP demo kernel cache (testdata/demo): the coverage before,
# annotate from the compile's origins map, the coverage after and the gate, one kernel explained
# op by op, and the profiler trace of a run joined to the model's source lines (the compile ran
# the model as /workspace/simple_mlp.py: --source-map reads the copy shipped here). Ends with the
# two pages to open.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/setup.sh" sdscprov
build="${SDSCPROV_BUILD_DIR:-$root/build}"
bin="$build/sdscprov"
work=$(mktemp -d "${TMPDIR:-/tmp}/sdscprov-demo-XXXXXX")
trap 'rm -rf "$work"' EXIT
cp -r "$root/testdata/demo/." "$work/"
cd "$work"

show() { # the command as typed, then its output
    echo
    echo "\$ $*"
    "$@"
}
sdscprov() { "$bin" "$@"; }

show sdscprov scan inductor-spyre                       # before: every file lacks its handle
show sdscprov annotate --origins origins.json inductor-spyre
show sdscprov scan inductor-spyre                       # after: debug_handle_ "all"
show sdscprov check inductor-spyre                      # the gate: exit 0
show sdscprov explain sdsc_fused_addmm_linear_relu_0 inductor-spyre --source-map /workspace=.
show sdscprov profile trace.json inductor-spyre --source-map /workspace=.
# The pages (--format html), kept beside the build, since this copy goes away.
echo
echo "\$ sdscprov scan --format html inductor-spyre > provenance.html"
sdscprov scan --format html inductor-spyre > "$build/provenance.html"
echo "\$ sdscprov profile --format html trace.json inductor-spyre --source-map /workspace=. > profile.html"
sdscprov profile --format html trace.json inductor-spyre --source-map /workspace=. > "$build/profile.html"
echo
echo "the pages to open in a browser:"
echo "  $build/provenance.html   (provenance: every kernel, op by op)"
echo "  $build/profile.html   (device time by model source line, worst first)"
