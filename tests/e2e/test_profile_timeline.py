"""End-to-end tests of profile's timeline (the time between kernels): the real binary on traces
scripts/gen_trace.py writes with --host-lanes, and on hand-built ones.

Every expected figure is computed here from the trace's own events (read back with exact
decimals), with scripts/gen_timeline.py's arithmetic; for generated traces it must also agree with
what the generator counted while writing them.
"""
import decimal
import json
import re
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import SCRIPTS, TempDir, main, run  # noqa: E402

sys.path.insert(0, SCRIPTS)
import gen_timeline  # noqa: E402

STEP_KEYS = ('name', 'start_ns', 'wall_ns', 'kernels', 'transfers', 'kernel_busy_ns',
             'transfer_ns', 'transfer_bytes', 'idle', 'launch')


def generate(out, *args):
    subprocess.run([sys.executable, os.path.join(SCRIPTS, 'gen_trace.py'), out, '--files', '80',
                    *args], check=True, capture_output=True, timeout=600)
    with open(os.path.join(out, 'expected.json')) as f:
        return json.load(f)


def ns_of(value):
    """Integer nanoseconds of a JSON number of microseconds, rounded half away from zero."""
    return int((decimal.Decimal(value) * 1000).quantize(decimal.Decimal(1),
                                                        decimal.ROUND_HALF_UP))


def complete_events(path):
    """The complete events with a ts and a dur of the trace at `path`, read with exact decimals:
    (index in traceEvents, event, cat, name, args, start ns, dur ns)."""
    with open(path) as f:
        doc = json.load(f, parse_float=decimal.Decimal)
    for i, e in enumerate(doc['traceEvents']):
        if e.get('ph') != 'X' or 'ts' not in e or 'dur' not in e:
            continue
        yield (i, e, e.get('cat', ''), e.get('name', ''), e.get('args', {}), ns_of(e['ts']),
               ns_of(e['dur']))


def from_trace(path):
    """The timeline's figures of the trace at `path`, from its events."""
    lanes = gen_timeline.HostLanes(None, 1, None)
    for _, e, cat, name, args, start, dur in complete_events(path):
        if name.startswith('ProfilerStep#') and cat in ('user_annotation', 'cpu_op'):
            lanes.spans.append((start, start + dur, int(name[len('ProfilerStep#'):])))
        elif 'runtime' in cat and isinstance(args.get('correlation'), int):
            lanes.launch_events += 1
            c = args['correlation']
            lanes.launches[c] = min(start, lanes.launches.get(c, start))
        elif cat in ('kernel', 'gpu_memcpy', 'gpu_memset'):
            device = 'd%s' % args['device'] if 'device' in args else 'p%s' % e['pid']
            transfer = cat != 'kernel'
            key = None if transfer else name.split('#')[0][-16:]
            lanes.activity(device, start, start + dur, transfer, key, args.get('correlation'),
                           args.get('bytes', 0) if transfer else 0)
            q, s = args.get('queued', 0), args.get('submitted', 0)
            if not transfer and q and s:
                lanes.queue.append((q, s, start))
    return lanes.expected()


def profile_json(trace, *args):
    _, out, err = run('profile', trace, *args, '--format', 'json', check_rc=0)
    return json.loads(out), err


def check_timeline(want, got):
    """The report's "timeline" member against the figures computed."""
    for k in ('devices', 'activities', 'launch_events', 'step_ns', 'outside_steps', 'idle',
              'transfers_idle', 'launch', 'queue'):
        assert got[k] == want[k], (k, got[k], want[k])
    steps = [{k: s[k] for k in STEP_KEYS} for s in got['steps']]
    assert steps == [{k: s[k] for k in STEP_KEYS} for s in want['steps']], (steps, want['steps'])
    for s in got['steps']:
        rate = s['transfer_bytes'] / s['transfer_active_ns'] if s['transfer_active_ns'] else None
        assert s['transfer_gb_per_s'] == rate or abs(s['transfer_gb_per_s'] - rate) < 1e-9 * rate


def check_rows(want_rows, report):
    for table in ('by_line', 'by_aten', 'by_kernel'):
        got = {r['label']: {'idle': r['idle'], 'launch': r['launch']} for r in report[table]}
        assert got == want_rows[table], (table, got, want_rows[table])


def test_generated_host_lanes_exact_to_the_ns():
    with TempDir() as tmp:
        expected = generate(tmp, '--host-lanes', '--steps', '4', '--devices', '2',
                            '--submitted', 'consistent')
        trace = os.path.join(tmp, 'trace.json')
        want = from_trace(trace)
        # The generator's own count and the events read back agree.
        keys = want.pop('keys')
        assert want == expected['timeline'], 'gen_trace and the trace read back disagree'
        report, err = profile_json(trace, '--origins', os.path.join(tmp, 'spyre_provenance.json'))
        assert report['timeline']['steps_from'] == 'ProfilerStep spans'
        check_timeline(want, report['timeline'])
        assert want['queue']['consistent'] and want['launch']['skewed'] > 0
        assert want['idle']['host_wait_ns'] > 0 and want['idle']['launch_latency_ns'] > 0
        assert want['idle']['unattributed_ns'] > 0 and want['outside_steps']['activities'] > 0
        assert want['devices'] == 3  # two by args.device, the events without args by pid
        check_rows(expected['timeline_rows'], report)
        # Bundles: each one's idle as charged by key.
        for b in report['bundles']:
            k = keys.get(b['key'])
            assert b['idle'] == (k['idle'] if k else gen_timeline.idle_zero()), b['key']
        # The text report: the step table on the first screen, slowest step first.
        _, text, _ = run('profile', trace, '--origins',
                         os.path.join(tmp, 'spyre_provenance.json'), check_rc=0)
        first = text.splitlines()[:25]
        steps_at = [i for i, l in enumerate(first) if l.startswith('Steps: 4 ProfilerStep spans')]
        assert steps_at, text
        slowest = want['steps'][0]
        assert first[steps_at[0] + 3].startswith('  %s ' % slowest['name']), first
        assert ('%d.%03d' % divmod((slowest['wall_ns'] + 500) // 1000, 1000)) in \
            first[steps_at[0] + 3], first
        assert 'queue delay: median' in text


def test_by_idle_and_folded_values():
    with TempDir() as tmp:
        expected = generate(tmp, '--host-lanes', '--seed', '3')
        trace = os.path.join(tmp, 'trace.json')
        sidecar = os.path.join(tmp, 'spyre_provenance.json')
        want = from_trace(trace)
        keys = want.pop('keys')
        report, _ = profile_json(trace, '--origins', sidecar)
        assert report['timeline']['steps_from'] == 'whole trace'
        check_timeline(want, report['timeline'])
        assert len(want['steps']) == 1 and want['steps'][0]['name'] == '(whole trace)'
        # --value idle / host-wait / launch: each bundle's figures on its stack.
        label_of = {r['key']: label for label, r in expected['sidecar']['kernel_rows'].items()}
        bundles = {b['key']: b for b in report['bundles']}
        for value, pick in (('idle', lambda k: k['idle']['idle_ns']),
                            ('host-wait', lambda k: k['idle']['host_wait_ns']),
                            ('launch', lambda k: sum(k['delays']))):
            _, folded, _ = run('profile', trace, '--origins', sidecar, '--format', 'folded',
                               '--value', value, check_rc=0)
            got = {l.rsplit(' ', 1)[0]: int(l.rsplit(' ', 1)[1]) for l in folded.splitlines()}
            stacks = {}
            for key, k in keys.items():
                b = bundles[key]
                no_line = '[compiler-generated]' if b['compiler_generated'] else '[no source]'
                stack = '%s;%s;%s' % ('+'.join('%s:%d' % (l['file'], l['line'])
                                               for l in b['source_lines']) or no_line,
                                      '+'.join(b['aten_ops']) or '[no aten op]', label_of[key])
                if pick(k):
                    stacks[stack] = stacks.get(stack, 0) + pick(k)
            t = want['transfers_idle']
            extra = {'idle': t['idle_ns'], 'host-wait': t['host_wait_ns']}.get(value, 0)
            if extra:
                stacks['[transfers];[transfers];[transfers]'] = extra
            assert got == stacks, (value, got, stacks)
        # --by idle: the rows ordered by their idle time.
        _, text, _ = run('profile', trace, '--origins', sidecar, '--by', 'line', '--by', 'idle',
                         '--top', '0', check_rc=0)
        assert 'Source lines by idle time before their activities' in text, text
        by_line = sorted(report['by_line'], key=lambda r: -r['idle']['idle_ns'])
        table = text[text.index('Source lines by idle'):].splitlines()[3:3 + len(by_line)]
        idle_col = [l[30:42].strip() for l in table if l[:13].strip()]
        assert idle_col == ['%d.%03d' % divmod((r['idle']['idle_ns'] + 500) // 1000, 1000)
                            for r in by_line][:len(idle_col)], (idle_col, table)


def test_inconsistent_submitted_is_said_and_not_used():
    with TempDir() as tmp:
        generate(tmp, '--host-lanes', '--submitted', 'inconsistent')
        trace = os.path.join(tmp, 'trace.json')
        want = from_trace(trace)
        want.pop('keys')
        assert want['queue']['inconsistent'] > 0 and not want['queue']['consistent']
        report, _ = profile_json(trace, '--origins', os.path.join(tmp, 'spyre_provenance.json'))
        check_timeline(want, report['timeline'])
        assert report['timeline']['queue']['total_ns'] is None
        _, text, _ = run('profile', trace, '--origins', os.path.join(tmp, 'spyre_provenance.json'),
                         check_rc=0)
        assert 'queue delay: not given: args.queued/args.submitted of %d of %d kernels' % (
            want['queue']['inconsistent'], want['queue']['kernels']) in ' '.join(text.split())


def test_without_runtime_events_the_report_is_as_before_unless_asked():
    with TempDir() as tmp:
        generate(tmp, '--steps', '2')
        trace = os.path.join(tmp, 'trace.json')
        sidecar = os.path.join(tmp, 'spyre_provenance.json')
        report, _ = profile_json(trace, '--origins', sidecar)
        assert 'timeline' not in report and 'idle' not in report['by_line'][0]
        _, text, _ = run('profile', trace, '--origins', sidecar, check_rc=0)
        assert 'Steps:' not in text and 'idle (ms)' not in text
        # Asked for: every gap unattributed (no launch event), exact.
        want = from_trace(trace)
        want.pop('keys')
        assert want['launch_events'] == 0 and want['idle']['unattributed_ns'] > 0
        assert want['idle']['unattributed_ns'] == want['idle']['idle_ns']
        report, _ = profile_json(trace, '--origins', sidecar, '--by', 'idle')
        check_timeline(want, report['timeline'])


def hand_trace(path, events):
    """The trace at `path`, and an empty cache beside it (nothing pairs: unpaired groups)."""
    with open(path, 'w') as f:
        json.dump({'traceEvents': events}, f)
    cache = os.path.join(os.path.dirname(path), 'cache')
    os.mkdir(cache)
    return cache


def test_hand_built_without_correlation_and_without_steps():
    # Kernels without args.correlation: runtime events there, but none matches; one device.
    key = 'abcdefghijklmnop'
    name = 'spyre_kernel_v1_fused_add_%s#%d'
    events = [{'ph': 'X', 'cat': 'cuda_runtime', 'name': 'aiuLaunchControlBlocks', 'pid': 9,
               'tid': 9, 'ts': 1, 'dur': 1, 'args': {'correlation': 77}}]
    spans = [(10, 5), (30, 10), (32, 3), (50.0005, 1)]   # us; overlapping [32,35]
    for i, (ts, dur) in enumerate(spans):
        events.append({'ph': 'X', 'cat': 'kernel', 'name': name % (key, i), 'pid': 1, 'tid': 0,
                       'ts': ts, 'dur': dur})
    with TempDir() as tmp:
        trace = os.path.join(tmp, 'trace.json')
        cache = hand_trace(trace, events)
        report, _ = profile_json(trace, cache)
        t = report['timeline']
        # gaps: 30 - 15 = 15 us, 50.0005 - 40 = 10.0005 us (half up: 10001 ns)
        assert t['idle'] == {'gaps': 2, 'idle_ns': 25001, 'host_wait_ns': 0,
                             'launch_latency_ns': 0, 'unattributed_ns': 25001}, t['idle']
        assert t['steps_from'] == 'whole trace' and len(t['steps']) == 1
        step = t['steps'][0]
        assert step['wall_ns'] == 51001 - 10000 and step['kernel_busy_ns'] == 5000 + 10000 + 1000
        assert t['launch'] == {'launched': 0, 'skewed': 0, 'total_ns': 0, 'median_ns': 0}
        assert report['by_kernel'][0]['idle']['unattributed_ns'] == 25001


def test_hand_built_launch_delay_skew_and_host_wait():
    key = 'abcdefghijklmnop'
    name = 'spyre_kernel_v1_fused_add_%s#1' % key
    events = [
        {'ph': 'X', 'cat': 'user_annotation', 'name': 'ProfilerStep#7', 'pid': 9, 'tid': 9,
         'ts': 0, 'dur': 100},
        {'ph': 'X', 'cat': 'cuda_runtime', 'name': 'aiuLaunchControlBlocks', 'pid': 9, 'tid': 9,
         'ts': 5, 'dur': 1, 'args': {'correlation': 1}},
        {'ph': 'X', 'cat': 'cuda_runtime', 'name': 'aiuLaunchControlBlocks', 'pid': 9, 'tid': 9,
         'ts': 25, 'dur': 1, 'args': {'correlation': 2}},
        {'ph': 'X', 'cat': 'cuda_runtime', 'name': 'aiuLaunchControlBlocks', 'pid': 9, 'tid': 9,
         'ts': 70, 'dur': 1, 'args': {'correlation': 3}},
        {'ph': 'X', 'cat': 'kernel', 'name': name, 'pid': 1, 'tid': 0, 'ts': 10, 'dur': 10,
         'args': {'correlation': 1, 'device': 0}},          # [10,20], delay 5
        {'ph': 'X', 'cat': 'kernel', 'name': name, 'pid': 1, 'tid': 0, 'ts': 40, 'dur': 10,
         'args': {'correlation': 2, 'device': 0}},          # gap 20: host wait 5, latency 15
        {'ph': 'X', 'cat': 'gpu_memcpy', 'name': 'Memcpy (HtoD)', 'pid': 1, 'tid': 100,
         'ts': 45, 'dur': 15, 'args': {'device': 0, 'bytes': 3000}},  # [45,60], 10 outside
        {'ph': 'X', 'cat': 'kernel', 'name': name, 'pid': 1, 'tid': 0, 'ts': 65, 'dur': 5,
         'args': {'correlation': 3, 'device': 0}},          # gap 5, all host wait; skew
    ]
    with TempDir() as tmp:
        trace = os.path.join(tmp, 'trace.json')
        cache = hand_trace(trace, events)
        report, _ = profile_json(trace, cache)
        t = report['timeline']
        assert t['idle'] == {'gaps': 2, 'idle_ns': 25000, 'host_wait_ns': 10000,
                             'launch_latency_ns': 15000, 'unattributed_ns': 0}, t['idle']
        assert t['launch'] == {'launched': 3, 'skewed': 1, 'total_ns': 20000,
                               'median_ns': 5000}, t['launch']
        step = t['steps'][0]
        assert step['name'] == 'ProfilerStep#7' and step['wall_ns'] == 100000
        assert step['kernel_busy_ns'] == 25000 and step['transfer_ns'] == 10000
        assert step['transfer_bytes'] == 3000 and step['transfer_gb_per_s'] == 3000 / 15000
        _, text, _ = run('profile', trace, cache, check_rc=0)
        assert '1 started before their launch (clock skew: taken as 0)' in ' '.join(text.split())


def test_baseline_by_idle_compares_and_gates_the_idle_time():
    """--baseline with --by idle: each row's compared time is its idle time in each run (as each
    run's own report gives it), the runs' totals their idle time, and --fail-over gates on it."""
    with TempDir() as tmp:
        base_dir, new_dir = os.path.join(tmp, 'base'), os.path.join(tmp, 'new')
        generate(base_dir, '--host-lanes', '--seed', '3')
        generate(new_dir, '--host-lanes', '--seed', '3', '--scale', '0=0', '--scale', '2=0')
        sidecar = os.path.join(base_dir, 'spyre_provenance.json')
        base_trace, new_trace = (os.path.join(d, 'trace.json') for d in (base_dir, new_dir))
        base, _ = profile_json(base_trace, '--origins', sidecar)
        now, _ = profile_json(new_trace, '--origins', sidecar)
        compared, _ = profile_json(new_trace, '--origins', sidecar, '--baseline', base_trace,
                                   '--by', 'line', '--by', 'idle')
        assert compared['compared'] == 'idle' and compared['comparison']['basis'] == 'idle'
        assert compared['base']['compared_ns'] == base['timeline']['idle']['idle_ns']
        assert compared['new']['compared_ns'] == now['timeline']['idle']['idle_ns']
        idle = {run: {r['label']: r['idle']['idle_ns'] for r in report['by_line']}
                for run, report in (('base', base), ('new', now))}
        rows = {r['label']: (r['base_ns'], r['new_ns']) for r in compared['by_line']}
        assert rows == {label: (idle['base'].get(label, 0), idle['new'].get(label, 0))
                        for label in set(idle['base']) | set(idle['new'])}, rows
        changed = [label for label, (b, n) in rows.items() if b != n]
        assert changed, 'the idle time of no row changed: the test shows nothing'
        # Without --by idle the same runs compare device time.
        by_time, _ = profile_json(new_trace, '--origins', sidecar, '--baseline', base_trace)
        assert by_time['compared'] == 'totals'
        assert by_time['base']['compared_ns'] == base['coverage']['kernel_ns']
        # The text says what it compares; the gate judges the idle time's growth.
        _, text, _ = run('profile', new_trace, '--origins', sidecar, '--baseline', base_trace,
                         '--by', 'idle', check_rc=0)
        assert text.startswith('Idle time compared totals (idle time before the activities'), \
            text[:200]
        over = [label for label, (b, n) in rows.items()
                if n > b and (b == 0 or (n - b) * 100 > 5 * b)]
        rc, _, err = run('profile', new_trace, '--origins', sidecar, '--baseline', base_trace,
                         '--by', 'idle', '--fail-over', '5', '--fail-min-share', '0')
        findings = [line for line in err.splitlines() if line.endswith('[fail-over]')]
        assert (rc == 1) == bool(over) and over, (rc, over, err[-2000:])
        assert findings and all(': error: idle time grew by ' in f or
                                ': error: idle time is new ' in f for f in findings), findings
        # Each finding names as its cause the kernels whose idle time grew.
        kernel_idle = {run: {r['label']: r['idle']['idle_ns'] for r in report['by_kernel']}
                       for run, report in (('base', base), ('new', now))}
        grew = {k for k, n in kernel_idle['new'].items() if n > kernel_idle['base'].get(k, 0)}
        for f in findings:
            assert '; kernel' in f, f
            named = f.rsplit('; kernel', 1)[1].removeprefix('s').strip()
            named = re.sub(r' and \d+ more$', '', named.removesuffix('[fail-over]').strip())
            named = named.split(', ')
            assert named and set(named) <= grew, (named, grew)


def per_step(total, steps):
    """total / steps rounded half up to the ns; 0 without steps."""
    return 0 if steps == 0 else (2 * total + steps) // (2 * steps)


def ms_text(ns):
    """ns as the text tables print it: ms with three decimals, rounded half up to the us."""
    us = ns // 1000 + (1 if ns % 1000 >= 500 else 0)
    return '{:,}.{:03d}'.format(us // 1000, us % 1000)


def mean_step_of(report):
    """A run's mean step, computed from the steps its own report lists."""
    t = report['timeline']
    steps = t['steps']
    n = len(steps)
    total = lambda f: sum(f(s) for s in steps)  # noqa: E731
    idle = {k: per_step(total(lambda s: s['idle'][k]), n)
            for k in ('gaps', 'idle_ns', 'host_wait_ns', 'launch_latency_ns', 'unattributed_ns')}
    return {'steps': n, 'steps_from': t['steps_from'],
            'wall_ns': per_step(total(lambda s: s['wall_ns']), n),
            'step_ns': t['step_ns'],
            'kernel_busy_ns': per_step(total(lambda s: s['kernel_busy_ns']), n),
            'transfer_ns': per_step(total(lambda s: s['transfer_ns']), n),
            'idle': idle,
            'launches': per_step(total(lambda s: s['launch']['launched']), n),
            'launch_median_ns': t['launch']['median_ns']}


def test_baseline_compares_the_mean_step():
    """--baseline on traces with host lanes: each run's mean step (its steps' figures summed and
    divided by their number) side by side, in JSON and in the text's table; a run without step
    spans is its whole trace; traces without runtime events compare no step."""
    with TempDir() as tmp:
        dirs = {name: os.path.join(tmp, name) for name in ('base', 'new', 'flat', 'plain')}
        generate(dirs['base'], '--host-lanes', '--seed', '3', '--steps', '4', '--devices', '2')
        generate(dirs['new'], '--host-lanes', '--seed', '3', '--steps', '5', '--devices', '2',
                 '--scale', '0=3', '--scale', '2=0')
        generate(dirs['flat'], '--host-lanes', '--seed', '3')
        generate(dirs['plain'], '--seed', '3', '--steps', '2')
        sidecar = os.path.join(dirs['base'], 'spyre_provenance.json')
        trace = {name: os.path.join(d, 'trace.json') for name, d in dirs.items()}
        own = {name: profile_json(trace[name], '--origins', sidecar)[0]
               for name in ('base', 'new', 'flat')}
        compared, _ = profile_json(trace['new'], '--origins', sidecar, '--baseline', trace['base'])
        want = {'base': mean_step_of(own['base']), 'new': mean_step_of(own['new'])}
        assert compared['mean_step'] == want, (compared['mean_step'], want)
        assert want['base']['steps'] == 4 and want['new']['steps'] == 5
        assert want['base']['idle'] != want['new']['idle'], 'the runs do not differ: shows nothing'
        _, text, _ = run('profile', trace['new'], '--origins', sidecar, '--baseline',
                         trace['base'], check_rc=0)
        assert 'Mean step compared: base 4 ProfilerStep spans, new 5 ProfilerStep spans' in text
        figures = {'step time': 'wall_ns', 'kernel busy': 'kernel_busy_ns',
                   'transfer': 'transfer_ns', 'launch delay median': 'launch_median_ns'}
        rows = {line[2:24].strip(): line[24:].split() for line in text.splitlines()
                if line.startswith('  ') and line[2:24].strip() in
                set(figures) | {'idle', 'host wait', 'launch latency', 'unattributed'}}
        for label, member in figures.items():
            assert rows[label][:2] == [ms_text(want['base'][member]),
                                       ms_text(want['new'][member])], (label, rows[label])
        for label, member in (('idle', 'idle_ns'), ('host wait', 'host_wait_ns'),
                              ('launch latency', 'launch_latency_ns'),
                              ('unattributed', 'unattributed_ns')):
            assert rows[label][:2] == [ms_text(want['base']['idle'][member]),
                                       ms_text(want['new']['idle'][member])], (label, rows[label])
        # A base without step spans: its whole trace is its one step.
        flat, _ = profile_json(trace['new'], '--origins', sidecar, '--baseline', trace['flat'])
        assert flat['mean_step']['base'] == mean_step_of(own['flat'])
        assert flat['mean_step']['base']['steps_from'] == 'whole trace'
        assert flat['mean_step']['base']['steps'] == 1
        # Without runtime events in either trace: no mean step, unless the rows compare idle time.
        plain, _ = profile_json(trace['plain'], '--origins', sidecar, '--baseline', trace['plain'])
        assert plain['mean_step'] is None
        _, text, _ = run('profile', trace['plain'], '--origins', sidecar, '--baseline',
                         trace['plain'], check_rc=0)
        assert 'Mean step compared' not in text
        by_idle, _ = profile_json(trace['plain'], '--origins', sidecar, '--baseline',
                                  trace['plain'], '--by', 'idle')
        assert by_idle['mean_step']['base'] == by_idle['mean_step']['new']
        assert by_idle['mean_step']['base']['steps'] == 2


def event_times(path):
    """Each device activity's own figures, by its index in traceEvents: its gap (none for its
    device's first), and with a launch event the gap's host-wait part and its launch delay."""
    launches, acts = {}, []
    for i, e, cat, _, args, start, dur in complete_events(path):
        if cat in ('kernel', 'gpu_memcpy', 'gpu_memset'):
            device = 'd%s' % args['device'] if 'device' in args else 'p%s' % e['pid']
            acts.append((device, start, i, start + dur, args.get('correlation')))
        elif 'runtime' in cat and isinstance(args.get('correlation'), int):
            c = args['correlation']
            launches[c] = min(start, launches.get(c, start))
    times, prev_end = {}, {}
    for device, start, i, end, corr in sorted(acts):
        t, prev = {}, prev_end.get(device)
        gap = max(0, start - prev) if prev is not None else 0
        if prev is not None:
            t['gap_ns'] = gap
        launch = launches.get(corr) if isinstance(corr, int) else None
        if launch is not None:
            t['host_wait_ns'] = min(gap, max(0, launch - prev)) if prev is not None else 0
            t['launch_delay_ns'] = max(0, start - launch)
        prev_end[device] = end if prev is None else max(prev, end)
        times[i] = t
    return times


def test_annotate_trace_carries_each_events_gap_host_wait_and_launch_delay():
    """--annotate-trace: each paired kernel event's args.sdscprov gains its gap_ns, host_wait_ns
    and launch_delay_ns, each as the trace's events give them (computed here per event)."""
    with TempDir() as tmp:
        generate(tmp, '--host-lanes', '--steps', '3', '--devices', '2', '--seed', '5')
        trace, out = os.path.join(tmp, 'trace.json'), os.path.join(tmp, 'annotated.json')
        run('profile', trace, '--origins', os.path.join(tmp, 'spyre_provenance.json'),
            '--annotate-trace', out, '-q', check_rc=0)
        want = event_times(trace)
        with open(out) as f:
            copy = json.load(f)
        annotated = first = skewed = waited = 0
        for i, e in enumerate(copy['traceEvents']):
            ours = e.get('args', {}).get('sdscprov') if isinstance(e.get('args'), dict) else None
            if not ours or 'bundle' not in ours:
                continue
            annotated += 1
            got = {k: ours[k] for k in ('gap_ns', 'host_wait_ns', 'launch_delay_ns') if k in ours}
            assert got == want[i], (i, e['name'], got, want[i])
            first += 'gap_ns' not in got
            waited += got.get('host_wait_ns', 0) > 0
            skewed += 'launch_delay_ns' in got and got['launch_delay_ns'] == 0
        # The trace has what makes each member count: several devices' first kernels (no gap),
        # gaps with host wait, kernels without a launch event, and clock skew.
        assert annotated > 100 and 0 < first <= 3 and waited > 0, (annotated, first, waited)
        assert any('launch_delay_ns' not in copy['traceEvents'][i]['args']['sdscprov']
                   for i in want if 'sdscprov' in copy['traceEvents'][i].get('args', {}))
        assert skewed > 0


if __name__ == '__main__':
    main([test_generated_host_lanes_exact_to_the_ns, test_by_idle_and_folded_values,
          test_inconsistent_submitted_is_said_and_not_used,
          test_without_runtime_events_the_report_is_as_before_unless_asked,
          test_hand_built_without_correlation_and_without_steps,
          test_hand_built_launch_delay_skew_and_host_wait,
          test_baseline_by_idle_compares_and_gates_the_idle_time,
          test_baseline_compares_the_mean_step,
          test_annotate_trace_carries_each_events_gap_host_wait_and_launch_delay])
