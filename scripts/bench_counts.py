#!/usr/bin/env python3
"""Instructions and peak memory of two builds, command by command, side by side.

For each command of the set (scan, annotate --dry-run, check, strip --dry-run, profile) the
script counts the instructions of one run of each binary under callgrind (the same on a busy
machine, unlike time) and measures the peak resident set of one run of each without
valgrind (getrusage of the child), and says whether the two runs printed the same bytes. One
thread (`-j 1`), so both counts are repeatable.

    scripts/bench_counts.py --before OLD_BINARY [--after build/sdscprov] [--files 2000]

The data is generated once in $SDSCPROV_BENCH_DIR (default /tmp/sdscprov-bench) by
scripts/gen_cache.py and scripts/gen_trace.py and reused by later runs.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def generate(root, files, trace_bytes):
    cache = os.path.join(root, f"counts-{files}")
    if os.path.exists(os.path.join(cache, "done")):
        return cache
    shutil.rmtree(cache, ignore_errors=True)
    os.makedirs(cache)
    subprocess.run([sys.executable, os.path.join(HERE, "gen_cache.py"), "--files", str(files),
                    "--origins-map", os.path.join(cache, "origins.json"), "--ideal-cycles", "0.8",
                    os.path.join(cache, "cache")], check=True, stdout=subprocess.DEVNULL)
    subprocess.run([sys.executable, os.path.join(HERE, "gen_trace.py"), "--files", str(files),
                    "--target-bytes", str(trace_bytes), os.path.join(cache, "trace")],
                   check=True, stdout=subprocess.DEVNULL)
    open(os.path.join(cache, "done"), "w").close()
    return cache


def annotated_copy(binary, cache, work):
    dest = os.path.join(work, "cache_ann")
    shutil.copytree(os.path.join(cache, "cache"), dest, symlinks=True)
    subprocess.run([binary, "annotate", "-q", "--durability", "none", "--origins",
                    os.path.join(cache, "origins.json"), dest], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return dest


def commands(cache, annotated):
    trace = os.path.join(cache, "trace")
    return [
        ("scan --format json CACHE", ["scan", "-j", "1", "--format", "json", os.path.join(cache, "cache")]),
        ("annotate --dry-run --origins MAP CACHE",
         ["annotate", "-j", "1", "--dry-run", "--origins", os.path.join(cache, "origins.json"),
          os.path.join(cache, "cache")]),
        ("check ANNOTATED", ["check", "-j", "1", annotated]),
        ("strip --dry-run ANNOTATED", ["strip", "-j", "1", "--dry-run", annotated]),
        ("profile --format json TRACE CACHE --origins SIDECAR",
         ["profile", "-j", "1", "--format", "json", os.path.join(trace, "trace.json"),
          os.path.join(trace, "cache"), "--origins", os.path.join(trace, "spyre_provenance.json")]),
    ]


def instructions(binary, argv):
    with tempfile.NamedTemporaryFile(suffix=".out") as out:
        run = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out.name}",
                              binary] + argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             text=True)
    found = re.search(r"Collected : (\d+)", run.stderr)
    if not found:
        raise SystemExit(f"callgrind gave no count for {argv}: {run.stderr[-400:]}")
    return int(found.group(1)), run.returncode


def peak_rss_kib(binary, argv):
    """The peak resident set of one run, its exit status and the bytes of its standard output."""
    with tempfile.TemporaryFile() as out:
        pid = os.fork()
        if pid == 0:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(out.fileno(), 1)
            os.dup2(devnull, 2)
            os.execv(binary, [binary] + argv)
        _, status, usage = os.wait4(pid, 0)
        out.seek(0)
        return usage.ru_maxrss, os.waitstatus_to_exitcode(status), out.read()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", required=True, help="the binary to compare against")
    parser.add_argument("--after", default=os.path.join(HERE, "..", "build", "sdscprov"))
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--trace-bytes", type=float, default=2e7)
    parser.add_argument("--no-callgrind", action="store_true", help="peak memory only")
    args = parser.parse_args()
    root = os.environ.get("SDSCPROV_BENCH_DIR", "/tmp/sdscprov-bench")
    os.makedirs(root, exist_ok=True)
    cache = generate(root, args.files, int(args.trace_bytes))
    binaries = [os.path.abspath(args.before), os.path.abspath(args.after)]
    with tempfile.TemporaryDirectory(dir=root) as work:
        annotated = annotated_copy(binaries[0], cache, work)
        print(f"{args.files}-file cache, one thread; before {binaries[0]}, after {binaries[1]}")
        print(f"| command | instructions before | after | after / before | peak RSS before | after | after / before | output |")
        print("|---|---|---|---|---|---|---|---|")
        for name, argv in commands(cache, annotated):
            counts, rss, outputs = [], [], []
            for binary in binaries:
                if args.no_callgrind:
                    counts.append(0)
                else:
                    count, code = instructions(binary, argv)
                    counts.append(count)
                kib, code, output = peak_rss_kib(binary, argv)
                if code not in (0, 1):
                    raise SystemExit(f"{binary} {' '.join(argv)} exited {code}")
                rss.append(kib)
                outputs.append(output)
            same = "the same bytes" if outputs[0] == outputs[1] else "differs"
            ratio = f"{counts[1] / counts[0]:.3f}" if counts[0] else "-"
            print(f"| `{name}` | {counts[0]:,} | {counts[1]:,} | {ratio} | {rss[0] / 1024:.1f} MiB | "
                  f"{rss[1] / 1024:.1f} MiB | {rss[1] / rss[0]:.3f} | {same} |", flush=True)


if __name__ == "__main__":
    main()
