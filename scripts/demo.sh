#!/usr/bin/env bash
# The main job on the bundled demo: install what is missing, build (Release), report the
# provenance of the SimpleMLP demo kernel cache (testdata/demo), annotate
# a temporary copy of it from the compile's origins map, and show the coverage before and after.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/setup.sh"
bin="${SDSCPROV_BUILD_DIR:-$root/build}/sdscprov"
work=$(mktemp -d "${TMPDIR:-/tmp}/sdscprov-demo-XXXXXX")
trap 'rm -rf "$work"' EXIT
cp -r "$root/testdata/demo/inductor-spyre" "$work/"
cd "$work"

echo
echo "\$ sdscprov scan inductor-spyre            # before: the coverage column"
"$bin" scan inductor-spyre
echo
echo "\$ sdscprov annotate --origins origins.json inductor-spyre"
"$bin" annotate --origins "$root/testdata/demo/origins.json" inductor-spyre
echo
echo "\$ sdscprov scan inductor-spyre            # after"
"$bin" scan inductor-spyre
echo
# The page to look at (--format html): kept beside the build, since this copy goes away.
page="${SDSCPROV_BUILD_DIR:-$root/build}/provenance.html"
echo "\$ sdscprov scan --format html inductor-spyre > provenance.html"
"$bin" scan --format html inductor-spyre > "$page"
echo "the page: $page (open it in a browser)"
echo
echo "\$ head -20 inductor-spyre/sdsc_fused_addmm_linear_relu_0_q7k2m_x4/sdsc_2.json"
head -20 inductor-spyre/sdsc_fused_addmm_linear_relu_0_q7k2m_x4/sdsc_2.json
