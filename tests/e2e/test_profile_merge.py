"""End-to-end tests of `sdscprov merge` of `profile --format json` reports: the reports of traces
profiled one by one (a job runner's shards) add up to the report of one run over all of them,
byte for byte; reports of other caches or versions are refused.

The traces are the ranks of one generated model (scripts/gen_trace.py, same seed: the same
compile), rank 1 with a bundle slowed; the cache of each rank's directory is a copy of the same
compile, at another path.
"""
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import BIN, SCRIPTS, TempDir, check_merge_reads_streams, main, run  # noqa: E402

sys.path.insert(0, SCRIPTS)
from bench_profile_merge import rank_copies  # noqa: E402


def generate(out, *args):
    subprocess.run([sys.executable, os.path.join(SCRIPTS, 'gen_trace.py'), out, *args],
                   check=True, capture_output=True, timeout=600)


class Fleet:
    def __init__(self, tmp, ranks=3):
        self.tmp = tmp
        self.dirs = [os.path.join(tmp, 'rank%d' % r) for r in range(ranks)]
        for r, d in enumerate(self.dirs):
            generate(d, '--rank', str(r), *(['--scale', '19=160'] if r == 1 else []))
        self.traces = [os.path.join(d, 'trace.json') for d in self.dirs]

    def report(self, i, *sources):
        """The JSON report of trace i alone, written to a file as a runner's job would."""
        path = os.path.join(self.tmp, 'rank%d.profile.json' % i)
        sources = sources or (os.path.join(self.dirs[i], 'cache'),)
        _, out, _ = run('profile', self.traces[i], *sources, '--format', 'json')
        with open(path, 'w') as f:
            f.write(out)
        return path


def merged(*reports, check_rc=0):
    return run('merge', *reports, check_rc=check_rc)


def test_merge_equals_one_run():
    with TempDir() as tmp:
        fleet = Fleet(tmp)
        cache = os.path.join(fleet.dirs[0], 'cache')
        reports = [fleet.report(i, cache) for i in range(3)]
        _, one_run, _ = run('profile', *fleet.traces, cache, '--format', 'json')
        _, out, _ = merged(*reports)
        assert out == one_run
        # In any order (the ranks come from distributedInfo.rank), and in steps: a merged
        # report merges again.
        _, out, _ = merged(reports[2], reports[0], reports[1])
        assert out == one_run
        partial = os.path.join(tmp, 'partial.json')
        with open(partial, 'w') as f:
            f.write(merged(reports[1], reports[0])[1])
        assert merged(partial, reports[2])[1] == one_run
        # One report merges into itself.
        with open(reports[0]) as f:
            assert merged(reports[0])[1] == f.read()
        # Every row's rank times and sum, as the single reports give them.
        doc = json.loads(one_run)
        singles = [json.load(open(p)) for p in reports]
        for table in ('by_line', 'by_aten', 'by_kernel'):
            for row in doc[table]:
                ns = [next((r['device_ns'] for r in s[table] if r['label'] == row['label']), 0)
                      for s in singles]
                assert row['rank_ns'] == ns and row['device_ns'] == sum(ns), row['label']
        # A job with its own copy of the cache (the same compile at another path) merges too:
        # the same times; the kernel directories are those of the first report holding each.
        copy = fleet.report(1)
        doc = json.loads(merged(reports[0], copy, reports[2])[1])
        assert doc['caches'] == [cache, os.path.join(fleet.dirs[1], 'cache')]
        want = json.loads(one_run)
        assert [r['rank_ns'] for r in doc['by_line']] == [r['rank_ns'] for r in want['by_line']]


def test_merge_refuses_other_caches_and_versions():
    with TempDir() as tmp:
        fleet = Fleet(tmp, ranks=2)
        good = fleet.report(0)
        other_dir = os.path.join(tmp, 'other')
        generate(other_dir, '--seed', '7')
        _, out, _ = run('profile', os.path.join(other_dir, 'trace.json'),
                        os.path.join(other_dir, 'cache'), '--format', 'json')
        other = os.path.join(tmp, 'other.profile.json')
        with open(other, 'w') as f:
            f.write(out)
        _, out, err = merged(good, other, check_rc=2)
        assert out == ''
        assert 'were paired with other caches or sidecars' in err, err
        # Another version of the format.
        with open(good) as f:
            doc = json.load(f)
        doc['sdscprov_profile'] = 1
        old = os.path.join(tmp, 'old.json')
        with open(old, 'w') as f:
            json.dump(doc, f)
        _, out, err = merged(good, old, check_rc=2)
        assert out == '' and old + ': a profile report of version 1' in err, err
        # A refusal is one problem line, as a refused merge of shards is.
        assert err.startswith('sdscprov merge: error: ' + old + ': '), err
        assert err.endswith(' [merge-refused]\n') and err.count('\n') == 1, err
        # A report with a member missing, and a shard report among profile reports.
        del doc['coverage']
        doc['sdscprov_profile'] = 2
        with open(old, 'w') as f:
            json.dump(doc, f)
        _, out, err = merged(good, old, check_rc=2)
        assert out == '' and 'no member "coverage"' in err, err
        _, scan, _ = run('scan', os.path.join(fleet.dirs[0], 'cache'), '--format', 'json')
        shard = os.path.join(tmp, 'scan.json')
        with open(shard, 'w') as f:
            f.write(scan)
        _, out, err = merged(good, shard, check_rc=2)
        assert out == '' and 'not a profile report' in err, err
        # Another core clock.
        _, out, _ = run('profile', fleet.traces[1], os.path.join(fleet.dirs[1], 'cache'),
                        '--core-mhz', '1000', '--format', 'json')
        clock = os.path.join(tmp, 'clock.json')
        with open(clock, 'w') as f:
            f.write(out)
        _, out, err = merged(good, clock, check_rc=2)
        assert out == '' and 'other core clocks (1100 and 1000 MHz)' in err, err


def test_merge_reads_pipes_fifos_and_standard_input():
    """Profile reports streamed (`merge <(ssh h1 cat r0.json) ...`, `-`, a FIFO) merge as their
    files do; a FIFO nobody writes to is waited on, said once, and Ctrl-C ends the wait. Each
    input is read once: the first report, read to tell a profile merge from a shards' one, is
    not read again (a stream cannot be)."""
    with TempDir() as tmp:
        fleet = Fleet(tmp)
        cache = os.path.join(fleet.dirs[0], 'cache')
        check_merge_reads_streams([fleet.report(i, cache) for i in range(3)])


def test_merge_of_64_ranks_takes_under_a_second():
    """Prints the time of merging 64 rank reports (a figure, not a timed assertion)."""
    with TempDir() as tmp:
        generate(os.path.join(tmp, 'rank0'), '--rank', '0')
        base = os.path.join(tmp, 'rank0')
        _, out, _ = run('profile', os.path.join(base, 'trace.json'), os.path.join(base, 'cache'),
                        '--format', 'json')
        doc = json.loads(out)
        paths = rank_copies(doc, 64, tmp)
        start = time.monotonic()
        p = subprocess.run([BIN, 'merge', *paths], capture_output=True, text=True, timeout=300)
        elapsed = time.monotonic() - start
        assert p.returncode == 0, p.stderr
        report = json.loads(p.stdout)
        assert [t['rank'] for t in report['traces']] == list(range(64))
        assert report['coverage']['kernel_ns'] == 64 * doc['coverage']['kernel_ns']
        size = sum(os.path.getsize(x) for x in paths)
        print('merge of 64 rank reports (%.1f MB): %.3f s' % (size / 1e6, elapsed))


if __name__ == '__main__':
    main([test_merge_equals_one_run, test_merge_refuses_other_caches_and_versions,
          test_merge_reads_pipes_fifos_and_standard_input,
          test_merge_of_64_ranks_takes_under_a_second])
