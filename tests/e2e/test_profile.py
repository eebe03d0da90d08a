"""End-to-end tests of `sdscprov profile`: the real binary on generated and hand-built traces.

Expectations are never sdscprov's own output: generated traces come with the totals
scripts/gen_trace.py computed while writing them, and the hand-built ones spell their sums out.
"""
import decimal
import gzip
import json
import os
import pty
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import BIN, SCRIPTS, SKIP, TESTDATA, TempDir, copy_tree, main, run, sanitized  # noqa: E402

sys.path.insert(0, SCRIPTS)
import gen_trace  # noqa: E402

LINE = re.compile(r'^(?P<path>[^\n]*?):(?P<line>\d+):(?P<col>\d+): (?P<severity>error|warning|note): '
                  r'(?P<message>.*) \[(?P<code>[a-z-]+)\]$')


def generate(out, *args):
    subprocess.run([sys.executable, os.path.join(SCRIPTS, 'gen_trace.py'), out, *args], check=True,
                   capture_output=True, timeout=600)
    with open(os.path.join(out, 'expected.json')) as f:
        return json.load(f)


def diagnostics(stderr):
    """The path:line:col lines of stderr, as dicts."""
    return [m.groupdict() for m in map(LINE.match, stderr.splitlines()) if m]


def rows(report, table):
    return {r['label']: [r['device_ns'], r['events']] for r in report[table]}


def parse_folded(text):
    stacks = {}
    for line in text.splitlines():
        stack, value = line.rsplit(' ', 1)
        assert stack.count(';') == 2, line
        assert value.isdigit() and int(value) > 0, line
        assert stack not in stacks, 'stack printed twice: ' + line
        stacks[stack] = int(value)
    assert text.splitlines() == sorted(text.splitlines(), key=lambda s: s.encode()), \
        'folded lines are not sorted by their bytes'
    return stacks


def check_against(expected, report, folded):
    coverage = {k: report['coverage'][k] for k in expected['coverage']}
    assert coverage == expected['coverage'], (coverage, expected['coverage'])
    for table in ('by_line', 'by_aten', 'by_kernel'):
        assert rows(report, table) == expected[table], table
    stages = {k: [v['ticks'], v['events']] for k, v in report['stages'].items()}
    assert stages == expected['stages'], (stages, expected['stages'])
    assert parse_folded(folded) == expected['folded']
    # Every kernel event is in exactly one bundle, and every bundle in the kernel table once.
    assert sum(b['events'] for b in report['bundles']) == report['coverage']['kernel_events']
    assert sum(r[1] for r in rows(report, 'by_kernel').values()) == \
        report['coverage']['kernel_events']


def profile_both(trace, *args):
    rc, out, err = run('profile', trace, *args, '--format', 'json', check_rc=0)
    rc, folded, _ = run('profile', trace, *args, '--format', 'folded', check_rc=0)
    return json.loads(out), folded, err


# ---- generated traces ---------------------------------------------------------------------------

def test_generated_trace_sidecar_path():
    with TempDir() as tmp:
        expected = generate(tmp)
        report, folded, err = profile_both(os.path.join(tmp, 'trace.json'), '--origins',
                                           os.path.join(tmp, 'spyre_provenance.json'))
        check_against(expected['sidecar'], report, folded)
        assert report['coverage']['resolved_events'] == report['coverage']['kernel_events']
        assert report['trace']['events'] == expected['trace_events']
        assert diagnostics(err) == [], err


def test_generated_trace_cache_only_path():
    with TempDir() as tmp:
        expected = generate(tmp, '--seed', '2')
        report, folded, err = profile_both(os.path.join(tmp, 'trace.json'),
                                           os.path.join(tmp, 'cache'))
        check_against(expected['caches'], report, folded)
        # Some bundles' events carry no debug_handles: without a sidecar they stay unpaired.
        assert 0 < report['coverage']['resolved_events'] < report['coverage']['kernel_events']
        assert {d['code'] for d in diagnostics(err)} == {'no-handles'}, err
        paired = [b for b in report['bundles'] if b['paired_by'] == 'caches' and b['handles']]
        assert paired and all(b['kernel_dirs'] for b in paired)


def test_generated_trace_sidecar_and_caches_agree():
    with TempDir() as tmp:
        expected = generate(tmp, '--seed', '3')
        report, folded, err = profile_both(os.path.join(tmp, 'trace.json'),
                                           os.path.join(tmp, 'cache'), '--origins',
                                           os.path.join(tmp, 'spyre_provenance.json'))
        check_against(expected['both'], report, folded)
        assert diagnostics(err) == [], err
        # The sidecar names each kernel; the caches say which directory holds its handles.
        with_handles = [b for b in report['bundles'] if b['handles']]
        assert with_handles and all(len(b['kernel_dirs']) == 1 for b in with_handles)


def test_gzip_trace():
    with TempDir() as tmp:
        expected = generate(tmp, '--gzip', '--seed', '4')
        trace = os.path.join(tmp, 'trace.json.gz')
        with open(trace, 'rb') as f:
            assert f.read(2) == b'\x1f\x8b'
        report, folded, _ = profile_both(trace, '--origins',
                                         os.path.join(tmp, 'spyre_provenance.json'))
        assert report['trace']['gzip'] is True
        check_against(expected['sidecar'], report, folded)
        # The same bytes under a name that does not say gzip: told from the bytes.
        renamed = os.path.join(tmp, 'trace-without-suffix')
        shutil.copy(trace, renamed)
        again, folded_again, _ = profile_both(renamed, '--origins',
                                              os.path.join(tmp, 'spyre_provenance.json'))
        assert folded_again == folded and again['coverage'] == report['coverage']


def test_output_is_deterministic():
    with TempDir() as tmp:
        generate(tmp, '--seed', '5')
        trace, cache = os.path.join(tmp, 'trace.json'), os.path.join(tmp, 'cache')
        sidecar = os.path.join(tmp, 'spyre_provenance.json')
        outputs = set()
        for jobs in ('1', '2', '1'):
            for fmt in ('json', 'folded', 'text'):
                _, out, _ = run('profile', trace, cache, '--origins', sidecar, '-j', jobs,
                                '--format', fmt, '--color', 'never', check_rc=0)
                outputs.add((fmt, out))
        assert len(outputs) == 3, 'the output differs between runs'


def run_on_terminal(*args, env=None):
    """(status, standard output) of sdscprov with its standard output on a pseudo-terminal."""
    master, slave = pty.openpty()
    full_env = dict(os.environ, **(env or {}))
    p = subprocess.Popen([BIN, *args], stdout=slave, stderr=subprocess.DEVNULL, env=full_env)
    os.close(slave)
    out = b''
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:     # EIO: the other end is closed
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    return p.wait(timeout=300), out.decode().replace('\r\n', '\n')


def test_text_report_fits_and_ranks():
    with TempDir() as tmp:
        expected = generate(tmp, '--seed', '6')
        trace, sidecar = os.path.join(tmp, 'trace.json'), os.path.join(tmp, 'spyre_provenance.json')
        # On a terminal the table fits its width.
        rc, on_tty = run_on_terminal('profile', trace, '--origins', sidecar, '--color', 'never',
                                     env={'COLUMNS': '100'})
        assert rc == 0, on_tty
        lines = on_tty.splitlines()
        assert all(len(line) <= 100 for line in lines), max(lines, key=len)
        assert '\u2026' in on_tty, 'nothing was shortened: the test shows nothing'
        # Piped, nothing is shortened: every kernel row is its whole label.
        _, out, _ = run('profile', trace, '--origins', sidecar, '--top', '0', check_rc=0,
                        env={'COLUMNS': '100'})
        assert '\u2026' not in out
        shown = re.findall(r'^ +[\d,]+\.\d{3} +[\d.]+ +[\d,]+  (\S+)$',
                           out.split('Kernels by device time')[1], re.M)
        assert sorted(shown) == sorted(expected['sidecar']['by_kernel']), shown
        assert re.search(r'^paired: [\d,]+ events \(100\.0%\), [\d,]+\.\d{3} ms \(100\.0%\)$', out,
                         re.M), out
        for title in ('Source lines by device time', 'ATen ops by device time',
                      'Kernels by device time'):
            assert title in out
        # The rows of a table are ranked by time, largest first.
        times = [float(m.group(1).replace(',', ''))
                 for m in re.finditer(r'^ +([\d,]+\.\d{3}) +[\d.]+ ', out.split(
                     'ATen ops by device time')[1].split('Kernels by')[0], re.M)]
        assert times and times == sorted(times, reverse=True)
        _, top, _ = run('profile', trace, '--origins', sidecar, '--top', '2', '--by', 'kernel',
                        check_rc=0)
        assert 'Source lines' not in top and 'Kernels by device time' in top
        kernel_rows = [l for l in top.splitlines() if re.match(r'^ +[\d,]+\.\d{3} ', l)]
        assert len(kernel_rows) == 2, top
        assert re.search(r'more kernels: [\d,]+\.\d{3} ms; --top 0 shows all', top), top
        _, stages, _ = run('profile', trace, '--origins', sidecar, '--stages', check_rc=0)
        assert re.search(r'time \(ms\) +% +events +DMI +PREP +CMPT +DMO', stages), stages
        assert 'stages (counter ticks, not seconds):\n  DMI ' in stages


def test_one_row_per_compiled_bundle():
    """Two compiles in one cache that both name a kernel are two rows, each with its own time; a
    bundle whose directory the cache kept twice is one row listing both; explain takes every
    row's label."""
    with TempDir() as tmp:
        expected = generate(tmp, '--copies', '1')
        trace, cache = os.path.join(tmp, 'trace.json'), os.path.join(tmp, 'cache')
        sidecar = os.path.join(tmp, 'spyre_provenance.json')
        for pairing, args in (('caches', [cache]), ('both', [cache, '--origins', sidecar])):
            want = expected[pairing]
            report, folded, _ = profile_both(trace, *args)
            check_against(want, report, folded)
            by_label = {r['label']: r for r in report['by_kernel']}
            # The generator's cache has kernel names of several compiles.
            names = {}
            for label, row in want['kernel_rows'].items():
                names.setdefault(row['kernel'], []).append(label)
            shared = {n: labels for n, labels in names.items() if len(labels) > 1}
            # (Without the sidecar, the events of some bundles carry no handles: unpaired.)
            assert shared or pairing == 'caches', 'no kernel name of two compiles was generated'
            for name, labels in shared.items():
                for label in labels:
                    row = by_label[label]
                    assert [row['device_ns'], row['events']] == want['by_kernel'][label], label
                    assert len(row['bundles']) == 1
                    assert row['kernels'] == name.split('+'), (row, name)
                    assert sorted(os.path.relpath(d, cache) for d in row['kernel_dirs']) == \
                        want['kernel_rows'][label]['dirs']
            # The copied directory: one bundle, one row, both directories.
            (original, (copy,)), = expected['copies'].items()
            twice = [label for label, row in want['kernel_rows'].items()
                     if row['dirs'] == sorted([original, copy])]
            assert len(twice) == 1, twice
            row = by_label[twice[0]]
            assert twice[0] == row['kernels'][0] + '@' + row['key']
            # The text report: the same labels, whole (piped), and the copy's two directories
            # below its row.
            _, text, _ = run('profile', trace, *args, '--by', 'kernel', '--top', '0')
            shown = re.findall(r'^ +[\d,]+\.\d{3} +[\d.]+ +[\d,]+  (\S+)$', text, re.M)
            assert sorted(shown) == sorted(want['by_kernel']), shown
            after = text.split('  ' + twice[0] + '\n', 1)[1].splitlines()
            assert [line.strip() for line in after[:2]] == \
                [os.path.join(cache, d) for d in sorted([original, copy])], after[:3]

        # explain takes each row's label: exactly that row's directories.
        want = expected['both']['kernel_rows']
        for label, row in want.items():
            if not row['dirs']:
                continue
            extra = ['--origins', sidecar] if len(row['dirs']) > 1 else []
            rc, out, err = run('explain', label, cache, *extra, '--format', 'json', check_rc=0)
            dirs = sorted(os.path.relpath(k['dir'], cache) for k in json.loads(out)['kernels'])
            assert dirs == row['dirs'], (label, dirs, row['dirs'])
        # A kernel name of several compiles: each directory is shown, and how to name one.
        name = max(names, key=lambda n: (len(names[n]), n))
        rc, out, err = run('explain', name, cache, '--format', 'json', check_rc=0)
        shown = len(json.loads(out)['kernels'])
        assert shown > 1
        assert ("sdscprov explain: %d kernel directories are named '%s' (a cache keeps every "
                "compile): each is shown; KERNEL@DIRECTORY-NAME" % (shown, name)) in err, err
        # Without the sidecar, a KERNEL@KEY of several directories says which they are.
        (label, row), = [(l, r) for l, r in want.items() if len(r['dirs']) > 1]
        rc, out, err = run('explain', label, cache, check_rc=2)
        assert 'is a provenance key: only torch-spyre\'s spyre_provenance.json (--origins)' in err
        assert all(os.path.join(cache, d) in err for d in row['dirs']), err


def test_no_device_kernel_event_and_dirless_bundles_are_said():
    with TempDir() as tmp:
        events = [{'ph': 'X', 'cat': 'cpu_op', 'name': 'aten::mm', 'pid': 1, 'tid': 1, 'ts': i,
                   'dur': 1} for i in range(45)]
        path = os.path.join(tmp, 'cpu.json')
        with open(path, 'w') as f:
            json.dump({'traceEvents': events}, f)
        os.makedirs(os.path.join(tmp, 'cache'))
        _, out, _ = run('profile', path, os.path.join(tmp, 'cache'), check_rc=0)
        assert 'kernel events: 0 of 45 trace events' in out, out
        assert 'no device kernel event found in the trace: torch-spyre writes them when the ' \
            'profiler records ProfilerActivity.PrivateUse1' in out, out

        expected = generate(os.path.join(tmp, 'g'))
        trace = os.path.join(tmp, 'g', 'trace.json')
        sidecar = os.path.join(tmp, 'g', 'spyre_provenance.json')
        cache = os.path.join(tmp, 'g', 'cache')

        def said(c, where):
            return '  in no kernel directory %s: %s of %s paired bundles, %s events, %s ms' % (
                where, c['dirless_bundles'], c['paired_bundles'], c['dirless_events'],
                '%.3f' % (((c['dirless_ns'] + 500) // 1000) / 1000))

        _, out, _ = run('profile', trace, '--origins', sidecar, check_rc=0)
        c = expected['sidecar']['coverage']
        assert c['dirless_bundles'] == c['paired_bundles'] > 0
        assert said(c, '(no cache read)') in out, out
        _, out, _ = run('profile', trace, cache, '--origins', sidecar, check_rc=0)
        c = expected['both']['coverage']
        assert 0 < c['dirless_bundles'] < c['paired_bundles']
        assert said(c, 'of the caches') in out, out


def ns_of(dur):
    """Integer nanoseconds of a JSON number of microseconds, rounded half away from zero."""
    return int((decimal.Decimal(dur) * 1000).quantize(decimal.Decimal(1), decimal.ROUND_HALF_UP))


def test_demo_trace_is_the_generators_and_pairs_with_the_annotated_demo():
    """testdata/demo/trace.json: what gen_trace.py --demo writes for the demo cache once annotated
    (as the README's tour does), every kernel event paired, one row per kernel directory."""
    demo = os.path.join(TESTDATA, 'demo')
    with TempDir() as tmp:
        cache = os.path.join(tmp, 'demo')
        copy_tree(demo, cache)
        os.unlink(os.path.join(cache, 'trace.json'))
        run('annotate', '--origins', os.path.join(cache, 'origins.json'), cache, check_rc=0)
        out = os.path.join(tmp, 'out')
        subprocess.run([sys.executable, os.path.join(SCRIPTS, 'gen_trace.py'), out, '--demo', cache],
                       check=True, capture_output=True, timeout=60)
        with open(os.path.join(out, 'trace.json'), 'rb') as f, \
                open(os.path.join(demo, 'trace.json'), 'rb') as committed:
            assert f.read() == committed.read(), \
                'testdata/demo/trace.json is not what scripts/gen_trace.py --demo makes'
        # The trace's own sums, per kernel event name's key.
        with open(os.path.join(demo, 'trace.json')) as f:
            events = json.load(f, parse_float=str, parse_int=str)['traceEvents']
        per_key, durations = {}, {}
        for e in events:
            if e.get('ph') == 'X' and e['name'].startswith('spyre_kernel_v1_'):
                key = e['name'].split('#')[0][-16:]
                row = per_key.setdefault(key, [0, 0])
                row[0] += ns_of(e['dur'])
                row[1] += 1
                durations.setdefault(key, []).append(ns_of(e['dur']))
        assert len(per_key) == 2, per_key
        rc, text, err = run('profile', os.path.join(demo, 'trace.json'), cache, '--format', 'json',
                            check_rc=0)
        report = json.loads(text)
        # The demo's perf/ideal_cycles.json (the sum of its ops' cycles at 1100 MHz): the only
        # words on standard error are the events that ran faster than that ideal, per kernel.
        ideal = {}
        for b in report['bundles']:
            with open(os.path.join(b['kernel_dirs'][0], 'perf', 'ideal_cycles.json')) as f:
                cycles = sum(entry['ideal_cycles'] for entry in json.load(f))
            ideal[b['key']] = (2000 * cycles + 1100) // 2200
        over = {key: sum(1 for d in durations[key] if d < ideal[key]) for key in durations}
        assert all(over.values()), over  # the demo shows the warning
        lines = err.splitlines()
        assert len(lines) == len(over), err
        for key, count in over.items():
            assert any(f'the ideal of {ideal[key]} ns' in line and
                       line.endswith(f'({count} events) [util-over-100]') for line in lines), \
                (key, count, err)
        utilization = report['ideal']['utilization']
        assert utilization['ideal_ns'] == sum(ideal[k] * per_key[k][1] for k in per_key)
        assert utilization['over_100_events'] == sum(over.values())
        c = report['coverage']
        assert c['resolved_events'] == c['kernel_events'] == sum(v[1] for v in per_key.values())
        got = {b['key']: [b['device_ns'], b['events']] for b in report['bundles']}
        assert got == per_key, (got, per_key)
        dirs = sorted(os.listdir(os.path.join(cache, 'inductor-spyre')))
        labels = {r['label'] for r in report['by_kernel']}
        # KERNEL@DIRECTORY-NAME: a directory's name is its kernel's and an 8-character suffix.
        assert labels == {d[:-9] + '@' + d for d in dirs}, labels


# ---- hand-built traces --------------------------------------------------------------------------

def handle(hid, file, line, aten, chain, fused=()):
    return {'id': hid, 'source': None if file is None else {
        'file': file, 'start_line': line, 'start_col': 0, 'end_line': None, 'end_col': None},
        'aten_op': aten, 'ir_chain': chain, 'fused_from': list(fused), 'transform_history': []}


def write_kernel(cache, dirname, handles):
    kdir = os.path.join(cache, 'inductor-spyre', dirname)
    os.makedirs(kdir)
    for i, h in enumerate(handles):
        doc = {'%d_add' % i: {'debug_handle_': h, 'sdscFoldProps_': [], 'numCoresUsed_': 1}}
        with open(os.path.join(kdir, 'sdsc_%d.json' % i), 'w') as f:
            json.dump(doc, f, indent=2)
    return kdir


def kernel_event(name, dur, **args):
    e = {'ph': 'X', 'cat': 'kernel', 'name': name, 'pid': 1, 'tid': 0, 'ts': 1.0}
    if dur is not None:
        e['dur'] = dur
    if args:
        e['args'] = args
    return e


class Scene:
    """A small model source file, a cache of two kernels and its sidecar:
    kernel A (key aaaa...) fuses lines 2 and 3 (ops add, relu); kernel B (key bbbb...) is line 3
    (op mul)."""
    KEY_A, KEY_B = 'a' * 16, 'b' * 15 + '2'

    def __init__(self, tmp):
        self.tmp = tmp
        self.model = os.path.join(tmp, 'model.py')
        with open(self.model, 'w') as f:
            f.write('import torch\n    y = x + 1   # line 2\n    return torch.relu(y) * 2\n')
        add = handle('101', self.model, 2, 'aten.add.Tensor', ['add'])
        relu = handle('102', self.model, 3, 'aten.relu.default', ['relu'])
        self.fused = handle('200', None, 0, None, ['add', 'relu', 'buf0'], [add, relu])
        self.mul = handle('300', self.model, 3, 'aten.mul.Tensor', ['mul', 'buf1'])
        self.cache = os.path.join(tmp, 'cache')
        self.dir_a = write_kernel(self.cache, 'sdsc_fused_add_relu_0_aaaaaaaa', [self.fused])
        self.dir_b = write_kernel(self.cache, 'sdsc_fused_mul_1_bbbbbbbb', [self.mul])
        self.base_a = 'spyre_kernel_v1_fused_add_relu_' + self.KEY_A
        self.base_b = 'spyre_kernel_v1_fused_mul_' + self.KEY_B
        bundles = [
            {'handles': [self.fused], 'ids': ['200'], 'key': self.KEY_A, 'base': self.base_a,
             'ops': ['aten.add.Tensor', 'aten.relu.default'], 'kernel': 'sdsc_fused_add_relu_0'},
            {'handles': [self.mul], 'ids': ['300'], 'key': self.KEY_B, 'base': self.base_b,
             'ops': ['aten.mul.Tensor'], 'kernel': 'sdsc_fused_mul_1'}]
        self.sidecar = os.path.join(tmp, 'spyre_provenance.json')
        with open(self.sidecar, 'w') as f:
            f.write(json.dumps(gen_trace.sidecar(bundles), indent=2, sort_keys=True) + '\n')

    def trace(self, events, name='trace.json', text=None):
        path = os.path.join(self.tmp, name)
        with open(path, 'w') as f:
            f.write(text if text is not None else
                    '{"traceEvents": [\n' + ',\n'.join(json.dumps(e) for e in events) +
                    '\n], "displayTimeUnit": "ms"}\n')
        return path


def test_hand_built_sums_by_line_op_and_kernel():
    with TempDir() as tmp:
        s = Scene(tmp)
        trace = s.trace([
            kernel_event(s.base_a + '#3', 10.5, provenance_key=s.KEY_A, debug_handles=['200'],
                         cycles_ts=[4294967000, 4294967196, 100, 400, 500]),
            kernel_event(s.base_a + '#7', 1.0005),                 # 1000.5 ns -> 1001
            kernel_event(s.base_b + '#1', 2, debug_handles=['300']),
            kernel_event(s.base_b + '#2', '2.0004e0'),             # a string: not counted
            {'ph': 'X', 'name': 'aten::add', 'pid': 2, 'tid': 2, 'ts': 0, 'dur': 99},
            {'ph': 'X', 'name': 'PyTorch Profiler (0)', 'pid': 'Spans', 'tid': 'PyTorch Profiler',
             'ts': 0, 'dur': 1e6}])
        for args in (['--origins', s.sidecar], [s.cache], [s.cache, '--origins', s.sidecar]):
            rc, out, err = run('profile', trace, *args, '--format', 'json', check_rc=2)
            report = json.loads(out)
            # A: 10500 + 1001 ns; B: 2000 ns (its second event has a string dur).
            a, b = 11501, 2000
            sidecar = '--origins' in args
            if sidecar:
                assert rows(report, 'by_line') == {
                    s.model + ':2': [a, 2], s.model + ":3": [a + b, 4]}
                assert rows(report, 'by_aten') == {'aten.add.Tensor': [a, 2],
                                                   'aten.relu.default': [a, 2],
                                                   'aten.mul.Tensor': [b, 2]}
                # One row per bundle: in its directory when a cache was read, else by its key.
                if s.cache in args:
                    assert rows(report, 'by_kernel') == {
                        'sdsc_fused_add_relu_0@sdsc_fused_add_relu_0_aaaaaaaa': [a, 2],
                        'sdsc_fused_mul_1@sdsc_fused_mul_1_bbbbbbbb': [b, 2]}
                else:
                    assert rows(report, 'by_kernel') == {
                        'sdsc_fused_add_relu_0@' + s.KEY_A: [a, 2],
                        'sdsc_fused_mul_1@' + s.KEY_B: [b, 2]}
                dirless = [0, 0, 0] if s.cache in args else [2, 4, a + b]
                assert report['coverage'] == {'kernel_events': 4, 'resolved_events': 4,
                                              'kernel_ns': a + b, 'resolved_ns': a + b,
                                              'unmeasured_events': 1,
                                              'counters_failed_events': 0,
                                              'paired_bundles': 2,
                                              'dirless_bundles': dirless[0],
                                              'dirless_events': dirless[1],
                                              'dirless_ns': dirless[2]}
            else:
                # Without a sidecar only the events with debug_handles pair.
                assert rows(report, 'by_line') == {s.model + ':2': [10500, 1],
                                                   s.model + ':3': [12500, 2],
                                                   '[unresolved]': [1001, 2]}
                assert rows(report, 'by_kernel') == {
                    'sdsc_fused_add_relu_0@sdsc_fused_add_relu_0_aaaaaaaa': [10500, 1],
                    'sdsc_fused_mul_1@sdsc_fused_mul_1_bbbbbbbb': [2000, 1],
                    s.base_a: [1001, 1], s.base_b: [0, 1]}
            # The wrapped counters: DMI = 196, PREP = 100 - 4294967196 mod 2^32 = 200, ...
            assert report['stages']['DMI'] == {'ticks': 196, 'events': 1}
            assert report['stages']['PREP'] == {'ticks': 200, 'events': 1}
            assert report['stages']['CMPT'] == {'ticks': 300, 'events': 1}
            assert report['stages']['DMO'] == {'ticks': 100, 'events': 1}
            lines = {r['label']: r for r in report['by_line']}
            assert lines[s.model + ':3']['text'] == '    return torch.relu(y) * 2'
            bad = [d for d in diagnostics(err) if d['code'] == 'bad-duration']
            assert bad and bad[0]['line'] == '5' and bad[0]['severity'] == 'error', err
        rc, folded, _ = run('profile', trace, '--origins', s.sidecar, '--format', 'folded',
                            check_rc=2)
        assert folded == (
            '%s:2+%s:3;aten.add.Tensor+aten.relu.default;sdsc_fused_add_relu_0@%s 11501\n'
            '%s:3;aten.mul.Tensor;sdsc_fused_mul_1@%s 2000\n'
            % (s.model, s.model, s.KEY_A, s.model, s.KEY_B))
        rc, text, _ = run('profile', trace, '--origins', s.sidecar, check_rc=2)
        # Below its row, the line's text (indented, leading spaces trimmed).
        assert re.search(r'^ +0\.014 +100\.0 +4  %s:3\n {30,}return torch.relu\(y\) \* 2$'
                         % re.escape(s.model), text, re.M), text
        assert 'kernel events: 4 of 6 trace events, 0.014 ms of device time\n' \
            'paired: 4 events (100.0%), 0.014 ms (100.0%)\n' in text, text


def test_every_diagnostic_is_triggered():
    with TempDir() as tmp:
        s = Scene(tmp)
        other_key = 'c' * 16
        cases = [
            # (event, code, severity, exit status, paired?)
            (kernel_event(s.base_a + '#1', 1, provenance_key=s.KEY_B), 'carrier-conflict',
             'error', 2, False),
            (kernel_event('spyre_kernel_v1_fused_sub_' + s.KEY_A + '#1', 1), 'collision',
             'error', 2, False),
            (kernel_event('spyre_kernel_v1_fused_x_' + other_key, 1, debug_handles=['300']),
             'unknown-key', 'warning', 0, True),
            (kernel_event('spyre_kernel_v2_fused_x_' + other_key, 1), 'unparsable-name',
             'warning', 0, False),
            (kernel_event(s.base_a, 1, provenance_key='NOT-A-KEY'), 'malformed-provenance-key',
             'warning', 0, True),
            (kernel_event(s.base_a, 1, debug_handles=['200', '200']), 'malformed-debug-handles',
             'warning', 0, True),
            (kernel_event(s.base_a, 1, debug_handles=['999']), 'native-handle-disagreement',
             'warning', 0, True),
            (kernel_event(s.base_a, 1, cycles_ts=[1, 2, 3]), 'bad-cycles-ts', 'error', 2, True),
            (kernel_event(s.base_a, 1, cycles_ts=[1, 2, 3, 4, 2**32]), 'bad-cycles-ts', 'error',
             2, True),
            (kernel_event(s.base_a, 'x'), 'bad-duration', 'error', 2, True),
            (kernel_event(s.base_a, -1), 'bad-duration', 'error', 2, True),
            (kernel_event(s.base_a, None), 'bad-duration', 'error', 2, True),
            (kernel_event(s.base_a, 1e300), 'bad-duration', 'error', 2, True),
            ([1, 2], 'not-an-event', 'warning', 0, None),
        ]
        for event, code, severity, status, paired in cases:
            trace = s.trace([{'ph': 'M', 'name': 'process_name', 'pid': 1, 'tid': 0}, event])
            args = [trace, s.cache] if code == 'unknown-key' else [trace]
            rc, out, err = run('profile', *args, '--origins', s.sidecar, '--format', 'json')
            assert rc == status, (code, rc, err)
            found = [d for d in diagnostics(err) if d['code'] == code]
            assert len(found) == 1, (code, err)
            assert found[0]['severity'] == severity and found[0]['path'] == trace
            assert found[0]['line'] == '3' and found[0]['col'] == '1', (code, found)
            report = json.loads(out)
            assert [d['code'] for d in report['diagnostics']] == [code], (code, report)
            if paired is not None:
                assert (report['coverage']['resolved_events'] == 1) == paired, (code, report)
        # Without a sidecar: an event without debug_handles, and an id no file holds.
        trace = s.trace([kernel_event(s.base_a, 1), kernel_event(s.base_b, 1,
                                                                 debug_handles=['301'])])
        rc, out, err = run('profile', trace, s.cache, '--format', 'json', check_rc=0)
        assert [d['code'] for d in diagnostics(err)] == ['no-handles', 'unknown-handle'], err
        assert json.loads(out)['coverage']['resolved_events'] == 0


def test_native_handles_never_replace_the_sidecars():
    with TempDir() as tmp:
        s = Scene(tmp)
        trace = s.trace([kernel_event(s.base_a + '#4', 3, debug_handles=['300'])])
        rc, out, err = run('profile', trace, '--origins', s.sidecar, '--format', 'json',
                           check_rc=0)
        report = json.loads(out)
        assert report['bundles'][0]['handles'] == ['200']
        assert rows(report, 'by_aten') == {'aten.add.Tensor': [3000, 1],
                                           'aten.relu.default': [3000, 1]}
        assert 'native-handle-disagreement' in err


def test_sidecar_and_caches_disagreeing_is_reported():
    with TempDir() as tmp:
        s = Scene(tmp)
        # The cache's copy of handle 300 names another line than the sidecar's.
        with open(os.path.join(s.dir_b, 'sdsc_0.json'), 'w') as f:
            json.dump({'0_add': {'debug_handle_': handle('300', s.model, 1, 'aten.mul.Tensor',
                                                         ['mul', 'buf1'])}}, f, indent=2)
        trace = s.trace([kernel_event(s.base_b + '#1', 5, debug_handles=['300'])])
        rc, out, err = run('profile', trace, s.cache, '--origins', s.sidecar, '--format', 'json',
                           check_rc=0)
        found = [d for d in diagnostics(err) if d['code'] == 'sources-disagree']
        assert len(found) == 1 and 'handle 300 differs' in found[0]['message'], err
        # The sidecar wins.
        assert rows(json.loads(out), 'by_line') == {s.model + ':3': [5000, 1]}


def test_annotate_trace():
    with TempDir() as tmp:
        s = Scene(tmp)
        events = [
            {'ph': 'M', 'name': 'thread_name', 'pid': 1, 'tid': 0, 'args': {'name': 'kernels'}},
            kernel_event(s.base_a + '#3', 10.5, provenance_key=s.KEY_A, correlation=7),
            kernel_event(s.base_b + '#1', 2),
            kernel_event('spyre_kernel_v1_fused_x_' + 'c' * 16, 1),      # unknown: unpaired
            {'ph': 'X', 'name': 'aten::add', 'pid': 2, 'tid': 2, 'ts': 0, 'dur': 99},
            {'ph': 'X', 'name': s.base_b, 'pid': 1, 'tid': 0, 'ts': 3, 'dur': 1, 'args': {}}]
        trace = s.trace(events)
        with open(trace, 'rb') as f:
            original = f.read()
        for out_name in ('annotated.json', 'annotated.json.gz'):
            out = os.path.join(tmp, out_name)
            rc, report, err = run('profile', trace, '--origins', s.sidecar, '--annotate-trace',
                                  out, '--format', 'json', check_rc=0)
            opener = gzip.open if out_name.endswith('.gz') else open
            with opener(out, 'rt') as f:
                annotated = json.load(f)
            assert annotated['displayTimeUnit'] == 'ms'
            got = annotated['traceEvents']
            # One metadata event after the trace's own describes each bundle once.
            assert len(got) == len(events) + 1
            assert got[-1]['name'] == 'sdscprov_bundles' and got[-1]['ph'] == 'M'
            table = got[-1]['args']['bundles']
            for before, after in zip(events, got):
                reference = (after.get('args') or {}).get('sdscprov')
                stripped = json.loads(json.dumps(after))
                if reference is not None:
                    del stripped['args']['sdscprov']
                    if 'args' not in before:
                        assert stripped['args'] == {}
                        del stripped['args']
                assert stripped == before, (before, after)
                paired = before.get('name', '').startswith((s.base_a, s.base_b))
                assert (reference is not None) == paired, after
                if paired:
                    assert reference['bundle'] in (s.KEY_A, s.KEY_B)
                    extra = table[reference['bundle']]
                    assert extra['handles'] == (['200'] if reference['bundle'] == s.KEY_A else ['300'])
            a = table[got[1]['args']['sdscprov']['bundle']]
            assert a['source_lines'] == [s.model + ':2', s.model + ':3']
            assert a['aten_ops'] == ['aten.add.Tensor', 'aten.relu.default']
            assert a['kernels'] == ['sdsc_fused_add_relu_0']
            # Annotating the annotated trace leaves its events alone.
            if not out_name.endswith('.gz'):
                again = os.path.join(tmp, 'again.json')
                rc, _, err = run('profile', out, '--origins', s.sidecar, '--annotate-trace',
                                 again, check_rc=0)
                assert 'already-annotated' in err
                with open(out, 'rb') as f1, open(again, 'rb') as f2:
                    assert f1.read() == f2.read()
        with open(trace, 'rb') as f:
            assert f.read() == original
        # Never over the trace itself, under its name or another (a hard link), nor a link.
        link = os.path.join(tmp, 'hardlink.json')
        os.link(trace, link)
        symlink = os.path.join(tmp, 'symlink.json')
        os.symlink(os.path.join(tmp, 'elsewhere.json'), symlink)
        for target in (trace, link, symlink):
            rc, out, err = run('profile', trace, '--origins', s.sidecar, '--annotate-trace',
                               target, check_rc=2)
            assert out == '' and 'the annotated trace is not written' in err, err
        with open(trace, 'rb') as f:
            assert f.read() == original
        assert not os.path.exists(os.path.join(tmp, 'elsewhere.json'))
        leftovers = [n for n in os.listdir(tmp) if '.sdscprov-' in n]
        assert leftovers == [], leftovers


# ---- bad input ----------------------------------------------------------------------------------

def position(text, offset):
    """line:col as sdscprov counts them (1-based, columns in code points)."""
    before = text[:offset]
    line = before.count('\n') + 1
    return line, len(before) - (before.rfind('\n') + 1) + 1


def test_truncated_and_garbled_traces():
    with TempDir() as tmp:
        s = Scene(tmp)
        good = ('{"schemaVersion": 1, "traceEvents": [\n'
                + ',\n'.join(json.dumps(kernel_event(s.base_a + '#%d' % i, 1.5,
                                                     provenance_key=s.KEY_A))
                             for i in range(40)) + '\n], "traceName": "t"}\n')
        # Cut anywhere before its last byte: an error at the end of what is left, no report.
        for cut in list(range(1, 60)) + list(range(60, len(good) - 2, 97)):
            text = good[:cut]
            trace = s.trace(None, text=text)
            rc, out, err = run('profile', trace, '--origins', s.sidecar)
            assert rc == 2 and out == '', (cut, rc, out)
            found = diagnostics(err)
            assert len(found) == 1 and found[0]['code'] == 'parse-error', (cut, err)
            assert (int(found[0]['line']), int(found[0]['col'])) == position(text, len(text)), \
                (cut, text[-20:], err)
        garbled = [
            (good.replace('"traceName": "t"', '"traceName": tru'), 'parse-error'),
            (good.replace('"ph": "X"', '"ph": nul', 1), 'parse-error'),
            (good.replace('"dur": 1.5', '"dur": 1.5.0', 1), 'parse-error'),
            (good.replace('}},\n{', '}}\n{', 1), 'parse-error'),
            (good.replace('\n], "traceName"', ',\n], "traceName"'), 'parse-error'),
            (good.replace('"pid": 1', '"pid": 1,', 1), 'parse-error'),
            ('{"schemaVersion": 1, "events": []}', 'not-a-trace'),
            ('{"traceEvents": {"a": 1}}', 'not-a-trace'),
            ('{"traceEvents": "none"}', 'not-a-trace'),
            ('{"traceEvents": [], "traceEvents": []}', 'not-a-trace'),
            ('[1, 2', 'parse-error'),
            ('"a trace"', 'not-a-trace'),
            ('', 'parse-error'),
            ('{"traceEvents": []} {}', 'parse-error'),
        ]
        for text, code in garbled:
            trace = s.trace(None, text=text)
            rc, out, err = run('profile', trace, '--origins', s.sidecar)
            found = diagnostics(err)
            assert rc == 2 and out == '' and len(found) == 1 and found[0]['code'] == code, \
                (text[:80], err)
        # Members profile does not read are validated too.
        for before, after, at in (('"cat": "kernel"', '"cat": nul', 'nul'),
                                  ('"ts": 1.0', '"ts": 1.0.0', '1.0.0')):
            text = good.replace(before, after, 1)
            trace = s.trace(None, text=text)
            rc, out, err = run('profile', trace, '--origins', s.sidecar, check_rc=2)
            found = diagnostics(err)
            assert len(found) == 1 and found[0]['code'] == 'parse-error' and out == '', err
            assert (int(found[0]['line']), int(found[0]['col'])) == position(
                text, text.index(at)), err
        # Invalid UTF-8 in a string, and a raw control character in one: at that byte.
        for bad in (b'\xff\xfe', b'\x01'):
            raw = good.encode().replace(b'"kernel"', b'"ker' + bad + b'nel"', 1)
            path = os.path.join(tmp, 'raw.json')
            with open(path, 'wb') as f:
                f.write(raw)
            rc, out, err = run('profile', path, '--origins', s.sidecar)
            found = diagnostics(err)
            at = raw.index(bad)
            line_start = raw.rfind(b'\n', 0, at) + 1
            assert rc == 2 and len(found) == 1 and found[0]['code'] == 'parse-error', err
            assert (int(found[0]['line']), int(found[0]['col'])) == (
                raw[:at].count(b'\n') + 1, at - line_start + 1), err
        # A truncated gzip trace.
        path = os.path.join(tmp, 'cut.json.gz')
        with open(path, 'wb') as f:
            f.write(gzip.compress(good.encode())[:-30])
        rc, out, err = run('profile', path, '--origins', s.sidecar)
        assert rc == 2 and 'bad-gzip' in err, err
        # Not a file at all, and a directory.
        rc, _, err = run('profile', os.path.join(tmp, 'missing.json'), '--origins', s.sidecar)
        assert rc == 2 and 'cannot open' in err and '[io-error]' in err, err
        rc, _, err = run('profile', tmp, '--origins', s.sidecar)
        assert rc == 2 and 'is a directory' in err, err


def test_usage_errors_and_unwritable_report():
    with TempDir() as tmp:
        s = Scene(tmp)
        trace = s.trace([kernel_event(s.base_a, 1)])
        run('profile', trace, '--format', 'xml', '--origins', s.sidecar, check_rc=2)
        run('profile', check_rc=2)
        # No sidecar and no cache: nothing to pair with.
        rc, _, err = run('profile', trace, env={'TORCHINDUCTOR_CACHE_DIR':
                                                os.path.join(tmp, 'no-cache')}, check_rc=2)
        assert 'nothing to pair' in err, err
        # Not a spyre_provenance.json: an SDSC file, and sidecars of the kinds annotate takes
        # (an origins map, PyTorch's node mappings), each refused by name.
        origins_map = os.path.join(tmp, 'origins.json')
        with open(origins_map, 'w') as f:
            json.dump({'sdscprov_origins': 1, 'kernels': []}, f)
        mappings = os.path.join(tmp, 'node_mappings.json')
        with open(mappings, 'w') as f:
            json.dump({'preToPost': {}, 'postToPre': {}}, f)
        for other in (os.path.join(s.dir_a, 'sdsc_0.json'), origins_map, mappings):
            _, _, err = run('profile', trace, '--origins', other, check_rc=2)
            assert (f"{other}: error: is not torch-spyre's spyre_provenance.json (profile pairs "
                    "trace events through that sidecar's kernelIdentities)") in err, err
        # A sidecar that is a FIFO is refused unread (reading it would wait for a writer), and
        # one larger than --max-file-size is refused too.
        fifo = os.path.join(tmp, 'spyre_provenance.fifo')
        os.mkfifo(fifo)
        p = subprocess.run([BIN, 'profile', trace, '--origins', fifo], capture_output=True,
                           text=True, timeout=20)
        assert p.returncode == 2 and f'{fifo}: error: is a fifo, not a regular file' in p.stderr, p
        size = os.path.getsize(s.sidecar)
        _, _, err = run('profile', trace, '--origins', s.sidecar, '--max-file-size',
                        str(size - 1), check_rc=2)
        assert s.sidecar in err and '[file-too-large]' in err, err
        run('profile', trace, '--origins', s.sidecar, '--max-file-size', str(size), check_rc=0)
        # A report that cannot be written.
        if os.path.exists('/dev/full'):
            with open('/dev/full', 'w') as full:
                p = subprocess.run([BIN, 'profile', trace, '--origins', s.sidecar,
                                    '--format', 'json'], stdout=full, stderr=subprocess.PIPE,
                                   text=True, timeout=60)
            assert p.returncode == 2 and 'cannot write the report' in p.stderr, p.stderr


# ---- large traces, bounded memory ---------------------------------------------------------------

EVENT = ('{"ph": "X", "cat": "kernel", "name": "%s#%d", "pid": 1, "tid": 0, "ts": 1.000, '
         '"dur": 1.234, "args": {"provenance_key": "%s", "cycles_ts": [1, 2, 3, 4, 5]}},\n')


def limited(limit_bytes):
    def apply():
        resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))
    return apply


def run_limited(args, limit_bytes):
    """Runs sdscprov under an address-space limit. The sanitizer build cannot run under one (its
    shadow memory reserves terabytes): there the peak resident memory is measured instead, against
    twice the limit (ASan's quarantine and redzones)."""
    asan = sanitized()
    with tempfile.TemporaryFile('w+') as out_f, tempfile.TemporaryFile('w+') as err_f:
        p = subprocess.Popen([BIN, *args], stdout=out_f, stderr=err_f, text=True,
                             preexec_fn=None if asan else limited(limit_bytes))
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        out_f.seek(0)
        err_f.seek(0)
        out, err = out_f.read(), err_f.read()
    if asan:
        assert usage.ru_maxrss * 1024 < 2 * limit_bytes, (args, usage.ru_maxrss)
    return p.returncode, out, err


def peak_rss_mib(args):
    p = subprocess.Popen([BIN, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    return os.waitstatus_to_exitcode(status), usage.ru_maxrss / 1024


def test_two_gigabyte_traces_in_bounded_memory():
    limit = 512 << 20   # address space, not memory: threads and allocators reserve more than use
    with TempDir() as tmp:
        s = Scene(tmp)
        # 2.2 GB of JSON as a gzip file of repeated members (a few MB on disk).
        chunk = ''.join(EVENT % (s.base_a, i % 7, s.KEY_A) for i in range(20000)).encode()
        member = gzip.compress(chunk, compresslevel=9)
        repeats = (2_200_000_000 // len(chunk)) + 1
        last = (EVENT % (s.base_b, 1, s.KEY_B)).rstrip(',\n').encode()

        def write_gzip(path, end):
            with open(path, 'wb') as f:
                f.write(gzip.compress(b'{"traceEvents": [\n'))
                for _ in range(repeats):
                    f.write(member)
                f.write(gzip.compress(end))

        path = os.path.join(tmp, 'big.json.gz')
        write_gzip(path, last + b'\n]}\n')
        events = repeats * 20000
        rc, out, err = run_limited(['profile', path, '--origins', s.sidecar, '--format', 'json'],
                                   limit)
        assert rc == 0, err
        report = json.loads(out)
        assert report['trace']['bytes'] > 2**31
        assert report['coverage']['kernel_events'] == events + 1
        assert rows(report, 'by_kernel') == {
            'sdsc_fused_add_relu_0@' + s.KEY_A: [events * 1234, events],
            'sdsc_fused_mul_1@' + s.KEY_B: [1234, 1]}
        assert report['stages']['CMPT'] == {'ticks': events + 1, 'events': events + 1}
        # The same text cut inside its last event: the error is past 2 GB, at its line:col.
        cut = os.path.join(tmp, 'cut.json.gz')
        write_gzip(cut, last[:-12])
        rc, out, err = run_limited(['profile', cut, '--origins', s.sidecar], limit)
        found = diagnostics(err)
        assert rc == 2 and out == '' and len(found) == 1, err
        assert found[0]['code'] == 'parse-error', err
        assert (int(found[0]['line']), int(found[0]['col'])) == (events + 2, len(last) - 12 + 1), \
            err
        os.unlink(cut)

        # A sparse 2 GB plain file: a valid start, then a hole of NUL bytes.
        sparse = os.path.join(tmp, 'sparse.json')
        with open(sparse, 'wb') as f:
            f.write(b'{"traceEvents": [\n' + chunk[:len(chunk) // 2].rsplit(b'\n', 1)[0] + b'\n')
            f.truncate(2_200_000_000)
        rc, out, err = run_limited(['profile', sparse, '--origins', s.sidecar], limit)
        found = diagnostics(err)
        assert rc == 2 and len(found) == 1 and found[0]['code'] == 'parse-error', err
        lines = (chunk[:len(chunk) // 2].rsplit(b'\n', 1)[0]).count(b'\n') + 3
        assert int(found[0]['line']) == lines and found[0]['col'] == '1', (lines, err)

        # A 2 GB plain trace written out, when the disk has room for it.
        free = shutil.disk_usage(tmp).free
        if free < 6 << 30:
            print('SKIP the plain 2 GB trace: %.1f GB free' % (free / 2**30))
            return
        plain = os.path.join(tmp, 'big.json')
        with open(plain, 'wb') as f:
            f.write(b'{"traceEvents": [\n')
            for _ in range(repeats):
                f.write(chunk)
            f.write((EVENT % (s.base_b, 1, s.KEY_B)).rstrip(',\n').encode() + b'\n]}\n')
        rc, rss = peak_rss_mib(['profile', plain, '--origins', s.sidecar, '--format', 'json'])
        # The sanitizer build's redzones and quarantine add to the bound (measured: 75 MiB).
        assert rc == 0 and rss < (192 if sanitized() else 64), (rc, rss)
        rc, out, err = run_limited(['profile', plain, '--origins', s.sidecar, '--format',
                                    'folded'], limit)
        assert rc == 0 and out.count('\n') == 2, (rc, err)


if __name__ == '__main__':
    main([
        test_generated_trace_sidecar_path,
        test_generated_trace_cache_only_path,
        test_generated_trace_sidecar_and_caches_agree,
        test_gzip_trace,
        test_output_is_deterministic,
        test_text_report_fits_and_ranks,
        test_one_row_per_compiled_bundle,
        test_demo_trace_is_the_generators_and_pairs_with_the_annotated_demo,
        test_no_device_kernel_event_and_dirless_bundles_are_said,
        test_hand_built_sums_by_line_op_and_kernel,
        test_every_diagnostic_is_triggered,
        test_native_handles_never_replace_the_sidecars,
        test_sidecar_and_caches_disagreeing_is_reported,
        test_annotate_trace,
        test_truncated_and_garbled_traces,
        test_usage_errors_and_unwritable_report,
        test_two_gigabyte_traces_in_bounded_memory,
    ])
