#!/usr/bin/env python3
"""Benchmarks: each compares sdscprov with baselines, side by side in one run, and prints ratios.

A benchmark never fails on a time: it measures and prints. Runs are interleaved (A B C A B C ...)
so that a slow moment of the machine hits every command alike, and the median is reported.

  bench.py scan [--files N] [--runs R] [--rss-files M]
  bench.py annotate [--files N] [--runs R]
  bench.py table [--files N] [--runs R] [--py-runs P] [--jobs J] [--before BINARY]   (scripts/bench.sh)
  bench.py profile [--bytes B] [--runs R] [--py-runs P]              (scripts/bench-profile.sh)
  bench.py filesystems [--files N] [--runs R] [--jobs J] [--tmpfs DIR]
  bench.py cores [--runs R]                                          (what a second core adds)
  bench.py builds [--files N] [--runs R] [--jobs J] --before BINARY ... (builds side by side)
  bench.py timeline --before BINARY [--bytes B] [--runs R] [--jobs J]  (profile's timeline: its cost)
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("SDSCPROV_BUILD_DIR", os.path.join(ROOT, "build"))
SDSCPROV = os.path.join(BUILD, "sdscprov")
LIMIT = os.path.join(BUILD, "sdscprov-bench-limit")
WRITE_FLOOR = os.path.join(BUILD, "sdscprov-bench-write-floor")
TRACE_LIMIT = os.path.join(BUILD, "sdscprov-bench-trace-limit")
WORK = os.environ.get("SDSCPROV_BENCH_DIR", os.path.join(tempfile.gettempdir(), "sdscprov-bench"))


def cache_of(files):
    """A generated cache of `files` SDSC files, made once and reused across runs."""
    path = os.path.join(WORK, f"cache-{files}")
    manifest = path + ".manifest.json"
    if not os.path.exists(manifest):
        shutil.rmtree(path, ignore_errors=True)
        print(f"generating {files} files in {path} ...", file=sys.stderr)
        subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen_cache.py"), path,
                        "--files", str(files), "--layout", "mixed", "--seed", "1",
                        "--manifest", manifest + ".tmp"], check=True)
        os.replace(manifest + ".tmp", manifest)
    return path


def file_list(cache):
    """The SDSC files of a cache, for the bare limit loop (which does not walk)."""
    out = cache + ".files.txt"
    if not os.path.exists(out):
        names = []
        for root, dirs, files in os.walk(cache):
            dirs.sort()
            for f in sorted(files):
                if f.startswith("sdsc") and f.endswith(".json"):
                    names.append(os.path.join(root, f))
        with open(out, "w") as f:
            f.write("\n".join(names) + "\n")
    return out


def run_usage(cmd, accepted=(0,)):
    """Wall and CPU (user + system) seconds and peak RSS (KiB) of one run, output discarded; a
    status outside `accepted` ends the benchmark."""
    start = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    elapsed = time.perf_counter() - start
    rc = os.waitstatus_to_exitcode(status)
    if rc not in accepted:
        sys.exit(f"bench: {' '.join(cmd)} exited {rc}")
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def run_once(cmd):
    """Wall time (s) and peak RSS (KiB) of one run (status 0 or 1: a report of problems)."""
    elapsed, _, rss = run_usage(cmd, accepted=(0, 1))
    return elapsed, rss


def measure(commands, runs):
    """Interleaved runs after one warm-up each; returns {name: (median s, max RSS KiB)}."""
    for _, cmd in commands:
        run_once(cmd)  # warm the page cache and the binaries
    times = {name: [] for name, _ in commands}
    rss = {name: 0 for name, _ in commands}
    for _ in range(runs):
        for name, cmd in commands:
            t, r = run_once(cmd)
            times[name].append(t)
            rss[name] = max(rss[name], r)
    return {name: (statistics.median(times[name]), rss[name]) for name, _ in commands}


def bench_scan(args):
    cores = os.cpu_count()
    cache = cache_of(args.files)
    listing = file_list(cache)
    size_mb = sum(os.path.getsize(p) for p in open(listing).read().split()) / 1e6
    jobs = str(args.jobs)
    commands = [
        ("sdscprov scan", [SDSCPROV, "scan", "-j", jobs, "--format", "json", cache]),
        ("limit: read + simdjson DOM", [LIMIT, "-j", jobs, listing]),
        ("python audit-style script", [sys.executable, os.path.join(ROOT, "scripts", "audit_scan.py"),
                                       "--json", cache]),
    ]
    result = measure(commands, args.runs)
    ours = result["sdscprov scan"][0]
    print(f"scan benchmark: {args.files} files ({size_mb:.0f} MB), {cores} cores, -j {jobs}, "
          f"median of {args.runs} interleaved runs, warm page cache")
    print(f"| command | time | per file | ratio to sdscprov scan |")
    print(f"|---|---|---|---|")
    for name, (t, _) in result.items():
        print(f"| {name} | {t * 1000:.0f} ms | {t / args.files * 1e6:.1f} us | {t / ours:.2f}x |")
    limit = result["limit: read + simdjson DOM"][0]
    python = result["python audit-style script"][0]
    print(f"scan / limit = {ours / limit:.2f} (target <= 1.25); "
          f"python / scan = {python / ours:.1f}x faster (target >= 20)")
    print(f"peak RSS, scan of {args.files} files: {result['sdscprov scan'][1] / 1024:.1f} MiB")
    if args.rss_files:
        big = cache_of(args.rss_files)
        t, r = measure([("scan", [SDSCPROV, "scan", "-j", jobs, "--format", "json", big])], 1)["scan"]
        print(f"peak RSS, scan of {args.rss_files} files: {r / 1024:.1f} MiB (target < 64 MB), "
              f"{t * 1000:.0f} ms, {t / args.rss_files * 1e6:.1f} us per file")


def annotate_cache_of(files):
    """A generated cache without handles, with the compile's origins map, made once."""
    path = os.path.join(WORK, f"annotate-{files}")
    pristine = os.path.join(path, "pristine")
    manifest = path + ".manifest.json"
    if not os.path.exists(manifest):
        shutil.rmtree(path, ignore_errors=True)
        os.makedirs(path)
        print(f"generating {files} files without handles in {pristine} ...", file=sys.stderr)
        subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen_cache.py"), pristine,
                        "--files", str(files), "--layout", "mixed", "--seed", "2",
                        "--handles", "absent", "--origins-map", os.path.join(path, "origins.json"),
                        "--manifest", manifest + ".tmp"], check=True)
        os.replace(manifest + ".tmp", manifest)
    return pristine, os.path.join(path, "origins.json")


def reset(pristine, work):
    """A fresh copy of the pristine cache, written back to disk before the timed run starts."""
    shutil.rmtree(work, ignore_errors=True)
    subprocess.run(["cp", "-r", pristine, work], check=True)
    subprocess.run(["sync"], check=True)


def bench_annotate(args):
    cores = os.cpu_count()
    pristine, origins = annotate_cache_of(args.files)
    work = pristine + ".work"
    copy = pristine + ".copy"
    size_mb = sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(pristine) for f in fs) / 1e6
    jobs = str(args.jobs)
    commands = [
        ("sdscprov annotate --durability none", True, [SDSCPROV, "annotate", "-j", jobs, "--durability", "none",
                                                       "--origins", origins, work]),
        ("cp -r", False, ["cp", "-r", pristine, copy]),
        ("sdscprov annotate (batch: syncfs)", True, [SDSCPROV, "annotate", "-j", jobs, "--origins", origins, work]),
        ("cp -r && sync", False, ["sh", "-c", f"cp -r '{pristine}' '{copy}' && sync"]),
    ]
    times = {name: [] for name, _, _ in commands}
    for _ in range(args.runs):
        for name, needs_reset, cmd in commands:
            if needs_reset:
                reset(pristine, work)
            else:
                shutil.rmtree(copy, ignore_errors=True)
                subprocess.run(["sync"], check=True)
            t, _ = run_once(cmd)
            times[name].append(t)
    # The Python baseline takes tens of seconds: two runs, interleaved with annotate and with the
    # floor (a bare read/insert/write-temp/rename loop over the files annotate writes).
    floor_list = written_files(pristine, origins, work, jobs)
    py_runs, ours_runs, floor_runs = [], [], []
    for _ in range(2):
        reset(pristine, work)
        py_runs.append(run_once([sys.executable, os.path.join(ROOT, "scripts", "py_annotate_baseline.py"),
                                 "--origins", origins, work])[0])
        reset(pristine, work)
        ours_runs.append(run_once(commands[2][2])[0])
        reset(pristine, work)
        floor_runs.append(run_once([WRITE_FLOOR, "-j", jobs, floor_list])[0])
    shutil.rmtree(copy, ignore_errors=True)
    shutil.rmtree(work, ignore_errors=True)
    py, ours_py, floor = (statistics.median(v) for v in (py_runs, ours_runs, floor_runs))
    med = {name: statistics.median(v) for name, v in times.items()}
    print(f"annotate benchmark in {WORK} ({filesystem_of(WORK)}): {args.files} files ({size_mb:.0f} MB, "
          f"no handles), {cores} cores, -j {jobs}, median of {args.runs} interleaved runs; each run starts "
          f"from a fresh, synced copy")
    print("| command | time | compared with | ratio (target) |")
    print("|---|---|---|---|")
    pairs = [("sdscprov annotate --durability none", "cp -r", "<= 1.0"),
             ("sdscprov annotate (batch: syncfs)", "cp -r && sync", "<= 1.0")]
    for ours, base, target in pairs:
        print(f"| {ours} | {med[ours] * 1000:.0f} ms | {base}: {med[base] * 1000:.0f} ms | "
              f"{med[ours] / med[base]:.2f}x ({target}) |")
    print(f"| python load/insert/dump | {py * 1000:.0f} ms | sdscprov annotate: {ours_py * 1000:.0f} ms | "
          f"sdscprov {py / ours_py:.1f}x faster (>= 10) |")
    print(f"| floor: read, insert, write a temporary, rename ({count_lines(floor_list)} files, no parse, "
          f"no sync) | {floor * 1000:.0f} ms | python: {py * 1000:.0f} ms; sdscprov annotate: "
          f"{ours_py * 1000:.0f} ms | python / floor = {py / floor:.1f}x; annotate / floor = "
          f"{ours_py / floor:.2f}x |")


def written_files(pristine, origins, work, jobs):
    """The files annotate writes in this cache (from a dry run's JSON report), paths in `work`."""
    out = os.path.join(WORK, "annotate-written.txt")
    report = subprocess.run([SDSCPROV, "annotate", "--dry-run", "--format", "json", "-j", jobs,
                             "--origins", origins, pristine], check=True, capture_output=True, text=True)
    names = [f["path"] for k in json.loads(report.stdout)["kernels"] for f in k["files"] if f.get("changes")]
    with open(out, "w") as f:
        f.write("".join(work + p[len(pristine):] + "\n" for p in names))
    return out


def count_lines(path):
    with open(path) as f:
        return sum(1 for _ in f)


def filesystem_of(path):
    """The file system type holding `path`, from /proc/mounts (longest matching mount point)."""
    best, kind = "", "unknown"
    real = os.path.realpath(path)
    with open("/proc/mounts") as f:
        for line in f:
            fields = line.split()
            mount = fields[1]
            if (real == mount or real.startswith(mount.rstrip("/") + "/")) and len(mount) >= len(best):
                best, kind = mount, fields[2]
    return kind


def interleave(commands, runs):
    """Runs (name, cmd, prepare) commands interleaved, `prepare()` untimed before each run (None:
    nothing to prepare, and one warm-up run first); {name: (median s, max RSS KiB)}."""
    for name, cmd, prepare in commands:
        if prepare is None:
            run_once(cmd)  # warm the page cache and the binaries
    times = {name: [] for name, _, _ in commands}
    rss = {name: 0 for name, _, _ in commands}
    for _ in range(runs):
        for name, cmd, prepare in commands:
            if prepare is not None:
                prepare()
            t, r = run_once(cmd)
            times[name].append(t)
            rss[name] = max(rss[name], r)
    return {name: (statistics.median(times[name]), rss[name]) for name, _, _ in commands}


def annotated_of(pristine, origins, jobs):
    """The pristine cache annotated once (what strip is measured on), made once and reused."""
    path = pristine + ".annotated"
    if not os.path.exists(path):
        print(f"annotating a copy of {pristine} for strip ...", file=sys.stderr)
        shutil.rmtree(path + ".tmp", ignore_errors=True)
        subprocess.run(["cp", "-r", pristine, path + ".tmp"], check=True)
        subprocess.run([SDSCPROV, "annotate", "-q", "-j", jobs, "--durability", "none", "--origins",
                        origins, path + ".tmp"], check=True)
        os.replace(path + ".tmp", path)
    return path


def bench_table(args):
    """One table of every target, N and 10 N files: each row's pair run side by side. With
    --before BINARY (or $SDSCPROV_BEFORE), every sdscprov command is also run with that binary in
    the same interleaving, against the same baseline: a before/after table from one run."""
    small, big, jobs = args.files, 10 * args.files, str(args.jobs)
    before = args.before or os.environ.get("SDSCPROV_BEFORE")
    scan_small, scan_big = cache_of(small), cache_of(big)
    listing = file_list(scan_small)
    pristine, origins = annotate_cache_of(small)
    big_pristine, big_origins = annotate_cache_of(big)
    annotated = annotated_of(pristine, origins, jobs)
    work, copy = pristine + ".work", pristine + ".copy"
    rows = []

    def row(command, baseline, measured, target, met, then=""):
        rows.append((command, baseline, measured, target, "yes" if met else "**no**", then))

    def fresh(source, dest):
        return lambda: reset(source, dest)

    def no_copy():
        shutil.rmtree(copy, ignore_errors=True)
        subprocess.run(["sync"], check=True)

    def ms(t):
        return f"{t * 1000:,.0f} ms"

    def both(name, argv, prepare):
        """The command with this build's binary and, with --before, with the other one."""
        out = [(name, [SDSCPROV] + argv, prepare)]
        if before:
            out.append((name + " (before)", [before] + argv, prepare))
        return out

    def then(r, ours, f):
        """The before binary's cell of a row: f(median seconds) of its run."""
        key = ours + " (before)"
        return f(r[key][0]) if key in r else ""

    scan = ["scan", "-j", jobs, "--format", "json"]
    r = interleave(both("scan", scan + [scan_small], None) +
                   [("limit", [LIMIT, "-j", jobs, listing], None)], args.runs)

    def vs_limit(t):
        return f"{t / r['limit'][0]:.2f}x ({ms(t)} / {ms(r['limit'][0])})"

    ratio = r["scan"][0] / r["limit"][0]
    row(f"`sdscprov scan -j {jobs}`", f"limit: read + simdjson DOM parse, -j {jobs}", vs_limit(r["scan"][0]),
        "<= 1.1x", ratio <= 1.1, then(r, "scan", vs_limit))

    r = interleave(both("scan", scan + [scan_small], None) +
                   [("python", [sys.executable, os.path.join(ROOT, "scripts", "audit_scan.py"), "--json",
                                scan_small], None)], args.py_runs)

    def vs_python(t):
        return f"{r['python'][0] / t:.1f}x faster ({ms(t)} / {ms(r['python'][0])})"

    row(f"`sdscprov scan -j {jobs}`", "`scripts/audit_scan.py` (Python audit-style)", vs_python(r["scan"][0]),
        ">= 25x faster", r["python"][0] / r["scan"][0] >= 25, then(r, "scan", vs_python))

    annotate = ["annotate", "-j", jobs, "--origins", origins]
    r = interleave(both("none", annotate + ["--durability", "none", work], fresh(pristine, work)) +
                   [("cp", ["cp", "-r", pristine, copy], no_copy)] +
                   both("batch", annotate + [work], fresh(pristine, work)) +
                   [("cp sync", ["sh", "-c", f"cp -r '{pristine}' '{copy}' && sync"], no_copy)], args.runs)
    for ours, base, name, base_name in (("none", "cp", "`sdscprov annotate --durability none`", "`cp -r`"),
                                        ("batch", "cp sync", "`sdscprov annotate` (default: batch)",
                                         "`cp -r` then `sync`")):
        def vs_copy(t, base=base):
            return f"{t / r[base][0]:.2f}x ({ms(t)} / {ms(r[base][0])})"

        ratio = r[ours][0] / r[base][0]
        row(name, base_name, vs_copy(r[ours][0]), "<= 0.8x", ratio <= 0.8, then(r, ours, vs_copy))

    r = interleave(both("annotate", annotate + [work], fresh(pristine, work)) +
                   [("python", [sys.executable, os.path.join(ROOT, "scripts", "py_annotate_baseline.py"),
                                "--origins", origins, work], fresh(pristine, work))], args.py_runs)
    row("`sdscprov annotate`", "`scripts/py_annotate_baseline.py` (load, insert, dump)",
        vs_python(r["annotate"][0]), ">= 15x faster", r["python"][0] / r["annotate"][0] >= 15,
        then(r, "annotate", vs_python))

    r = interleave(both("strip", ["strip", "-j", jobs, "--durability", "none", work], fresh(annotated, work)) +
                   [("cp", ["cp", "-r", annotated, copy], no_copy)], args.runs)

    def vs_cp(t):
        return f"{t / r['cp'][0]:.2f}x ({ms(t)} / {ms(r['cp'][0])})"

    row("`sdscprov strip --durability none`", "`cp -r` (of the annotated tree)", vs_cp(r["strip"][0]),
        "<= 0.8x", r["strip"][0] / r["cp"][0] <= 0.8, then(r, "strip", vs_cp))

    r = interleave(both("small", scan + [scan_small], None) + both("big", scan + [scan_big], None), args.big_runs)

    def per_file(small_key, big_key):
        per_small, per_big = r[small_key][0] / small, r[big_key][0] / big
        return per_big / per_small, f"{per_big / per_small:.2f}x ({per_big * 1e6:.1f} / {per_small * 1e6:.1f} us)"

    ratio, cell = per_file("small", "big")
    row(f"`sdscprov scan -j {jobs}`, time per file at {big:,} files", f"the same at {small:,} files", cell,
        "<= 1.2x", ratio <= 1.2, per_file("small (before)", "big (before)")[1] if before else "")
    limit_kib = 64 * 1024
    row(f"peak RSS of `sdscprov scan --format json` at {big:,} files", "", f"{r['big'][1] / 1024:.1f} MiB",
        "<= 64 MiB", r["big"][1] <= limit_kib, f"{r['big (before)'][1] / 1024:.1f} MiB" if before else "")

    big_work = big_pristine + ".work"
    map_kib = os.path.getsize(big_origins) / 1024
    peaks = {}
    for name, binary in [("after", SDSCPROV)] + ([("before", before)] if before else []):
        reset(big_pristine, big_work)
        _, peaks[name] = run_once([binary, "annotate", "-j", jobs, "--format", "json", "--origins", big_origins,
                                   big_work])
    shutil.rmtree(big_work, ignore_errors=True)
    row(f"peak RSS of `sdscprov annotate --format json` at {big:,} files", "",
        f"{peaks['after'] / 1024:.1f} MiB", f"<= 64 MiB + twice the map ({map_kib / 1024:.1f} MiB)",
        peaks["after"] <= limit_kib + 2 * map_kib, f"{peaks['before'] / 1024:.1f} MiB" if before else "")
    for path in (work, copy):
        shutil.rmtree(path, ignore_errors=True)

    print(f"sdscprov benchmark: {os.cpu_count()} cores, -j {jobs}, {small:,} and {big:,} generated files, "
          f"in {WORK} ({filesystem_of(WORK)}); medians of {args.runs} interleaved runs "
          f"(Python: {args.py_runs}; {big:,} files: {args.big_runs}); writing runs start from a fresh, "
          f"synced copy" + (f"; before: {before}, run in the same interleaving" if before else ""))
    if before:
        print("| command | compared with | measured | target | met | before, same run |")
        print("|---|---|---|---|---|---|")
        for cells in rows:
            print("| " + " | ".join(cells) + " |")
    else:
        print("| command | compared with | measured | target | met |")
        print("|---|---|---|---|---|")
        for cells in rows:
            print("| " + " | ".join(cells[:5]) + " |")


def bench_filesystems(args):
    """annotate --durability none against cp -r, and the write floor's ways of replacing a file,
    on the bench directory's file system and on tmpfs, side by side in one run (interleaved)."""
    jobs = str(args.jobs)
    pristine, origins = annotate_cache_of(args.files)
    places = [("disk", pristine, origins)]
    shm = os.path.join(args.tmpfs, "sdscprov-bench-fs")
    shm_pristine, shm_origins = os.path.join(shm, "pristine"), os.path.join(shm, "origins.json")
    if not os.path.exists(shm_origins):
        shutil.rmtree(shm, ignore_errors=True)
        os.makedirs(shm)
        subprocess.run(["cp", "-r", pristine, shm_pristine], check=True)
        shutil.copy(origins, shm_origins)
    places.append(("tmpfs", shm_pristine, shm_origins))
    commands = []
    for place, source, map_path in places:
        work, copy = source + ".work", source + ".copy"
        listing = written_files(source, map_path, work, jobs)
        floor_list = listing + f".{place}"
        os.replace(listing, floor_list)

        def fresh(source=source, work=work):
            return lambda: reset(source, work)

        def no_copy(copy=copy):
            return lambda: (shutil.rmtree(copy, ignore_errors=True), subprocess.run(["sync"], check=True))

        commands.append(((place, "annotate --durability none"),
                         [SDSCPROV, "annotate", "-q", "-j", jobs, "--durability", "none", "--origins", map_path, work],
                         fresh()))
        commands.append(((place, "annotate (default: batch)"),
                         [SDSCPROV, "annotate", "-q", "-j", jobs, "--origins", map_path, work], fresh()))
        before = os.environ.get("SDSCPROV_BEFORE")  # another build's binary, e.g. main's
        if before:
            commands.append(((place, "annotate --durability none, SDSCPROV_BEFORE"),
                             [before, "annotate", "-q", "-j", jobs, "--durability", "none", "--origins",
                              map_path, work], fresh()))
        commands.append(((place, "cp -r"), ["cp", "-r", source, copy], no_copy()))
        for how in ("rename", "exchange", "synced", "none"):
            commands.append(((place, f"floor: {how}"), [WRITE_FLOOR, "-j", jobs, "--replace", how, floor_list], fresh()))
    result = interleave(commands, args.runs)
    for place, source, _ in places:
        shutil.rmtree(source + ".work", ignore_errors=True)
        shutil.rmtree(source + ".copy", ignore_errors=True)
    names = [name for (place, name), _, _ in commands if place == "disk"]
    kinds = {place: filesystem_of(source) for place, source, _ in places}
    print(f"file systems side by side: {args.files} files, -j {jobs}, median of {args.runs} interleaved runs; "
          f"each writing run starts from a fresh, synced copy")
    print(f"| command | {kinds['disk']} ({WORK}) | x cp -r | {kinds['tmpfs']} ({args.tmpfs}) | x cp -r |")
    print("|---|---|---|---|---|")
    for name in names:
        cells = []
        for place in ("disk", "tmpfs"):
            t = result[(place, name)][0]
            cells += [f"{t * 1000:,.0f} ms", f"{t / result[(place, 'cp -r')][0]:.2f}x"]
        print(f"| {name} | " + " | ".join(cells) + " |")


def bench_builds(args):
    """annotate and strip (--durability none) and scan of this build and of other builds (--before,
    repeatable: e.g. main's and the round's start), with cp -r, interleaved in one run; each
    writing run starts from a fresh copy made untimed. Medians, each against cp -r."""
    jobs = str(args.jobs)
    pristine, origins = annotate_cache_of(args.files)
    annotated = annotated_of(pristine, origins, jobs)
    work, copy = pristine + ".work", pristine + ".copy"
    builds = [("this build", SDSCPROV)] + [(b, b) for b in args.before]
    commands = [("cp -r", ["cp", "-r", pristine, copy], lambda: shutil.rmtree(copy, ignore_errors=True))]
    for name, binary in builds:
        commands += [
            ((name, "annotate --durability none"),
             [binary, "annotate", "-q", "-j", jobs, "--durability", "none", "--origins", origins, work],
             lambda: reset(pristine, work)),
            ((name, "strip --durability none"), [binary, "strip", "-q", "-j", jobs, "--durability", "none", work],
             lambda: reset(annotated, work)),
            ((name, "scan"), [binary, "scan", "-q", "-j", jobs, annotated], None),
        ]
    result = interleave(commands, args.runs)
    shutil.rmtree(work, ignore_errors=True)
    shutil.rmtree(copy, ignore_errors=True)
    cp = result["cp -r"][0]
    print(f"builds side by side in {WORK} ({filesystem_of(WORK)}): {args.files} files, -j {jobs}, median of "
          f"{args.runs} interleaved runs; cp -r {cp * 1000:,.0f} ms")
    print("| command | " + " | ".join(f"{name} | x cp -r" for name, _ in builds) + " |")
    print("|---|" + "---|---|" * len(builds))
    for command in ("annotate --durability none", "strip --durability none", "scan"):
        cells = []
        for name, _ in builds:
            t = result[(name, command)][0]
            cells += [f"{t * 1000:,.0f} ms", f"{t / cp:.2f}x"]
        print(f"| {command} | " + " | ".join(cells) + " |")


def trace_of(size, gzip_too):
    """A generated trace of about `size` bytes with its cache and sidecar, made once and reused."""
    path = os.path.join(WORK, f"profile-{size}")
    done = os.path.join(path, "expected.json")
    if not os.path.exists(done):
        shutil.rmtree(path, ignore_errors=True)
        print(f"generating a {size / 1e9:.1f} GB trace in {path} ...", file=sys.stderr)
        subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen_trace.py"), path,
                        "--files", "1000", "--target-bytes", str(size)], check=True)
    gz = os.path.join(path, "trace.json.gz")
    if gzip_too and not os.path.exists(gz):
        print(f"compressing it to {gz} ...", file=sys.stderr)
        with open(gz + ".tmp", "wb") as out:
            subprocess.run(["gzip", "-1", "-c", os.path.join(path, "trace.json")], stdout=out,
                           check=True)
        os.replace(gz + ".tmp", gz)
    return path


SPIN = "x = 0\nfor i in range(%d):\n    x = (x * 31 + i) & 0xFFFFFFFF\n"


def bench_cores(args):
    """What a second busy core adds on this machine: the same CPU-bound loop (an interpreter
    loop: no system calls, little memory traffic) alone, then as many copies at once as there are
    cores. On a machine whose cores are all its own, the copies take as long as one; on a VM whose
    virtual CPUs share the host's cores (or hyperthreads), each copy takes longer, and -j N cannot
    be N times -j 1."""
    loop = [sys.executable, "-c", SPIN % args.iterations]
    cores = os.cpu_count()
    alone, together = [], []
    for _ in range(args.runs):
        t, _ = run_once(loop)
        alone.append(t)
        start = time.perf_counter()
        procs = [subprocess.Popen(loop) for _ in range(cores)]
        for p in procs:
            p.wait()
        together.append(time.perf_counter() - start)
    a, b = statistics.median(alone), statistics.median(together)
    print(f"{cores} cores, median of {args.runs} runs: one loop alone {a * 1000:,.0f} ms, {cores} at once "
          f"{b * 1000:,.0f} ms: {cores} busy cores give {cores * a / b:.2f}x the work of one")


def bench_profile(args):
    """profile against the bare read + DOM parse of the same trace and against the obvious
    Python script, side by side; peak memory of each."""
    work = trace_of(int(args.bytes), args.gzip)
    trace = os.path.join(work, "trace.json")
    sidecar = os.path.join(work, "spyre_provenance.json")
    cache = os.path.join(work, "cache")
    size = os.path.getsize(trace)
    profile = [SDSCPROV, "profile", trace, "--origins", sidecar, "--format", "json"]
    commands = [
        ("sdscprov profile --origins (json)", profile),
        ("limit: read + simdjson DOM parse", [TRACE_LIMIT, trace]),
        ("sdscprov profile, caches only (json)", [SDSCPROV, "profile", trace, cache, "--format",
                                                  "json"]),
    ]
    if args.gzip:
        commands.append(("sdscprov profile --origins, .json.gz",
                         [SDSCPROV, "profile", trace + ".gz", "--origins", sidecar, "--format",
                          "json"]))
        commands.append(("gzip -dc (inflate only)", ["sh", "-c", f"gzip -dc '{trace}.gz' > /dev/null"]))
    result = measure(commands, args.runs)
    python = ("python: json.load + loops", [sys.executable,
                                           os.path.join(ROOT, "scripts", "py_profile_baseline.py"),
                                           trace, sidecar])
    if args.py_runs > 0:
        paired = measure([python, commands[0]], args.py_runs)
        result[python[0]] = paired[python[0]]
        result["sdscprov profile, beside python"] = paired[commands[0][0]]
    ours = result[commands[0][0]][0]
    print(f"profile benchmark: {size / 1e9:.2f} GB trace ({filesystem_of(trace)}), "
          f"{os.cpu_count()} cores, median of {args.runs} interleaved runs "
          f"({args.py_runs} beside python), warm page cache")
    print("| command | time | throughput | ratio to sdscprov profile | peak RSS |")
    print("|---|---|---|---|---|")
    for name, (t, r) in result.items():
        print(f"| {name} | {t * 1000:,.0f} ms | {size / t / 1e6:,.0f} MB/s | {t / ours:.2f}x | "
              f"{r / 1024:,.1f} MiB |")
    limit = result["limit: read + simdjson DOM parse"][0]
    print(f"profile / limit = {ours / limit:.2f} (target <= 1.5); peak RSS of profile "
          f"{result[commands[0][0]][1] / 1024:.1f} MiB (target < 256 MB)")
    if args.py_runs > 0:
        py, beside = result[python[0]][0], result["sdscprov profile, beside python"][0]
        print(f"python / profile = {py / beside:.1f}x faster (target >= 30)")


def timeline_traces(size):
    """Two generated traces of about `size` bytes of one 2,000-file cache, made once and reused:
    without host lanes (the timeline computed from the device lanes alone) and with them (runtime
    launch events, host spans, two devices, consistent submitted times)."""
    made = []
    for name, extra in (("without host lanes", []),
                        ("with host lanes", ["--host-lanes", "--devices", "2", "--submitted", "consistent"])):
        path = os.path.join(WORK, f"timeline-{size}-{'hl' if extra else 'nh'}")
        if not os.path.exists(os.path.join(path, "expected.json")):
            shutil.rmtree(path, ignore_errors=True)
            print(f"generating a {size / 1e6:,.0f} MB trace {name} in {path} ...", file=sys.stderr)
            subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen_trace.py"), path, "--files",
                            "2000", "--seed", "5", "--target-bytes", str(size)] + extra, check=True)
        made.append((name, path))
    return made


def bench_timeline(args):
    """profile of this build against another build's (--before: one without the timeline, or
    the last one) on the two traces, in turn (A B A B ...): medians of each and of the ratio of
    each pair (a pair's ratio holds while the machine's pace drifts)."""
    print(f"profile --format json TRACE --origins SIDECAR -j {args.jobs}: this build against {args.before}, "
          f"{args.runs} runs of each in turn after one warm-up, warm page cache, {os.cpu_count()} cores")
    print("| trace | wall: this, before, ratio | CPU: this, before, ratio | peak RSS: this, before |")
    print("|---|---|---|---|")
    for name, path in timeline_traces(int(args.bytes)):
        argv = ["profile", "--format", "json", "-j", str(args.jobs), os.path.join(path, "trace.json"),
                "--origins", os.path.join(path, "spyre_provenance.json")]
        builds = ([SDSCPROV] + argv, [args.before] + argv)
        for cmd in builds:
            run_usage(cmd)
        runs = [[run_usage(cmd) for cmd in builds] for _ in range(args.runs)]

        def median(build, what):
            return statistics.median(r[build][what] for r in runs)

        def ratio(what):
            return statistics.median(r[0][what] / r[1][what] for r in runs)

        print(f"| {name} | {median(0, 0):.3f} s, {median(1, 0):.3f} s, {ratio(0):.3f} x | "
              f"{median(0, 1):.3f} s, {median(1, 1):.3f} s, {ratio(1):.3f} x | "
              f"{median(0, 2) / 1024:.1f} MiB, {median(1, 2) / 1024:.1f} MiB |")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="what", required=True)
    scan = sub.add_parser("scan")
    scan.add_argument("--files", type=int, default=10000)
    scan.add_argument("--runs", type=int, default=7)
    scan.add_argument("--jobs", type=int, default=os.cpu_count())
    scan.add_argument("--rss-files", type=int, default=0,
                      help="also measure peak memory on a cache of this many files (e.g. 100000)")
    annotate = sub.add_parser("annotate")
    annotate.add_argument("--files", type=int, default=10000)
    annotate.add_argument("--runs", type=int, default=5)
    annotate.add_argument("--jobs", type=int, default=os.cpu_count())
    table = sub.add_parser("table", help="every target in one table (scripts/bench.sh)")
    table.add_argument("--files", type=int, default=10000, help="N: caches of N and 10 N files")
    table.add_argument("--runs", type=int, default=5)
    table.add_argument("--py-runs", type=int, default=2, help="runs of the Python rows")
    table.add_argument("--big-runs", type=int, default=3, help="runs at 10 N files")
    table.add_argument("--jobs", type=int, default=2)
    table.add_argument("--before", help="another build's sdscprov (e.g. the last release's), run beside this "
                                        "one in every row; default: $SDSCPROV_BEFORE")
    filesystems = sub.add_parser("filesystems", help="the bench directory's file system and tmpfs, "
                                                     "side by side")
    filesystems.add_argument("--files", type=int, default=10000)
    filesystems.add_argument("--runs", type=int, default=5)
    filesystems.add_argument("--jobs", type=int, default=2)
    filesystems.add_argument("--tmpfs", default="/dev/shm", help="a directory on tmpfs")
    builds = sub.add_parser("builds", help="annotate, strip and scan of this build and others, with cp -r")
    builds.add_argument("--files", type=int, default=10000)
    builds.add_argument("--runs", type=int, default=7)
    builds.add_argument("--jobs", type=int, default=2)
    builds.add_argument("--before", action="append", default=[], help="another build's sdscprov (repeatable)")
    cores = sub.add_parser("cores", help="what the machine's other cores add: a CPU-bound loop alone and on "
                                         "every core at once")
    cores.add_argument("--runs", type=int, default=5)
    cores.add_argument("--iterations", type=int, default=30_000_000)
    profile = sub.add_parser("profile", help="profile against the bare parse and Python "
                                              "(scripts/bench-profile.sh)")
    profile.add_argument("--bytes", type=float, default=1e9, help="size of the generated trace")
    profile.add_argument("--runs", type=int, default=5)
    profile.add_argument("--py-runs", type=int, default=1, help="runs of the Python baseline")
    profile.add_argument("--gzip", action="store_true", help="also the trace as .json.gz")
    timeline = sub.add_parser("timeline", help="profile's time and memory against another build's on two "
                                               "traces, with and without host lanes")
    timeline.add_argument("--before", required=True, help="the other build's sdscprov (e.g. one without the "
                                                          "timeline)")
    timeline.add_argument("--bytes", type=float, default=3e8, help="size of each generated trace")
    timeline.add_argument("--runs", type=int, default=11)
    timeline.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    os.makedirs(WORK, exist_ok=True)
    if args.what == "scan":
        bench_scan(args)
    elif args.what == "table":
        bench_table(args)
    elif args.what == "profile":
        bench_profile(args)
    elif args.what == "filesystems":
        bench_filesystems(args)
    elif args.what == "builds":
        bench_builds(args)
    elif args.what == "cores":
        bench_cores(args)
    elif args.what == "timeline":
        bench_timeline(args)
    else:
        bench_annotate(args)


if __name__ == "__main__":
    main()
