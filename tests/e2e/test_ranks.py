"""End-to-end tests of `sdscprov profile T1 T2 ... [CACHES]`: several traces (the ranks of one run)
in one report.

Three ranks of one generated model (scripts/gen_trace.py, same seed, so the same compile): rank 1
is the straggler, one bundle with a source line at 160 % of its time. Every expectation is
computed here from what the generator wrote into each trace (its expected.json), never from
sdscprov's own output.
"""
import gzip
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import SCRIPTS, TempDir, main, run  # noqa: E402

STRAGGLER = ['--scale', '19=160']  # bundle 19: about a tenth of the time, with a source line
TABLES = ('by_line', 'by_aten', 'by_kernel')


def generate(out, *args):
    subprocess.run([sys.executable, os.path.join(SCRIPTS, 'gen_trace.py'), out,
                    *args], check=True, capture_output=True, timeout=600)
    with open(os.path.join(out, 'expected.json')) as f:
        return json.load(f)['sidecar']


class Ranks:
    """Rank 0, 1 (the straggler) and 2; the sidecar of rank 0's compile pairs them all."""

    def __init__(self, tmp):
        self.dirs = [os.path.join(tmp, 'rank%d' % r) for r in range(3)]
        self.expected = [generate(self.dirs[0], '--rank', '0'),
                         generate(self.dirs[1], '--rank', '1', *STRAGGLER),
                         generate(self.dirs[2], '--rank', '2')]
        self.traces = [os.path.join(d, 'trace.json') for d in self.dirs]
        self.sidecar = os.path.join(self.dirs[0], 'spyre_provenance.json')

    def profile(self, *args, check_rc=0):
        return run('profile', *args, '--origins', self.sidecar, check_rc=check_rc)

    def json(self, *traces):
        _, out, _ = self.profile(*traces, '--format', 'json')
        return json.loads(out)


def per_rank(expected, table, label):
    """Each rank's [ns, events] of a row (0, 0 where a rank has none)."""
    return [e[table].get(label, [0, 0]) for e in expected]


def check_rows(report, expected):
    for table in TABLES:
        labels = {label for e in expected for label in e[table]}
        got = {row['label']: row for row in report[table]}
        assert set(got) == labels, (table, sorted(set(got) ^ labels)[:5])
        for label in labels:
            ranks = per_rank(expected, table, label)
            row = got[label]
            assert row['rank_ns'] == [ns for ns, _ in ranks], (table, label)
            assert row['device_ns'] == sum(ns for ns, _ in ranks), (table, label)
            assert row['events'] == sum(ev for _, ev in ranks), (table, label)


def test_several_ranks_json():
    with TempDir() as tmp:
        r = Ranks(tmp)
        # Given out of order: the ranks come from distributedInfo.rank, not the arguments.
        report = r.json(r.traces[2], r.traces[0], r.traces[1])
        assert report['sdscprov_profile'] == 2
        assert report['ranks_by'] == 'distributedInfo.rank'
        assert [t['rank'] for t in report['traces']] == [0, 1, 2]
        assert [t['path'] for t in report['traces']] == r.traces
        assert [t['kernel_ns'] for t in report['traces']] == \
            [e['coverage']['kernel_ns'] for e in r.expected]
        assert report['coverage']['kernel_ns'] == sum(e['coverage']['kernel_ns']
                                                      for e in r.expected)
        check_rows(report, r.expected)
        # Every bundle's rank times add up to its time.
        for b in report['bundles']:
            assert sum(b['rank_ns']) == b['device_ns']


def straggler_line(expected):
    """The source line whose slowest rank leads the fastest by the most (then the most time)."""
    best = None
    for label in {label for e in expected for label in e['by_line']}:
        ns = [x for x, _ in per_rank(expected, 'by_line', label)]
        key = (max(ns) - min(ns), sum(ns))
        if best is None or key > best[0]:
            best = (key, label, ns)
    return best


def test_straggler_on_the_first_screen():
    with TempDir() as tmp:
        r = Ranks(tmp)
        _, out, _ = r.profile(*r.traces, '--top', '5')
        lines = out.splitlines()
        totals = [e['coverage']['kernel_ns'] for e in r.expected]
        slowest = totals.index(max(totals))
        assert slowest == 1
        assert 'ranks from each trace\'s distributedInfo.rank' in lines[0], lines[0]
        assert lines[1].startswith('slowest: rank 1 (%s)' % r.traces[1]), lines[1]
        ratio = '%.2fx' % (max(totals) / min(totals))
        assert ratio in lines[1], (ratio, lines[1])
        (lead, _), label, ns = straggler_line(r.expected)
        assert lead > 0
        title = lines.index('Source lines by the slowest rank\'s lead (max - min)')
        assert title < 24, 'the straggler line is not on the first screen'
        first = lines[title + 3]
        cells = first.split()
        # sum, %, slowest, max, min, spread, r0 r1 r2, label
        ms = lambda v: '{:,.3f}'.format(round(v / 1000) / 1000)  # noqa: E731
        assert cells[0] == ms(sum(ns)), (first, ns)
        assert cells[2] == '1', first
        assert cells[3] == ms(max(ns)) and cells[4] == ms(min(ns)), first
        assert cells[5] == '%.2fx' % (max(ns) / min(ns)), first
        assert cells[6:9] == [ms(v) for v in ns], first
        assert first.endswith(label), (first, label)


def test_ranks_by_argument_order():
    with TempDir() as tmp:
        r = Ranks(tmp)
        plain = []
        for i in (1, 0):
            path = os.path.join(tmp, 'plain%d.json' % i)
            with open(r.traces[i]) as f:
                text = f.read()
            start = text.index('  "distributedInfo"')
            text = text[:start] + text[text.index('\n', start) + 1:]
            with open(path, 'w') as f:
                f.write(text)
            plain.append(path)
        report = r.json(*plain)
        assert report['ranks_by'] == 'argument order'
        assert [(t['rank'], t['path'], t['distributed_rank']) for t in report['traces']] == \
            [(0, plain[0], None), (1, plain[1], None)]
        check_rows(report, [r.expected[1], r.expected[0]])
        _, out, _ = r.profile(*plain)
        assert 'ranks numbered in argument order (2 of them without distributedInfo.rank)' in out
        assert 'slowest: rank 0 (%s)' % plain[0] in out
        # Two traces of one rank: numbered by the arguments too, and said so.
        _, out, _ = r.profile(r.traces[0], r.traces[0])
        assert 'ranks numbered in argument order (distributedInfo.rank repeats)' in out


def test_traces_told_from_caches_by_content():
    with TempDir() as tmp:
        r = Ranks(tmp)
        # No name says which is a trace: a gzip one named like a cache file, a plain one with no
        # extension, the cache directory first.
        gz = os.path.join(tmp, 'sdsc_0.json')
        with open(r.traces[1], 'rb') as f, gzip.open(gz, 'wb') as g:
            g.write(f.read())
        bare = os.path.join(tmp, 'rank-two')
        shutil.copy(r.traces[2], bare)
        cache = os.path.join(r.dirs[0], 'cache')
        _, out, _ = r.profile(cache, r.traces[0], gz, bare, '--format', 'json')
        report = json.loads(out)
        assert [t['path'] for t in report['traces']] == [r.traces[0], gz, bare]
        assert [t['gzip'] for t in report['traces']] == [False, True, False]
        assert report['caches'] == [cache]
        # Paired through the cache as well: still every rank's time per row.
        assert [t['kernel_ns'] for t in report['traces']] == \
            [e['coverage']['kernel_ns'] for e in r.expected]
        # Only directories: no trace, a usage error.
        rc, _, err = run('profile', cache, os.path.join(r.dirs[1], 'cache'), check_rc=2)
        assert 'no trace given' in err


def test_folded_and_html_give_the_sum():
    with TempDir() as tmp:
        r = Ranks(tmp)
        _, out, _ = r.profile(*r.traces, '--format', 'folded')
        want = {}
        for e in r.expected:
            for stack, ns in e['folded'].items():
                want[stack] = want.get(stack, 0) + ns
        got = {}
        for line in out.splitlines():
            stack, ns = line.rsplit(' ', 1)
            got[stack] = int(ns)
        assert got == want
        _, page, _ = r.profile(*r.traces, '--format', 'html')
        assert page.startswith('<!DOCTYPE html>') and page.rstrip().endswith('</html>')


def test_one_trace_options_refused_with_several():
    with TempDir() as tmp:
        r = Ranks(tmp)
        _, out, err = r.profile(r.traces[0], r.traces[1], '--baseline', r.traces[2],
                                check_rc=2)
        assert out == '' and '--baseline takes one trace, and 2 were given' in err
        target = os.path.join(tmp, 'annotated.json')
        _, out, err = r.profile(r.traces[0], r.traces[1], '--annotate-trace', target,
                                check_rc=2)
        assert out == '' and '--annotate-trace takes one trace' in err
        assert not os.path.exists(target)
        # A trace that cannot be read: no report at all, its path:line:col on stderr.
        broken = os.path.join(tmp, 'broken.json')
        with open(broken, 'w') as f:
            f.write('{"traceEvents": [\n  {"ph": "X",\n')
        _, out, err = r.profile(r.traces[0], broken, check_rc=2)
        assert out == ''
        assert err.startswith(broken + ':3:1: error:') or (broken + ':3:') in err, err
        assert 'could not be read: no report' in err


if __name__ == '__main__':
    main([test_several_ranks_json, test_straggler_on_the_first_screen,
          test_ranks_by_argument_order, test_traces_told_from_caches_by_content,
          test_folded_and_html_give_the_sum, test_one_trace_options_refused_with_several])
