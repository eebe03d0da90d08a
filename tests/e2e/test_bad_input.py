"""End-to-end: hostile trees and hostile bytes, the catalogue in docs/bad-input.md.

Every case is made here, at run time, in a temporary directory: small SDSC documents in the
styles under test, kernel directories named like torch-spyre's, and an origins map that gives
each of them a handle. The handle a file should get is derived here, independently of the tool
(torch-spyre's handle layout and its version-2 id), so that the bytes annotate writes are
checked, not just parsed.
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
from e2e import BIN, SKIP, TempDir, main, sanitized  # noqa: E402

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
    """The handle torch-spyre derives for an op made from node `add` (id version 2)."""
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
    """The report's problems, less the notes naming map kernels that no directory matched."""
    return sorted((p["path"], p["line"], p["col"], p["code"], p["message"]) for p in rep["problems"]
                  if p["code"] != "kernel-without-dir")


def kernels_without_dir(rep):
    """The kernels of the origins map that no directory of the walk matched (notes)."""
    return [p["message"].split("'")[1] for p in rep["problems"] if p["code"] == "kernel-without-dir"]


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
            # Counts tell what was done: nothing was added or stripped, every change failed.
            done = rep["totals"]["annotate"]
            assert done["added"] + done["filled"] + done["stripped"] == 0, (command, calls, done)
            assert done["failed"] == len(files), (command, calls, done)
            assert snapshot(tree) == before, (command, calls, "a file changed")
            assert temporaries(tmp) == [], (command, calls, temporaries(tmp))

        # The text report prints the same lines (the catalogue quotes them).
        rc, out, err = sdscprov("annotate", "--origins", origins, cache,
                              env={"LD_PRELOAD": shim, "SDSCPROV_ENOSPC": "write", "ASAN_OPTIONS": asan})
        assert rc == 2
        first = os.path.join(cache, f"sdsc_one_0_{SUFFIX}", "sdsc_0.json")
        assert text_line(first, "write-failed", f"cannot write the temporary file: {ENOSPC} "
                         "(the file is unchanged)") in err.splitlines(), err


# ---- Symbolic links --------------------------------------------------------------------------

def test_directory_symlinks_and_loops_end():
    """Catalogue: 'Directory symlinks', 'Symlink loops' (directories, and a file link that leads
    nowhere)."""
    with TempDir() as tmp:
        cache = os.path.join(tmp, "cache")
        real = make_kernel(cache, "loopy", {"sdsc_0.json": sdsc()})
        os.makedirs(os.path.join(cache, "sub"))
        os.symlink("..", os.path.join(cache, "sub", "up"))   # back to the root: a loop
        os.symlink(".", os.path.join(cache, "sub", "self"))  # to itself: a loop
        alias = os.path.join(cache, "alias")
        os.symlink(os.path.basename(real), alias)  # a second way in, sorting before the real name
        origins = write_map(os.path.join(tmp, "origins.json"), ["loopy", "broken"], {"broken": 2})

        # Not followed (the default): the directory links are passed over without a word.
        rep = report("scan", cache, rc=0, timeout=20)
        assert [k["dir"] for k in rep["kernels"]] == [real] and rep["problems"] == [], rep["kernels"]
        # Followed: every directory is walked once, under the name that reaches it first (the
        # link `alias`, which carries no kernel name), and the walk ends.
        rep = report("scan", "--follow-symlinks", cache, rc=0, timeout=20)
        assert [(k["dir"], k["kernel"]) for k in rep["kernels"]] == [(alias, None)], rep["kernels"]
        assert rep["problems"] == [] and rep["totals"]["files"] == 1, rep["totals"]
        # annotate --follow-symlinks: `alias` matches no map entry; nothing is written, nothing
        # twice, nothing through the loops.
        before = snapshot(tmp)
        rep = report("annotate", "--follow-symlinks", "--origins", origins, cache, rc=0, timeout=20)
        assert [(k["dir"], k["annotate"]["match"], k["annotate"]["detail"]) for k in rep["kernels"]] == \
            [(alias, "not-in-map", "kernel not in the origins map")], rep["kernels"]
        assert rep["totals"]["annotate"]["written"] == 0, rep["totals"]
        assert snapshot(tmp) == before
        rc, out, _ = sdscprov("annotate", "--all", "--follow-symlinks", "--origins", origins, cache, timeout=20)
        assert rc == 0 and "  lacking: 1 x kernel not in the origins map" in out.splitlines(), out
        # Not followed: the real directory is annotated, once.
        rep = report("annotate", "--origins", origins, cache, rc=0, timeout=20)
        assert rep["totals"]["annotate"]["written"] == 1 and problems_of(rep) == [], rep["totals"]
        assert kernels_without_dir(rep) == ["sdsc_broken_0"], rep["problems"]
        with open(os.path.join(real, "sdsc_0.json"), "rb") as f:
            assert f.read() == annotated(sdsc())

        # Links named like SDSC files that lead nowhere are reported, not skipped.
        broken = make_kernel(cache, "broken", {})
        os.symlink("sdsc_0.json", os.path.join(broken, "sdsc_0.json"))  # a loop of one link
        os.symlink("gone.json", os.path.join(broken, "sdsc_1.json"))    # dangling
        loop_msg = "cannot open: Too many levels of symbolic links"
        gone_msg = "cannot open: No such file or directory"
        link_problems = [
            (os.path.join(broken, "sdsc_0.json"), None, None, "io-error", loop_msg),
            (os.path.join(broken, "sdsc_1.json"), None, None, "io-error", gone_msg),
        ]
        for follow in ([], ["--follow-symlinks"]):
            rep = report("scan", *follow, cache, rc=2, timeout=20)
            assert problems_of(rep) == link_problems, (follow, problems_of(rep))
        rc, out, err = sdscprov("scan", cache, timeout=20)
        assert text_line(os.path.join(broken, "sdsc_0.json"), "io-error", loop_msg) in err.splitlines(), err

        before = snapshot(tmp)
        rep = report("annotate", "--origins", origins, cache, rc=2, timeout=20)
        assert problems_of(rep) == link_problems, problems_of(rep)
        assert snapshot(tmp) == before, "the links (and the annotated file) are unchanged"
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
            # Not followed, the directory link is named in a note (it leads to SDSC files).
            not_followed = (dirlink, None, None, "symlink-not-followed",
                            "a symbolic link to a directory holding SDSC files, not followed: "
                            "--follow-symlinks walks it")
            want = [file_problem] + ([dir_problem] if follow else [not_followed])
            assert problems_of(rep) == sorted(want), (follow, problems_of(rep))
            # Not followed, the directory link is not walked: its map kernel has no directory.
            assert kernels_without_dir(rep) == ([] if follow else ["sdsc_dirlink_0"]), rep["problems"]
            dirs = [k["dir"] for k in rep["kernels"]]
            assert (dirlink in dirs) == bool(follow), dirs
            assert snapshot(outside) == outside_before, follow
            assert os.path.islink(dirlink) and os.path.islink(os.path.join(filelink, "sdsc_0.json"))
            assert temporaries(tmp) == [], temporaries(tmp)
        with open(os.path.join(inside, "sdsc_0.json"), "rb") as f:
            inside_annotated = f.read()
        assert inside_annotated == annotated(sdsc()), "the file inside the tree is filled"

        # strip --remove would remove the (null) handles: the same refusals.
        rep = report("strip", "--remove", cache, rc=2)
        assert problems_of(rep) == sorted([file_problem, not_followed]), problems_of(rep)
        rep = report("strip", "--remove", "--follow-symlinks", cache, rc=2)
        assert problems_of(rep) == sorted([file_problem, dir_problem]), problems_of(rep)
        assert snapshot(outside) == outside_before
        assert temporaries(tmp) == []
        rc, out, err = sdscprov("annotate", "--follow-symlinks", "--origins", origins, cache)
        assert rc == 2 and text_line(dir_problem[0], "write-failed", dir_msg) in err.splitlines(), err


# ---- Hostile bytes ----------------------------------------------------------------------------

def line_col(data, offset):
    """1-based line and column (in code points, a leading BOM not counted) of a byte offset,
    computed here, not by the tool."""
    start = data.rfind(b"\n", 0, offset) + 1
    if start == 0 and data.startswith(b"\xef\xbb\xbf"):
        start = 3
    return data.count(b"\n", 0, offset) + 1, sum(1 for b in data[start:offset] if b & 0xC0 != 0x80) + 1


def opening_at_depth(data, depth):
    """Offset of the '{' or '[' that opens nesting level `depth` (the root is level 1); the
    documents here have no brackets inside strings."""
    level = 0
    for i, c in enumerate(data):
        if c in b"{[":
            level += 1
            if level == depth:
                return i
        elif c in b"}]":
            level -= 1
    raise AssertionError("not that deep")


CRLF_TABS = {"indent": "\t", "newline": "\r\n"}
TRUNCATED = sdsc(['"label_": "time"', '"numCoresUsed_": 32'])
TRUNCATED = TRUNCATED[:TRUNCATED.index(b'"time"') + 3]  # cut inside a string, as a killed compile


def hostile_bytes():
    """(case, bytes, expected problem or None, bytes after annotate or None = unchanged).
    A problem is (code, offset of its position or None, message)."""
    deep_arrays = sdsc(['"x": ' + "[" * 10000 + "]" * 10000])
    deep_objects = sdsc(['"x": ' + '{"a": ' * 10000 + "1" + "}" * 10000])
    big = sdsc(['"x": 18446744073709551616'])
    negative = sdsc(['"x": -9223372036854775809'])
    bad_utf8 = sdsc([b'"label_": "ab\xff\xfe"'])
    overlong = sdsc([b'"label_": "\xc0\xaf"'])
    surrogate = sdsc([b'"label_": "\xed\xa0\x80"'])
    two_members = b'{\n  "0_add": {\n    "x": 1\n  },\n  "1_add": {\n    "x": 1\n  }\n}'
    wrong_key = b'{\n  "summary": {\n    "ops": 3\n  }\n}'
    missing_comma = sdsc(['"a": 1\r\n\t\t"b": 2'], bom=True, **CRLF_TABS)
    twice = sdsc(['"debug_handle_": null', '"debug_handle_": null', '"x": 1'])
    max_u64 = sdsc(['"x": 18446744073709551615'])
    depth_msg = "nesting deeper than 1024 levels"
    return [
        ("empty", b"", ("parse-error", 0, "empty document"), None),
        ("truncated", TRUNCATED,
         ("parse-error", len(TRUNCATED), "unexpected end of input: unterminated string"), None),
        ("notsdsc", wrong_key, ("not-sdsc", wrong_key.index(b'"summary"'),
                                "not an SDSC document: the top-level key 'summary' is not "
                                '"<N>_<opfunc>"'), None),
        ("array", b"[\n  1\n]", ("not-sdsc", 0, "not an SDSC document: the top level is not an object"),
         None),
        ("twomembers", two_members,
         ("not-sdsc", two_members.index(b'"1_add"'), "not an SDSC document: the top-level object "
          'has 2 members, an SDSC file has exactly one ("<N>_<opfunc>")'), None),
        ("twice", twice, ("duplicate-handle", twice.index(b'"debug_handle_"'),
                          "debug_handle_ appears 2 times in the op object"), None),
        ("deeparrays", deep_arrays, ("parse-error", opening_at_depth(deep_arrays, 1025), depth_msg), None),
        ("deepobjects", deep_objects, ("parse-error", opening_at_depth(deep_objects, 1025), depth_msg),
         None),
        ("bigint", big, ("parse-error", big.index(b"1844"), "integer out of range (more than 64 bits)"),
         None),
        ("negative", negative, ("parse-error", negative.index(b"-922"),
                                "integer out of range (below -9223372036854775808)"), None),
        ("maxu64", max_u64, None, annotated(max_u64)),
        ("badutf8", bad_utf8, ("parse-error", bad_utf8.index(b"\xff"), "invalid UTF-8 byte 0xff"), None),
        ("overlong", overlong, ("parse-error", overlong.index(b"\xc0"),
                                "invalid UTF-8 byte 0xc0: overlong encoding"), None),
        ("surrogate", surrogate, ("parse-error", surrogate.index(b"\xed"),
                                  "invalid UTF-8 byte 0xed: encoded surrogate"), None),
        ("bom", sdsc(bom=True), None, b"\xef\xbb\xbf" + annotated(sdsc())),
        ("crlf", sdsc(newline="\r\n"), None, annotated(sdsc(newline="\r\n"), newline="\r\n")),
        ("tabs", sdsc(indent="\t"), None, annotated(sdsc(indent="\t"), indent="\t")),
        ("bomcrlftabs", sdsc(bom=True, **CRLF_TABS), None,
         b"\xef\xbb\xbf" + annotated(sdsc(**CRLF_TABS), **CRLF_TABS)),
        ("bomcrlftabsbad", missing_comma,
         ("parse-error", missing_comma.index(b'"b"'), "expected ',' or '}' after object member, found '\"'"),
         None),
    ]


def test_hostile_bytes_are_reported_at_their_position_and_never_written():
    """Catalogue: every row of 'Hostile bytes' (scan, annotate, annotate --refresh, strip)."""
    with TempDir() as tmp:
        cache = os.path.join(tmp, "cache")
        cases = hostile_bytes()
        paths = {}
        for case, data, _, _ in cases:
            paths[case] = os.path.join(make_kernel(cache, case, {"sdsc_0.json": data}), "sdsc_0.json")
        # A killed compile: a truncated file beside a good one in the same kernel directory.
        killed = make_kernel(cache, "killed", {"sdsc_0.json": sdsc(), "sdsc_1.json": TRUNCATED})
        origins = write_map(os.path.join(tmp, "origins.json"), [c[0] for c in cases] + ["killed"],
                            {"killed": 2})
        want = []
        for case, data, problem, _ in cases:
            if problem:
                code, offset, message = problem
                line, col = line_col(data, offset)
                want.append((paths[case], line, col, code, message))
        killed_line, killed_col = line_col(TRUNCATED, len(TRUNCATED))
        want.append((os.path.join(killed, "sdsc_1.json"), killed_line, killed_col, "parse-error",
                     "unexpected end of input: unterminated string"))
        want.sort()

        rep = report("scan", cache, rc=2)
        assert problems_of(rep) == want, "\n".join(map(str, set(problems_of(rep)) ^ set(want)))
        rc, out, err = sdscprov("scan", cache)
        lines = err.splitlines()
        for path, line, col, code, message in want:
            assert text_line(path, code, message, line, col) in lines, (path, err)
            assert path + ":" not in out, "problems go to standard error, not into the report"

        # The files that are fine, alone in a tree: every command exits 0 (a copy, before the
        # annotate below changes them).
        good = os.path.join(tmp, "good")
        for case, data, problem, _ in cases:
            if problem is None:
                make_kernel(good, case, {"sdsc_0.json": data})

        before = snapshot(cache)
        rc, out, err = sdscprov("annotate", "--dry-run", "--origins", origins, cache)
        lines = err.splitlines()
        for path, line, col, code, message in want:
            assert text_line(path, code, message, line, col) in lines, (path, err)
        rep = report("annotate", "--origins", origins, cache, rc=2)
        assert problems_of(rep) == want, "\n".join(map(str, set(problems_of(rep)) ^ set(want)))
        writes = [c for c in cases if c[3] is not None]
        assert rep["totals"]["annotate"]["written"] == len(writes) + 1, rep["totals"]
        after = snapshot(cache)
        for case, data, _, expected in cases:
            rel = os.path.relpath(paths[case], cache)
            if expected is None:
                assert after[rel] == before[rel], f"{case}: the file changed"
            else:
                assert after[rel][6] == expected, f"{case}: not the expected bytes\n{after[rel][6]!r}"
        with open(os.path.join(killed, "sdsc_0.json"), "rb") as f:
            assert f.read() == annotated(sdsc()), "the good file beside a truncated one is annotated"
        assert after["sdsc_killed_0_aaaaaaaa/sdsc_1.json"] == before["sdsc_killed_0_aaaaaaaa/sdsc_1.json"]
        assert temporaries(tmp) == []

        # --refresh would replace a stale handle: it still never touches a bad file.
        before = snapshot(cache)
        rep = report("annotate", "--refresh", "--origins", origins, cache, rc=2)
        assert problems_of(rep) == want and rep["totals"]["annotate"]["written"] == 0, rep["totals"]
        assert snapshot(cache) == before

        # strip --remove gives the good files back byte for byte (BOM, CRLF, tabs) and leaves
        # the bad ones (and the twice-present handle) alone.
        rc, _, err = sdscprov("strip", "--dry-run", "--remove", cache)
        lines = err.splitlines()
        for path, line, col, code, message in want:
            assert text_line(path, code, message, line, col) in lines, (path, err)
        rep = report("strip", "--remove", cache, rc=2)
        assert problems_of(rep) == want, "\n".join(map(str, set(problems_of(rep)) ^ set(want)))
        for case, data, _, _ in cases:
            with open(paths[case], "rb") as f:
                assert f.read() == data, f"{case}: strip --remove did not give the original back"
        assert temporaries(tmp) == []

        origins = write_map(os.path.join(tmp, "good.json"), [c[0] for c in cases if c[2] is None])
        assert report("scan", good, rc=0)["problems"] == []
        rep = report("annotate", "--origins", origins, good, rc=0)
        assert rep["problems"] == [] and rep["totals"]["annotate"]["written"] == len(writes)
        assert report("strip", "--remove", good, rc=0)["problems"] == []


# ---- Links, permissions, special files, size ---------------------------------------------------

def test_hard_link_is_broken_by_annotate_and_the_other_name_keeps_the_original():
    """Catalogue: 'Hard links'. annotate replaces the name it walked (a new inode, by rename);
    every other name of the old inode keeps the original bytes: a snapshot made with `cp -al`
    stays a snapshot, and a file is never half-changed under another name."""
    with TempDir() as tmp:
        cache = os.path.join(tmp, "cache")
        kdir = make_kernel(cache, "hard", {"sdsc_0.json": sdsc()})
        path = os.path.join(kdir, "sdsc_0.json")
        other = os.path.join(tmp, "snapshot-sdsc_0.json")
        os.link(path, other)
        old = os.stat(path)
        assert old.st_nlink == 2
        origins = write_map(os.path.join(tmp, "origins.json"), ["hard"])
        rep = report("annotate", "--origins", origins, cache, rc=0)
        assert [(p["path"], p["code"], p["severity"]) for p in rep["problems"]] == \
            [(path, "hard-links", "note")], rep["problems"]
        assert rep["totals"]["annotate"]["written"] == 1, rep
        new = os.stat(path)
        with open(path, "rb") as f:
            assert f.read() == annotated(sdsc())
        assert new.st_ino != old.st_ino and new.st_nlink == 1, (new, old)
        with open(other, "rb") as f:
            assert f.read() == sdsc(), "the other name must keep the original bytes"
        assert os.stat(other).st_ino == old.st_ino and os.stat(other).st_nlink == 1


def test_read_only_file_is_not_written():
    """Catalogue: 'Read-only file' (annotate and strip, also as root)."""
    with TempDir() as tmp:
        cache = os.path.join(tmp, "cache")
        files = {}
        for case, mode in (("ro444", 0o444), ("ro400", 0o400), ("ro555", 0o555)):
            kdir = make_kernel(cache, case, {"sdsc_0.json": sdsc()})
            files[os.path.join(kdir, "sdsc_0.json")] = mode
            os.chmod(os.path.join(kdir, "sdsc_0.json"), mode)
        origins = write_map(os.path.join(tmp, "origins.json"), ["ro444", "ro400", "ro555"])

        def message(mode):
            return (f"is read-only (mode {mode:04o}, no write permission for its owner): not "
                    "written (the file is unchanged)")
        want = sorted((p, None, None, "write-failed", message(m)) for p, m in files.items())
        before = snapshot(cache)
        rep = report("annotate", "--origins", origins, cache, rc=2)
        assert problems_of(rep) == want, problems_of(rep)
        assert rep["totals"]["annotate"]["written"] == 0
        assert snapshot(cache) == before and temporaries(tmp) == []
        rc, out, err = sdscprov("annotate", "--origins", origins, cache)
        first = sorted(files)[0]
        assert rc == 2 and text_line(first, "write-failed", message(files[first])) in err.splitlines(), err

        # strip: the same refusal (here: files with a handle, made read-only after annotate).
        for p in files:
            os.chmod(p, 0o644)
        report("annotate", "--origins", origins, cache, rc=0)
        for p, m in files.items():
            os.chmod(p, m)
        before = snapshot(cache)
        rep = report("strip", cache, rc=2)
        assert problems_of(rep) == want, problems_of(rep)
        assert snapshot(cache) == before and temporaries(tmp) == []


def test_read_only_directory_as_root():
    """Catalogue: 'Read-only directory', as root: mode 0555 does not stop root (as for any
    program); the immutable attribute does (that case: test_annotate.py,
    test_unwritable_directory_is_reported_and_untouched)."""
    if os.geteuid() != 0:
        return SKIP  # test_read_only_directory_as_a_user covers it
    with TempDir() as tmp:
        cache = os.path.join(tmp, "cache")
        kdir = make_kernel(cache, "rodir", {"sdsc_0.json": sdsc()})
        origins = write_map(os.path.join(tmp, "origins.json"), ["rodir"])
        os.chmod(kdir, 0o555)
        try:
            rep = report("annotate", "--origins", origins, cache, rc=0)
            assert rep["totals"]["annotate"]["written"] == 1
            with open(os.path.join(kdir, "sdsc_0.json"), "rb") as f:
                assert f.read() == annotated(sdsc())
            assert stat.S_IMODE(os.stat(kdir).st_mode) == 0o555
        finally:
            os.chmod(kdir, 0o755)


def test_read_only_directory_as_a_user():
    """Catalogue: 'Read-only directory' (annotate and strip, as a user that is not root: run as
    `nobody` when the suite runs as root)."""
    with TempDir() as tmp:
        user = None
        if os.geteuid() == 0:
            user = 65534
            os.chmod(tmp, 0o755)
        cache = os.path.join(tmp, "cache")
        kdir = make_kernel(cache, "rodir", {"sdsc_0.json": sdsc(['"debug_handle_": null', '"x": 1'])})
        origins = write_map(os.path.join(tmp, "origins.json"), ["rodir"])
        if user is not None:
            for d, dirs, fs in os.walk(tmp):
                for name in [d] + [os.path.join(d, f) for f in fs]:
                    os.chown(name, user, -1)
        os.chmod(kdir, 0o555)
        path = os.path.join(kdir, "sdsc_0.json")
        message = "cannot create a temporary file beside it: Permission denied (the file is unchanged)"
        try:
            try:
                rc, out, err = sdscprov("annotate", "--format", "json", "--origins", origins, cache, user=user)
            except PermissionError:
                return SKIP  # not allowed to change user here
            assert rc == 2, (rc, out, err)
            assert problems_of(json.loads(out)) == [(path, None, None, "write-failed", message)], out
            before = snapshot(cache)
            rc, out, err = sdscprov("strip", "--remove", cache, user=user)
            assert rc == 2 and text_line(path, "write-failed", message) in err.splitlines(), (rc, out, err)
            rc, out, err = sdscprov("annotate", "--origins", origins, cache, user=user)
            assert rc == 2 and text_line(path, "write-failed", message) in err.splitlines(), (rc, out, err)
            assert snapshot(cache) == before and temporaries(tmp) == []
        finally:
            os.chmod(kdir, 0o755)


def test_fifo_and_socket_named_sdsc_0_do_not_hang():
    """Catalogue: 'A fifo named sdsc_0.json', 'A unix socket named sdsc_0.json'."""
    import socket
    with TempDir() as tmp:
        cache = os.path.join(tmp, "cache")
        fifo = os.path.join(make_kernel(cache, "fifo", {}), "sdsc_0.json")
        os.mkfifo(fifo)
        sock_path = os.path.join(make_kernel(cache, "socket", {}), "sdsc_0.json")
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.bind(sock_path)
        sock.listen(1)  # a listening socket: connecting to it would succeed and never end
        good = os.path.join(make_kernel(cache, "good", {"sdsc_0.json": sdsc()}), "sdsc_0.json")
        origins = write_map(os.path.join(tmp, "origins.json"), ["fifo", "socket", "good"])
        fifo_p = (fifo, None, None, "not-a-regular-file", "is a fifo, not a regular file")
        sock_p = (sock_path, None, None, "not-a-regular-file", "is a socket, not a regular file")
        try:
            before = {p: state(p) for p in (fifo, sock_path)}
            for args in (["scan", cache], ["scan", fifo, sock_path],
                         ["annotate", "--origins", origins, cache], ["strip", "--remove", cache]):
                rep = report(*args, rc=2, timeout=20)  # a hang fails here after 20 s
                assert problems_of(rep) == sorted([fifo_p, sock_p]), (args, problems_of(rep))
                assert {p: state(p) for p in before} == before, args
                if args[0] != "scan":  # the other kernel is annotated, then stripped back
                    with open(good, "rb") as f:
                        assert f.read() == (annotated(sdsc()) if args[0] == "annotate" else sdsc())
            rc, out, err = sdscprov("scan", cache, timeout=20)
            assert rc == 2 and text_line(*fifo_p[:1], fifo_p[3], fifo_p[4]) in err.splitlines(), err
            assert text_line(sock_path, sock_p[3], sock_p[4]) in err.splitlines(), err
        finally:
            sock.close()


def run_measured(args, out_path, timeout=60):
    """Runs sdscprov; returns (exit status, peak RSS in KiB) of that one child (wait4)."""
    import signal
    import threading
    with open(out_path, "wb") as out:
        p = subprocess.Popen([BIN, *args], stdout=out, stderr=subprocess.STDOUT)
    timer = threading.Timer(timeout, lambda: os.kill(p.pid, signal.SIGKILL))
    timer.start()
    try:
        _, status, usage = os.wait4(p.pid, 0)
    finally:
        timer.cancel()
    p.returncode = os.waitstatus_to_exitcode(status)
    return p.returncode, usage.ru_maxrss


def test_two_gigabyte_file_is_not_read():
    """Catalogue: 'A 2 GB file' (sparse), and --max-file-size."""
    with TempDir() as tmp:
        cache = os.path.join(tmp, "cache")
        huge = os.path.join(make_kernel(cache, "huge", {}), "sdsc_0.json")
        with open(huge, "wb") as f:
            f.truncate(2 * 1024 ** 3)
        small = os.path.join(make_kernel(cache, "small", {"sdsc_0.json": sdsc()}), "sdsc_0.json")
        origins = write_map(os.path.join(tmp, "origins.json"), ["huge", "small"])
        too_large = (huge, None, None, "file-too-large",
                     "file is 2147483648 bytes, more than --max-file-size (1073741824)")
        before = state(huge, read=False)
        for args in (["scan", cache], ["annotate", "--origins", origins, cache]):
            rep = report(*args, rc=2, timeout=60)
            assert problems_of(rep) == [too_large], (args, problems_of(rep))
            # Peak memory of the run: the file is refused by its size, never read (reading it
            # would take 3 GiB). The sanitizer build's shadow memory needs more room.
            rc, rss_kib = run_measured([*args, "--format", "json"], os.path.join(tmp, "out.json"))
            limit_mib = 512 if sanitized() else 64
            assert rc == 2 and rss_kib < limit_mib * 1024, (args, rc, rss_kib)
        rc, out, err = sdscprov("scan", cache)
        assert rc == 2 and text_line(huge, *too_large[3:]) in err.splitlines(), err
        assert state(huge, read=False) == before
        with open(small, "rb") as f:
            assert f.read() == annotated(sdsc())

        # A lower limit refuses ordinary files too, before reading them.
        size = os.path.getsize(small)
        rep = report("scan", "--max-file-size", "100", small, rc=2)
        assert problems_of(rep) == [(small, None, None, "file-too-large",
                                     f"file is {size} bytes, more than --max-file-size (100)")]


# ---- Special files and sizes beyond the SDSC files ------------------------------------------

def test_special_and_huge_bundles_and_sidecars_are_refused_unread():
    """Catalogue: 'bundle.mlir: a fifo, a device, a huge sparse file', 'A sidecar that is not a
    regular file or too large'. No hang (every run under a 20 s timeout), no huge allocation; the
    kernel is unusable, exit 2, nothing written there; the other kernels are annotated."""
    with TempDir() as tmp:
        cache = os.path.join(tmp, "cache")
        fifo = os.path.join(make_kernel(cache, "fifo", {"sdsc_0.json": sdsc()}), "bundle.mlir")
        os.mkfifo(fifo)
        zero = os.path.join(make_kernel(cache, "zero", {"sdsc_0.json": sdsc()}), "bundle.mlir")
        os.symlink("/dev/zero", zero)
        sparse = os.path.join(make_kernel(cache, "sparse", {"sdsc_0.json": sdsc()}), "bundle.mlir")
        with open(sparse, "wb") as f:
            f.truncate(3 * 1024 ** 3)
        good = os.path.join(make_kernel(cache, "good", {"sdsc_0.json": sdsc()}), "sdsc_0.json")
        origins = write_map(os.path.join(tmp, "origins.json"), ["fifo", "zero", "sparse", "good"])
        expected = sorted([
            (fifo, None, None, "not-a-regular-file", "is a fifo, not a regular file"),
            (zero, None, None, "not-a-regular-file", "is a character device, not a regular file"),
            (sparse, None, None, "file-too-large",
             "file is 3221225472 bytes, more than --max-file-size (1073741824)"),
        ])
        bad = [os.path.join(kernel_dir(cache, c), "sdsc_0.json") for c in ("fifo", "zero", "sparse")]
        before = {p: state(p, read=p != sparse) for p in bad + [fifo, zero, sparse]}
        for args, rc in ((["annotate", "--dry-run"], 2), (["check"], 2), (["annotate"], 2)):
            rep_args = [*args, "--origins", origins, cache]
            code, out, err = sdscprov(*rep_args, "--format", "json", timeout=20)
            assert code == rc, (args, code, err[-2000:])
            problems = [q for q in json.loads(out)["problems"] if q["code"] != "kernel-without-dir"]
            assert sorted((q["path"], q["line"], q["col"], q["code"], q["message"]) for q in problems) == \
                expected, (args, problems)
            assert {p: state(p, read=p != sparse) for p in before} == before, args
            # Peak memory stays small: the 3 GB bundle is never read (the sanitizer build's shadow
            # memory needs more room).
            code, rss_kib = run_measured([*rep_args, "--format", "json"], os.path.join(tmp, "out.json"))
            assert code == rc and rss_kib < (512 if sanitized() else 64) * 1024, (args, code, rss_kib)
        with open(good, "rb") as f:
            assert f.read() == annotated(sdsc())
        code, out, err = sdscprov("annotate", "--origins", origins, cache, timeout=20)
        assert text_line(fifo, "not-a-regular-file", "is a fifo, not a regular file") in err.splitlines(), err

        # Sidecars named on the command line: a fifo, a device, a file past --max-file-size.
        fifo_map = os.path.join(tmp, "fifo.json")
        os.mkfifo(fifo_map)
        for path, message, code_name, extra in (
                (fifo_map, "is a fifo, not a regular file", "not-a-regular-file", []),
                ("/dev/zero", "is a character device, not a regular file", "not-a-regular-file", []),
                (origins, f"file is {os.path.getsize(origins)} bytes, more than --max-file-size (100)",
                 "file-too-large", ["--max-file-size", "100"])):
            for command in ("annotate", "check"):
                code, out, err = sdscprov(command, *extra, "--origins", path, cache, timeout=20)
                assert code == 2, (command, path, code, err)
                assert text_line(path, code_name, message) in err.splitlines(), (command, path, err)
        assert {p: state(p, read=p != sparse) for p in before} == before


def test_max_file_size_takes_a_number_of_bytes_only():
    """Catalogue: '--max-file-size -1'. A negative or overflowing value used to wrap around to no
    limit at all."""
    with TempDir() as tmp:
        cache = os.path.join(tmp, "cache")
        make_kernel(cache, "one", {"sdsc_0.json": sdsc()})
        for value in ("-1", "18446744073709551616", "99999999999999999999", "9223372036854775808",
                      "1e9", "0x10", "+5", ""):
            for command in (["scan"], ["strip", "--dry-run"], ["check"]):
                code, out, err = sdscprov(*command, "--max-file-size", value, cache)
                assert code == 2 and out == "", (command, value, code, out, err)
                assert err.startswith(f"--max-file-size: '{value}': a whole number from 0 to "
                                      f"9223372036854775807 is needed (decimal digits)"), (value, err)
        code, _, err = sdscprov("explain", "--max-file-size", "-1", kernel_dir(cache, "one"))
        assert code == 2 and "--max-file-size: '-1': a whole number" in err, err
        for value in ("0", "100", "9223372036854775807"):
            code, _, err = sdscprov("scan", "--max-file-size", value, cache)
            assert code == (2 if value == "0" else 0), (value, code, err)


def test_a_report_that_cannot_be_written_is_an_error():
    """Catalogue: 'A report that cannot be written'. `> /dev/full` and a closed standard output."""
    with TempDir() as tmp:
        cache = os.path.join(tmp, "cache")
        make_kernel(cache, "one", {"sdsc_0.json": sdsc()})
        origins = write_map(os.path.join(tmp, "origins.json"), ["one"])
        full = "sdscprov: cannot write the report to standard output: No space left on device"
        closed = "sdscprov: cannot write the report to standard output: Bad file descriptor"
        for args in (["scan", "--format", "json", cache], ["scan", cache],
                     ["check", "--format", "sarif", cache], ["check", "--format", "junit", cache],
                     ["check", cache], ["annotate", "--dry-run", "--origins", origins, cache]):
            with open("/dev/full", "w") as dev_full:
                p = subprocess.run([BIN, *args], stdout=dev_full, stderr=subprocess.PIPE, text=True, timeout=60)
            assert p.returncode == 2 and full in p.stderr.splitlines(), (args, p.returncode, p.stderr)
            p = subprocess.run([BIN, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                               timeout=60, pass_fds=(), close_fds=True,
                               preexec_fn=lambda: os.close(1))
            assert p.returncode == 2 and closed in p.stderr.splitlines(), (args, p.returncode, p.stderr)
        # --quiet writes no report: nothing is lost.
        with open("/dev/full", "w") as dev_full:
            assert subprocess.run([BIN, "scan", "-q", cache], stdout=dev_full, timeout=60).returncode == 0


# ---- Names --------------------------------------------------------------------------------------

def test_names_that_are_not_text_are_shown_in_each_format_s_own_escape():
    """Catalogue: 'Names that are not text'. A directory whose name holds a byte that is not UTF-8,
    a newline and a terminal escape: JSON stays UTF-8 JSON ({"bytes": base64} for the path),
    JUnit well-formed XML, text and GitHub output quote it as git does; nothing raw reaches a
    terminal."""
    import base64
    import xml.etree.ElementTree as ET
    with TempDir() as tmp:
        name = b"odd\xff\n\x1b[31m"
        parent = os.path.join(os.fsencode(tmp), b"cache", name)
        os.makedirs(parent)
        k = make_kernel(os.fsdecode(parent), "named", {"sdsc_0.json": sdsc(), "sdsc_1.json": b"{"})
        kdir = os.fsencode(k)
        cache = os.path.join(os.fsencode(tmp), b"cache")
        # Quoted as a whole: the directory ends a row's path, a file's path goes on after it.
        quoted = b'"' + os.fsencode(tmp) + b'/cache/odd\\377\\n\\033[31m/sdsc_named_0_aaaaaaaa'

        def run_bytes(*args):
            p = subprocess.run([os.fsencode(BIN), *args], capture_output=True, timeout=60)
            return p.returncode, p.stdout, p.stderr

        rc, out, err = run_bytes(b"scan", b"--format", b"json", cache)
        assert rc == 2, (rc, err)
        text = out.decode("utf-8")  # strict: raises on anything that is not UTF-8
        rep = json.loads(text)
        assert base64.b64decode(rep["kernels"][0]["dir"]["bytes"]) == kdir, rep["kernels"][0]["dir"]
        assert base64.b64decode(rep["kernels"][0]["files"][1]["path"]["bytes"]) == kdir + b"/sdsc_1.json"
        assert base64.b64decode(rep["problems"][0]["path"]["bytes"]) == kdir + b"/sdsc_1.json"

        rc, out, err = run_bytes(b"check", b"--format", b"junit", cache)
        assert rc == 2, (rc, err)
        out.decode("utf-8")
        suite = ET.fromstring(out)  # well-formed XML, or this raises
        names = [t.get("name") for t in suite.iter("testcase")]
        assert os.fsdecode(quoted) + '"' in names, names

        for args in ([b"scan", cache], [b"check", cache], [b"check", b"--format", b"github", cache],
                     [b"scan", b"--format", b"markdown", cache]):
            rc, out, err = run_bytes(*args)
            assert rc == 2, (args, rc, err)
            assert b"\x1b" not in out + err and name not in out + err, (args, out, err)
            assert quoted in out + err, (args, out, err)
            out.decode("utf-8")
            err.decode("utf-8")
        rc, out, err = run_bytes(b"check", b"--format", b"sarif", cache)
        assert rc == 2 and json.loads(out.decode("utf-8"))["runs"], (rc, err)

        # A sharded run's reports merge, the path's bytes carried through.
        shards = []
        for i in (1, 2):
            rc, out, err = run_bytes(b"scan", b"--format", b"json", b"--shard", f"{i}/2".encode(), cache)
            path = os.path.join(tmp, f"shard-{i}.json")
            with open(path, "wb") as f:
                f.write(out)
            shards.append(path)
        rc, out, err = run_bytes(b"merge", *[os.fsencode(p) for p in shards])
        assert rc == 0, err
        rep = json.loads(out.decode("utf-8"))
        assert base64.b64decode(rep["kernels"][0]["dir"]["bytes"]) == kdir


def test_a_255_byte_file_name_is_annotated():
    """Catalogue: 'A 255-byte SDSC file name'. Its temporary's name is shortened (a hash of the whole
    name keeps it unique) to fit NAME_MAX."""
    with TempDir() as tmp:
        cache = os.path.join(tmp, "cache")
        opfunc = "a" * 243
        name = f"sdsc_0_{opfunc}.json"
        assert len(name) == 255
        doc = sdsc(op=f"0_{opfunc}")
        path = os.path.join(make_kernel(cache, "long", {name: doc}), name)
        origins = os.path.join(tmp, "origins.json")
        with open(origins, "w") as f:
            json.dump({"sdscprov_origins": 1,
                       "nodes": {"add": {"original_aten": "aten.add.Tensor", "stack_trace": TRACE}},
                       "kernels": [{"name": "sdsc_long_0", "dir": os.path.basename(kernel_dir("", "long")),
                                    "ops": [{"opfunc": opfunc, "buffer": "buf0", "origins": ["add"],
                                             "origin_node": "add"}]}]}, f)
        rep = report("annotate", "--origins", origins, cache, rc=0)
        assert rep["totals"]["annotate"]["written"] == 1 and problems_of(rep) == [], rep["problems"]
        with open(path, "rb") as f:
            assert f.read() == annotated(doc)
        assert temporaries(tmp) == []
        rep = report("strip", "--remove", cache, rc=0)
        with open(path, "rb") as f:
            assert f.read() == doc


if __name__ == "__main__":
    main([test_full_disk_leaves_every_file_unchanged_and_no_temporary,
          test_directory_symlinks_and_loops_end,
          test_symlinks_pointing_outside_the_tree_are_never_written_through,
          test_hard_link_is_broken_by_annotate_and_the_other_name_keeps_the_original,
          test_read_only_file_is_not_written, test_read_only_directory_as_root,
          test_read_only_directory_as_a_user, test_fifo_and_socket_named_sdsc_0_do_not_hang,
          test_two_gigabyte_file_is_not_read,
          test_hostile_bytes_are_reported_at_their_position_and_never_written,
          test_special_and_huge_bundles_and_sidecars_are_refused_unread,
          test_max_file_size_takes_a_number_of_bytes_only,
          test_a_report_that_cannot_be_written_is_an_error,
          test_names_that_are_not_text_are_shown_in_each_format_s_own_escape,
          test_a_255_byte_file_name_is_annotated])
