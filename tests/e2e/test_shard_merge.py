"""End-to-end: `--shard I/N` splits a run's kernel directories into disjoint shards that cover the
whole cache, and `sdscprov merge` joins the shards' JSON reports into exactly the bytes of the
single run (scan, annotate, strip, check); reports that do not belong together are refused."""
import json
import os
import shutil
import socket
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import BIN, TempDir, check_merge_reads_streams, generate, main, run  # noqa: E402

SHARDS = 3


def fnv1a64(text):
    """FNV-1a 64 of a path's UTF-8 bytes, independently of the tool."""
    h = 0xcbf29ce484222325
    for byte in text.encode():
        h = ((h ^ byte) * 0x100000001b3) % (1 << 64)
    return h


def make_cache(tmp, name="cache", seed=11):
    """A few hundred files over many kernel directories (every layout and naming era, handles
    populated / null / absent, incomplete entries), the compile's origins map, one truncated file
    and one file that is not an SDSC document (problems)."""
    cache = os.path.join(tmp, name)
    origins = os.path.join(tmp, name + ".origins.json")
    manifest = generate(cache, 360, "--layout", "mixed", "--incomplete", "--seed", str(seed),
                        "--handles", "populated,null,absent", "--origins-map", origins)
    dirs = sorted(k["dir"] for k in manifest["kernel_dirs"])
    assert len(dirs) >= 60, len(dirs)
    truncated = first_sdsc_file(os.path.join(cache, dirs[len(dirs) // 3]))
    data = open(truncated, "rb").read()
    open(truncated, "wb").write(data[: len(data) // 2])
    open(first_sdsc_file(os.path.join(cache, dirs[2 * len(dirs) // 3])), "w").write('{"not": "SDSC"}')
    return cache, origins, manifest


def first_sdsc_file(kernel_dir):
    """The kernel directory's first SDSC file, whatever its naming era."""
    for root, dirs, files in sorted(os.walk(kernel_dir)):
        for f in sorted(files):
            if f.startswith("sdsc") and f.endswith(".json"):
                return os.path.join(root, f)
    raise AssertionError(f"no SDSC file in {kernel_dir}")


def shard_runs(args, shards=SHARDS):
    """Runs `sdscprov ARGS --shard i/N` for every shard; returns [(rc, stdout)]."""
    out = []
    for i in range(1, shards + 1):
        rc, stdout, err = run(*args, "--shard", f"{i}/{shards}")
        assert rc in (0, 1, 2), (args, i, rc, err)
        out.append((rc, stdout))
    return out


def merge(tmp, reports, order=None):
    """Writes the reports to files and runs sdscprov merge on them (in `order`)."""
    paths = []
    for n, text in enumerate(reports):
        p = os.path.join(tmp, f"shard-{n + 1}.json")
        open(p, "w").write(text)
        paths.append(p)
    if order is not None:
        paths = [paths[i] for i in order]
    return run("merge", *paths)


def check_shards(single, shard_reports, key="kernels"):
    """The shards' kernel directories are disjoint, each in the shard its path hashes to, and
    together are the single run's."""
    whole = [k["dir"] for k in single["kernels"]]
    seen = {}
    for i, report in enumerate(shard_reports, start=1):
        assert report["shard"]["index"] == i and report["shard"]["count"] == len(shard_reports)
        assert report["shard"]["hash"] == "fnv1a64"
        assert report["shard"]["kernels"] == len(report[key]) == report["totals"]["kernels"]
        for k in report[key]:
            assert fnv1a64(k["dir"]) % len(shard_reports) + 1 == i, (k["dir"], i)
            assert k["dir"] not in seen, f"{k['dir']} in shards {seen[k['dir']]} and {i}"
            seen[k["dir"]] = i
        assert report[key], f"shard {i} holds no kernel directory"
    assert sorted(seen) == sorted(whole), set(seen) ^ set(whole)
    assert len(whole) == len(set(whole))
    # Positions are the single run's order.
    order = sorted((k["position"], k["dir"]) for r in shard_reports for k in r[key])
    assert [d for _, d in order] == whole


def test_scan_shards_are_disjoint_cover_everything_and_merge_to_the_single_run():
    with TempDir() as tmp:
        cache, _, manifest = make_cache(tmp)
        # A file named on the command line, outside the cache: it goes by its directory.
        loose = os.path.join(tmp, "loose")
        os.makedirs(loose)
        named_file = os.path.join(loose, "sdsc_0.json")
        open(named_file, "w").write('{"0_add": {"debug_handle_": null}}')
        args = ["scan", "--format", "json", "-j", "2", os.path.join(tmp, "missing"), cache,
                named_file, os.path.join(tmp, "gone")]
        rc, single_text, _ = run(*args)
        assert rc == 2  # the truncated file and the missing arguments
        single = json.loads(single_text)
        codes = {p["code"] for p in single["problems"]}
        assert {"parse-error", "not-sdsc", "bad-argument"} <= codes, codes
        assert single["totals"]["skipped_incomplete"] > 0
        assert single["totals"]["kernels"] == manifest["kernels"] + 1  # + the named file's group
        assert single["kernels"][-1]["dir"] == loose

        shards = shard_runs(args)
        reports = [json.loads(text) for _, text in shards]
        check_shards(single, reports)
        for (rc, _), report in zip(shards, reports):
            errors = any(p["severity"] == "error" for p in report["problems"])
            assert rc == (2 if errors else 0), (rc, report["shard"])
            assert report["totals"]["skipped_incomplete"] == single["totals"]["skipped_incomplete"]
        # Each problem is in one shard only.
        assert sorted(json.dumps({k: v for k, v in p.items() if k not in ("scope", "position")})
                      for r in reports for p in r["problems"]) == \
            sorted(json.dumps(p) for p in single["problems"])
        assert sum(r["totals"]["files"] for r in reports) == single["totals"]["files"]

        for order in ([0, 1, 2], [2, 0, 1], [1, 2, 0]):
            rc, merged, err = merge(tmp, [t for _, t in shards], order)
            assert rc == 0, err
            assert merged == single_text, "merged report differs from the single run's"

        # -j does not change a shard's report.
        rc, again, _ = run(*[a if a != "2" else "1" for a in args], "--shard", "2/3")
        assert again == shards[1][1]


def test_annotate_shards_write_what_the_single_run_writes_and_merge_to_its_report():
    with TempDir() as tmp:
        pristine, origins, _ = make_cache(tmp, "pristine", seed=12)
        work = os.path.join(tmp, "work")

        def tree():
            out = {}
            for r, _, fs in os.walk(work):
                for f in fs:
                    out[os.path.relpath(os.path.join(r, f), work)] = open(os.path.join(r, f), "rb").read()
            return out

        def fresh():
            shutil.rmtree(work, ignore_errors=True)
            shutil.copytree(pristine, work, symlinks=True)

        for extra in (["--dry-run", "--diff"], []):
            fresh()
            args = ["annotate", "--format", "json", "-j", "2", "--origins", origins, *extra, work]
            rc, single_text, err = run(*args)
            assert rc == 2, err  # the bad files
            single = json.loads(single_text)
            assert single["totals"]["annotate"]["added"] > 0
            single_tree = tree()
            fresh()
            shards = shard_runs(args)
            reports = [json.loads(t) for _, t in shards]
            check_shards(single, reports)
            assert tree() == single_tree, "the shards wrote other bytes than the single run"
            if not extra:
                assert single["totals"]["annotate"]["written"] > 0
                assert sum(r["totals"]["annotate"]["written"] for r in reports) == \
                    single["totals"]["annotate"]["written"]
            rc, merged, err = merge(tmp, [t for _, t in shards], [2, 1, 0])
            assert rc == 0, err
            assert merged == single_text, f"merged annotate {extra} report differs"


def test_check_and_strip_shards_merge_to_the_single_run():
    with TempDir() as tmp:
        cache, origins, _ = make_cache(tmp, seed=13)
        for args in (["check", "--format", "json", cache],
                     ["check", "--format", "json", "--origins", origins, cache],
                     ["strip", "--format", "json", "--dry-run", "--remove", cache]):
            rc, single_text, _ = run(*args)
            assert rc == 2, args
            single = json.loads(single_text)
            shards = shard_runs(args)
            reports = [json.loads(t) for _, t in shards]
            if args[0] == "check":
                assert single["findings"]
                positions = [{f["position"] for f in r["findings"]} for r in reports]
                assert all(positions) and not (positions[0] & positions[1] or positions[0] & positions[2]
                                               or positions[1] & positions[2])
                assert sum(r["files"] for r in reports) == single["files"]
            else:
                check_shards(single, reports)
            rc, merged, err = merge(tmp, [t for _, t in shards])
            assert rc == 0, err
            assert merged == single_text, f"merged {args[0]} report differs"


def test_merge_refuses_reports_that_do_not_belong_together():
    with TempDir() as tmp:
        cache, _, _ = make_cache(tmp, seed=14)
        scan = [t for _, t in shard_runs(["scan", "--format", "json", cache])]
        check = [t for _, t in shard_runs(["check", "--format", "json", cache])]
        halves = [t for _, t in shard_runs(["scan", "--format", "json", cache], shards=2)]
        single = run("scan", "--format", "json", cache)[1]
        v2 = scan[1].replace('"sdscprov_report": 1,', '"sdscprov_report": 2,', 1)
        assert v2 != scan[1]
        edited = json.loads(scan[1])
        edited["kernels"].append(json.loads(scan[0])["kernels"][0])
        cases = [
            ([scan[0], check[1], scan[2]], "cannot merge reports of different commands"),
            ([scan[0], v2, scan[2]], "cannot merge reports of different schema versions"),
            ([scan[0], scan[1]], "missing shard(s) 3/3"),
            ([scan[0], scan[1], scan[2], scan[1]], "overlapping shards"),
            ([scan[0], halves[1], scan[2]], "cannot merge shards of different shardings"),
            ([scan[0], json.dumps(edited, indent=2), scan[2]], "belongs to shard 1/3, not 2/3"),
            ([scan[0], single, scan[2]], "made without --shard"),
            ([scan[0], '{"kernels": []}', scan[2]], "not an sdscprov JSON report"),
            ([scan[0], "kernels: none\n", scan[2]], "not JSON"),
        ]
        for reports, message in cases:
            rc, out, err = merge(tmp, reports)
            assert rc == 2, (message, rc, err)
            assert out == "", message
            assert err.startswith("sdscprov merge: ") and message in err, (message, err)
        # The same shards, properly given, merge.
        rc, out, err = merge(tmp, scan)
        assert rc == 0 and out == single, err


def test_merge_reads_pipes_fifos_and_standard_input():
    """Shards streamed (`merge <(ssh h1 cat s1.json) ...`, `-`, a FIFO) merge as their files do;
    a FIFO nobody writes to is waited on, said once, and Ctrl-C ends the wait. A device, a socket
    or a directory is still refused at once."""
    with TempDir() as tmp:
        cache, _, _ = make_cache(tmp, seed=16)
        scan = [t for _, t in shard_runs(["scan", "--format", "json", cache])]
        paths = []
        for i, text in enumerate(scan):
            paths.append(os.path.join(tmp, f"shard-{i + 1}.json"))
            with open(paths[-1], "w") as f:
                f.write(text)
        check_merge_reads_streams(paths)
        sock = os.path.join(tmp, "shard.sock")
        server = socket.socket(socket.AF_UNIX)
        server.bind(sock)
        for special, what in (("/dev/zero", "is a character device, not a regular file"),
                              (tmp, "is a directory, not a file"),
                              (sock, "is a socket, not a regular file")):
            p = subprocess.run([BIN, "merge", paths[0], special, paths[2]], capture_output=True,
                               text=True, timeout=20)
            assert p.returncode == 2 and p.stdout == "", (special, p.returncode, p.stderr)
            assert f"{special}: error: {what} [not-a-regular-file]" in p.stderr, p.stderr
            assert f"sdscprov merge: cannot read {special}: nothing merged" in p.stderr, p.stderr
        server.close()


def test_bad_shard_values_are_usage_errors():
    with TempDir() as tmp:
        cache, origins, _ = make_cache(tmp, seed=15)
        commands = [["scan", cache], ["strip", "--dry-run", cache], ["check", cache],
                    ["annotate", "--dry-run", "--origins", origins, cache]]
        for value, message in (("0/3", "I must be from 1 to 3"), ("4/3", "I must be from 1 to 3"),
                               ("a/b", "expected I/N"), ("1/0", "N must be at least 1"),
                               ("3", "expected I/N"), ("-1/3", "expected I/N")):
            for cmd in commands:
                rc, out, err = run(*cmd, "--shard", value)
                assert rc == 2, (cmd, value, rc)
                assert out == "", (cmd, value)
                assert f"--shard: '{value}': {message}" in err, (cmd, value, err)
        # N/N is the last shard, a good value.
        rc, out, err = run("scan", "--format", "json", "--shard", "3/3", cache)
        report = json.loads(out)
        assert report["shard"]["index"] == 3 and "--shard" not in err
        assert rc == (2 if any(p["severity"] == "error" for p in report["problems"]) else 0)
        # explain looks at one kernel: it has no --shard.
        p = subprocess.run([BIN, "explain", "--shard", "1/3", "sdsc_x", cache], capture_output=True, text=True)
        assert p.returncode == 2 and "--shard" in p.stderr, p.stderr


if __name__ == "__main__":
    main([test_scan_shards_are_disjoint_cover_everything_and_merge_to_the_single_run,
          test_annotate_shards_write_what_the_single_run_writes_and_merge_to_its_report,
          test_check_and_strip_shards_merge_to_the_single_run,
          test_merge_refuses_reports_that_do_not_belong_together,
          test_merge_reads_pipes_fifos_and_standard_input,
          test_bad_shard_values_are_usage_errors])
