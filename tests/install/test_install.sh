#!/usr/bin/env bash
# Installs a build tree into a temporary prefix, then configures, builds and runs a tiny consumer
# (consumer/) against the installed CMake package: find_package(sdscprov) + sdscprov::sdscprov.
# Usage: test_install.sh <build dir> <source dir>
set -euo pipefail
build_dir=$(cd "${1:?usage: test_install.sh <build dir> <source dir>}" && pwd)
source_dir=$(cd "${2:?usage: test_install.sh <build dir> <source dir>}" && pwd)

tmp=$(mktemp -d "${TMPDIR:-/tmp}/sdscprov-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix

fail() {
    echo "test_install: $*" >&2
    exit 1
}

# The build tree's own settings, so that the consumer is built the way the library was.
cache_value() {
    sed -n "s/^$1:[A-Z]*=//p" "$build_dir/CMakeCache.txt"
}
compiler=$(cache_value CMAKE_CXX_COMPILER)
build_type=$(cache_value CMAKE_BUILD_TYPE)

cmake --install "$build_dir" --prefix "$prefix"

for f in bin/sdscprov include/sdscprov/sdsc/scan.hpp include/sdscprov/walk/discover.hpp include/sdscprov/core/problem.hpp; do
    [ -f "$prefix/$f" ] || fail "$f is not installed"
done
[ -x "$prefix/bin/sdscprov" ] || fail "bin/sdscprov is not executable"
config=$(find "$prefix" -name sdscprovConfig.cmake -print -quit)
[ -n "$config" ] || fail "sdscprovConfig.cmake is not installed"
for f in sdscprovConfigVersion.cmake sdscprovTargets.cmake; do
    [ -f "$(dirname "$config")/$f" ] || fail "$f is not installed beside sdscprovConfig.cmake"
done

# The man page: one section per command, rendered by man itself.
man_page=$prefix/share/man/man1/sdscprov.1
[ -f "$man_page" ] || fail "share/man/man1/sdscprov.1 is not installed"
rendered=$(MANWIDTH=100 man -l "$man_page" 2>&1) || fail "man -l failed:"$'\n'"$rendered"
for command in scan annotate strip explain check merge profile completion; do
    grep -q "^SDSCPROV ${command^^}\$" <<<"$rendered" || fail "the man page has no section for '$command'"
done
grep -q -- "--origins" <<<"$rendered" || fail "the man page lists no options"
# Bash completion: a command from a prefix, an option, an option's values.
completion=$prefix/share/bash-completion/completions/sdscprov
[ -f "$completion" ] || fail "the bash completion is not installed"
complete_words() {
    bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _sdscprov; echo "${COMPREPLY[*]}"' _ "$completion" "$@"
}
[ "$(complete_words sdscprov sc)" = "scan" ] || fail "'sdscprov sc<TAB>' gives '$(complete_words sdscprov sc)'"
[ "$(complete_words sdscprov annotate --dr)" = "--dry-run" ] || fail "'annotate --dr<TAB>' gives '$(complete_words sdscprov annotate --dr)'"
[ "$(complete_words sdscprov check --format s)" = "sarif" ] || fail "'check --format s<TAB>' gives '$(complete_words sdscprov check --format s)'"
for f in share/zsh/site-functions/_sdscprov share/fish/vendor_completions.d/sdscprov.fish \
    share/doc/sdscprov/README.md share/doc/sdscprov/CHANGELOG.md share/doc/sdscprov/docs/usage.md; do
    [ -f "$prefix/$f" ] || fail "$f is not installed"
done
# The docs/ pages that --help and the man page name are installed where the man page says.
for page in $(grep -o 'docs/[a-z-]*\.md' <<<"$rendered" | sort -u); do
    [ -f "$prefix/share/doc/sdscprov/$page" ] || fail "the man page names $page, not installed"
done
echo "test_install: man page, completions and docs ok"

consumer_build=$tmp/consumer-build
cmake -S "$source_dir/tests/install/consumer" -B "$consumer_build" \
    -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF \
    -DCMAKE_CXX_COMPILER="$compiler" \
    -DCMAKE_BUILD_TYPE="$build_type"
found=$(sed -n 's/^sdscprov_DIR:[A-Z]*=//p' "$consumer_build/CMakeCache.txt")
case "$found" in
"$prefix"/*) ;;
*) fail "the consumer found sdscprov in '$found', not in the temporary prefix" ;;
esac
cmake --build "$consumer_build" -j 2

output=$("$consumer_build/consumer") || fail "the consumer failed:"$'\n'"$output"
echo "$output"
version=$("$prefix/bin/sdscprov" --version) || fail "bin/sdscprov --version failed"
echo "$version"
expected="name: sdsc_N 3
scan: ok 3_add populated 8249498605557491263 problems=0
version: ${version#sdscprov }"
[ "$output" = "$expected" ] || fail "unexpected consumer output; expected:"$'\n'"$expected"
echo "test_install: ok"
