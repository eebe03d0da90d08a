"""End-to-end: `sdscprov profile` on traces of many distinct unpaired event names. Memory used to
grow by about 0.9 KiB per name (1 GB at a million); it is bounded: at most 10,000 unpaired groups
are kept apart (the largest by device time), the rest summed into one overflow line, at most
1,000 distinct diagnostics per code. Totals stay exact.

Expectations come from scripts/gen_unpaired_trace.py (its OUT.expected.json), never from
sdscprov's output.
"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import BIN, SCRIPTS, TempDir, main, sanitized  # noqa: E402

KEPT = 10000           # ProfileBuilder::max_unresolved_groups
DIAGNOSTICS = 1000     # distinct diagnostics kept per code


def unpaired_trace(path, events, *extra):
    subprocess.run([sys.executable, os.path.join(SCRIPTS, 'gen_unpaired_trace.py'), path,
                    '--events', str(events), '--top', '1000', *extra], check=True, timeout=600)
    with open(path + '.expected.json') as f:
        return json.load(f)


def profile_rss(tmp, *args):
    """(rc, stdout, stderr, peak RSS in MiB) of one profile run."""
    out_path, err_path = os.path.join(tmp, 'out'), os.path.join(tmp, 'err')
    with open(out_path, 'wb') as out, open(err_path, 'wb') as err:
        p = subprocess.Popen([BIN, 'profile', *args], stdout=out, stderr=err)
        _, status, usage = os.wait4(p.pid, 0)
    with open(out_path, 'rb') as out, open(err_path) as err:
        return os.waitstatus_to_exitcode(status), out.read(), err.read(), usage.ru_maxrss / 1024


def check_report(report, expected, names):
    coverage = report['coverage']
    assert coverage['kernel_events'] == expected['kernel_events'], coverage
    assert coverage['kernel_ns'] == expected['kernel_ns'], coverage
    assert coverage['resolved_events'] == 0
    bundles = report['bundles']
    # Every event in exactly one bundle, every nanosecond counted once.
    assert sum(b['events'] for b in bundles) == expected['kernel_events']
    assert sum(b['device_ns'] for b in bundles) == expected['kernel_ns']
    other = [b for b in bundles if b['event_name'].startswith('(other unpaired events')]
    kept = {b['event_name']: b for b in bundles if not b['event_name'].startswith('(')}
    assert len(other) == 1 and len(kept) == KEPT, (len(other), len(kept))
    # The largest names are kept apart, each with its own exact time.
    for name, ns in expected['largest']:
        assert name in kept, name
        assert (kept[name]['device_ns'], kept[name]['events']) == (ns, 1), kept[name]
    # The overflow line gives its names' count: a lower bound of what it holds.
    m = re.fullmatch(r'\(other unpaired events: at least (\d+) names\)', other[0]['event_name'])
    assert m, other[0]['event_name']
    assert 0.9 * (names - KEPT) <= int(m.group(1)) <= names - KEPT, (m.group(1), names)
    assert other[0]['events'] == names - KEPT
    by_code = {}
    for d in report['diagnostics']:
        by_code[d['code']] = by_code.get(d['code'], 0) + 1
    assert by_code and all(n <= DIAGNOSTICS + 1 for n in by_code.values()), by_code
    # The diagnostics' events still count every event once per code.
    for code in by_code:
        assert sum(d['events'] for d in report['diagnostics'] if d['code'] == code) == names, code


def test_distinct_unpaired_names_in_bounded_memory():
    with TempDir() as tmp:
        gen = os.path.join(tmp, 'gen')
        subprocess.run([sys.executable, os.path.join(SCRIPTS, 'gen_trace.py'), gen], check=True,
                       capture_output=True, timeout=600)
        sidecar = os.path.join(gen, 'spyre_provenance.json')
        peaks, reports = {}, []
        for events in (100000, 250000):
            trace = os.path.join(tmp, f'unpaired-{events}.json')
            expected = unpaired_trace(trace, events)
            rc, out, err, peak = profile_rss(tmp, trace, '--origins', sidecar, '--format', 'json',
                                             '-j', '2')
            assert rc == 0, err
            reports.append((out, err, expected, events))
            peaks[events] = peak
            os.unlink(trace)
        growth = peaks[250000] - peaks[100000]
        print(f'peak RSS: {peaks[100000]:.1f} MiB at 100,000 names, {peaks[250000]:.1f} MiB at '
              f'250,000 ({growth * 1024 * 1024 / 150000:.0f} bytes per added name)')
        if not sanitized():  # AddressSanitizer's quarantine holds freed memory
            # 0.9 KiB a name was 130 MiB more for the 150,000 added names.
            assert growth < 24, peaks
        for out, err, expected, events in reports:
            check_report(json.loads(out), expected, events)
            # Standard error: at most 10 lines per code and one "more" line.
            assert len(err.splitlines()) <= 12, err
        # Names that do not parse: the same bounds.
        trace = os.path.join(tmp, 'unparsable.json')
        expected = unpaired_trace(trace, 30000, '--unparsable')
        rc, out, err, _ = profile_rss(tmp, trace, '--origins', sidecar, '--format', 'json')
        assert rc == 0, err
        check_report(json.loads(out), expected, 30000)

if __name__ == '__main__':
    main([test_distinct_unpaired_names_in_bounded_memory])
