"""End-to-end tests of `sdscprov profile --baseline BASE TRACE` and its gate (--fail-over).

Two traces of one generated model (scripts/gen_trace.py, same seed): the new one with chosen
bundles slowed, sped up or left out (--scale), the base one with another bundle left out (a row
new in the new run). Every expectation is computed here from what the generator wrote into each
trace (its expected.json, summed from the events), never from sdscprov's own output.
"""
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import SCRIPTS, TempDir, main, run  # noqa: E402
from pty_run import run_pty  # noqa: E402

TABLES = ('by_line', 'by_aten', 'by_kernel')
# The new run: bundle 0 (about a tenth of the device time, no source line) 1.5 times slower,
# bundle 19 (a tenth too, with a line) at 125 %, bundle 3 (a small one) three times slower,
# bundle 7 at half its time, bundle 5 gone. The base run lacks bundle 8 (new in the new run).
NEW_SCALE = ['--scale', '0=150', '--scale', '19=125', '--scale', '3=300', '--scale', '7=50',
             '--scale', '5=0']
BASE_SCALE = ['--scale', '8=0']
FINDING = re.compile(r'^(?P<path>[^\n]*?)(:(?P<line>\d+))?: error: device time (?P<message>.*) '
                     r'\[fail-over\]$')


def generate_all(out, *args):
    subprocess.run([sys.executable, os.path.join(SCRIPTS, 'gen_trace.py'), out, *args],
                   check=True, capture_output=True, timeout=600)
    with open(os.path.join(out, 'expected.json')) as f:
        return json.load(f)


def generate(out, *args):
    return generate_all(out, *args)['sidecar']


def per_step(ns, steps):
    """ns over steps, rounded half up to the ns (integers only)."""
    return (2 * ns + steps) // (2 * steps)


def per_step_view(expected):
    """What a run with step spans compares: each row of the run (every one it has) with the
    device time of its kernel events that start in a step, per step, and those events."""
    spans = expected['steps']['spans']
    in_steps = expected['steps']['sidecar']
    view = {}
    for table in TABLES:
        view[table] = {label: [per_step(in_steps[table].get(label, [0, 0])[0], spans),
                               in_steps[table].get(label, [0, 0])[1]]
                       for label in expected['sidecar'][table]}
    view['coverage'] = {'kernel_ns': per_step(in_steps['coverage']['kernel_ns'], spans)}
    view['members'] = expected['sidecar']['members']
    return view


class Runs:
    """The base and new traces, their sidecar (the same compile) and what each must give."""

    def __init__(self, tmp, base_scale=BASE_SCALE, new_scale=NEW_SCALE):
        self.base_dir = os.path.join(tmp, 'base')
        self.new_dir = os.path.join(tmp, 'new')
        self.base = generate(self.base_dir, *base_scale)
        self.new = generate(self.new_dir, *new_scale)
        self.base_trace = os.path.join(self.base_dir, 'trace.json')
        self.new_trace = os.path.join(self.new_dir, 'trace.json')
        self.sidecar = os.path.join(self.base_dir, 'spyre_provenance.json')

    def profile(self, *args, check_rc=None, base=None, new=None):
        return run('profile', '--baseline', base or self.base_trace, new or self.new_trace,
                   '--origins', self.sidecar, *args, check_rc=check_rc)


def expected_rows(base, new, table):
    """Each row as the JSON report must give it, in the ranking's order."""
    rows = []
    for label in set(base[table]) | set(new[table]):
        b, n = base[table].get(label), new[table].get(label)
        base_ns, new_ns = (b or [0, 0])[0], (n or [0, 0])[0]
        change = new_ns - base_ns
        rows.append({
            'label': label,
            'status': 'new' if b is None else 'gone' if n is None else
                      'same' if change == 0 else 'changed',
            'base_ns': base_ns, 'new_ns': new_ns,
            'base_events': (b or [0, 0])[1], 'new_events': (n or [0, 0])[1],
            'change_ns': change,
            'change_percent': round(100 * change / base_ns, 2) if b and base_ns else None,
        })
    rows.sort(key=lambda r: (-abs(r['change_ns']), -r['change_ns'], -r['new_ns'],
                             r['label'].encode()))
    return rows


def grown_kernels(runs, table, label):
    """The kernel rows (bundles) of a row whose time grew from the base run to the new one, the
    largest growth first, then by label: what the gate names as the finding's cause."""
    members = (set(runs.base['members'][table].get(label, [])) |
               set(runs.new['members'][table].get(label, [])))
    grew = []
    for k in members:
        b = runs.base['by_kernel'].get(k, [0, 0])[0]
        n = runs.new['by_kernel'].get(k, [0, 0])[0]
        if n > b:
            grew.append((b - n, k.encode(), k))
    return [k for _, _, k in sorted(grew)]


def expected_groups(runs, table, fail_over, min_share=1.0):
    """The gate's findings, in the ranking's order: rows over the limit whose grown kernels are
    the same are one finding, (first row's label, the other rows' labels, the grown kernels)."""
    base_total = runs.base['coverage']['kernel_ns']
    new_total = runs.new['coverage']['kernel_ns']
    out, by_cause = [], {}
    for r in expected_rows(runs.base, runs.new, table):
        if r['status'] == 'gone' or r['change_ns'] <= 0:
            continue
        share = max(100 * r['base_ns'] / base_total, 100 * r['new_ns'] / new_total)
        if share < min_share:
            continue
        if r['base_ns'] and 100 * r['change_ns'] / r['base_ns'] <= fail_over:
            continue
        cause = tuple(grown_kernels(runs, table, r['label']))
        assert cause, r  # a row that grew has a bundle that grew
        if cause in by_cause:
            by_cause[cause][1].append(r['label'])
            continue
        by_cause[cause] = (r['label'], [], list(cause))
        out.append(by_cause[cause])
    return out


def expected_findings(runs, table, fail_over, min_share=1.0):
    """The labels of the rows the gate's findings point at, in the ranking's order."""
    return [label for label, _, _ in expected_groups(runs, table, fail_over, min_share)]


def message_parts(message):
    """A finding's message as (row label, the other rows of its kernel, its grown kernels)."""
    m = re.match(r'^.*?\): (?P<label>.*?)(?: and \d+ more rows? of the same grown kernel '
                 r'\((?P<also>.*)\))?; kernels? (?P<kernels>.*)$', message)
    assert m, message
    also = m.group('also').split(', ') if m.group('also') else []
    kernels = m.group('kernels')
    more = re.search(r' and (\d+) more$', kernels)
    return m.group('label'), also, kernels, more


def comparable(row):
    got = {k: row[k] for k in ('label', 'status', 'base_ns', 'new_ns', 'base_events',
                               'new_events', 'change_ns', 'change_percent')}
    if got['change_percent'] is not None:
        got['change_percent'] = round(got['change_percent'], 2)
    return got


# ---- the comparison -----------------------------------------------------------------------------

def check_tables(report, runs):
    """The change and every table of a comparison report, exact against what the generator wrote;
    returns each table's expected rows."""
    assert report['change_ns'] == (runs.new['coverage']['kernel_ns'] -
                                   runs.base['coverage']['kernel_ns'])
    tables = []
    for table in TABLES:
        want = expected_rows(runs.base, runs.new, table)
        got = [comparable(r) for r in report[table]]
        assert got == want, (table, [(g, w) for g, w in zip(got, want) if g != w][:3])
        tables.append((table, want))
    return tables


def test_every_row_exact_to_the_ns():
    with TempDir() as tmp:
        runs = Runs(tmp)
        _, out, err = runs.profile('--format', 'json', check_rc=0)
        report = json.loads(out)
        assert report['sdscprov_profile_comparison'] == 1
        assert report['compared'] == 'totals'
        assert report['comparison'] == {'basis': 'totals', 'note': 'no step spans in either trace',
                                        'base_steps': 0, 'new_steps': 0, 'checkouts': None}
        assert report['base']['kernel_ns'] == runs.base['coverage']['kernel_ns']
        assert report['new']['kernel_ns'] == runs.new['coverage']['kernel_ns']
        for table, want in check_tables(report, runs):
            statuses = {r['status'] for r in want}
            # The scaled traces give every kind of row, so each is checked.
            if table != 'by_aten':  # ATen ops are shared by several bundles
                assert {'new', 'gone', 'changed', 'same'} <= statuses, (table, statuses)
        assert 'error' not in err, err


def test_new_and_gone_rows_in_text():
    with TempDir() as tmp:
        runs = Runs(tmp)
        _, out, _ = runs.profile('--by', 'kernel', '--top', '0', check_rc=0)
        rows = expected_rows(runs.base, runs.new, 'by_kernel')
        lines = [l for l in out.splitlines() if l.startswith(' ') and l.split()[-1] in
                 {r['label'] for r in rows}]
        assert [l.split()[-1] for l in lines] == [r['label'] for r in rows], out
        for line, r in zip(lines, rows):
            column = line.split()[3]
            if r['status'] in ('new', 'gone'):
                assert column == r['status'], line
            else:
                assert column != 'new' and column != 'gone', line
        assert 'By ATen op' not in out and 'By model source line' not in out


def test_text_honours_color_and_the_terminal_width():
    """The comparison's text is painted with --color always (and on a terminal by default), never
    with --color never or NO_COLOR, and on a terminal every line fits $COLUMNS; piped, the labels
    are whole whatever $COLUMNS says."""
    with TempDir() as tmp:
        runs = Runs(tmp)
        args = ['profile', '--baseline', runs.base_trace, runs.new_trace, '--origins',
                runs.sidecar, '--by', 'line', '--top', '0']
        _, painted, _ = runs.profile('--by', 'line', '--top', '0', '--color', 'always',
                                     check_rc=0)
        _, plain, _ = runs.profile('--by', 'line', '--top', '0', '--color', 'never', check_rc=0)
        assert '\x1b[' in painted and '\x1b[' not in plain
        assert re.sub(r'\x1b\[[0-9;]*m', '', painted) == plain
        longest = max(len(line) for line in plain.splitlines())
        assert longest > 70, plain  # the piped labels are whole: wider than the terminal below
        for columns in (70, 120):
            rc, out, _ = run_pty(*args, columns=columns)
            assert rc == 0
            assert '\x1b[' in out  # a terminal gets colour by default
            rc, out, _ = run_pty(*args, '--color', 'never', columns=columns)
            lines = out.splitlines()
            assert '\x1b[' not in out
            assert lines and max(len(line) for line in lines) <= columns, (columns, out)
            rc, out, _ = run_pty(*args, columns=columns, env={'NO_COLOR': '1'})
            assert '\x1b[' not in out


def test_difffolded_two_columns():
    with TempDir() as tmp:
        runs = Runs(tmp)
        _, out, _ = runs.profile('--format', 'folded', check_rc=0)
        got = {}
        for line in out.splitlines():
            stack, base_ns, new_ns = line.rsplit(' ', 2)
            assert stack.count(';') == 2, line
            assert stack not in got, 'stack printed twice: ' + line
            got[stack] = (int(base_ns), int(new_ns))
        assert out.splitlines() == sorted(out.splitlines(), key=lambda s: s.encode())
        want = {s: (runs.base['folded'].get(s, 0), runs.new['folded'].get(s, 0))
                for s in set(runs.base['folded']) | set(runs.new['folded'])}
        assert got == want
        assert any(b == 0 for b, _ in got.values()) and any(n == 0 for _, n in got.values())


# ---- the gate -----------------------------------------------------------------------------------

def findings_of(stderr):
    return [m.groupdict() for m in map(FINDING.match, stderr.splitlines()) if m]


def places_of(findings):
    return ['%s:%s' % (f['path'], f['line']) if f['line'] else f['path'] for f in findings]


def place(runs, label):
    """Where the finding about a source line row points: its file and line; a "[...]" row has
    none and points at the new trace."""
    return runs.new_trace if label.startswith('[') else label


def test_gate_exit_statuses():
    with TempDir() as tmp:
        runs = Runs(tmp)
        # Identical runs pass, however tight the limit.
        rc, _, err = runs.profile('--fail-over', '0', new=runs.base_trace, check_rc=0)
        assert findings_of(err) == [], err
        # Growth over the limit fails: every finding named as path:line.
        want = expected_findings(runs, 'by_line', 20)
        assert want, 'the scaled run must grow a line by more than 20 %'
        rc, _, err = runs.profile('--fail-over', '20', check_rc=1)
        got = findings_of(err)
        assert places_of(got) == [place(runs, w) for w in want], err
        # Over the growth of every row, the gate passes.
        rc, _, err = runs.profile('--fail-over', '100000', check_rc=0)
        assert findings_of(err) == [], err
        # --fail-min-share keeps small rows out: at 0 every grown row counts.
        want_all = expected_findings(runs, 'by_line', 20, 0.0)
        assert len(want_all) > len(want)
        rc, _, err = runs.profile('--fail-over', '20', '--fail-min-share', '0', check_rc=1)
        assert places_of(findings_of(err)) == [place(runs, w) for w in want_all]
        # --by chooses the rows: each finding's message names its ATen op.
        want_aten = expected_findings(runs, 'by_aten', 20)
        rc, _, err = runs.profile('--fail-over', '20', '--by', 'aten', check_rc=1)
        got = findings_of(err)
        assert [message_parts(f['message'])[0] for f in got] == want_aten, err
        # One finding per grown kernel: it names the kernel and the other rows it grew.
        groups = expected_groups(runs, 'by_line', 20, 0.0)
        assert any(also for _, also, _ in groups), 'the scaled run must grow a kernel of two lines'
        rc, _, err = runs.profile('--fail-over', '20', '--fail-min-share', '0', check_rc=1)
        for f, (label, also, kernels) in zip(findings_of(err), groups):
            got_label, got_also, got_kernels, _ = message_parts(f['message'])
            assert got_label == label and got_also == also[:5] + (['...'] if len(also) > 5
                                                                   else []), (f, also)
            assert got_kernels.split(' and ')[0].split(', ') == kernels[:3], (f, kernels)
        # Errors still exit 2: an unreadable base trace, a usage error.
        broken = os.path.join(tmp, 'broken.json')
        with open(broken, 'w') as f:
            f.write('{"traceEvents": [')
        rc, _, err = runs.profile('--fail-over', '20', base=broken, check_rc=2)
        assert 'broken.json:' in err, err
        run('profile', runs.new_trace, '--origins', runs.sidecar, '--fail-over', '5', check_rc=2)
        run('profile', runs.new_trace, '--origins', runs.sidecar, '--format', 'sarif',
            check_rc=2)
        runs.profile('--fail-over', '-3', check_rc=2)


def test_gate_findings_in_ci_formats():
    with TempDir() as tmp:
        runs = Runs(tmp)
        want = expected_findings(runs, 'by_line', 20)
        places = [(runs.new_trace, None) if w.startswith('[') else
                  (w.rsplit(':', 1)[0], int(w.rsplit(':', 1)[1])) for w in want]
        assert any(line is None for _, line in places) and any(line for _, line in places)

        _, out, _ = runs.profile('--fail-over', '20', '--format', 'sarif', check_rc=1)
        sarif = json.loads(out)
        assert sarif['version'] == '2.1.0'
        results = sarif['runs'][0]['results']
        got = [(r['locations'][0]['physicalLocation']['artifactLocation']['uri'],
                r['locations'][0]['physicalLocation'].get('region', {}).get('startLine'))
               for r in results]
        assert got == places, (got, places)
        assert all(r['ruleId'] == 'fail-over' and r['level'] == 'error' for r in results)

        _, out, _ = runs.profile('--fail-over', '20', '--format', 'github', check_rc=1)
        got = [(m.group(1), int(m.group(2)) if m.group(2) else None) for m in
               (re.match(r'^::error file=([^,]*)(?:,line=(\d+),col=1)?,title=sdscprov fail-over::'
                         r'device time grew by ', l) for l in out.splitlines()) if m]
        assert got == places and len(out.splitlines()) == len(places), out

        _, out, _ = runs.profile('--fail-over', '20', '--format', 'junit', check_rc=1)
        suite = ET.fromstring(out).find('testsuite')
        failures = [tc.find('failure') for tc in suite.findall('testcase')]
        assert int(suite.get('failures')) == len(want) == len([f for f in failures if f is not None])
        assert [tc.get('name') for tc in suite.findall('testcase')] == want

        # Identical runs: no finding in any format, exit 0.
        _, out, _ = runs.profile('--fail-over', '0', '--format', 'sarif', new=runs.base_trace,
                                 check_rc=0)
        assert json.loads(out)['runs'][0]['results'] == []
        _, out, _ = runs.profile('--fail-over', '0', '--format', 'github', new=runs.base_trace,
                                 check_rc=0)
        assert out == ''
        _, out, _ = runs.profile('--fail-over', '0', '--format', 'junit', new=runs.base_trace,
                                 check_rc=0)
        assert ET.fromstring(out).find('testsuite').get('failures') == '0'


# ---- per step -----------------------------------------------------------------------------------

class SteppedRuns(Runs):
    """Base and new runs with the profiler's step spans: 10 steps in base, 12 in new (each after
    one iteration outside any step)."""

    def __init__(self, tmp, base_steps=10, new_steps=12, base_scale=BASE_SCALE,
                 new_scale=NEW_SCALE):
        self.base_dir = os.path.join(tmp, 'base')
        self.new_dir = os.path.join(tmp, 'new')
        self.base_all = generate_all(self.base_dir, '--steps', str(base_steps), *base_scale)
        self.new_all = generate_all(self.new_dir, '--steps', str(new_steps), *new_scale)
        self.base = per_step_view(self.base_all)
        self.new = per_step_view(self.new_all)
        self.base_trace = os.path.join(self.base_dir, 'trace.json')
        self.new_trace = os.path.join(self.new_dir, 'trace.json')
        self.sidecar = os.path.join(self.base_dir, 'spyre_provenance.json')


def outside(expected):
    """The kernel events (and their time) of a run that start in no step."""
    whole = expected['sidecar']['coverage']
    in_steps = expected['steps']['sidecar']['coverage']
    return (whole['kernel_events'] - in_steps['kernel_events'],
            whole['kernel_ns'] - in_steps['kernel_ns'])


def test_per_step_exact_to_the_ns():
    with TempDir() as tmp:
        runs = SteppedRuns(tmp)
        _, out, err = runs.profile('--format', 'json', check_rc=0)
        report = json.loads(out)
        assert report['compared'] == 'steps'
        assert report['comparison'] == {'basis': 'steps', 'note': None, 'base_steps': 10,
                                        'new_steps': 12, 'checkouts': None}
        for name, run, expected in (('base', runs.base, runs.base_all),
                                    ('new', runs.new, runs.new_all)):
            got = report[name]
            assert got['steps'] == expected['steps']['spans']
            assert got['kernel_ns'] == expected['sidecar']['coverage']['kernel_ns']
            assert got['compared_ns'] == run['coverage']['kernel_ns']
            assert (got['outside_steps_events'], got['outside_steps_ns']) == outside(expected)
            assert got['outside_steps_events'] > 0  # the iteration before the first step
        check_tables(report, runs)
        assert 'error' not in err, err

        # Text says so; the folded stacks are per step too (integers, the same rounding).
        _, out, _ = runs.profile('--by', 'kernel', '--top', '0', check_rc=0)
        assert 'compared per step: 10 steps in base, 12 in new; times are per step' in out, out
        base_out, new_out = outside(runs.base_all), outside(runs.new_all)
        assert ('left out: kernel events that start in no step: %d of base (%.3f ms), %d of new'
                % (base_out[0], base_out[1] / 1e6, new_out[0])) in out, out
        _, out, _ = runs.profile('--format', 'folded', check_rc=0)
        got = {}
        for line in out.splitlines():
            stack, base_ns, new_ns = line.rsplit(' ', 2)
            got[stack] = (int(base_ns), int(new_ns))
        folded = [(e['steps']['sidecar']['folded'], e['steps']['spans'])
                  for e in (runs.base_all, runs.new_all)]
        want = {s: tuple(per_step(f.get(s, 0), n) for f, n in folded)
                for s in set(folded[0][0]) | set(folded[1][0])}
        assert got == want


def test_runs_of_different_lengths_compare_fairly():
    with TempDir() as tmp:
        # The same model, nothing slowed: 10 steps against 12. The totals grow by a fifth; per
        # step, the gate sees only what the durations' draws give.
        runs = SteppedRuns(tmp, 10, 12, [], [])
        _, out, _ = runs.profile('--format', 'json', check_rc=0)
        report = json.loads(out)
        total_growth = (100 * (report['new']['kernel_ns'] - report['base']['kernel_ns']) /
                        report['base']['kernel_ns'])
        assert total_growth > 15, total_growth
        assert abs(report['change_percent']) < 5, report['change_percent']
        want = expected_findings(runs, 'by_line', 10)
        rc, _, err = runs.profile('--fail-over', '10', check_rc=1 if want else 0)
        assert places_of(findings_of(err)) == [place(runs, w) for w in want], err
        # By the totals every sizeable line would have grown past 10 %.
        whole = expected_rows(runs.base_all['sidecar'], runs.new_all['sidecar'], 'by_line')
        assert len([r for r in whole if r['change_ns'] > 0]) > len(want)


def test_totals_when_a_trace_has_no_steps():
    with TempDir() as tmp:
        stepped = SteppedRuns(tmp)
        plain = os.path.join(tmp, 'plain')
        generate(plain, *BASE_SCALE)
        plain_trace = os.path.join(plain, 'trace.json')
        for base, new, note in ((plain_trace, stepped.new_trace, 'no step spans in the base trace'),
                                (stepped.base_trace, plain_trace, 'no step spans in the new trace')):
            _, out, _ = stepped.profile('--format', 'json', base=base, new=new, check_rc=0)
            report = json.loads(out)
            assert report['comparison']['basis'] == 'totals'
            assert report['comparison']['note'] == note
            assert report['base']['compared_ns'] == report['base']['kernel_ns']
            _, out, _ = stepped.profile(base=base, new=new, check_rc=0)
            assert 'compared totals (%s)' % note in out, out
        # Step spans on another clock than the kernels: no kernel starts in one, totals.
        with open(stepped.new_trace) as f:
            text = f.read()
        shifted = re.sub(r'("name": "ProfilerStep#\d+", "pid": \d+, "tid": \d+, "ts": )(\d+)',
                         lambda m: m.group(1) + str(int(m.group(2)) - 10**12), text)
        assert shifted != text
        other_clock = os.path.join(tmp, 'other_clock.json')
        with open(other_clock, 'w') as f:
            f.write(shifted)
        _, out, _ = stepped.profile('--format', 'json', new=other_clock, check_rc=0)
        report = json.loads(out)
        assert report['comparison']['note'] == ('no kernel event of the new trace starts in one '
                                                'of its step spans'), report['comparison']
        assert report['new']['steps'] == 12


# ---- the base run's own caches and sidecars -----------------------------------------------------

def test_base_run_with_its_own_caches_and_sidecars():
    with TempDir() as tmp:
        # Two compiles into two caches (another seed: other kernels and handles), a run of each.
        base_dir, new_dir = os.path.join(tmp, 'base'), os.path.join(tmp, 'new')
        base = generate_all(base_dir, '--seed', '1')
        new = generate_all(new_dir, '--seed', '2')
        base_trace = os.path.join(base_dir, 'trace.json')
        new_trace = os.path.join(new_dir, 'trace.json')
        base_cache, new_cache = os.path.join(base_dir, 'cache'), os.path.join(new_dir, 'cache')
        base_sidecar = os.path.join(base_dir, 'spyre_provenance.json')
        new_sidecar = os.path.join(new_dir, 'spyre_provenance.json')

        def compared(*args):
            _, out, _ = run('profile', '--baseline', base_trace, new_trace, '--format', 'json',
                            *args, check_rc=0)
            return json.loads(out)

        for pairing, args in (('caches', [new_cache, '--baseline-cache', base_cache]),
                              ('sidecar', ['--origins', new_sidecar, '--baseline-origins',
                                           base_sidecar])):
            report = compared(*args)
            assert report['base']['resolved_ns'] == base[pairing]['coverage']['resolved_ns'] > 0
            assert report['new']['resolved_ns'] == new[pairing]['coverage']['resolved_ns'] > 0
            for table in TABLES:
                want = expected_rows(base[pairing], new[pairing], table)
                assert [comparable(r) for r in report[table]] == want, (pairing, table)
            # Without them the base run pairs with the new run's: its kernels are not there.
            shared = compared(*args[:-2])
            assert shared['base']['resolved_ns'] < report['base']['resolved_ns'], pairing
        # --baseline-cache given twice: both are the base run's caches.
        half = os.path.join(tmp, 'empty')
        os.mkdir(half)
        report = compared(new_cache, '--baseline-cache', half, '--baseline-cache', base_cache)
        assert report['base']['resolved_ns'] == base['caches']['coverage']['resolved_ns']

        # Bad input: not a directory, missing, or without --baseline: exit 2, the path named.
        for bad, what in ((base_trace, 'is not a directory'), (os.path.join(tmp, 'nope'),
                                                                 'cannot be accessed')):
            _, out, err = run('profile', '--baseline', base_trace, new_trace, new_cache,
                              '--baseline-cache', bad, check_rc=2)
            assert out == '' and bad + ': error: --baseline-cache ' + what in err, err
        _, _, err = run('profile', new_trace, new_cache, '--baseline-cache', base_cache,
                        check_rc=2)
        assert '--baseline-cache needs --baseline BASE_TRACE' in err, err


# ---- moved lines --------------------------------------------------------------------------------

def sources_of(value, out):
    """Every handle source object in a sidecar's JSON value."""
    if isinstance(value, dict):
        if 'file' in value and 'start_line' in value:
            out.append(value)
        for v in value.values():
            sources_of(v, out)
    elif isinstance(value, list):
        for v in value:
            sources_of(v, out)
    return out


def test_moved_lines_matched_by_file_and_text():
    with TempDir() as tmp:
        # One run of the model, compiled from two checkouts of its source: the new one with two
        # lines inserted above every line of half the files (those lines move down by two).
        gen = os.path.join(tmp, 'gen')
        expected = generate(gen)
        trace = os.path.join(gen, 'trace.json')
        with open(os.path.join(gen, 'spyre_provenance.json')) as f:
            sidecar = json.load(f)
        lines = {}
        for src in sources_of(sidecar['handles'], []):
            lines.setdefault(src['file'], set()).add(src['start_line'])
        files = sorted(lines)
        shifted = set(files[::2])
        base_root, new_root = os.path.join(tmp, 'base-src'), os.path.join(tmp, 'new-src')
        for path in files:
            text = ['v%d = layer(%r, %d)\n' % (i, path, i) for i in range(1, max(lines[path]) + 3)]
            new_text = (['# inserted\n', 'import torch\n'] if path in shifted else []) + text
            for root, body in ((base_root, text), (new_root, new_text)):
                os.makedirs(os.path.dirname(root + path), exist_ok=True)
                with open(root + path, 'w') as f:
                    f.writelines(body)
        for root, name in ((base_root, 'base.json'), (new_root, 'new.json')):
            doc = json.loads(json.dumps(sidecar))
            for src in sources_of(doc['handles'], []):
                if root == new_root and src['file'] in shifted:
                    src['start_line'] += 2
                src['file'] = root + src['file']
            with open(os.path.join(tmp, name), 'w') as f:
                json.dump(doc, f)
        # The base checkout's copy of one file is gone: its lines' text is unreadable there.
        unreadable = files[1]
        os.remove(base_root + unreadable)

        def new_line(path, line):
            return line + 2 if path in shifted else line

        _, out, err = run('profile', '--baseline', trace, trace, '--format', 'json',
                          '--origins', os.path.join(tmp, 'new.json'),
                          '--baseline-origins', os.path.join(tmp, 'base.json'), check_rc=0)
        rows = {r['label']: r for r in json.loads(out)['by_line']}
        moved = 0
        for label, (ns, events) in expected['by_line'].items():
            if label.startswith('['):
                r = rows.pop(label)
                assert (r['status'], r['base_ns'], r['new_ns']) == ('same', ns, ns), r
                continue
            path, line = label.rsplit(':', 1)
            line = int(line)
            new_label = '%s%s:%d' % (new_root, path, new_line(path, line))
            r = rows.pop(new_label)
            if path == unreadable:
                assert r['status'] == 'new' and r['moved_from'] is None, r
                gone = rows.pop('%s%s:%d' % (base_root, path, line))
                assert gone['status'] == 'gone' and gone['base_ns'] == ns, gone
                continue
            assert r['moved_from'] == {'file': base_root + path, 'line': line}, r
            assert (r['status'], r['base_ns'], r['new_ns']) == ('same', ns, ns), r
            assert r['text'] == 'v%d = layer(%r, %d)' % (line, path, line)
            moved += 1
        assert rows == {}, list(rows)[:3]
        assert moved >= 4
        # Two checkouts: each path from its run's checkout, the arrow only where a line moved.
        report = json.loads(out)
        assert report['comparison']['checkouts'] == {'base': base_root + '/',
                                                     'new': new_root + '/'}, report['comparison']
        _, out, _ = run('profile', '--baseline', trace, trace, '--by', 'line', '--top', '0',
                        '--origins', os.path.join(tmp, 'new.json'),
                        '--baseline-origins', os.path.join(tmp, 'base.json'), check_rc=0)
        assert ('  two checkouts: source paths from base %s/ and new %s/\n'
                % (base_root, new_root)) in out, out[:1500]
        labels_shown = {}
        for row_line in out.splitlines():   # the label after the 44 columns of figures
            if row_line[:10].strip().replace('.', '').replace('-', '').isdigit() or \
                    row_line[:10].strip() == '-':
                labels_shown[row_line[44:]] = row_line
        checked = {'moved': 0, 'same': 0}
        for label in expected['by_line']:
            if label.startswith('['):
                continue
            path, line = label.rsplit(':', 1)
            line, rel = int(line), path.lstrip('/')
            if path == unreadable:   # not matched: new under the new checkout, gone under the base
                assert '%s:%d' % (rel, new_line(path, line)) in labels_shown, rel
                assert '%s:%d' % (rel, line) in labels_shown, rel
            elif path in shifted:
                assert '%s:%d -> %d' % (rel, line, line + 2) in labels_shown, (rel, line)
                checked['moved'] += 1
            else:
                assert '%s:%d' % (rel, line) in labels_shown, (rel, line)
                checked['same'] += 1
        assert checked['moved'] >= 2 and checked['same'] >= 2, checked
        assert not any(' -> ' in x and '/' in x.split(' -> ')[1] for x in labels_shown), \
            [x for x in labels_shown if ' -> ' in x][:3]
        # Each line's text under its row, as in the single run's tables.
        path = files[2] if files[2] in shifted else files[0]
        line = min(lines[path])
        row_text = '%s:%d -> %d' % (path.lstrip('/'), line, line + 2)
        following = out.split(labels_shown[row_text] + '\n', 1)[1].split('\n', 1)[0]
        assert following.strip() == 'v%d = layer(%r, %d)' % (line, path, line), following
        # The page: the moved row's label as the text shows it.
        _, page, _ = run('profile', '--baseline', trace, trace, '--format', 'html',
                         '--origins', os.path.join(tmp, 'new.json'),
                         '--baseline-origins', os.path.join(tmp, 'base.json'), check_rc=0)
        model = json.loads(page.split('<script type="application/json" id="sdscprov-data">')[1]
                           .split('</script>')[0])
        labels = [r[0] for t in model['rankings'] if t['id'] == 'line' for r in t['rows']]
        assert row_text in labels, labels[:5]
        # One checkout (the same files in both runs): whole paths, as before.
        _, out, _ = run('profile', '--baseline', trace, trace, '--format', 'json',
                        '--origins', os.path.join(tmp, 'new.json'), check_rc=0)
        assert json.loads(out)['comparison']['checkouts'] is None

if __name__ == '__main__':
    main([
        test_every_row_exact_to_the_ns,
        test_new_and_gone_rows_in_text,
        test_text_honours_color_and_the_terminal_width,
        test_difffolded_two_columns,
        test_gate_exit_statuses,
        test_gate_findings_in_ci_formats,
        test_per_step_exact_to_the_ns,
        test_runs_of_different_lengths_compare_fairly,
        test_totals_when_a_trace_has_no_steps,
        test_base_run_with_its_own_caches_and_sidecars,
        test_moved_lines_matched_by_file_and_text,
    ])
