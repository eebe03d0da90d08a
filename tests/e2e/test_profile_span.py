"""End-to-end tests of profile's host spans and `--span REGEX`: the real binary on traces
scripts/gen_trace.py writes with --host-lanes (prefill and decode spans, launch_jobplan: and
prepare_kernel: spans, written after the device events they hold) and on hand-built ones.

Every expected figure is computed here from the trace's own events (read back with exact
decimals), with the rules of docs/profile.md ("The time between kernels", "--span").
"""
import decimal
import json
import os
import re
import shlex
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import SCRIPTS, TempDir, main, run  # noqa: E402

IDLE_KEYS = ('gaps', 'idle_ns', 'host_wait_ns', 'launch_latency_ns', 'unattributed_ns')


def ns_of(value):
    """Integer nanoseconds of a JSON number of microseconds, rounded half away from zero."""
    return int((decimal.Decimal(value) * 1000).quantize(decimal.Decimal(1),
                                                        decimal.ROUND_HALF_UP))


def idle_zero():
    return {k: 0 for k in IDLE_KEYS}


def idle_add(into, gap, launch, prev_end):
    if gap == 0:
        return
    into['gaps'] += 1
    into['idle_ns'] += gap
    if launch is None:
        into['unattributed_ns'] += gap
    else:
        wait = min(gap, max(0, launch - prev_end))
        into['host_wait_ns'] += wait
        into['launch_latency_ns'] += gap - wait


def model(path, pattern=None):
    """What profile must give of the trace at `path` (with --span `pattern`): the host spans, the
    kept activities' figures, and each kept kernel event's time by its name without #step."""
    with open(path) as f:
        doc = json.load(f, parse_float=decimal.Decimal)
    spans, launches, acts = [], {}, []
    for seq, e in enumerate(doc['traceEvents']):
        if e.get('ph') != 'X' or 'ts' not in e or 'dur' not in e:
            continue
        cat, name, args = e.get('cat', ''), e.get('name', ''), e.get('args', {})
        start, dur = ns_of(e['ts']), ns_of(e['dur'])
        if cat == 'user_annotation' and name and not name.startswith('ProfilerStep#'):
            spans.append((name, start, start + dur))
        elif cat in ('kernel', 'gpu_memcpy', 'gpu_memset'):
            device = 'd%s' % args['device'] if 'device' in args else 'p%s' % e['pid']
            acts.append((device, start, start + dur, seq, cat != 'kernel',
                         args.get('correlation'), name.split('#')[0]))
        elif ('runtime' in cat or cat == 'cuda_driver') and isinstance(args.get('correlation'),
                                                                       int):
            c = args['correlation']
            launches[c] = min(start, launches.get(c, start))
    matches = {n: pattern is not None and re.search(pattern, n) is not None
               for n, _, _ in spans}
    rows = {}
    for n, _, _ in spans:
        rows.setdefault(n, {'name': n, 'occurrences': 0, 'matches': matches[n], 'activities': 0,
                            'kernels': 0, 'kernel_ns': 0, 'idle': idle_zero()})
        rows[n]['occurrences'] += 1
    out = {'seen': len(acts), 'kept': 0, 'kernel_events': 0, 'kernel_ns': 0, 'idle': idle_zero(),
           'by_name': {}, 'matching': sum(1 for n, _, _ in spans if matches[n])}
    by_device = {}
    for a in acts:
        by_device.setdefault(a[0], []).append(a)
    for device, items in by_device.items():
        items.sort(key=lambda a: (a[1], a[2], a[3]))
        prev_end = None
        for _, start, end, _, transfer, corr, base in items:
            launch = launches.get(corr) if isinstance(corr, int) else None
            at = launch if launch is not None else start
            holding = {n for n, s, e in spans if s <= at < e}
            kept = pattern is None or any(matches[n] for n in holding)
            gap = 0 if prev_end is None else max(0, start - prev_end)
            if kept:
                out['kept'] += 1
                g = idle_zero()
                if prev_end is not None:
                    idle_add(g, gap, launch, prev_end)
                for k in IDLE_KEYS:
                    out['idle'][k] += g[k]
                for n in holding:
                    r = rows[n]
                    r['activities'] += 1
                    for k in IDLE_KEYS:
                        r['idle'][k] += g[k]
                    if not transfer:
                        r['kernels'] += 1
                        r['kernel_ns'] += end - start
                if not transfer:
                    out['kernel_events'] += 1
                    out['kernel_ns'] += end - start
                    out['by_name'][base] = out['by_name'].get(base, 0) + end - start
            prev_end = end if prev_end is None else max(prev_end, end)
    out['rows'] = rows
    out['spans'] = len(spans)
    return out


def profile_json(trace, *args):
    _, out, err = run('profile', trace, *args, '--format', 'json', check_rc=0)
    return json.loads(out), err


def check_report(want, report, pattern):
    """The report's figures against the model's."""
    f = report['span_filter']
    assert f['pattern'] == pattern, f
    assert (f['host_spans'], f['matching_spans'], f['activities'], f['kept_activities'],
            f['late_spans']) == (want['spans'], want['matching'], want['seen'], want['kept'],
                                 0), (f, want)
    got_rows = {r['name']: r for r in report['spans']}
    assert got_rows == want['rows'], [(n, got_rows.get(n), r) for n, r in want['rows'].items()
                                      if got_rows.get(n) != r]
    # The rows come by kernel time, then activities, then name.
    order = [r['name'] for r in report['spans']]
    assert order == sorted(order, key=lambda n: (-want['rows'][n]['kernel_ns'],
                                                 -want['rows'][n]['activities'], n))
    assert report['coverage']['kernel_events'] == want['kernel_events']
    assert report['coverage']['kernel_ns'] == want['kernel_ns']
    t = report['timeline']
    assert t['activities'] == want['kept'] and t['idle'] == want['idle'], (t['idle'],
                                                                          want['idle'])
    got = {}
    for b in report['bundles']:
        base = b['event_name'].split('#')[0]
        got[base] = got.get(base, 0) + b['device_ns']
    assert {k: v for k, v in got.items() if v} == want['by_name'], 'bundles device time'
    # Every kernel row is one bundle; the source line and ATen op rows add up their bundles.
    assert sum(r['device_ns'] for r in report['by_kernel']) == want['kernel_ns']


def generate(out, *args):
    subprocess.run([sys.executable, os.path.join(SCRIPTS, 'gen_trace.py'), out, '--files', '80',
                    *args], check=True, capture_output=True, timeout=600)


def test_generated_spans_and_span_decode_exact_to_the_ns():
    with TempDir() as tmp:
        generate(tmp, '--host-lanes', '--steps', '3', '--devices', '2')
        trace = os.path.join(tmp, 'trace.json')
        origins = os.path.join(tmp, 'spyre_provenance.json')
        # Without --span: every activity, the table of every span name.
        whole = model(trace)
        report, _ = profile_json(trace, '--origins', origins)
        check_report(whole, report, None)
        assert whole['rows']['decode']['kernel_ns'] > 0 and whole['rows']['prefill']['kernels']
        assert any(r['activities'] == 0 for r in whole['rows'].values())  # prepare_kernel:
        # --span decode: the spans are written after their iteration's device events.
        want = model(trace, 'decode')
        assert 0 < want['kept'] < want['seen'] and want['matching'] == 3
        report, _ = profile_json(trace, '--origins', origins, '--span', 'decode')
        check_report(want, report, 'decode')
        assert want['kernel_ns'] == want['rows']['decode']['kernel_ns']
        assert want['idle']['host_wait_ns'] > 0
        # The text: the header's line, and the table's top row.
        _, text, _ = run('profile', trace, '--origins', origins, '--span', 'decode',
                         check_rc=0)
        flat = ' '.join(text.split())
        assert ("--span 'decode': {:,} of {:,} device activities, in 3 spans matching".format(
            want['kept'], want['seen'])) in flat, text
        lines = text.splitlines()
        at = lines.index('Host spans by the device time they launched')
        top = max(want['rows'].values(), key=lambda r: (r['kernel_ns'], r['activities']))
        ms = '%d.%03d' % divmod((top['kernel_ns'] + 500) // 1000, 1000)
        cells = lines[at + 3].split()
        assert cells[0] == ms and cells[-1] == top['name'], (lines[at + 3], top)
        assert cells[3] == '{:,}'.format(top['activities']), lines[at + 3]
        # The next command drills into the same part of the trace.
        nxt = [l for l in lines if l.startswith('next: ')][0]
        assert ' --span decode' in nxt, nxt
        words = shlex.split(nxt)[3:]
        _, drilled, _ = run('profile', *words, check_rc=0)
        assert ("--span 'decode': {:,} of".format(want['kept'])) in drilled, drilled


def hand_events():
    """One device; spans (us): model [0, 1000) holding prefill [0, 300) and decode [300, 900),
    decode holding attn [350, 500) which holds attn again [360, 380) (recursion: once per name),
    empty [950, 960) holding no launch; kernels launched in them, one launched in decode that runs
    after it ends, one without a launch event (its own start), one launched in no span."""
    key = 'abcdefghijklmnop'
    name = 'spyre_kernel_v1_fused_add_%s#%%d' % key
    ev = []

    def span(n, ts, dur):
        ev.append({'ph': 'X', 'cat': 'user_annotation', 'name': n, 'pid': 9, 'tid': 9,
                   'ts': ts, 'dur': dur})

    def kernel(i, ts, dur, launch=None):
        args = {'device': 0}
        if launch is not None:
            args['correlation'] = i
            ev.append({'ph': 'X', 'cat': 'cuda_runtime', 'name': 'aiuLaunchControlBlocks',
                       'pid': 9, 'tid': 9, 'ts': launch, 'dur': 1, 'args': {'correlation': i}})
        ev.append({'ph': 'X', 'cat': 'kernel', 'name': name % i, 'pid': 1, 'tid': 0, 'ts': ts,
                   'dur': dur, 'args': args})

    kernel(1, 10, 20, launch=5)          # prefill
    kernel(2, 100, 50, launch=90)        # prefill
    kernel(3, 320, 10, launch=310)       # decode
    kernel(4, 355.5, 4.25, launch=352)   # decode, attn
    kernel(5, 365, 5, launch=362)        # decode, attn (twice)
    kernel(6, 910, 30, launch=880)       # launched in decode, runs after it
    kernel(7, 600, 10)                   # no launch: its own start, decode
    kernel(8, 1200, 10, launch=1100)     # in no span
    ev.append({'ph': 'X', 'cat': 'gpu_memcpy', 'name': 'Memcpy (HtoD)', 'pid': 1, 'tid': 100,
               'ts': 400, 'dur': 50, 'args': {'device': 0, 'correlation': 9, 'bytes': 10}})
    ev.append({'ph': 'X', 'cat': 'cuda_runtime', 'name': 'aiuDataTransferHtoD', 'pid': 9,
               'tid': 9, 'ts': 395, 'dur': 1, 'args': {'correlation': 9}})
    # after the device events, as torch.profiler's ProfilerStep spans come
    span('model', 0, 1000)
    span('prefill', 0, 300)
    span('decode', 300, 600)
    span('attn', 350, 150)
    span('attn', 360, 20)
    span('empty', 950, 10)
    ev.append({'ph': 'X', 'cat': 'cpu_op', 'name': 'aten::add', 'pid': 9, 'tid': 9, 'ts': 0,
               'dur': 2000})   # a CPU op: not a span
    return ev


def hand_trace(tmp, events):
    trace = os.path.join(tmp, 'trace.json')
    with open(trace, 'w') as f:
        json.dump({'traceEvents': events}, f)
    cache = os.path.join(tmp, 'cache')
    os.mkdir(cache)
    return trace, cache


def test_hand_built_nested_spans_and_filters():
    with TempDir() as tmp:
        trace, cache = hand_trace(tmp, hand_events())
        whole = model(trace)
        report, _ = profile_json(trace, cache)
        check_report(whole, report, None)
        rows = whole['rows']
        # what the trace was built to hold
        assert rows['attn']['occurrences'] == 2 and rows['attn']['kernels'] == 2
        assert rows['decode']['activities'] == 6 and rows['model']['activities'] == 8
        assert rows['empty']['activities'] == 0 and 'aten::add' not in rows
        assert rows['attn']['kernel_ns'] == 4250 + 5000
        for pattern in ('attn', 'decode|prefill', '^de', 'e'):
            want = model(trace, pattern)
            report, _ = profile_json(trace, cache, '--span', pattern)
            check_report(want, report, pattern)
        # HTML says what was kept in its summary.
        _, page, _ = run('profile', trace, cache, '--span', 'attn', '--format', 'html',
                         check_rc=0)
        assert '3 of 9 device activities, in 2 spans matching' in page
        # attn alone: two kernels and the copy launched in it; the gap before the first kernel
        # runs from the end of the decode kernel before it, which is not kept
        want = model(trace, 'attn')
        assert want['kept'] == 3 and want['idle']['idle_ns'] == \
            (355500 - 330000) + (365000 - 359750) + (400000 - 370000)
        assert want['idle']['host_wait_ns'] == (352000 - 330000) + (362000 - 359750) + \
            (395000 - 370000)


def test_span_matching_nothing_says_so():
    with TempDir() as tmp:
        trace, cache = hand_trace(tmp, hand_events())
        rc, text, err = run('profile', trace, cache, '--span', 'nowhere')
        assert rc == 0, err
        flat = ' '.join(text.split())
        assert ("--span 'nowhere': no host span's name matches it (6 host spans in the trace): "
                "no device activity is kept, nothing to report") in flat, text
        assert 'Source lines by device time' not in text and 'Host spans' not in text
        # The kernel events are there, --span kept none: no hint on how to record them.
        assert 'no device kernel event' not in text and 'no torch-spyre kernel' not in text, text
        # A matching span that launched nothing: said too.
        rc, text, _ = run('profile', trace, cache, '--span', '^empty$')
        assert rc == 0
        assert ("--span '^empty$': 1 host span matches, and no device activity was launched "
                "inside one: nothing to report") in ' '.join(text.split()), text
        assert 'no device kernel event' not in text and 'no torch-spyre kernel' not in text, text
        report, _ = profile_json(trace, cache, '--span', 'nowhere')
        assert report['span_filter']['kept_activities'] == 0
        assert report['coverage']['kernel_events'] == 0 and report['timeline']['activities'] == 0


def test_bad_regex_and_what_span_does_not_take():
    with TempDir() as tmp:
        trace, cache = hand_trace(tmp, hand_events())
        rc, out, err = run('profile', trace, cache, '--span', 'de(code')
        assert rc == 2 and out == '' and '--span' in err and 'regular expression' in err, err
        second = os.path.join(tmp, 'trace2.json')
        with open(second, 'w') as f:
            json.dump({'traceEvents': hand_events()}, f)
        rc, out, err = run('profile', trace, second, cache, '--span', 'decode')
        assert rc == 2 and '--span takes one trace' in err, err
        rc, out, err = run('profile', trace, cache, '--span', 'decode', '--annotate-trace',
                           os.path.join(tmp, 'out.json'))
        assert rc == 2 and '--annotate-trace' in err, err
        assert not os.path.exists(os.path.join(tmp, 'out.json'))
        # --baseline: both runs filtered alike (the same trace: no change at all)
        rc, out, err = run('profile', trace, cache, '--baseline', second, '--span', 'attn',
                           '--format', 'json')
        assert rc == 0, err
        doc = json.loads(out)
        want = model(trace, 'attn')
        for run_ in ('base', 'new'):
            assert doc[run_]['kernel_ns'] == want['kernel_ns'], doc[run_]
            assert doc[run_]['span'] == {'pattern': 'attn', 'matching_spans': 2,
                                         'activities': want['seen'],
                                         'kept_activities': want['kept'], 'late_spans': 0}
        _, text, _ = run('profile', trace, cache, '--baseline', second, '--span', 'attn',
                         check_rc=0)
        assert "\n  --span 'attn' in both runs: base 3 of 9 activities in 2 spans, new 3 of 9" \
            in text, text


def test_trace_without_spans():
    events = [e for e in hand_events() if e['cat'] != 'user_annotation']
    with TempDir() as tmp:
        trace, cache = hand_trace(tmp, events)
        report, _ = profile_json(trace, cache)
        assert 'spans' not in report and 'span_filter' not in report
        _, text, _ = run('profile', trace, cache, check_rc=0)
        assert 'Host spans' not in text and '--span' not in text.split('next:')[0]
        rc, text, _ = run('profile', trace, cache, '--span', 'decode')
        assert rc == 0 and "no host span's name matches it (0 host spans in the trace)" in \
            ' '.join(text.split()), text


def test_a_span_after_its_activities_left_the_window_is_late():
    """More activities than the window holds (8,192 per device) before the span that holds the
    first of them: those were counted without it; the span is said to be late."""
    key = 'abcdefghijklmnop'
    events = [{'ph': 'X', 'cat': 'kernel', 'name': 'spyre_kernel_v1_fused_add_%s#1' % key,
               'pid': 1, 'tid': 0, 'ts': 10 * i, 'dur': 5} for i in range(9000)]
    events.append({'ph': 'X', 'cat': 'user_annotation', 'name': 'early', 'pid': 9, 'tid': 9,
                   'ts': 0, 'dur': 100})
    with TempDir() as tmp:
        trace, cache = hand_trace(tmp, events)
        # Without a runtime launch event the timeline, and with it the spans, is not shown
        # unless asked (--by idle).
        report, _ = profile_json(trace, cache)
        assert 'spans' not in report and 'span_filter' not in report
        report, _ = profile_json(trace, cache, '--by', 'idle')
        assert report['span_filter']['late_spans'] == 1
        _, text, _ = run('profile', trace, cache, '--by', 'idle', check_rc=0)
        assert '1 host span came after activities at or after their start had been counted' in \
            ' '.join(text.split()), text


def test_span_names_reach_no_terminal_as_control_sequences():
    events = hand_events()
    for e in events:
        if e.get('name') == 'decode':
            e['name'] = 'de\x1b[31mcode\x07'
    with TempDir() as tmp:
        trace, cache = hand_trace(tmp, events)
        _, text, _ = run('profile', trace, cache, '--span', 'code', check_rc=0)
        assert '\x1b' not in text and '\x07' not in text
        assert 'de?[31mcode?' in text, text
        report, _ = profile_json(trace, cache)
        assert 'de\x1b[31mcode\x07' in {r['name'] for r in report['spans']}


if __name__ == '__main__':
    main([test_generated_spans_and_span_decode_exact_to_the_ns,
          test_hand_built_nested_spans_and_filters,
          test_span_matching_nothing_says_so,
          test_bad_regex_and_what_span_does_not_take,
          test_trace_without_spans,
          test_a_span_after_its_activities_left_the_window_is_late,
          test_span_names_reach_no_terminal_as_control_sequences])
