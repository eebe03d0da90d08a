"""End-to-end: hostile trees and hostile bytes, the catalogue in docs/bad-input.md.

Every case is made here, at run time, in a temporary directory: small SDSC documents in the
styles under test, kernel directories named like torch-spyre's, and an origins map that gives
each of them a handle. The handle a file should get is derived here, independently of the tool
(FORMATS section 3 and 3.1), so that the bytes annotate writes are checked, not just parsed.
Each test names the catalogue rows it backs; a row's output, exit status and what happens to the
file are asserted, so a change of behaviour fails here before the catalogue goes stale.
"""
import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import BIN, SKIP, TempDir, main  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SUFFIX = "aaaaaaaa"  # every kernel directory: sdsc_<case>_0_aaaaaaaa
TRACE = '  File "/w/model.py", line 7, in forward\n    y = x + x\n'
ENOSPC = "No space left on device"


# ---- Making hostile trees --------------------------------------------------------------------

def sdsc(members=('"numCoresUsed_": 32',), op="0_add", indent="  ", newline="\n", bom=False):
    """An SDSC document laid out like json.dump(indent=...): one op holding `members` (texts of
    `"key": value`; bytes pass through as they are, so invalid UTF-8 can be made)."""
    def b(x):
        return x if isinstance(x, bytes) else x.encode()
    nl, ind = newline.encode(), indent.encode()
    body = (b"," + nl + ind * 2).join(b(m) for m in members)
    return (b"\xef\xbb\xbf" if bom else b"") + b"{" + nl + ind + b'"' + op.encode() + b'": {' + \
        nl + ind * 2 + body + nl + ind + b"}" + nl + b"}"


def kernel_dir(parent, case):
    return os.path.join(parent, f"sdsc_{case}_0_{SUFFIX}")


def make_kernel(parent, case, files):
    """A kernel directory holding `files` (name -> bytes); returns its path."""
    d = kernel_dir(parent, case)
    os.makedirs(d, exist_ok=True)
    for name, data in files.items():
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)
    return d


def write_map(path, cases, ops=None):
    """An origins map (docs/origins-map.md) with one entry per case, matched by directory name,
    with ops.get(case, 1) ops: op i is an `add` made from the FX node `add`, buffer buf<i>."""
    ops = ops or {}
    origins = {
        "sdscprov_origins": 1,
        "nodes": {"add": {"original_aten": "aten.add.Tensor", "stack_trace": TRACE}},
        "kernels": [{"name": f"sdsc_{c}_0", "dir": os.path.basename(kernel_dir("", c)),
                     "ops": [{"opfunc": "add", "buffer": f"buf{i}", "origins": ["add"],
                              "origin_node": "add"} for i in range(ops.get(c, 1))]}
                    for c in cases],
    }
    with open(path, "w") as f:
        json.dump(origins, f)
    return path


def expected_handle(buffer="buf0"):
    """The handle torch-spyre derives for an op made from node `add` (FORMATS 3, id version 2)."""
    source = {"file": "/w/model.py", "start_line": 7, "start_col": 0, "end_line": None, "end_col": None}
    hashed = {"aten_op": "aten.add.Tensor", "fused_from": [], "ir_chain": ["add", buffer],
              "source": source, "version": 2}
    text = json.dumps(hashed, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    digest = hashlib.sha256(text.encode()).digest()
    handle_id = str(int.from_bytes(digest[:8], "big") >> 1)
    return {"id": handle_id, "source": source, "aten_op": "aten.add.Tensor",
            "ir_chain": ["add", buffer], "fused_from": [], "transform_history": []}


def annotated(original, indent="  ", newline="\n", buffer="buf0"):
    """`original` (a pretty document from sdsc()) with the handle inserted as the op's first
    member, in the document's own style: json.dump's layout at depth 2, then ','."""
    rendered = json.dumps(expected_handle(buffer), indent=indent).replace("\n", newline + indent * 2)
    member = newline + indent * 2 + '"debug_handle_": ' + rendered + ","
    at = original.index(b": {") + 3
    return original[:at] + member.encode() + original[at:]


def state(path, read=True):
    """What must not change about a file: type, inode, link count, mode, mtime and bytes (for a
    directory, whose mtime a created and removed temporary file moves: type, inode and mode)."""
    st = os.lstat(path)
    if stat.S_ISDIR(st.st_mode):
        return (stat.S_IFDIR, st.st_ino, stat.S_IMODE(st.st_mode))
    data = None
    if read and stat.S_ISREG(st.st_mode):
        with open(path, "rb") as f:
            data = f.read()
    elif stat.S_ISLNK(st.st_mode):
        data = os.readlink(path)
    return (stat.S_IFMT(st.st_mode), st.st_ino, st.st_nlink, stat.S_IMODE(st.st_mode),
            st.st_mtime_ns, st.st_size, data)


def snapshot(root):
    """state() of everything under root (links not followed), by relative path."""
    out = {}
    for dirpath, dirs, files in os.walk(root):
        for name in dirs + files:
            p = os.path.join(dirpath, name)
            out[os.path.relpath(p, root)] = state(p)
    return out


def temporaries(root):
    return [os.path.join(d, f) for d, _, files in os.walk(root) for f in files if ".sdscprov-" in f]


# ---- Running the tool ------------------------------------------------------------------------

def sdscprov(*args, env=None, timeout=60, user=None):
    """Runs the binary; a hang fails the test after `timeout` seconds. Returns (rc, out, err)."""
    full_env = dict(os.environ)
    full_env.pop("NO_COLOR", None)
    full_env.update(env or {})
    p = subprocess.run([BIN, *args], capture_output=True, text=True, env=full_env,
                       timeout=timeout, user=user)
    return p.returncode, p.stdout, p.stderr


def report(*args, rc, **kw):
    """Runs a command with --format json; checks the exit status; returns the parsed report."""
    code, out, err = sdscprov(*args, "--format", "json", **kw)
    assert code == rc, f"sdscprov {' '.join(args)}: exit {code}, expected {rc}\n{out[-2000:]}\n{err[-2000:]}"
    return json.loads(out)


def problems_of(rep):
    return sorted((p["path"], p["line"], p["col"], p["code"], p["message"]) for p in rep["problems"])


def text_line(path, code, message, line=None, col=None, severity="error"):
    """A problem as the text report prints it (the catalogue shows these lines)."""
    where = f"{path}:{line}:{col}" if line is not None else path
    return f"{where}: {severity}: {message} [{code}]"


# ---- A full disk -----------------------------------------------------------------------------

def build_enospc_shim(tmp):
    """tests/e2e/enospc_shim.c, built with the system C compiler; None without one."""
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        return None
    out = os.path.join(tmp, "enospc_shim.so")
    subprocess.run([cc, "-shared", "-fPIC", "-O1", "-o", out, os.path.join(HERE, "enospc_shim.c"),
                    "-ldl"], check=True, capture_output=True)
    return out


def test_full_disk_leaves_every_file_unchanged_and_no_temporary():
    """Catalogue: 'A full disk while writing' (annotate: write, create, syncfs, fsync; strip)."""
    with TempDir() as tmp:
        shim = build_enospc_shim(tmp)
        if shim is None:
            return SKIP
        cache = os.path.join(tmp, "cache")
        make_kernel(cache, "two", {"sdsc_0.json": sdsc(), "sdsc_1.json": sdsc(op="1_add")})
        make_kernel(cache, "one", {"sdsc_0.json": sdsc()})
        origins = write_map(os.path.join(tmp, "origins.json"), ["two", "one"], {"two": 2})
        files = sorted(os.path.join(d, f) for d, _, fs in os.walk(cache) for f in fs)
        assert len(files) == 3
        # The same tree with handles, for strip: annotated without the shim (the control run).
        handled = os.path.join(tmp, "handled")
        shutil.copytree(cache, handled)
        control = report("annotate", "--origins", origins, handled, rc=0)
        assert control["totals"]["annotate"]["written"] == 3, control["totals"]

        # ASan (the sanitizer build of the suite) must accept a preloaded library.
        asan = (os.environ.get("ASAN_OPTIONS", "") + ":verify_asan_link_order=0").lstrip(":")
        cases = [
            ("annotate", cache, "write", [], "cannot write the temporary file"),
            ("annotate", cache, "create", [], "cannot create a temporary file beside it"),
            ("annotate", cache, "syncfs", [], "cannot sync the temporary file"),
            ("annotate", cache, "fsync", ["--durability", "full"], "cannot fsync the temporary file"),
            ("strip", handled, "write", [], "cannot write the temporary file"),
        ]
        for command, tree, calls, extra, what in cases:
            env = {"LD_PRELOAD": shim, "SDSCPROV_ENOSPC": calls, "ASAN_OPTIONS": asan}
            args = [command, *extra, *(["--origins", origins] if command == "annotate" else []), tree]
            before = snapshot(tree)
            rep = report(*args, rc=2, env=env)
            message = f"{what}: {ENOSPC} (the file is unchanged)"
            want = sorted((os.path.join(tree, os.path.relpath(p, cache)), None, None, "write-failed",
                           message) for p in files)
            assert problems_of(rep) == want, (command, calls, problems_of(rep))
            assert rep["totals"]["annotate"]["written"] == 0, (command, calls, rep["totals"])
            assert snapshot(tree) == before, (command, calls, "a file changed")
            assert temporaries(tmp) == [], (command, calls, temporaries(tmp))

        # The text report prints the same lines (the catalogue quotes them).
        rc, out, _ = sdscprov("annotate", "--origins", origins, cache,
                              env={"LD_PRELOAD": shim, "SDSCPROV_ENOSPC": "write", "ASAN_OPTIONS": asan})
        assert rc == 2
        first = os.path.join(cache, f"sdsc_one_0_{SUFFIX}", "sdsc_0.json")
        assert text_line(first, "write-failed", f"cannot write the temporary file: {ENOSPC} "
                         "(the file is unchanged)") in out.splitlines(), out


# ---- Symbolic links --------------------------------------------------------------------------

def test_directory_symlinks_and_loops_end():
    """Catalogue: 'Directory symlinks', 'Symlink loops' (directories, and a file link that leads
    nowhere)."""
    with TempDir() as tmp:
        cache = os.path.join(tmp, "cache")
        real = make_kernel(cache, "loopy", {"sdsc_0.json": sdsc()})
        broken = make_kernel(cache, "broken", {})
        os.symlink("sdsc_0.json", os.path.join(broken, "sdsc_0.json"))  # a loop of one link
        os.symlink("gone.json", os.path.join(broken, "sdsc_1.json"))    # dangling
        os.makedirs(os.path.join(cache, "sub"))
        os.symlink("..", os.path.join(cache, "sub", "up"))   # back to the root: a loop
        os.symlink(".", os.path.join(cache, "sub", "self"))  # to itself: a loop
        os.symlink(os.path.basename(real), os.path.join(cache, "alias"))  # a second way in
        origins = write_map(os.path.join(tmp, "origins.json"), ["loopy", "broken"], {"broken": 2})
        loop_msg = "cannot open: Too many levels of symbolic links"
        gone_msg = "cannot open: No such file or directory"
        link_problems = [
            (os.path.join(broken, "sdsc_0.json"), None, None, "io-error", loop_msg),
            (os.path.join(broken, "sdsc_1.json"), None, None, "io-error", gone_msg),
        ]

        # Not followed (the default): the directory links are passed over without a word; the
        # file links that lead nowhere are reported, not skipped.
        rep = report("scan", cache, rc=2, timeout=20)
        assert [k["dir"] for k in rep["kernels"]] == [broken, real], [k["dir"] for k in rep["kernels"]]
        assert problems_of(rep) == link_problems, problems_of(rep)
        rc, out, _ = sdscprov("scan", cache, timeout=20)
        assert text_line(os.path.join(broken, "sdsc_0.json"), "io-error", loop_msg) in out.splitlines(), out

        # Followed: every directory is walked once, whichever link reaches it first (here the
        # link `alias`, which sorts before the real name), and the walk ends.
        rep = report("scan", "--follow-symlinks", cache, rc=2, timeout=20)
        alias = os.path.join(cache, "alias")
        assert [(k["dir"], k["kernel"]) for k in rep["kernels"]] == [(alias, None), (broken, "sdsc_broken_0")], \
            [(k["dir"], k["kernel"]) for k in rep["kernels"]]
        assert problems_of(rep) == link_problems, problems_of(rep)

        # annotate: the real directory is annotated without --follow-symlinks; with it, the
        # directory reached as `alias` carries no kernel name and is not matched: nothing is
        # written twice, nothing through the loops.
        before = snapshot(tmp)
        rep = report("annotate", "--follow-symlinks", "--origins", origins, cache, rc=2, timeout=20)
        assert rep["totals"]["annotate"]["written"] == 0, rep["totals"]
        assert snapshot(tmp) == before
        rep = report("annotate", "--origins", origins, cache, rc=2, timeout=20)
        assert problems_of(rep) == link_problems, problems_of(rep)
        assert rep["totals"]["annotate"]["written"] == 1, rep["totals"]
        with open(os.path.join(real, "sdsc_0.json"), "rb") as f:
            assert f.read() == annotated(sdsc())
        assert os.readlink(os.path.join(broken, "sdsc_0.json")) == "sdsc_0.json"
        assert temporaries(tmp) == []


def test_symlinks_pointing_outside_the_tree_are_never_written_through():
    """Catalogue: 'A symlink pointing outside the tree' (a file link, a directory link; with and
    without --follow-symlinks; annotate and strip)."""
    with TempDir() as tmp:
        cache = os.path.join(tmp, "cache")
        outside = os.path.join(tmp, "outside")
        null_handle = sdsc(['"debug_handle_": null', '"numCoresUsed_": 32'])
        os.makedirs(outside)
        victim = os.path.join(outside, "victim.json")
        with open(victim, "wb") as f:
            f.write(null_handle)
        filelink = make_kernel(cache, "filelink", {})
        os.symlink(victim, os.path.join(filelink, "sdsc_0.json"))
        target = make_kernel(outside, "dirlink", {"sdsc_0.json": null_handle})
        dirlink = kernel_dir(cache, "dirlink")
        os.symlink(target, dirlink)
        inside = make_kernel(cache, "inside", {"sdsc_0.json": null_handle})
        origins = write_map(os.path.join(tmp, "origins.json"), ["filelink", "dirlink", "inside"])
        file_msg = "is a symbolic link: not written (the link and its target are unchanged)"
        dir_msg = ("reached through a symbolic link to a directory outside the paths given: not "
                   "written (the link and its target are unchanged)")
        file_problem = (os.path.join(filelink, "sdsc_0.json"), None, None, "write-failed", file_msg)
        dir_problem = (os.path.join(dirlink, "sdsc_0.json"), None, None, "write-failed", dir_msg)

        outside_before = snapshot(outside)
        rep = report("scan", "--follow-symlinks", cache, rc=0)  # reading through links is fine
        assert rep["totals"]["files"] == 3 and rep["totals"]["handles_null"] == 3, rep["totals"]

        for follow in ([], ["--follow-symlinks"]):
            rep = report("annotate", *follow, "--origins", origins, cache, rc=2)
            want = [file_problem] + ([dir_problem] if follow else [])
            assert problems_of(rep) == sorted(want), (follow, problems_of(rep))
            dirs = [k["dir"] for k in rep["kernels"]]
            assert (dirlink in dirs) == bool(follow), dirs
            assert snapshot(outside) == outside_before, follow
            assert os.path.islink(dirlink) and os.path.islink(os.path.join(filelink, "sdsc_0.json"))
            assert temporaries(tmp) == [], temporaries(tmp)
        with open(os.path.join(inside, "sdsc_0.json"), "rb") as f:
            inside_annotated = f.read()
        assert inside_annotated == annotated(sdsc()), "the file inside the tree is filled"

        # strip --remove would remove the (null) handles: the same refusals.
        rep = report("strip", "--remove", "--follow-symlinks", cache, rc=2)
        assert problems_of(rep) == sorted([file_problem, dir_problem]), problems_of(rep)
        assert snapshot(outside) == outside_before
        assert temporaries(tmp) == []
        rc, out, _ = sdscprov("annotate", "--follow-symlinks", "--origins", origins, cache)
        assert rc == 2 and text_line(dir_problem[0], "write-failed", dir_msg) in out.splitlines(), out


if __name__ == "__main__":
    main([test_full_disk_leaves_every_file_unchanged_and_no_temporary,
          test_directory_symlinks_and_loops_end,
          test_symlinks_pointing_outside_the_tree_are_never_written_through])
