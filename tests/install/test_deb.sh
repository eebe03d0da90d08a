#!/usr/bin/env bash
# The Debian packages as a user gets them: `cpack -G DEB` from the build tree the tests ran in;
# their metadata and contents checked with dpkg-deb (Depends against the libraries the binary
# really links: every one's package named, none written by hand); both unpacked into a scratch
# root, where `sdscprov --version` runs and `man sdscprov` renders.
# Usage: test_deb.sh <build dir> <source dir>. Exit 77 (skipped) in a build tree that is not a
# plain Release one (the sanitizer suite's): packages are made from Release builds only.
set -euo pipefail
build_dir=$(cd "${1:?usage: test_deb.sh <build dir> <source dir>}" && pwd)
source_dir=$(cd "${2:?usage: test_deb.sh <build dir> <source dir>}" && pwd)

fail() {
    echo "test_deb: $*" >&2
    exit 1
}
cache_value() {
    sed -n "s/^$1:[A-Z]*=//p" "$build_dir/CMakeCache.txt"
}
if [ "$(cache_value CMAKE_BUILD_TYPE)" != Release ] || [ "$(cache_value SDSCPROV_SANITIZE)" = ON ]; then
    echo "test_deb: skipped: the packages are made from plain Release build trees only"
    exit 77
fi
for tool in cpack dpkg-deb dpkg-shlibdeps man; do
    command -v "$tool" >/dev/null || fail "$tool is not installed (scripts/setup.sh installs dpkg-dev and man-db)"
done
version=$(sed -n 's/^project(sdscprov VERSION \([0-9.]*\).*/\1/p' "$source_dir/CMakeLists.txt")
[ -n "$version" ] || fail "no project version in CMakeLists.txt"
arch=$(dpkg --print-architecture)

tmp=$(mktemp -d "${TMPDIR:-/tmp}/sdscprov-deb.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
start=$SECONDS
cpack -G DEB --config "$build_dir/CPackConfig.cmake" -B "$tmp/out" >"$tmp/cpack.log" 2>&1 ||
    fail "cpack failed:"$'\n'"$(tail -30 "$tmp/cpack.log")"
deb=$tmp/out/sdscprov_${version}_${arch}.deb
dev=$tmp/out/sdscprov-dev_${version}_${arch}.deb
[ -f "$deb" ] && [ -f "$dev" ] || fail "expected sdscprov and sdscprov-dev ${version}, got: $(ls "$tmp/out")"

field() { dpkg-deb -f "$1" "$2"; }
[ "$(field "$deb" Package)" = sdscprov ] || fail "Package is $(field "$deb" Package)"
[ "$(field "$deb" Version)" = "$version" ] || fail "Version is $(field "$deb" Version), the project is $version"
[ "$(field "$deb" Architecture)" = "$arch" ] || fail "Architecture is $(field "$deb" Architecture)"
[ -n "$(field "$deb" Maintainer)" ] && [ -n "$(field "$deb" Description)" ] || fail "no Maintainer or Description"

# Depends: the package of every shared library the binary links (readelf's NEEDED, resolved by
# the dynamic linker's cache, owned as dpkg says) is named, with a version from its symbols.
depends=$(field "$deb" Depends)
needed=$(readelf -d "$build_dir/sdscprov" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
[ -n "$needed" ] || fail "readelf found no NEEDED library in the binary"
linker_cache=$(ldconfig -p)
for lib in $needed; do
    path=$(awk -v lib="$lib" '$1 == lib && $NF ~ /^\// && !found {print $NF; found = 1}' <<<"$linker_cache")
    [ -n "$path" ] || fail "the dynamic linker knows no $lib"
    owner=$(dpkg-query -S "$(readlink -f "$path")" 2>/dev/null || dpkg-query -S "$path" 2>/dev/null) ||
        fail "no package owns $path"
    owner=${owner%%:*}
    named=0
    IFS=',' read -ra entries <<<"$depends"
    for entry in "${entries[@]}"; do
        entry=${entry# }
        [[ $entry == "$owner (>= "*")" ]] && named=1
    done
    [ "$named" = 1 ] || fail "Depends lacks $owner with a version (for $lib): $depends"
done
for lib in libsimdjson libssl liburing zlib1g; do
    grep -q "$lib" <<<"$depends" || fail "Depends names no $lib: $depends"
done
echo "test_deb: Depends: $depends"

contents=$(dpkg-deb -c "$deb" | awk '{print $NF}')
for f in ./usr/bin/sdscprov ./usr/share/man/man1/sdscprov.1 \
    ./usr/share/bash-completion/completions/sdscprov ./usr/share/zsh/vendor-completions/_sdscprov \
    ./usr/share/fish/vendor_completions.d/sdscprov.fish ./usr/share/doc/sdscprov/README.md \
    ./usr/share/doc/sdscprov/CHANGELOG.md ./usr/share/doc/sdscprov/docs/usage.md; do
    grep -qx -- "$f" <<<"$contents" || fail "the sdscprov package has no $f"
done
grep -q include/ <<<"$contents" && fail "the sdscprov package holds headers (they belong to -dev)"
grep -q '^-rwxr-xr-x root/root .* \./usr/bin/sdscprov$' <<<"$(dpkg-deb -c "$deb")" ||
    fail "usr/bin/sdscprov is not an executable owned by root"

[ "$(field "$dev" Package)" = sdscprov-dev ] || fail "the -dev package is $(field "$dev" Package)"
dev_depends=$(field "$dev" Depends)
grep -q "sdscprov (= $version)" <<<"$dev_depends" || fail "sdscprov-dev does not depend on sdscprov (= $version): $dev_depends"
for pkg in libsimdjson-dev libssl-dev liburing-dev zlib1g-dev; do
    grep -q "$pkg" <<<"$dev_depends" || fail "sdscprov-dev Depends lacks $pkg: $dev_depends"
done
dev_contents=$(dpkg-deb -c "$dev" | awk '{print $NF}')
for f in ./usr/include/sdscprov/sdsc/scan.hpp ./usr/lib/libsdscprov.a ./usr/lib/cmake/sdscprov/sdscprovConfig.cmake; do
    grep -qx -- "$f" <<<"$dev_contents" || fail "the sdscprov-dev package has no $f"
done

# Unpacked into a scratch root: the binary runs, the man page renders, the docs are where the
# man page says.
root=$tmp/root
dpkg -x "$deb" "$root"
dpkg -x "$dev" "$root"
[ "$("$root/usr/bin/sdscprov" --version)" = "sdscprov $version" ] || fail "the packaged binary says $("$root/usr/bin/sdscprov" --version)"
rendered=$(MANWIDTH=100 MANPAGER=cat PAGER=cat man -M "$root/usr/share/man" sdscprov 2>&1) ||
    fail "man sdscprov failed:"$'\n'"$rendered"
for section in NAME SYNOPSIS DESCRIPTION "SDSCPROV SCAN" "EXIT STATUS" ENVIRONMENT FILES EXAMPLES "SEE ALSO"; do
    grep -qx "$section" <<<"$rendered" || fail "man sdscprov has no $section"
done
grep -q "/usr/share/doc/sdscprov" <<<"$rendered" || fail "the man page does not name /usr/share/doc/sdscprov"
for page in $(grep -o 'docs/[a-z-]*\.md' <<<"$rendered" | sort -u); do
    [ -f "$root/usr/share/doc/sdscprov/$page" ] || fail "the man page names $page, not in the package"
done
echo "test_deb: ok ($((SECONDS - start)) s)"
