"""End-to-end: hostile runs, the second half of the catalogue in docs/bad-input.md ("Runs"): files
merely named like our temporaries, writers in other pid namespaces (unshare), signals, metadata
that a rewrite must keep (setuid bits, extended attributes, ACLs), batches over several file
systems.

A writer is caught in the middle of its work by the LD_PRELOAD library of the full-disk test
(tests/e2e/enospc_shim.c, $SDSCPROV_STOP_AT_SYNCFS): at the first syncfs of a batch its
temporaries are written and none is renamed, and it stops itself until a SIGCONT. Tests that need
root, unshare, user extended attributes or a second file system say so and are skipped where
these are missing (CI runs as root, where none is).
"""
import grp
import json
import os
import pwd
import shutil
import signal
import stat
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import BIN, SKIP, TempDir, main  # noqa: E402
from test_bad_input import (annotated, build_enospc_shim, make_kernel, kernel_dir, problems_of,  # noqa: E402
                            report, sdsc, sdscprov, snapshot, state, temporaries, text_line,
                            write_map)

# ASan (the sanitizer build of the suite) must accept a preloaded library.
ASAN = (os.environ.get("ASAN_OPTIONS", "") + ":verify_asan_link_order=0").lstrip(":")


def skip(why):
    print(f"skipped: {why}")
    return SKIP


def unshare_pid():
    """A function giving the command that runs a program in a new pid namespace, as its pid 2 (the
    namespace's pid 1, a shell, waits for it: a namespace's pid 1 cannot stop itself), or None
    where there are no pid namespaces to make."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return None
    def command(*args):
        return [unshare, "--pid", "--fork", "--kill-child", "sh", "-c", '"$@"; exit $?', "sh", *args]
    probe = subprocess.run(command("sh", "-c", "echo $$"), capture_output=True, text=True)
    return command if probe.returncode == 0 and probe.stdout.strip() == "2" else None


def states(pid):
    """The state letters of a process and its descendants (R, S, T, ...)."""
    out = []
    try:
        with open(f"/proc/{pid}/stat") as f:
            out.append(f.read().rsplit(")", 1)[1].split()[0])
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as f:
                for child in f.read().split():
                    out += states(int(child))
    except OSError:
        pass
    return out


def tools(tmp, pid_namespaces=False):
    """(the LD_PRELOAD library, the pid-namespace prefix or None, None), or (.., .., the reason a
    test cannot run here)."""
    shim = build_enospc_shim(tmp)
    if shim is None:
        return None, None, "no C compiler for the LD_PRELOAD library"
    prefix = unshare_pid() if pid_namespaces else None
    if pid_namespaces and prefix is None:
        return shim, None, "unshare --pid --fork is not available here (needs root or user namespaces)"
    return shim, prefix, None


class StoppedWriter:
    """A writing run stopped at its first batch's syncfs: its temporaries written, none renamed."""

    def __init__(self, shim, tmp, args, prefix=None, name="stopped"):
        self.marker = os.path.join(tmp, name)
        env = dict(os.environ, LD_PRELOAD=shim, SDSCPROV_STOP_AT_SYNCFS=self.marker, ASAN_OPTIONS=ASAN)
        env.pop("NO_COLOR", None)
        self.p = subprocess.Popen(prefix(BIN, *args) if prefix else [BIN, *args], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, env=env, start_new_session=True)
        deadline = time.monotonic() + 60
        # Without /proc/<pid>/task/<tid>/children (CONFIG_PROC_CHILDREN) a process's children are
        # not found: the marker, then a moment for the raise(SIGSTOP) that follows it, must do.
        children = os.path.exists(f"/proc/self/task/{os.getpid()}/children")
        marked = None
        while True:
            if marked is None and os.path.exists(self.marker):
                marked = time.monotonic()
            if marked is not None and ("T" in states(self.p.pid) or
                                       (not children and time.monotonic() - marked > 1)):
                break
            assert self.p.poll() is None, ("the writer ended before its first syncfs", self.p.communicate())
            assert time.monotonic() < deadline, "the writer did not stop at its first syncfs"
            time.sleep(0.02)

    def signal(self, sig):
        os.killpg(self.p.pid, sig)

    def finish(self):
        """Lets it go on; returns (exit status, stdout, stderr)."""
        self.signal(signal.SIGCONT)
        out, err = self.p.communicate(timeout=120)
        return self.p.returncode, out, err


def annotatable_tree(tmp, kernels=3, files=2):
    """`kernels` kernel directories of `files` files each, and an origins map for them."""
    cache = os.path.join(tmp, "cache")
    cases = [f"k{i}" for i in range(kernels)]
    for case in cases:
        make_kernel(cache, case, {f"sdsc_{j}.json": sdsc(op=f"{j}_add") for j in range(files)})
    origins = write_map(os.path.join(tmp, "origins.json"), cases, {c: files for c in cases})
    return cache, origins


def all_annotated(cache, kernels=3, files=2):
    return all(open(os.path.join(kernel_dir(cache, f"k{i}"), f"sdsc_{j}.json"), "rb").read() ==
               annotated(sdsc(op=f"{j}_add"), buffer=f"buf{j}")
               for i in range(kernels) for j in range(files))


def untouched_or_annotated(cache, kernels=3, files=2):
    for i in range(kernels):
        for j in range(files):
            data = open(os.path.join(kernel_dir(cache, f"k{i}"), f"sdsc_{j}.json"), "rb").read()
            assert data in (sdsc(op=f"{j}_add"), annotated(sdsc(op=f"{j}_add"), buffer=f"buf{j}")), (i, j)


# ---- Files merely named like our temporaries -------------------------------------------------

def test_files_merely_named_like_temporaries_are_never_removed():
    """Catalogue: 'Files named like our temporaries'. A writing run with nothing to write removes
    nothing but temporaries that are provably its kind's and provably abandoned."""
    with TempDir() as tmp:
        cache = os.path.join(tmp, "cache")
        k = make_kernel(cache, "names", {"sdsc_0.json": sdsc()})
        names = [".notes.sdscprov-4000000-backup.tmp",  # someone's file
                 ".sdsc_0.json.sdscprov-4000000-0.tmp",  # an older sdscprov's name: a pid proves nothing
                 ".sdsc_0.json.sdscprov-b00000000-0123456789abcdef-0.tmp.bak",
                 ".sdsc_9.json.sdscprov-b00000000-0123456789abcdef-0.tmp"]  # no sdsc_9.json here
        for name in names:
            with open(os.path.join(k, name), "w") as f:
                f.write("x\n")
        origins = write_map(os.path.join(tmp, "origins.json"), ["names"])
        before = snapshot(cache)
        for args in (["strip", cache], ["strip", "--remove", cache], ["annotate", "--dry-run", "--origins", origins, cache]):
            rc, out, err = sdscprov(*args)
            assert rc == 0, (args, rc, out, err)
            assert "leftover-temp" not in out + err, (args, out, err)
            assert snapshot(cache) == before, args
        rc, out, err = sdscprov("annotate", "--origins", origins, cache)
        assert rc == 0 and "leftover-temp" not in out + err, (rc, out, err)
        for name in names:
            assert state(os.path.join(k, name)) == before[os.path.relpath(os.path.join(k, name), cache)], name


# ---- Other pid namespaces --------------------------------------------------------------------

def test_a_live_run_in_another_pid_namespace_keeps_its_temporaries():
    """Catalogue: 'A run in another pid namespace'. A writer is stopped with its temporaries on
    disk; runs in a new pid namespace (where its pid does not exist) and on the host sweep the
    tree: its temporaries stay (its lock is held), and it then finishes its work."""
    with TempDir() as tmp:
        shim, prefix, missing = tools(tmp, pid_namespaces=True)
        if missing:
            return skip(missing)
        cache, origins = annotatable_tree(tmp)
        writer = StoppedWriter(shim, tmp, ["annotate", "--origins", origins, cache])
        temps = temporaries(cache)
        assert temps, "the writer has no temporary at its first syncfs"
        try:
            for other in (prefix(BIN, "strip", cache), [BIN, "strip", cache],
                          prefix(BIN, "annotate", "--durability", "none", "--origins", origins, cache)):
                p = subprocess.run(other, capture_output=True, text=True, timeout=60)
                assert p.returncode in (0, 2), (other, p.returncode, p.stderr)
                assert "leftover-temp" not in p.stdout + p.stderr, (other, p.stdout, p.stderr)
                assert all(os.path.exists(t) for t in temps), (other, temps, temporaries(cache))
        finally:
            rc, out, err = writer.finish()
        # The other annotate wrote the files meanwhile: the writer finds them changed and leaves
        # them (changed-on-disk); nothing failed to rename and no temporary is left.
        assert "cannot rename" not in out + err, (out, err)
        assert rc in (0, 2) and temporaries(cache) == [], (rc, out, err, temporaries(cache))
        assert all_annotated(cache)


def wait_until_locks_are_free(paths, seconds=30):
    import fcntl
    deadline = time.monotonic() + seconds
    for path in paths:
        with open(path, "rb") as f:
            while True:
                try:
                    fcntl.flock(f, fcntl.LOCK_SH | fcntl.LOCK_NB)
                    fcntl.flock(f, fcntl.LOCK_UN)
                    break
                except BlockingIOError:
                    assert time.monotonic() < deadline, f"{path}: its writer still holds its lock"
                    time.sleep(0.05)


def test_a_run_killed_in_a_container_leaves_temporaries_the_next_run_removes():
    """Catalogue: 'A run killed in another pid namespace'. Its temporaries are removed by the next
    run, on the host (where its pid may well be alive) or in another new pid namespace (where a run
    gets the same pid, and used to meet the same temporary names: "File exists")."""
    with TempDir() as tmp:
        shim, prefix, missing = tools(tmp, pid_namespaces=True)
        if missing:
            return skip(missing)
        for where, next_prefix in (("on the host", None), ("in another pid namespace", prefix)):
            cache, origins = annotatable_tree(os.path.join(tmp, where.replace(" ", "-")))
            writer = StoppedWriter(shim, tmp, ["annotate", "--origins", origins, cache], prefix=prefix,
                                   name="stopped-" + where.replace(" ", "-"))
            writer.signal(signal.SIGKILL)
            writer.p.wait(timeout=60)
            left = temporaries(cache)
            # In a pid namespace the run dies with the namespace's init, a moment after the
            # unshare process that was waited for: until then it still holds its locks.
            wait_until_locks_are_free(left)
            assert left, "the killed run left no temporary"
            untouched_or_annotated(cache)
            args = [BIN, "annotate", "--format", "json", "--origins", origins, cache]
            p = subprocess.run(next_prefix(*args) if next_prefix else args, capture_output=True,
                               text=True, timeout=60)
            assert p.returncode == 0, (where, p.returncode, p.stdout[-2000:], p.stderr[-2000:])
            rep = json.loads(p.stdout)
            removed = sorted(q["path"] for q in rep["problems"] if q["code"] == "leftover-temp")
            assert removed == sorted(left), (where, removed, left)
            assert all(q["message"] == "removed a temporary file left by an interrupted sdscprov run "
                       "(its lock was free: the run is gone)" for q in rep["problems"]
                       if q["code"] == "leftover-temp"), rep["problems"]
            assert temporaries(cache) == [] and all_annotated(cache), where


# ---- Signals ---------------------------------------------------------------------------------

def test_sigint_sigterm_sighup_remove_our_temporaries_and_end_by_the_signal():
    """Catalogue: 'SIGINT, SIGTERM, SIGHUP (and SIGPIPE)'. Sent while a batch's temporaries are
    written: they are removed, the files stay as they were, and the exit status is the signal's."""
    with TempDir() as tmp:
        shim, _, missing = tools(tmp)
        if missing:
            return skip(missing)
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGPIPE):
            cache, origins = annotatable_tree(os.path.join(tmp, sig.name))
            before = snapshot(cache)
            writer = StoppedWriter(shim, tmp, ["annotate", "--origins", origins, cache], name=sig.name)
            assert temporaries(cache), sig.name
            writer.signal(sig)  # pending until it goes on
            rc, out, err = writer.finish()
            assert rc == -sig, (sig.name, rc, out, err)
            assert temporaries(cache) == [], (sig.name, temporaries(cache))
            now = snapshot(cache)
            # The directories' mtimes moved (temporaries made and removed); every file is as it was.
            assert {p: v for p, v in now.items() if not p.endswith("aaaaaaaa")} == \
                {p: v for p, v in before.items() if not p.endswith("aaaaaaaa")}, sig.name


# ---- Metadata --------------------------------------------------------------------------------

def xattrs(path):
    """Every extended attribute of a file (ACLs are system.posix_acl_*), by name."""
    return {name: os.getxattr(path, name, follow_symlinks=False)
            for name in os.listxattr(path, follow_symlinks=False)}


def user_xattrs_supported(directory):
    probe = os.path.join(directory, "xattr-probe")
    open(probe, "w").close()
    try:
        os.setxattr(probe, "user.sdscprov.probe", b"1")
        return True
    except OSError:
        return False
    finally:
        os.remove(probe)


def test_setuid_setgid_owner_xattrs_and_acls_are_kept():
    """Catalogue: 'Metadata'. A setuid and setgid file of another user (root rewrites it), and a
    file with user.* attributes and an ACL: annotated, with the same mode, owner and attributes.
    A file without an ACL in a directory with a default ACL gets none."""
    if os.geteuid() != 0:
        return skip("not root: another user's setuid file cannot be made")
    setfacl = shutil.which("setfacl")
    with TempDir() as tmp:
        if not user_xattrs_supported(tmp):
            return skip(f"the file system of {tmp} has no user extended attributes")
        cache = os.path.join(tmp, "cache")
        nobody = pwd.getpwnam("nobody").pw_uid
        nogroup = grp.getgrnam("nogroup").gr_gid
        suid = os.path.join(make_kernel(cache, "suid", {"sdsc_0.json": sdsc()}), "sdsc_0.json")
        os.chown(suid, nobody, nogroup)
        os.chmod(suid, 0o6755)
        attrs = os.path.join(make_kernel(cache, "attrs", {"sdsc_0.json": sdsc()}), "sdsc_0.json")
        os.setxattr(attrs, "user.origin", b"compile 7\x00\xff")
        os.setxattr(attrs, "user.empty", b"")
        cases = ["suid", "attrs"]
        if setfacl:
            subprocess.run([setfacl, "-m", "u:nobody:r,g:nogroup:rw", attrs], check=True)
            inherit = make_kernel(cache, "inherit", {"sdsc_0.json": sdsc()})
            subprocess.run([setfacl, "-d", "-m", "u:nobody:rwx", inherit], check=True)
            cases.append("inherit")
        else:
            print("note: no setfacl (Debian package acl): the ACL cases are not run")
        files = [os.path.join(kernel_dir(cache, c), "sdsc_0.json") for c in cases]
        before = {f: (os.lstat(f), xattrs(f)) for f in files}
        if setfacl:
            assert "system.posix_acl_access" in before[attrs][1]
            assert "system.posix_acl_access" not in before[files[2]][1]
        origins = write_map(os.path.join(tmp, "origins.json"), cases)
        rep = report("annotate", "--origins", origins, cache, rc=0)
        assert rep["totals"]["annotate"]["written"] == len(cases), rep["totals"]
        for f in files:
            st, attributes = before[f]
            now = os.lstat(f)
            assert now.st_ino != st.st_ino and open(f, "rb").read() == annotated(sdsc()), f
            assert (oct(now.st_mode), now.st_uid, now.st_gid) == (oct(st.st_mode), st.st_uid, st.st_gid), f
            assert xattrs(f) == attributes, (f, xattrs(f), attributes)
        assert stat.S_IMODE(os.lstat(suid).st_mode) == 0o6755


def test_metadata_that_cannot_be_kept_leaves_the_file_alone():
    """Catalogue: 'Metadata'. As a user who is not root: another user's file in a directory anyone
    may write (its owner cannot be given to a new file), and a file with a security.* attribute
    (that such a user cannot set): not written, reported, the file unchanged."""
    if os.geteuid() != 0:
        return skip("not root: the cases need files of two users")
    nobody = pwd.getpwnam("nobody")
    with TempDir() as tmp:
        os.chmod(tmp, 0o755)
        cache = os.path.join(tmp, "cache")
        theirs = os.path.join(make_kernel(cache, "theirs", {"sdsc_0.json": sdsc()}), "sdsc_0.json")
        os.chmod(theirs, 0o666)  # root's, writable by anyone
        label = os.path.join(make_kernel(cache, "label", {"sdsc_0.json": sdsc()}), "sdsc_0.json")
        labelled = True
        try:
            os.setxattr(label, "security.sdscprov", b"kept")
        except OSError as e:
            labelled = False
            print(f"note: security.* attributes cannot be set here ({e}): that case is not run")
        for d, _, fs in os.walk(cache):
            os.chmod(d, 0o777)
            if d != kernel_dir(cache, "theirs"):
                os.chown(d, nobody.pw_uid, nobody.pw_gid)
                for f in fs:
                    os.chown(os.path.join(d, f), nobody.pw_uid, nobody.pw_gid)
        origins = write_map(os.path.join(tmp, "origins.json"), ["theirs", "label"])
        os.chmod(origins, 0o644)
        expected = [(theirs, None, None, "write-failed",
                     "cannot give the new file its owner (uid 0, gid 0): Operation not permitted: "
                     "not written (the file is unchanged)")]
        if labelled:
            expected.append((label, None, None, "write-failed",
                             "cannot give the new file the extended attribute 'security.sdscprov' "
                             "of the file: Operation not permitted: not written (the file is unchanged)"))
        before = {f: (state(f), xattrs(f)) for f in (theirs, label)}
        try:
            for args in (["annotate", "--origins", origins, cache], ["strip", cache]):
                p = subprocess.run([BIN, *args, "--format", "json"], capture_output=True, text=True,
                                   timeout=60, user=nobody.pw_uid, group=nobody.pw_gid, extra_groups=[])
                rc, out, err = p.returncode, p.stdout, p.stderr
                if args[0] == "strip":
                    assert rc == 0, (rc, out, err)  # nothing to strip
                    continue
                assert rc == 2, (rc, out, err)
                assert problems_of(json.loads(out)) == sorted(expected), problems_of(json.loads(out))
        except PermissionError:
            return skip("not allowed to change user here")
        assert {f: (state(f), xattrs(f)) for f in (theirs, label)} == before
        assert temporaries(cache) == []
        if not labelled:  # the file without the attribute is annotated
            assert open(label, "rb").read() == annotated(sdsc())


# ---- Several file systems in one batch -------------------------------------------------------

def second_file_system(tmp):
    """A writable directory on another file system than `tmp`, or None."""
    for candidate in ("/dev/shm", os.environ.get("XDG_RUNTIME_DIR", ""), os.getcwd()):
        if candidate and os.path.isdir(candidate) and os.access(candidate, os.W_OK) and \
                os.stat(candidate).st_dev != os.stat(tmp).st_dev:
            return candidate
    return None


def test_a_batch_over_two_file_systems_syncs_each():
    """Catalogue: 'A batch over several file systems' (--durability batch). Every file system of a
    batch is synced before its first rename; when the second one is full, no file is replaced."""
    with TempDir() as tmp:
        shim, _, missing = tools(tmp)
        if missing:
            return skip(missing)
        other = second_file_system(tmp)
        if other is None:
            return skip("no writable directory on a second file system (/dev/shm, $XDG_RUNTIME_DIR, .)")
        far = os.path.join(other, f"sdscprov-e2e-{os.getpid()}")
        try:
            near_cache = os.path.join(tmp, "near")
            far_cache = os.path.join(far, "far")
            make_kernel(near_cache, "near", {"sdsc_0.json": sdsc()})
            make_kernel(far_cache, "far", {"sdsc_0.json": sdsc()})
            origins = write_map(os.path.join(tmp, "origins.json"), ["near", "far"])
            devices = {os.stat(near_cache).st_dev, os.stat(far_cache).st_dev}
            before = {**snapshot(near_cache), **{"far/" + k: v for k, v in snapshot(far_cache).items()}}
            # A full second file system: nothing of the batch is replaced.
            env = {"LD_PRELOAD": shim, "ASAN_OPTIONS": ASAN, "SDSCPROV_ENOSPC": "syncfs",
                   "SDSCPROV_ENOSPC_DEV": str(os.stat(far_cache).st_dev)}
            rep = report("annotate", "--origins", origins, near_cache, far_cache, rc=2, env=env)
            assert {p[3] for p in problems_of(rep)} == {"write-failed"} and len(problems_of(rep)) == 2, \
                problems_of(rep)
            assert {**snapshot(near_cache), **{"far/" + k: v for k, v in snapshot(far_cache).items()}} == before
            assert temporaries(near_cache) == temporaries(far_cache) == []
            # Both synced, then both written.
            log = os.path.join(tmp, "syncfs.log")
            env = {"LD_PRELOAD": shim, "ASAN_OPTIONS": ASAN, "SDSCPROV_SYNCFS_LOG": log}
            rep = report("annotate", "--origins", origins, near_cache, far_cache, rc=0, env=env)
            assert rep["totals"]["annotate"]["written"] == 2, rep["totals"]
            synced = {int(line) for line in open(log).read().split()}
            assert synced == devices, (synced, devices)
        finally:
            shutil.rmtree(far, ignore_errors=True)


if __name__ == "__main__":
    main([test_files_merely_named_like_temporaries_are_never_removed,
          test_a_live_run_in_another_pid_namespace_keeps_its_temporaries,
          test_a_run_killed_in_a_container_leaves_temporaries_the_next_run_removes,
          test_sigint_sigterm_sighup_remove_our_temporaries_and_end_by_the_signal,
          test_setuid_setgid_owner_xattrs_and_acls_are_kept,
          test_metadata_that_cannot_be_kept_leaves_the_file_alone,
          test_a_batch_over_two_file_systems_syncs_each])
