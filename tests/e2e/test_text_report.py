"""End-to-end: the default text report fits one screen on a 20,000-file cache (at most 60 lines,
none wider than the terminal), `--all` lists every directory, names are shortened on a terminal
only (keeping their tail) and whole when piped, and `--diff` keeps standard output for the diffs.
The cache is made here: small SDSC files, many directories per kernel name, long names, every
handle state, and an origins map for a part of the kernels."""
import json
import os
import random
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import TempDir, generate, main, run  # noqa: E402
from pty_run import run_pty  # noqa: E402

FILES = 20000
LONG = "sdsc_fused_" + "_".join(["layer_norm_native_layer_norm"] * 7) + "_7"  # over 200 bytes


def make_cache(root, files=FILES):
    """Writes the cache and its origins map; returns (map path, directories)."""
    rng = random.Random(16)
    names = [f"sdsc_fused_{'_'.join(rng.sample(['add', 'mm', 'relu', 'softmax', 'mean', 'silu', 'neg'], 2))}_{i}"
             for i in range(1500)]
    names[7] = LONG
    nodes = {"n": {"original_aten": "aten.add.Tensor", "stack_trace": '  File "/w/m.py", line 3, in f\n'}}
    kernels, dirs, written = [], [], 0
    d = 0
    while written < files:
        name = names[rng.randrange(len(names))]
        directory = os.path.join(root, "inductor-spyre", f"{name}_{d:08d}")
        os.makedirs(directory)
        count = min(rng.randint(1, 9), files - written)
        for i in range(count):
            state = rng.choice(['"debug_handle_": null, ', '', '', '"debug_handle_": 7, '])
            with open(os.path.join(directory, f"sdsc_{i}.json"), "w") as f:
                f.write(f'{{"{i}_add": {{{state}"numCoresUsed_": 32}}}}')
        if rng.random() < 0.6:  # the map knows this directory
            kernels.append({"name": name, "dir": os.path.basename(directory),
                            "ops": [{"opfunc": "add", "buffer": f"buf{i}", "origins": ["n"]}
                                    for i in range(count)]})
        dirs.append(directory)
        written += count
        d += 1
    origins = os.path.join(root, "origins.json")
    with open(origins, "w") as f:
        json.dump({"sdscprov_origins": 1, "nodes": nodes, "kernels": kernels}, f)
    return origins, dirs


def screen_check(text, width):
    lines = text.splitlines()
    assert len(lines) <= 60, (len(lines), text)
    wide = [line for line in lines if len(line) > width]  # characters, the ellipsis is one
    assert not wide, wide
    return lines


def test_twenty_thousand_files_on_one_screen():
    with TempDir() as tmp:
        cache = os.path.join(tmp, "cache")
        origins, dirs = make_cache(cache)
        def run(*args, env=None):  # on a terminal of 100 columns
            return run_pty(*args, "--color", "never", columns=100, env=env)
        env = {"COLUMNS": "100"}
        rc, out, err = run("scan", cache, env=env)
        lines = screen_check(out, 100)
        assert re.search(r"^total: \d+ kernels \(%d directories\), %d SDSC files$" % (len(dirs), FILES), out, re.M), out
        assert re.search(r"^\d+ kernels \(\d+ directories\) need attention, the worst first$", out, re.M), out
        assert re.search(r"^\u2026 \d+ more \(--all lists every directory\)$", out, re.M), out
        # No row names a kernel twice: the rows give kernel names, not directories.
        assert "inductor-spyre/" not in out, out
        # The long name is shortened in its middle, never wrapped, its tail kept.
        assert any(line.startswith("    ") and "layer_norm_native" in line and "\u2026" in line
                   and line.endswith(LONG[-40:]) for line in lines) or "layer_norm_native" not in out, out
        # annotate, dry run and real run: one screen too, the same column names.
        rc, dry, _ = run("annotate", "--dry-run", "--origins", origins, cache, env=env)
        dry_lines = screen_check(dry, 100)
        # The same column names as a real run (a small one: writing 20,000 files is slow here).
        rc, real, _ = run("annotate", "--durability", "none", "--origins", origins, dirs[0], dirs[1], env=env)
        real_lines = screen_check(real, 100)
        header = " dirs  files  added  filled  refreshed  kept  lacking  kernel"
        assert header in dry_lines and (header in real_lines or "Every file" in real), (dry, real)
        # check: a finding a line, the first 40 on a terminal, then how many more; piped, every
        # one (test_check.py); the summary on standard error.
        rc, out, err = run("check", cache, env=env)
        findings = int(re.search(r"sdscprov check: (\d+) findings", err).group(1))
        lines = out.splitlines()
        assert rc == 1 and findings > 40 and len(lines) == 41, (rc, findings, len(lines))
        assert all(re.match(r"^\S+:\d+:\d+: .* \[[a-z-]+\]$", line) for line in lines[:40]), out
        assert lines[40] == f"... and {findings - 40} more (--all)", lines[40]
        rc, out, err = run("check", "--all", cache, env=env)
        assert len(out.splitlines()) == findings and "more (--all)" not in out, len(out.splitlines())
        rc, out, err = run("check", dirs[0], env=env)
        assert all(re.match(r"^\S+:\d+:\d+: .* \[[a-z-]+\]$", line) for line in out.splitlines()), out
        # A narrower terminal: narrower lines.
        rc, out, _ = run("scan", cache, env={"COLUMNS": "72"})
        screen_check(out, 72)

        # --all: every directory, one row each, in the width.
        rc, out, _ = run("scan", "--all", cache, env={"COLUMNS": "400"})
        rows = [line for line in out.splitlines() if "/inductor-spyre/sdsc_fused_" in line]
        assert len(rows) == len(dirs), (len(rows), len(dirs))
        assert [r.split()[-1] for r in rows] == sorted(dirs), "every directory, in the walk's order"
        rc, out, _ = run("scan", "--all", cache, env={"COLUMNS": "100"})
        assert not [line for line in out.splitlines() if len(line) > 100]
        # The machine formats keep every directory.
        report = json.loads(run("scan", "--format", "json", cache)[1])
        assert len(report["kernels"]) == len(dirs)


def test_piped_reports_keep_every_name_whole():
    with TempDir() as tmp:
        cache = os.path.join(tmp, "cache")
        origins, dirs = make_cache(cache, 3000)
        long_dir = os.path.join(cache, "inductor-spyre", LONG + "_zz9k0b2q")
        os.makedirs(long_dir)
        for i in range(60):  # the most files lacking a handle: the first row
            with open(os.path.join(long_dir, f"sdsc_{i}.json"), "w") as f:
                f.write(f'{{"{i}_add": {{"numCoresUsed_": 32}}}}')
        dirs = sorted(dirs + [long_dir])
        for env in ({}, {"COLUMNS": "60"}):  # COLUMNS is the terminal's width, not a pipe's
            rc, out, _ = run("scan", cache, env=env)
            assert re.search("^ .* " + re.escape(LONG) + "$", out, re.M), out
            rc, out, _ = run("scan", "--all", cache, env=env)
            rows = [line.split()[-1] for line in out.splitlines() if "/inductor-spyre/" in line]
            assert sorted(rows) == sorted(dirs), "every directory whole, pasteable"
            rc, out, _ = run("annotate", "--dry-run", "--origins", origins, cache, env=env)
            assert LONG in out or "Every file" in out, out
            rc, out, _ = run("check", cache, env=env)
            # Piped: every finding, its path whole, no cap.
            assert long_dir + "/sdsc_0.json:1:2: " in out and "more (--all)" not in out, out
            assert "\u2026" not in out, out
        # On a terminal the long name is shortened in its middle, keeping its tail.
        rc, out, _ = run_pty("scan", "--color", "never", cache, columns=100)
        row = [line for line in out.splitlines() if "layer_norm" in line]
        assert row and "\u2026" in row[0] and row[0].endswith("_layer_norm_7") and len(row[0]) <= 100, out
        rc, out, _ = run_pty("scan", "--color", "never", "--all", long_dir, columns=100)
        row = [line for line in out.splitlines() if "layer_norm" in line]
        assert row and "\u2026" in row[0] and row[0].endswith("norm_7_zz9k0b2q") and len(row[0]) <= 100, out


def test_scan_annotate_and_check_count_the_same_kernels_and_directories():
    with TempDir() as tmp:
        cache = os.path.join(tmp, "cache")
        origins = os.path.join(tmp, "origins.json")
        generate(cache, 3000, "--layout", "mixed", "--handles", "populated,null,absent",
                 "--origins-map", origins)
        report = json.loads(run("scan", "--format", "json", cache, check_rc=0)[1])
        # Independently: a kernel is its name (a key directory: its own name), each directory one compile.
        def name(k):
            return k["kernel"] if k["kernel"] else os.path.basename(k["dir"].rstrip("/"))
        kernels = {name(k) for k in report["kernels"]}
        # A compiler-generated op (a restickify without a handle) needs no attention: no fix
        # gives it one.
        def lacks(f):
            generated = "restickify" in (f.get("opfunc") or "").lower() and f.get("handle") in ("null", "absent")
            return f.get("handle") != "populated" and not generated
        needy = [k for k in report["kernels"] if any(lacks(f) for f in k["files"])]
        assert 0 < len(needy) < len(report["kernels"]), "a cache with fine and needy directories"
        assert len({name(k) for k in needy}) < len(needy), "a kernel with several needy directories"
        every = "%d kernels (%d directories)" % (len(kernels), len(report["kernels"]))
        attention = "%d kernels (%d directories) need attention" % (len({name(k) for k in needy}), len(needy))
        rc, scan, _ = run("scan", cache, check_rc=0)
        assert f"total: {every}, 3000 SDSC files" in scan and attention + ", the worst first" in scan, scan[:1500]
        rc, dry, _ = run("annotate", "--dry-run", "--origins", origins, cache, check_rc=0)
        assert f"read: {every}, 3000 SDSC files" in dry, dry[:1500]
        m = re.search(r"kernels: (\d+) \((\d+) directories\) matched, (\d+) \((\d+) directories\) not in the map", dry)
        assert m and int(m.group(1)) + int(m.group(3)) == len(kernels), dry[:1500]
        assert int(m.group(2)) + int(m.group(4)) == len(report["kernels"]), dry[:1500]
        rc, out, err = run("check", cache, check_rc=1)
        assert f"{attention}, of {every}" in err, err
        # Piped: a line per finding, in the needy directories and no other.
        found_dirs = {os.path.dirname(line.split(":", 1)[0]) for line in out.splitlines()}
        found_dirs = {d[: d.index("/execute/")] if "/execute/" in d else d for d in found_dirs}
        assert found_dirs == {k["dir"].rstrip("/") for k in needy}, (len(found_dirs), len(needy))


def test_diff_goes_to_standard_output_and_the_report_to_standard_error():
    with TempDir() as tmp:
        cache = os.path.join(tmp, "cache")
        origins, dirs = make_cache(cache, 200)
        small = dirs[0]
        rc, out, err = run("annotate", "--dry-run", "--diff", "--origins", origins, small)
        assert out.startswith("--- a/") and "+++ b/" in out, out[:500]
        assert "would write:" in err and "would write:" not in out, err
        rc, quiet_out, quiet_err = run("annotate", "-q", "--dry-run", "--diff", "--origins", origins, small)
        assert quiet_out == out and "would write" not in quiet_err, quiet_err


if __name__ == "__main__":
    main([test_twenty_thousand_files_on_one_screen, test_piped_reports_keep_every_name_whole,
          test_scan_annotate_and_check_count_the_same_kernels_and_directories,
          test_diff_goes_to_standard_output_and_the_report_to_standard_error])
