"""End-to-end: a tree changed under a run at the worst moment (docs/safety.md, "The symlink
exchange"). A kernel directory inside the tree is atomically exchanged (renameat2
RENAME_EXCHANGE) for a symbolic link to a directory outside it, at the very moment the run opens
it; or an SDSC file for a link to a file outside. annotate, strip and check must never write
outside the tree: the outside file stays byte for byte (and inode, mode, mtime) as it was, and the
run names what it skipped.

The exchange is made by tests/e2e/exchange_shim.c, preloaded: inside the run's own open call,
before or after it, so the moment is exact (no timing, no race). Each case checks in the shim's log
that the exchange happened, so a case whose exchange never fired fails instead of passing.
"""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import BIN, SKIP, TempDir, main  # noqa: E402
from test_bad_input import (annotated, kernel_dir, make_kernel, sdsc, state, temporaries,  # noqa: E402
                            write_map)

HERE = os.path.dirname(os.path.abspath(__file__))
ASAN = (os.environ.get("ASAN_OPTIONS", "") + ":verify_asan_link_order=0").lstrip(":")


def skip(why):
    print(f"skipped: {why}")
    return SKIP


def build_shim(tmp):
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        return None
    out = os.path.join(tmp, "exchange_shim.so")
    subprocess.run([cc, "-shared", "-fPIC", "-O1", "-o", out, os.path.join(HERE, "exchange_shim.c"),
                    "-ldl"], check=True, capture_output=True)
    return out


def can_exchange(tmp):
    """Whether this file system exchanges names (renameat2 RENAME_EXCHANGE)."""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    a, b = os.path.join(tmp, "probe-a"), os.path.join(tmp, "probe-b")
    os.mkdir(a)
    os.symlink("/", b)
    try:
        return libc.renameat2(-100, a.encode(), -100, b.encode(), 2) == 0
    finally:
        for p in (a, b):
            if os.path.islink(p):
                os.remove(p)
            elif os.path.isdir(p):
                os.rmdir(p)


COMMANDS = ("annotate", "strip", "check")


def tree(tmp, command):
    """The tree (one kernel directory), the same directory outside it, a link to that, and the
    arguments of `command` over the tree."""
    cache = os.path.join(tmp, "cache")
    outside = os.path.join(tmp, "outside")
    data = annotated(sdsc()) if command == "strip" else sdsc()
    inner = make_kernel(cache, "x", {"sdsc_0.json": data})
    make_kernel(outside, "x", {"sdsc_0.json": data})
    os.symlink(kernel_dir(outside, "x"), os.path.join(tmp, "link"))
    os.symlink(os.path.join(kernel_dir(outside, "x"), "sdsc_0.json"), os.path.join(tmp, "filelink"))
    if command == "annotate":
        args = ["annotate", "--origins", write_map(os.path.join(tmp, "origins.json"), ["x"]), cache]
    elif command == "strip":
        args = ["strip", cache]
    else:
        args = ["check", cache]
    return inner, outside, args


def run_exchanged(shim, tmp, args, name, a, b, when, nth=1, uring=True):
    log = os.path.join(tmp, "exchange.log")
    env = dict(os.environ, LD_PRELOAD=shim, ASAN_OPTIONS=ASAN, SDSCPROV_EXCHANGE_NAME=name,
               SDSCPROV_EXCHANGE_A=a, SDSCPROV_EXCHANGE_B=b, SDSCPROV_EXCHANGE_WHEN=when,
               SDSCPROV_EXCHANGE_NTH=str(nth), SDSCPROV_EXCHANGE_LOG=log)
    env.pop("NO_COLOR", None)
    if not uring:
        env["SDSCPROV_IO_URING"] = "0"  # every open through the C library, where the shim sees it
    p = subprocess.run([BIN, *args], capture_output=True, text=True, env=env, timeout=60)
    with open(log) if os.path.exists(log) else open(os.devnull) as f:
        fired = f.read()
    assert fired == "exchanged\n", f"the exchange did not happen: {fired!r}"
    return p.returncode, p.stdout + p.stderr


def outside_files(outside):
    return {os.path.relpath(os.path.join(d, f), outside): state(os.path.join(d, f))
            for d, _, files in os.walk(outside) for f in files}


def cases(body):
    """Runs body(shim, tmp, command) for each command in a fresh directory."""
    with TempDir() as top:
        shim = build_shim(top)
        if shim is None:
            return skip("no C compiler for the LD_PRELOAD library")
        if not can_exchange(top):
            return skip("this file system cannot exchange names (renameat2 RENAME_EXCHANGE)")
        for command in COMMANDS:
            tmp = os.path.join(top, command)
            os.mkdir(tmp)
            body(shim, tmp, command)


def test_a_kernel_directory_exchanged_for_a_link_right_after_the_walk_opened_it():
    """The walk has opened and listed the kernel directory; then its name is made a link to the
    same directory outside the tree. The run used to read, and rewrite, the outside file (3 of 3
    runs, exit 0). Now the kernel directory is opened again from the directory the walk holds,
    through no link: the link is met, reported, and not followed."""
    def body(shim, tmp, command):
        inner, outside, args = tree(tmp, command)
        before = outside_files(outside)
        rc, text = run_exchanged(shim, tmp, args, os.path.basename(inner), inner,
                                 os.path.join(tmp, "link"), "after")
        assert os.path.islink(inner), "the exchange made the kernel directory a link"
        assert outside_files(outside) == before, (command, text)
        assert temporaries(outside) == [] and temporaries(tmp) == [], command
        skipped = (f"{inner}/sdsc_0.json: error: not read: {inner} is not the directory the walk "
                   "read (a symbolic link or another file was put in its place during the run): "
                   "not followed, skipped [io-error]")
        assert skipped in text, (command, text)
        assert rc == 2, (command, rc, text)
    return cases(body)


def test_a_kernel_directory_exchanged_for_a_link_before_the_walk_opens_it():
    """The name is a link by the time the walk opens the directory it listed as one: not
    followed, reported."""
    def body(shim, tmp, command):
        inner, outside, args = tree(tmp, command)
        before = outside_files(outside)
        rc, text = run_exchanged(shim, tmp, args, os.path.basename(inner), inner,
                                 os.path.join(tmp, "link"), "before")
        assert outside_files(outside) == before, (command, text)
        assert f"{inner}: error: not read: a symbolic link or another file now stands where the " \
               "walk found a directory (put in its place during the run): not followed, skipped " \
               "[io-error]" in text, (command, text)
        assert rc == 2, (command, rc, text)
    return cases(body)


def test_a_kernel_directory_exchanged_once_the_run_holds_it_is_written_where_it_went():
    """Exchanged just after the run opened it for its work: every read and write goes through
    the descriptor the run holds, so the tree's own directory (now at the link's old name) is the
    one written, and the outside one is untouched."""
    def body(shim, tmp, command):
        inner, outside, args = tree(tmp, command)
        before = outside_files(outside)
        moved = os.path.join(tmp, "link")
        rc, text = run_exchanged(shim, tmp, args, os.path.basename(inner), inner, moved, "after",
                                 nth=2)
        assert outside_files(outside) == before, (command, text)
        assert temporaries(outside) == [] and temporaries(tmp) == [], command
        with open(os.path.join(moved, "sdsc_0.json"), "rb") as f:
            got = f.read()
        expected = {"annotate": annotated(sdsc()), "check": sdsc()}.get(command)
        if command == "strip":
            assert b'"debug_handle_": null' in got, text
        else:
            assert got == expected, (command, text)
        if command != "check":
            assert rc == 0, (command, rc, text)
    return cases(body)


def test_an_sdsc_file_exchanged_for_a_link_before_it_is_opened():
    """The file is made a link to the outside file just before the run opens it: opened without
    following a link (O_NOFOLLOW), reported and skipped; the outside file is not read, not
    written."""
    def body(shim, tmp, command):
        inner, outside, args = tree(tmp, command)
        before = outside_files(outside)
        path = os.path.join(inner, "sdsc_0.json")
        rc, text = run_exchanged(shim, tmp, args, "sdsc_0.json", path,
                                 os.path.join(tmp, "filelink"), "before", uring=False)
        assert os.path.islink(path)
        assert outside_files(outside) == before, (command, text)
        assert f"{path}: error: not read: a symbolic link now stands where the walk found a file " \
               "(put in its place during the run): not followed, skipped [io-error]" in text, \
               (command, text)
        assert rc == 2, (command, rc, text)
    return cases(body)


main([
    test_a_kernel_directory_exchanged_for_a_link_right_after_the_walk_opened_it,
    test_a_kernel_directory_exchanged_for_a_link_before_the_walk_opens_it,
    test_a_kernel_directory_exchanged_once_the_run_holds_it_is_written_where_it_went,
    test_an_sdsc_file_exchanged_for_a_link_before_it_is_opened,
])
