#!/usr/bin/env python3
"""Peak memory of annotate with a large origins map against a small cache, two builds side by side.

    bench_map_peak.py [--before BIN] [--after BIN] [--kernels K] [--files N] [--runs R] [--dir D]

Generates once (in D, default $SDSCPROV_BENCH_DIR/map-peak or /tmp/sdscprov-bench/map-peak) a
cache of N files without handles (scripts/gen_cache.py --seed 3, default 2,000 files) and its
origins map grown to K kernels (scripts/gen_big_map.py --ops-per-kernel 3, default 100,000: about
38 MB), then runs `annotate -j 2 --format json --origins MAP` of each build over a fresh copy of
the cache R times (default 3), interleaved, and prints each build's peak resident set (the
kernel's maximum for the process, from wait4) beside the target: 64 MiB plus the map's size.
An empty cache (the map alone) and the cache with its own small map are measured too.
BIN defaults: --after build/sdscprov; --before $SDSCPROV_BEFORE (left out when not given).
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MIB = 1024 * 1024


def generate(work, files, kernels):
    cache = os.path.join(work, f"cache-{files}")
    own = os.path.join(work, f"own-{files}.json")
    big = os.path.join(work, f"map-{files}-{kernels}.json")
    if not os.path.isdir(cache):
        subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen_cache.py"), cache + ".tmp",
                        "--files", str(files), "--seed", "3", "--handles", "absent",
                        "--origins-map", own], check=True, stdout=subprocess.DEVNULL)
        os.replace(cache + ".tmp", cache)
    if not os.path.exists(big):
        subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen_big_map.py"), own, big,
                        "--kernels", str(kernels), "--ops-per-kernel", "3"], check=True)
    empty = os.path.join(work, "empty")
    os.makedirs(empty, exist_ok=True)
    return cache, own, big, empty


def peak_mib(binary, map_path, cache, scratch):
    """The peak RSS of one annotate run over a fresh copy of `cache`, in MiB."""
    copy = os.path.join(scratch, "run")
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(cache, copy, symlinks=True)
    with open(os.devnull, "wb") as null:
        p = subprocess.Popen([binary, "annotate", "-j", "2", "--format", "json", "--origins", map_path,
                              copy], stdout=null, stderr=null)
        _, status, usage = os.wait4(p.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        sys.exit(f"bench_map_peak: {binary} exited {code} on {map_path}")
    return usage.ru_maxrss * 1024 / MIB


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--before", default=os.environ.get("SDSCPROV_BEFORE"))
    p.add_argument("--after", default=os.path.join(ROOT, "build", "sdscprov"))
    p.add_argument("--kernels", type=int, default=100000)
    p.add_argument("--files", type=int, default=2000)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--dir", default=os.path.join(os.environ.get("SDSCPROV_BENCH_DIR", "/tmp/sdscprov-bench"),
                                                 "map-peak"))
    args = p.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    cache, own, big, empty = generate(args.dir, args.files, args.kernels)
    builds = [("before", args.before)] if args.before else []
    builds.append(("after", args.after))
    map_mib = os.path.getsize(big) / MIB
    cases = [(f"the {args.files:,}-file cache, the {map_mib:.1f} MiB map", big, cache, 64 + map_mib),
             ("an empty cache, the same map", big, empty, None),
             ("the cache with its own map", own, cache, None)]
    with tempfile.TemporaryDirectory(dir=args.dir) as scratch:
        rows = []
        for label, map_path, tree, target in cases:
            peaks = {name: [] for name, _ in builds}
            for _ in range(args.runs):
                for name, binary in builds:
                    peaks[name].append(peak_mib(binary, map_path, tree, scratch))
            rows.append((label, {name: max(v) for name, v in peaks.items()}, target))
    names = [name for name, _ in builds]
    print(f"peak RSS (MiB, the highest of {args.runs} runs), annotate -j 2 --format json")
    print("| run | " + " | ".join(names) + " | target |")
    print("|---|" + "---|" * len(names) + "---|")
    for label, peaks, target in rows:
        cells = " | ".join(f"{peaks[n]:.1f}" for n in names)
        goal = ""
        if target is not None:
            met = peaks["after"] <= target
            goal = f"<= 64 + {map_mib:.1f} = {target:.1f}: {'met' if met else 'missed'}"
        print(f"| {label} | {cells} | {goal} |")
    if "before" in names:
        print(f"after / before, first row: {rows[0][1]['after'] / rows[0][1]['before']:.2f}")


if __name__ == "__main__":
    main()
