"""End-to-end tests of `sdscprov profile --annotate-trace OUT`: what the copy holds and how large it
is, `-` as standard output, what a killed run leaves and the next one removes, a file size limit,
outputs that would replace an input of the run, and what an existing OUT keeps.

Expectations come from the generator's sidecar (scripts/gen_trace.py) and the trace's own bytes,
never from sdscprov's output.
"""
import fcntl
import json
import os
import re
import resource
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import BIN, SCRIPTS, SKIP, TempDir, main  # noqa: E402


def generate(out, *args):
    subprocess.run([sys.executable, os.path.join(SCRIPTS, 'gen_trace.py'), out, *args], check=True,
                   capture_output=True, timeout=600)
    return os.path.join(out, 'trace.json'), os.path.join(out, 'spyre_provenance.json')


def profile(*args, stdin=None, preexec_fn=None, cwd=None):
    p = subprocess.run([BIN, 'profile', *args], capture_output=True, stdin=stdin,
                       preexec_fn=preexec_fn, cwd=cwd, timeout=300)
    return p.returncode, p.stdout, p.stderr.decode()


def leftovers(directory):
    return sorted(n for n in os.listdir(directory) if '.sdscprov-' in n)


def boot_tag():
    with open('/proc/sys/kernel/random/boot_id') as f:
        return f.read()[:8]


def check_copy(trace_bytes, copy_bytes, sidecar):
    """The copy is the trace with args.sdscprov = {"bundle": KEY} on each kernel event the sidecar
    pairs and one sdscprov_bundles metadata event after the trace's events, describing each key
    referred to once, as the sidecar has it."""
    with open(sidecar) as f:
        identities = json.load(f)['kernelIdentities']
    before = json.loads(trace_bytes)['traceEvents']
    after = json.loads(copy_bytes)['traceEvents']
    assert len(after) == len(before) + 1, (len(after), len(before))
    table_event = after[-1]
    assert table_event['name'] == 'sdscprov_bundles' and table_event['ph'] == 'M', table_event
    table = table_event['args']['bundles']
    referred = set()
    # Each bundle's events name the line of the bundle that had taken the most device time when
    # its first event was read (the first by file and line on a tie) by its file's name, then
    # " +N" for N more lines, and its kernel as the kernel ranking names it but for the key.
    line_ns, said = {}, {}
    for b, a in zip(before, after):
        reference = a.get('args', {}).pop('sdscprov', None)
        if reference is not None and 'args' not in b:
            assert a['args'] == {}, a  # an args object added for it
            del a['args']
        assert a == b, (b, a)
        name = b.get('name', '')
        key = b.get('args', {}).get('provenance_key') or name.split('#')[0][-16:]
        paired = b.get('ph') == 'X' and name.startswith('spyre_kernel') and key in identities
        assert (reference is not None) == paired, (b, reference)
        if paired:
            # The event's own timeline figures (test_profile_timeline.py checks their values).
            for figure in ('gap_ns', 'host_wait_ns', 'launch_delay_ns'):
                value = reference.pop(figure, 0)
                assert isinstance(value, int) and value >= 0, (figure, reference)
            lines = table[key]['source_lines']
            for line in lines:
                line_ns[line] = line_ns.get(line, 0) + round(b.get('dur', 0) * 1000)
            if key not in said:
                kernels, dirs = table[key]['kernels'], table[key]['kernel_dirs']
                kernel = ('+'.join(kernels) + ('@' + os.path.basename(dirs[0]) if len(dirs) == 1 else '')
                          if kernels else table[key]['event_name'])
                said[key] = {'bundle': key, 'kernel': kernel}
                if lines:
                    said[key]['line'] = os.path.basename(max(lines, key=lambda x: (line_ns[x], -lines.index(x)))) + \
                        (f' +{len(lines) - 1}' if len(lines) > 1 else '')
            assert reference == said[key], (reference, said[key])
            referred.add(key)
    assert set(table) == referred, (set(table) ^ referred)
    for key, described in table.items():
        identity = identities[key]
        assert described['handles'] == identity['directHandleIds'], key
        assert described['event_name'] == identity['eventNameBase'], key
        assert described['paired_by'] == 'sidecar'
        assert set(identity['atenOps']) <= set(described['aten_ops']), key
    return len(referred)


def test_copy_refers_to_bundles_described_once_and_stays_small():
    """27: every event repeated its bundle's handle lists (304 MB became 542 MB): each bundle is
    described once, its events refer to it by key with its line and kernel, and the copy is at
    most 1.2x the trace."""
    with TempDir() as tmp:
        trace, sidecar = generate(tmp, '--target-bytes', '4e6')
        out = os.path.join(tmp, 'annotated.json')
        rc, _, err = profile(trace, '--origins', sidecar, '--annotate-trace', out, '-q')
        assert rc == 0, err
        with open(trace, 'rb') as f1, open(out, 'rb') as f2:
            trace_bytes, copy_bytes = f1.read(), f2.read()
        # The events' own timeline figures are a few bytes each, apart from the bundles'
        # references, which are what must not grow with the bundle.
        figures = re.findall(rb',"(?:gap_ns|host_wait_ns|launch_delay_ns)":\d+', copy_bytes)
        events = copy_bytes.count(b'"sdscprov":{')
        assert figures and sum(map(len, figures)) <= 60 * events, (len(figures), events)
        ratio = (len(copy_bytes) - sum(map(len, figures))) / len(trace_bytes)
        print(f'annotated copy: {len(copy_bytes)} bytes for {len(trace_bytes)}, '
              f'{ratio:.3f}x without the events\' timeline figures')
        assert ratio <= 1.2, ratio
        assert check_copy(trace_bytes, copy_bytes, sidecar) > 5


def test_dash_is_standard_output():
    """26 §2: `--annotate-trace -` wrote a file named `-`: it is standard output (the report's
    place), the same bytes a file gets."""
    with TempDir() as tmp:
        trace, sidecar = generate(tmp)
        out = os.path.join(tmp, 'annotated.json')
        rc, _, err = profile(trace, '--origins', sidecar, '--annotate-trace', out, '-q')
        assert rc == 0, err
        rc, stdout, err = profile(trace, '--origins', sidecar, '--annotate-trace', '-', cwd=tmp)
        assert rc == 0, err
        assert not os.path.exists(os.path.join(tmp, '-'))
        with open(out, 'rb') as f:
            assert stdout == f.read()
        with open(trace, 'rb') as f:
            check_copy(f.read(), stdout, sidecar)
        # Standard input to standard output.
        with open(trace, 'rb') as f:
            rc, piped, err = profile('-', '--origins', sidecar, '--annotate-trace', '-', stdin=f)
        assert rc == 0 and piped == stdout, err
        # Standard output appended to the trace itself would be read as it grows: refused.
        with open(trace, 'rb') as f:
            original = f.read()
        with open(trace, 'ab') as f:
            p = subprocess.run([BIN, 'profile', trace, '--origins', sidecar, '--annotate-trace', '-'],
                               stdout=f, stderr=subprocess.PIPE, text=True, timeout=60)
        assert p.returncode == 2 and 'is the trace being read' in p.stderr, p.stderr
        with open(trace, 'rb') as f:
            assert f.read() == original


def test_killed_run_leaves_a_temporary_that_the_next_run_removes():
    """26 §2: a SIGKILLed run leaves its partial copy beside OUT; the next run removes it (its lock
    is free), says so, and leaves alone what is not provably an abandoned temporary of OUT."""
    with TempDir() as tmp:
        trace, sidecar = generate(tmp, '--target-bytes', '12e6')
        out_dir = os.path.join(tmp, 'out')
        os.mkdir(out_dir)
        out = os.path.join(out_dir, 'annotated.json')
        with open(trace, 'rb') as f:
            data = f.read()
        p = subprocess.Popen([BIN, 'profile', '-', '--origins', sidecar, '--annotate-trace', out,
                              '-q', '-j', '1'], stdin=subprocess.PIPE, stderr=subprocess.DEVNULL)
        # The trace a tenth at a time, never all of it, until part of the copy is on disk (an
        # event is written once the timeline has its figures: some activities later).
        deadline = time.time() + 30
        temps, sent = [], 0
        while time.time() < deadline:
            temps = leftovers(out_dir)
            if temps and os.path.getsize(os.path.join(out_dir, temps[0])) > 0:
                break
            if sent < 9:
                sent += 1
                p.stdin.write(data[(sent - 1) * len(data) // 10: sent * len(data) // 10])
                p.stdin.flush()
            time.sleep(0.05)
        p.kill()
        p.wait()
        p.stdin.close()
        temps = leftovers(out_dir)
        assert len(temps) == 1, temps
        killed = temps[0]
        assert killed.startswith('.annotated.json.sdscprov-b') and killed.endswith('.tmp'), killed
        assert os.path.getsize(os.path.join(out_dir, killed)) > 0
        assert not os.path.exists(out)

        # Beside it: a live writer's temporary of OUT (its lock held), one of another file, and a
        # file merely named like one. None of them is removed.
        live = f'.annotated.json.sdscprov-b{boot_tag()}-{"1" * 16}-0.tmp'
        other = f'.notes.json.sdscprov-b{boot_tag()}-{"2" * 16}-0.tmp'
        lookalike = '.annotated.json.sdscprov-4000000-backup.tmp'
        for name in (live, other, lookalike):
            with open(os.path.join(out_dir, name), 'w') as f:
                f.write('partial')
        holder = open(os.path.join(out_dir, live), 'rb')
        fcntl.flock(holder, fcntl.LOCK_EX)
        try:
            rc, _, err = profile(trace, '--origins', sidecar, '--annotate-trace', out)
        finally:
            holder.close()
        assert rc == 0, err
        assert 'removed a temporary file left by an interrupted sdscprov run' in err, err
        assert killed in err and live not in err, err
        assert leftovers(out_dir) == sorted([live, other, lookalike]), leftovers(out_dir)
        with open(out, 'rb') as f:
            check_copy(data, f.read(), sidecar)


def test_file_size_limit_is_a_write_error():
    """26 §2: under `ulimit -f` the run died of SIGXFSZ with a truncated temporary left: it is a
    write error naming the reason, exit 2, no temporary left, OUT as it was (or not created)."""
    with TempDir() as tmp:
        trace, sidecar = generate(tmp, '--target-bytes', '3e6')
        out = os.path.join(tmp, 'annotated.json')
        old = b'{"traceEvents": []}\n'
        limit = 1 << 20

        def limited():
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

        for existing in (True, False):
            if existing:
                with open(out, 'wb') as f:
                    f.write(old)
            elif os.path.exists(out):
                os.unlink(out)
            rc, _, err = profile(trace, '--origins', sidecar, '--annotate-trace', out, '-q',
                                 preexec_fn=limited)
            assert rc == 2, (rc, err)
            assert 'cannot write the annotated trace: File too large' in err, err
            assert 'ulimit -f' in err and '[write-failed]' in err, err
            assert leftovers(tmp) == [], leftovers(tmp)
            if existing:
                with open(out, 'rb') as f:
                    assert f.read() == old
            else:
                assert not os.path.exists(out)


def test_no_input_of_the_run_is_replaced():
    """26 §3: OUT naming the --origins sidecar or a file of a cache given replaced it (exit 0):
    any input of the run is refused, by device and inode (under another name too), nothing read."""
    with TempDir() as tmp:
        trace, sidecar = generate(tmp)
        cache = os.path.join(tmp, 'cache')
        sdsc = bundle = None
        for root, _, files in sorted(os.walk(cache)):
            for name in sorted(files):
                if sdsc is None and name.startswith('sdsc') and name.endswith('.json'):
                    sdsc = os.path.join(root, name)
                if bundle is None and name == 'bundle.mlir':
                    bundle = os.path.join(root, name)
        assert sdsc is not None
        targets = [(trace, 'the trace being read'), (sidecar, 'the --origins sidecar'),
                   (sdsc, 'the SDSC file')]
        if bundle is not None:
            targets.append((bundle, 'the bundle'))
        for i, (path, what) in enumerate(list(targets)):
            link = os.path.join(tmp, f'hardlink-{i}.json')
            os.link(path, link)
            targets.append((link, what))
        inputs = sorted({p for p, _ in targets})
        before = {}
        for p in inputs:
            with open(p, 'rb') as f:
                before[p] = f.read()
        for path, what in targets:
            rc, out, err = profile(trace, cache, '--origins', sidecar, '--annotate-trace', path)
            assert rc == 2, (path, rc, err)
            assert out == b'', path
            assert what in err and 'give --annotate-trace another path' in err, (path, err)
            assert '[bad-argument]' in err, err
        for p in inputs:
            with open(p, 'rb') as f:
                assert f.read() == before[p], p
        assert leftovers(tmp) == []
        # A link to an input is never replaced (it is a link).
        symlink = os.path.join(tmp, 'symlink.json')
        os.symlink(sidecar, symlink)
        rc, _, err = profile(trace, cache, '--origins', sidecar, '--annotate-trace', symlink)
        assert rc == 2 and 'symbolic link' in err, err
        with open(sidecar, 'rb') as f:
            assert f.read() == before[sidecar]


def test_existing_out_keeps_owner_group_mode_and_attributes():
    """26 §3: a replaced OUT kept only its mode (nobody:nogroup 640 came back root:root 640): it
    keeps its owner, group, mode and extended attributes."""
    with TempDir() as tmp:
        trace, sidecar = generate(tmp)
        out = os.path.join(tmp, 'annotated.json')
        with open(out, 'w') as f:
            f.write('old\n')
        os.chmod(out, 0o640)
        root = os.geteuid() == 0
        if root:
            os.chown(out, 65534, 65534)
        try:
            os.setxattr(out, 'user.sdscprov_test', b'kept')
            xattrs = True
        except OSError:
            xattrs = False
        if not root and not xattrs:
            print('skipped: not root, and no user extended attributes here')
            return SKIP
        before = os.stat(out)
        rc, _, err = profile(trace, '--origins', sidecar, '--annotate-trace', out, '-q')
        assert rc == 0, err
        after = os.stat(out)
        assert after.st_ino != before.st_ino  # replaced, not written in place
        assert (after.st_uid, after.st_gid) == (before.st_uid, before.st_gid), (after, before)
        assert after.st_mode & 0o7777 == 0o640, oct(after.st_mode)
        if xattrs:
            assert os.getxattr(out, 'user.sdscprov_test') == b'kept'
        with open(trace, 'rb') as f1, open(out, 'rb') as f2:
            check_copy(f1.read(), f2.read(), sidecar)
        assert leftovers(tmp) == []


if __name__ == '__main__':
    main([test_copy_refers_to_bundles_described_once_and_stays_small,
          test_dash_is_standard_output,
          test_killed_run_leaves_a_temporary_that_the_next_run_removes,
          test_file_size_limit_is_a_write_error,
          test_no_input_of_the_run_is_replaced,
          test_existing_out_keeps_owner_group_mode_and_attributes])
