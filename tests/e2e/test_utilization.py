"""End-to-end tests of profile's utilization: device time against the compiler's ideal cycles.

The cache and trace come from scripts/gen_trace.py --ideal-cycles (its cache written by
scripts/gen_cache.py, whose manifest says what each kernel directory's perf/ideal_cycles.json
gives: TOTAL and no-TOTAL files, missing and malformed ones). Every expected figure is computed
here, from that manifest and from the trace's events as this test reads them (durations taken
from their decimal text), never from sdscprov's output.
"""
import decimal
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import BIN, SCRIPTS, TempDir, main, run  # noqa: E402

sys.path.insert(0, SCRIPTS)
import gen_cache  # noqa: E402

# path:line:col, or the path alone for a file that could not be read at all.
LINE = re.compile(r'^(?P<path>[^\n]*?)(?::(?P<line>\d+):(?P<col>\d+))?: '
                  r'(?P<severity>error|warning|note): (?P<message>.*) \[(?P<code>[a-z0-9-]+)\]$')
NO_IDEAL, NO_CATEGORY, UNRESOLVED = '[no ideal]', '[no category]', '[unresolved]'


def diagnostics(stderr):
    return [m.groupdict() for m in map(LINE.match, stderr.splitlines()) if m]


class Generated:
    """A generated trace and cache with ideal files, and what the test reads from them."""

    def __init__(self, out, *extra):
        subprocess.run([sys.executable, os.path.join(SCRIPTS, 'gen_trace.py'), out,
                        '--ideal-cycles', '0.8', '--ideal-malformed', '0.2', *extra],
                       check=True, capture_output=True, timeout=600)
        self.out = out
        self.trace = os.path.join(out, 'trace.json')
        self.cache = os.path.join(out, 'cache')
        self.sidecar = os.path.join(out, 'spyre_provenance.json')
        with open(os.path.join(out, 'expected.json')) as f:
            self.expected = json.load(f)
        with open(os.path.join(out, 'cache_manifest.json')) as f:
            self.ideal_of = {d['dir']: d['ideal'] for d in json.load(f)['kernel_dirs']}
        with open(self.sidecar) as f:
            side = json.load(f)
        self.lines, self.ops = {}, {}
        for key, identity in side['kernelIdentities'].items():
            lines, ops = set(), set()

            def walk(hid):
                h = side['handles'][hid]
                if h['source'] is not None:
                    lines.add((h['source']['file'], h['source']['start_line']))
                if h['aten_op'] is not None:
                    ops.add(h['aten_op'])
                for child in h['fused_from']:
                    walk(child)
            for hid in identity['directHandleIds']:
                walk(hid)
            self.lines[key] = ['%s:%d' % l for l in sorted(lines)]
            # Every direct handle a compiler-generated op's (source null, a source-less pass):
            # "[compiler-generated]" instead of "[no source]" (docs/formats.md).
            direct = [side['handles'][hid] for hid in identity['directHandleIds']]
            if not lines and direct and all(
                    h['source'] is None and any(
                        t['pass_name'] in ('insert_restickify', 'insert_post_mutation_restickify',
                                           'insert_bmm_padding')
                        for t in h.get('transform_history') or []) for h in direct):
                self.lines[key] = ['[compiler-generated]']
            self.ops[key] = sorted(ops)
        # The kernel events: (key, dur in ns, whether it carries args.debug_handles).
        with open(self.trace) as f:
            doc = json.load(f, parse_float=decimal.Decimal, parse_int=decimal.Decimal)
        self.events = []
        for e in doc['traceEvents']:
            name = e.get('name', '')
            if e.get('ph') != 'X' or not name.startswith('spyre_kernel_v1_'):
                continue
            ns = int((decimal.Decimal(e['dur']) * 1000).quantize(
                decimal.Decimal(1), rounding=decimal.ROUND_HALF_UP))
            self.events.append((name.split('#')[0][-16:], ns, 'debug_handles' in e.get('args', {})))

    def rows_of(self, pairing):
        """key -> (kernel row label, its directories) of the paired bundles."""
        return {r['key']: (label, r['dirs'])
                for label, r in self.expected[pairing]['kernel_rows'].items() if r['key']}

    def compute(self, pairing, mhz=gen_cache.DEFAULT_CORE_MHZ):
        """The utilization every row must show, from the manifest and the events."""
        rows = self.rows_of(pairing)
        bundle_ideal = {}
        dirs_seen = {}
        for key, (_, dirs) in rows.items():
            bundle_ideal[key] = None
            for d in dirs:   # the first directory (walk order: sorted here) with an ideal
                state = self.ideal_of[d]
                dirs_seen[d] = state
                if state['state'] == 'ok':
                    bundle_ideal[key] = state
                    break
        tables = {'by_line': {}, 'by_aten': {}, 'by_kernel': {}, 'by_category': {}}
        total = zero()
        over = {}
        for key, ns, with_handles in self.events:
            paired = key in rows and (pairing != 'caches' or with_handles)
            ideal = bundle_ideal.get(key) if paired else None
            u = zero()
            if ideal is not None:
                i = gen_cache.ideal_ns(ideal['cycles'], mhz)
                u = {'events': 1, 'measured_ns': ns, 'ideal_ns': i, 'lost_ns': max(0, ns - i),
                     'over_100_events': int(i > ns)}
                over[key] = over.get(key, 0) + u['over_100_events']
            add(total, u)
            if paired:
                category = (NO_IDEAL if ideal is None else ideal['category'] or NO_CATEGORY)
                labels = {'by_line': self.lines[key] or ['[no source]'],
                          'by_aten': self.ops[key] or ['[no aten op]'],
                          'by_kernel': [rows[key][0]], 'by_category': [category]}
            else:
                labels = {'by_line': [UNRESOLVED], 'by_aten': [UNRESOLVED],
                          'by_kernel': [None], 'by_category': [UNRESOLVED]}
            for table, names in labels.items():
                for name in names:
                    if name is not None:
                        add(tables[table].setdefault(name, zero()), u)
        return {'tables': tables, 'total': total, 'bundle_ideal': bundle_ideal,
                'dirs': dirs_seen, 'over': {k: n for k, n in over.items() if n}}


def zero():
    return {'events': 0, 'measured_ns': 0, 'ideal_ns': 0, 'lost_ns': 0, 'over_100_events': 0}


def add(into, u):
    for k in into:
        into[k] += u[k]


def ratio(u):
    return u['ideal_ns'] / u['measured_ns'] if u['events'] and u['measured_ns'] else None


def utilization_of(row):
    u = dict(row['utilization'])
    return u.pop('ratio'), u


def check_report(g, report, want, mhz):
    assert report['ideal']['core_mhz'] == mhz
    for table, rows in want['tables'].items():
        # Rows whose events carry no ideal (unpaired, or no file) show zeros: compared as absent.
        got = {}
        for row in report[table]:
            r, u = utilization_of(row)
            assert r == ratio(u), (table, row['label'], r, ratio(u))
            if u != zero():
                got[row['label']] = u
        want_rows = {label: u for label, u in rows.items() if u != zero()}
        assert want_rows, table
        assert got == want_rows, (table, {k: (got.get(k), want_rows.get(k))
                                          for k in set(got) | set(want_rows)
                                          if got.get(k) != want_rows.get(k)})
    r, u = utilization_of(report['ideal'])
    assert u == want['total'], (u, want['total'])
    assert r == ratio(want['total'])
    # Each bundle's ideal: its directory, cycles, rule and category, as the manifest has them.
    for b in report['bundles']:
        if b['paired_by'] == 'unresolved':
            assert b['ideal'] is None
            continue
        ideal = want['bundle_ideal'][b['key']]
        if ideal is None:
            assert b['ideal'] is None, b
        else:
            assert {k: b['ideal'][k] for k in ('cycles', 'rule', 'category')} == \
                {k: ideal[k] for k in ('cycles', 'rule', 'category')}, (b['ideal'], ideal)
            assert b['ideal']['ns'] == gen_cache.ideal_ns(ideal['cycles'], mhz)
    dirs = report['ideal']['kernel_dirs']
    states = list(want['dirs'].values())
    assert dirs == {'read': len(states),
                    'by_total': sum(s.get('rule') == 'total' for s in states),
                    'by_sum': sum(s.get('rule') == 'sum' for s in states),
                    'malformed': sum(s['state'] == 'malformed' for s in states),
                    'absent': sum(s['state'] == 'absent' for s in states)}, dirs
    # util-over-100: one warning per bundle with such events, counting them.
    over = {d['message'].split(' ns (')[0]: d for d in report['diagnostics']
            if d['code'] == 'util-over-100'}
    assert sum(d['events'] for d in over.values()) == want['total']['over_100_events']
    assert len(over) == len(want['over'])


def profile_json(g, *args):
    rc, out, err = run('profile', g.trace, *args, '--format', 'json', check_rc=0)
    return json.loads(out), err


# ---- tests --------------------------------------------------------------------------------------

def test_rows_exact_against_the_manifest():
    with TempDir() as tmp:
        g = Generated(tmp)
        want = g.compute('both')
        # The data holds what the rules must be checked on.
        states = list(want['dirs'].values())
        for rule in ('total', 'sum'):
            assert any(s.get('rule') == rule for s in states), rule
        assert any(s['state'] == 'absent' for s in states)
        assert any(s['state'] == 'malformed' for s in states)
        assert want['total']['over_100_events'] > 0
        assert 0 < want['total']['events'] < len(g.events)
        report, err = profile_json(g, g.cache, '--origins', g.sidecar)
        check_report(g, report, want, 1100)
        # The cache alone: events without args.debug_handles are unpaired and carry no ideal.
        report, _ = profile_json(g, g.cache)
        check_report(g, report, g.compute('caches'), 1100)


def test_core_mhz():
    with TempDir() as tmp:
        g = Generated(tmp, '--seed', '3')
        for mhz in (2000, 1, 733):
            report, _ = profile_json(g, g.cache, '--origins', g.sidecar, '--core-mhz', str(mhz))
            check_report(g, report, g.compute('both', mhz), mhz)
        _, text, _ = run('profile', g.trace, g.cache, '--origins', g.sidecar, '--core-mhz', '733',
                         check_rc=0)
        assert 'ideal (core clock 733 MHz)' in text, text[:2000]
        # Most kernels over 100 %: the clock that makes the median kernel's utilization 100 %
        # (utilization scales as 1 / MHz), said in the header; not said otherwise.
        for mhz in (1, 733, 1000000):
            kernels = [u for u in g.compute('both', mhz)['tables']['by_kernel'].values()
                       if u['events'] and u['measured_ns']]
            utils = sorted(u['ideal_ns'] / u['measured_ns'] for u in kernels)
            n = len(utils)
            median = utils[n // 2] if n % 2 else (utils[n // 2 - 1] + utils[n // 2]) / 2
            _, text, _ = run('profile', g.trace, g.cache, '--origins', g.sidecar, '--core-mhz', str(mhz),
                             check_rc=0)
            said = [line for line in text.splitlines() if 'makes the median 100%' in line]
            if sum(u > 1 for u in utils) * 2 > n:
                want = (f'  most kernels ran faster than their ideal at {mhz} MHz (median utilization '
                        f'{median * 100:.0f}%): --core-mhz {int(mhz * median + 0.5)} makes the median 100%')
                assert said == [want], (mhz, said, want)
            else:
                assert said == [], (mhz, said)
        assert not said, 'no clock without a suggestion was tried'
        _, text, _ = run('profile', g.trace, '--origins', g.sidecar, check_rc=0)
        assert 'ideal (core clock 1100 MHz): no paired kernel directory' in text, text[:2000]
        for bad in ('0', '1.5', '-3', 'fast', '1000001'):
            rc, _, err = run('profile', g.trace, g.cache, '--core-mhz', bad)
            assert rc == 2, (bad, rc, err)
            assert 'core-mhz' in err, err


def test_util_over_100_and_malformed_warnings():
    with TempDir() as tmp:
        g = Generated(tmp)
        want = g.compute('both')
        rc, _, err = run('profile', g.trace, g.cache, '--origins', g.sidecar, '--quiet')
        assert rc == 0 and err == '', err
        rc, text, err = run('profile', g.trace, g.cache, '--origins', g.sidecar, check_rc=0)
        found = diagnostics(err)
        over = [d for d in found if d['code'] == 'util-over-100']
        assert over and all(d['severity'] == 'warning' and d['path'] == g.trace for d in over)
        assert min(len(want['over']), 10) == len(over), (len(want['over']), len(over))
        # Each malformed file of a paired directory: warned at its line:col, its kernel skipped.
        bad = {(os.path.join(g.cache, d, 'perf', 'ideal_cycles.json'), s['line'], s['col'])
               for d, s in want['dirs'].items() if s['state'] == 'malformed'}
        warned = {(d['path'], int(d['line']), int(d['col'])) for d in found
                  if d['code'] == 'bad-ideal-cycles'}
        assert bad and warned == bad, (warned, bad)
        assert all(d['message'].endswith('the kernel has no ideal') for d in found
                   if d['code'] == 'bad-ideal-cycles')
        assert '%d events over 100%%' % want['total']['over_100_events'] in text, text[:3000]


def test_text_columns_and_order_by_lost():
    with TempDir() as tmp:
        g = Generated(tmp)
        want = g.compute('both')
        _, text, _ = run('profile', g.trace, g.cache, '--origins', g.sidecar, '--top', '0',
                         '--by', 'kernel,lost', check_rc=0)
        assert 'Kernels by time lost against the ideal' in text
        lost = {label: u for label, u in want['tables']['by_kernel'].items()}
        for b in json.loads(run('profile', g.trace, g.cache, '--origins', g.sidecar, '--format',
                                'json', check_rc=0)[1])['by_kernel']:
            lost.setdefault(b['label'], zero())   # rows of no ideal: '-'
        shown = []
        for line in text.splitlines():
            cells = line.split()
            if len(cells) == 7 and cells[0].replace('.', '').replace(',', '').isdigit():
                shown.append((cells[6], cells[5]))
        assert len(shown) == len(lost), (shown, lost)
        for label, cell in shown:
            u = lost[label]
            if u['events']:
                assert cell == ms(u['lost_ns']), (label, cell, u)
            else:
                assert cell == '-'
        order = [lost[label]['lost_ns'] for label, _ in shown]
        assert order == sorted(order, reverse=True), order
        _, text, _ = run('profile', g.trace, g.cache, '--origins', g.sidecar, '--top', '0',
                         check_rc=0)
        assert 'Kernel categories by device time' in text
        assert 'ideal (ms)  util %   lost (ms)  source line' in text
        for category in want['tables']['by_category']:
            assert category in text, category
        total = want['total']
        assert 'utilization: ideal %s ms / measured %s ms' % (
            ms(total['ideal_ns']), ms(total['measured_ns'])) in text, text[:1500]


def ms(ns):
    us = (ns + 500) // 1000
    return '{:,}.{:03d}'.format(us // 1000, us % 1000)


def test_folded_values():
    with TempDir() as tmp:
        g = Generated(tmp)
        want = g.compute('both')
        report, _ = profile_json(g, g.cache, '--origins', g.sidecar)
        stack_of = {b['key']: b['folded'] for b in report['bundles']}
        per_key = {}
        for key, ns, _ in g.events:
            ideal = want['bundle_ideal'].get(key)
            if ideal is not None:
                i = gen_cache.ideal_ns(ideal['cycles'])
                v = per_key.setdefault(key, [0, 0])
                v[0] += i
                v[1] += max(0, ns - i)
        for value, index in (('ideal', 0), ('lost', 1)):
            _, folded, _ = run('profile', g.trace, g.cache, '--origins', g.sidecar, '--format',
                               'folded', '--value', value, check_rc=0)
            stacks = {}
            for key, v in per_key.items():
                if v[index]:
                    stacks[stack_of[key]] = stacks.get(stack_of[key], 0) + v[index]
            got = {line.rsplit(' ', 1)[0]: int(line.rsplit(' ', 1)[1])
                   for line in folded.splitlines()}
            assert got == stacks, value
        rc, _, _ = run('profile', g.trace, g.cache, '--format', 'folded', '--value', 'cycles')
        assert rc == 2


def test_unsafe_ideal_files_are_warned_not_read():
    with TempDir() as tmp:
        g = Generated(tmp)
        want = g.compute('both')
        ok = sorted(d for d, s in want['dirs'].items() if s['state'] == 'ok')
        assert len(ok) >= 2
        fifo = os.path.join(g.cache, ok[0], 'perf', 'ideal_cycles.json')
        os.remove(fifo)
        os.mkfifo(fifo)
        link = os.path.join(g.cache, ok[1], 'perf', 'ideal_cycles.json')
        shutil.move(link, link + '.real')
        os.symlink('ideal_cycles.json.real', link)
        p = subprocess.run([BIN, 'profile', g.trace, g.cache, '--origins', g.sidecar, '--format',
                            'json'], capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        warned = {d['path']: d['message'] for d in diagnostics(p.stderr)
                  if d['code'] == 'bad-ideal-cycles'}
        assert 'is a fifo' in warned.get(fifo, ''), warned
        assert 'symbolic link' in warned.get(link, ''), warned
        report = json.loads(p.stdout)
        dirs = {os.path.join(g.cache, d) for d in (ok[0], ok[1])}
        for b in report['bundles']:
            if set(b['kernel_dirs']) & dirs:
                assert b['ideal'] is None, b


def test_annotated_trace_carries_ideal_and_util():
    with TempDir() as tmp:
        g = Generated(tmp)
        want = g.compute('both')
        out = os.path.join(tmp, 'annotated.json')
        run('profile', g.trace, g.cache, '--origins', g.sidecar, '--annotate-trace', out,
            check_rc=0)
        with open(out) as f:
            doc = json.load(f, parse_float=decimal.Decimal)
        with_ideal = without = 0
        for e in doc['traceEvents']:
            a = e.get('args', {}).get('sdscprov') if isinstance(e, dict) else None
            if not isinstance(a, dict) or 'dur' not in e:
                continue
            key = a.get('provenance_key') or a.get('bundle')
            ideal = want['bundle_ideal'].get(key)
            if ideal is None:
                assert 'ideal_ns' not in a and 'util' not in a, a
                without += 1
                continue
            ns = int((decimal.Decimal(e['dur']) * 1000).quantize(
                decimal.Decimal(1), rounding=decimal.ROUND_HALF_UP))
            i = gen_cache.ideal_ns(ideal['cycles'])
            assert a['ideal_ns'] == i, (a, i)
            assert (a['util'] is None) if ns == 0 else (float(a['util']) == i / ns), (a, i, ns)
            with_ideal += 1
        assert with_ideal == want['total']['events'], (with_ideal, want['total'])
        assert without > 0


def page_data(path):
    with open(path, encoding='utf-8') as f:
        page = f.read()
    start = page.index('<script type="application/json" id="sdscprov-data">')
    start = page.index('>', start) + 1
    return json.loads(page[start:page.index('</script>', start)])


def test_html_page_columns_and_lost_heat():
    sys.path.insert(0, SCRIPTS)
    from html_browser import Browser  # noqa: E402  (the headless browser of test_html.py)
    with TempDir() as tmp:
        g = Generated(tmp)
        want = g.compute('both')
        path = os.path.join(tmp, 'profile.html')
        rc, out, _ = run('profile', g.trace, g.cache, '--origins', g.sidecar, '--format', 'html')
        assert rc == 0
        with open(path, 'w', encoding='utf-8') as f:
            f.write(out)
        data = page_data(path)
        tables = {'line': 'by_line', 'aten': 'by_aten', 'kernel': 'by_kernel',
                  'category': 'by_category'}
        assert [r['id'] for r in data['rankings']] == list(tables)
        for ranking in data['rankings']:
            assert ranking['ideal'] is True
            wanted = {k: u for k, u in want['tables'][tables[ranking['id']]].items()
                      if u != zero()}
            got = {row[0]: {'ideal_ns': row[7], 'lost_ns': row[8], 'measured_ns': row[9]}
                   for row in ranking['rows'] if row[9] is not None}
            assert got == {k: {f: u[f] for f in ('ideal_ns', 'lost_ns', 'measured_ns')}
                           for k, u in wanted.items()}, ranking['id']
        lost = {}
        for s in data['sources']:
            for line, ns in s['lost']:
                lost['%s:%d' % (s['path'], line)] = ns
        assert lost == {k: u['lost_ns'] for k, u in want['tables']['by_line'].items()
                        if u['lost_ns'] and not k.startswith('[')}
        with Browser() as b:
            b.open(path)
            assert b.errors == [], b.errors
            head = b.eval("document.getElementById('rank-head').textContent")
            assert 'ideal' in head and 'util' in head and 'lost' in head, head
            assert b.eval("document.getElementById('heat-select').hidden") is False
            titles = "[...document.querySelectorAll('#line-list .heat')].map((e) => e.title)"
            before = b.eval(titles)
            b.eval("(() => { const s = document.getElementById('heat-select'); s.value = 'lost'; "
                   "s.dispatchEvent(new Event('change')); })()")
            b.settle()
            assert b.errors == [], b.errors
            assert b.eval(titles) != before, before


MORE = re.compile(r'^sdscprov profile: (?P<n>\d+) more (?P<code>[a-z0-9-]+) lines? '
                  r'\(--all prints them\)$')


def test_one_cap_rule_and_the_same_count_everywhere():
    """Malformed ideal files (problems) and events over 100 % (diagnostics) go to standard error
    under one rule: the first 10 of each code, then one line counting the rest; --all prints every
    one. The JSON lists every one, and the page's header counts what its Problems pane lists."""
    with TempDir() as tmp:
        g = Generated(tmp, '--ideal-malformed', '0.7')
        # A slow clock: long ideals, so most events ran faster than theirs.
        args = ('profile', g.trace, g.cache, '--origins', g.sidecar, '--core-mhz', '20')
        report = json.loads(run(*args, '--format', 'json', check_rc=0)[1])
        listed = report['problems'] + report['diagnostics']
        per_code = {}
        for d in listed:
            per_code[d['code']] = per_code.get(d['code'], 0) + 1
        assert per_code.get('bad-ideal-cycles', 0) > 10, per_code
        _, _, err = run(*args, check_rc=0)
        shown, more = {}, {}
        for line in err.splitlines():
            if m := MORE.match(line):
                more[m['code']] = int(m['n'])
            elif m := LINE.match(line):
                shown[m['code']] = shown.get(m['code'], 0) + 1
            else:
                assert False, ('a line of neither shape', line)
        assert shown == {c: min(n, 10) for c, n in per_code.items()}, (shown, per_code)
        assert more == {c: n - 10 for c, n in per_code.items() if n > 10}, (more, per_code)
        _, _, err = run(*args, '--all', check_rc=0)
        assert not any(MORE.match(line) for line in err.splitlines()), err[-2000:]
        every = {}
        for d in diagnostics(err):
            every[d['code']] = every.get(d['code'], 0) + 1
        assert every == per_code, (every, per_code)
        page = run(*args, '--format', 'html', check_rc=0)[1]
        data = page.split('<script type="application/json" id="sdscprov-data">')[1]
        model = json.loads(data.split('</script>')[0])
        header = dict(model['summary'])
        assert header['problems'] == str(len(model['problems'])) == str(len(listed)), \
            (header.get('problems'), len(model['problems']), len(listed))


if __name__ == '__main__':
    main([test_rows_exact_against_the_manifest, test_core_mhz,
          test_one_cap_rule_and_the_same_count_everywhere,
          test_util_over_100_and_malformed_warnings, test_text_columns_and_order_by_lost,
          test_folded_values, test_unsafe_ideal_files_are_warned_not_read,
          test_annotated_trace_carries_ideal_and_util, test_html_page_columns_and_lost_heat])
