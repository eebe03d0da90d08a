#!/usr/bin/env bash
# Shared set-up for demo.sh and test.sh: install what is missing (Debian packages only),
# then configure and build in Release (the targets given, else all). Quick when everything is
# already there.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${SDSCPROV_BUILD_DIR:-$root/build}

# Debian packages this project builds and tests with (see README "Dependencies").
packages=(g++ cmake make pkg-config libsimdjson-dev rapidjson-dev libcli11-dev doctest-dev libssl-dev liburing-dev zlib1g-dev python3 git)
# test.sh only: the pre-commit end-to-end test runs the real pre-commit; the sanitizer build
# uses clang; the install test renders the man page with man; the metadata tests of
# test_bad_input_runs.py set ACLs with setfacl (acl) and read attributes as getfattr shows them
# (attr); unshare (util-linux) makes the pid namespaces; the HTML page's browser test drives a
# headless chromium over the DevTools protocol with python3-websocket; the wheel test builds with
# Debian's setuptools and wheel into a virtual environment (python3-venv, offline), the package
# test runs cpack, dpkg-deb and dpkg-shlibdeps (dpkg-dev); the completion tests run zsh and fish.
if [ "${SDSCPROV_TEST_TOOLS:-0}" = 1 ]; then
    packages+=(pre-commit clang man-db acl attr util-linux chromium python3-websocket
               python3-venv python3-setuptools python3-wheel python3-pip dpkg-dev zsh fish
               python3-pandas)
fi
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
    echo "setup: installing ${missing[*]}" >&2
    sudo_cmd=()
    [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
    "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ ! -f "$build_dir/CMakeCache.txt" ]; then
    cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
# Arguments: the targets to build (demo.sh builds only the binary); none builds them all.
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build "$build_dir" -j "$(nproc)" "${targets[@]}"
