"""End-to-end tests of the CSV formats: profile's rankings (--format csv, --by, --out-dir), the
comparison's rows, acelyzer's category table (--format acelyzer-categories), scan's kernels and
check's findings.

Each CSV is read back by Python's csv module and by pandas (when it can be imported) and compared
row for row with the JSON report of the same run; names that CSV must quote or that a reader
could mangle (comma, quote, CR, LF, control characters, bidirectional overrides, a leading '=',
spaces) are put into the generated trace, sidecar and cache and must come back byte for byte.
acelyzer's table is checked against a computation here, from the events of the generated trace
and the cache's manifest (scripts/gen_trace.py, scripts/gen_cache.py).
"""
import csv
import decimal
import io
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import SKIP, TempDir, generate, main, run  # noqa: E402
from test_baseline import Runs  # noqa: E402
from test_utilization import Generated  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), 'scripts'))
import gen_cache  # noqa: E402

try:
    import pandas
except ImportError:
    pandas = None
    # Debian's Python has python3-pandas where this one (a pyenv's, a venv's) may not: the whole
    # test is run again by it, once; else the csv module's checks run alone.
    DEBIAN = '/usr/bin/python3'
    if (os.environ.get('SDSCPROV_CSV_REEXEC') is None and os.path.exists(DEBIAN) and
            os.path.realpath(sys.executable) != os.path.realpath(DEBIAN) and
            subprocess.run([DEBIAN, '-c', 'import pandas'], capture_output=True).returncode == 0):
        os.environ['SDSCPROV_CSV_REEXEC'] = '1'
        os.execv(DEBIAN, [DEBIAN, os.path.abspath(__file__)])

HOSTILE = ['a,b', 'say "hi"', 'two\nlines', 'cr\rhere', 'crlf\r\nend', 'ctl\x01\x1b[31mred',
           'bidi\u202eevil', '=HYPERLINK("x")', '+1', '@SUM(A1)', '-2', ' spaced ', '\ttab',
           'NA', 'null']


def rows_csv(text):
    """The records of a CSV text as dicts, through the csv module (newline='' keeps CR/LF)."""
    return list(csv.DictReader(io.StringIO(text, newline='')))


def rows_pandas(text, text_columns):
    """The same through pandas, names as strings, only an empty field missing."""
    frame = pandas.read_csv(io.StringIO(text, newline=''), dtype={c: str for c in text_columns},
                            keep_default_na=False, na_values=[''], float_precision='round_trip')
    return frame.to_dict('records')


def flatten(row, prefix=''):
    """A JSON row's members as the CSV's columns: nested objects joined by '.'."""
    out = {}
    for k, v in row.items():
        if isinstance(v, dict):
            out.update(flatten(v, prefix + k + '.'))
        else:
            out[prefix + k] = v
    return out


def same(cell, want, via_pandas):
    """Whether a cell read back is the JSON value: integers exactly, ratios as the same double,
    texts byte for byte, a missing value as an empty field (NaN in pandas)."""
    if via_pandas:
        if want is None:
            return cell != cell  # NaN
        if isinstance(want, str):
            return cell == want
        return float(cell) == float(want) and (not isinstance(want, int) or int(cell) == want)
    if want is None:
        return cell == ''
    if isinstance(want, bool):
        return cell == ('true' if want else 'false')
    if isinstance(want, int):
        return cell == str(want)
    if isinstance(want, float):
        return float(cell) == want
    return cell == want


def expected_ranking_rows(report, key, traces=()):
    """The CSV rows a ranking of the JSON report must give, in order."""
    rows = []
    whole = report['coverage']['kernel_ns']
    for row in report[key]:
        flat = flatten(row)
        flat.pop('bundles')
        rank_ns = flat.pop('rank_ns', None)
        for name in ('kernels', 'kernel_dirs'):
            if name in flat:
                flat[name] = ('json', flat[name])
        flat['share'] = flat['device_ns'] / whole if whole else None
        for t, ns in zip(traces, rank_ns or []):
            flat['rank_ns.%d' % t['rank']] = ns
        rows.append(flat)
    return rows


def check_rows(got, want, via_pandas, what):
    assert len(got) == len(want), (what, len(got), len(want))
    for g, w in zip(got, want):
        assert set(g) == set(w), (what, sorted(set(g) ^ set(w)))
        for column, value in w.items():
            cell = g[column]
            if isinstance(value, tuple):  # a list, as a JSON array in its cell
                assert json.loads(cell) == value[1], (what, column, cell, value)
                continue
            assert same(cell, value, via_pandas), (what, column, repr(cell), repr(value))


def check_ranking_csv(text, report, key, traces=()):
    """One ranking's CSV against the JSON report's rows, by csv and by pandas."""
    want = expected_ranking_rows(report, key, traces)
    check_rows(rows_csv(text), want, False, key)
    if pandas is not None:
        texts = [c for c in ('label', 'file', 'text', 'key', 'kernels', 'kernel_dirs', 'aten_op',
                             'category') if c in text.split('\n', 1)[0].split(',')]
        check_rows(rows_pandas(text, texts), want, True, key + ' (pandas)')
    return want


def ranking_keys(report):
    return [k for k in report if k.startswith('by_') and isinstance(report[k], list)]


def make_hostile(g):
    """Hostile names into the generated run: source files and ATen ops in the sidecar, a
    category in an ideal file, unpaired kernel events named with them in the trace."""
    with open(g.sidecar) as f:
        side = json.load(f)
    handles = sorted(side['handles'])
    for i, hid in enumerate(handles[:len(HOSTILE)]):
        h = side['handles'][hid]
        h['aten_op'] = HOSTILE[i]
        h['source'] = {'file': HOSTILE[-1 - i] + '.py', 'start_line': 7 + i, 'end_line': 7 + i,
                       'start_col': 0, 'end_col': 4}
    # Each kernel identity's atenOps: the sorted ATen ops its handles reach (the sidecar's rule).
    for identity in side['kernelIdentities'].values():
        ops = set()

        def walk(hid):
            h = side['handles'][hid]
            if h['aten_op'] is not None:
                ops.add(h['aten_op'])
            for child in h['fused_from']:
                walk(child)
        for hid in identity['directHandleIds']:
            walk(hid)
        identity['atenOps'] = sorted(ops)
    with open(g.sidecar, 'w') as f:
        json.dump(side, f)
    for d, ideal in g.ideal_of.items():
        if ideal['state'] == 'ok' and ideal.get('category'):
            path = os.path.join(g.cache, d, 'perf', 'ideal_cycles.json')
            with open(path) as f:
                entries = json.load(f)
            for e in entries:
                if e['op_category'] != 'TOTAL':
                    e['op_category'] = 'cat,"x"\n\u202e'
            with open(path, 'w') as f:
                json.dump(entries, f)
            break
    with open(g.trace) as f:
        doc = json.load(f)
    kernel = next(e for e in doc['traceEvents'] if e.get('name', '').startswith('spyre_kernel_v1_'))
    for i, name in enumerate(HOSTILE):
        e = json.loads(json.dumps(kernel))
        e['name'] = 'spyre_kernel_v1_' + name + '_' + 'q' * 16 + '#%d' % i
        e['args'] = {'correlation': 900 + i}
        e['ts'] += 1000000 + i * 100
        doc['traceEvents'].append(e)
    with open(g.trace, 'w') as f:
        json.dump(doc, f)


def profile(g, *args, rc=0):
    return run('profile', g.trace, g.cache, '--origins', g.sidecar, *args, check_rc=rc)[1]


# ---- tests --------------------------------------------------------------------------------------

def test_profile_rankings_equal_json():
    with TempDir() as tmp:
        g = Generated(os.path.join(tmp, 'run'))
        report = json.loads(profile(g, '--format', 'json'))
        keys = ranking_keys(report)
        assert len(keys) >= 4, keys
        out_dir = os.path.join(tmp, 'tables')
        assert profile(g, '--format', 'csv', '--out-dir', out_dir) == ''
        assert sorted(os.listdir(out_dir)) == sorted(k[3:] + '.csv' for k in keys)
        for key in keys:
            word = key[3:]
            text = profile(g, '--format', 'csv', '--by', word)
            with open(os.path.join(out_dir, word + '.csv'), newline='') as f:
                assert f.read() == text, word
            want = check_ranking_csv(text, report, key)
            assert want, key
        # Without --by: the first ranking; the header as documented.
        first = profile(g, '--format', 'csv')
        assert first == profile(g, '--format', 'csv', '--by', keys[0][3:])
        assert first.startswith('label,file,line,text,device_ns,share,events,stages.DMI.ticks,')
        # Several traces: each rank's time in a column of its own.
        trace2 = os.path.join(tmp, 'rank1.json')
        shutil.copy(g.trace, trace2)
        both = json.loads(run('profile', g.trace, trace2, g.cache, '--origins', g.sidecar,
                              '--format', 'json', check_rc=0)[1])
        text = run('profile', g.trace, trace2, g.cache, '--origins', g.sidecar, '--format', 'csv',
                   '--by', 'aten', check_rc=0)[1]
        assert ',rank_ns.0,rank_ns.1\n' in text.split('\n', 1)[0] + '\n', text[:300]
        check_ranking_csv(text, both, 'by_aten', both['traces'])


def test_hostile_names_round_trip():
    with TempDir() as tmp:
        g = Generated(os.path.join(tmp, 'run'))
        make_hostile(g)
        report = json.loads(profile(g, '--format', 'json'))
        out_dir = os.path.join(tmp, 'tables')
        profile(g, '--format', 'csv', '--out-dir', out_dir)
        seen = set()
        for key in ranking_keys(report):
            with open(os.path.join(out_dir, key[3:] + '.csv'), newline='') as f:
                text = f.read()
            for row in check_ranking_csv(text, report, key):
                seen.update(n for n in HOSTILE if n in row['label'])
        # Every hostile name reached some ranking's label and came back exactly.
        assert seen == set(HOSTILE), set(HOSTILE) - seen
        assert any(r['label'] == 'cat,"x"\n\u202e' for r in report['by_category'])


def test_comparison_rows():
    with TempDir() as tmp:
        # Two runs of one compile: rows slowed, sped up, new and gone (scripts/gen_trace.py).
        runs = Runs(tmp)
        args = ['profile', '--baseline', runs.base_trace, runs.new_trace, '--origins',
                runs.sidecar]
        out_dir = os.path.join(tmp, 'cmp')
        run(*args, '--format', 'csv', '--out-dir', out_dir, check_rc=0)
        cmp = json.loads(run(*args, '--format', 'json', check_rc=0)[1])
        base_ns, new_ns = cmp['base']['compared_ns'], cmp['new']['compared_ns']
        statuses = set()
        for key in ranking_keys(cmp):
            word = key[3:]
            text = run(*args, '--format', 'csv', '--by', word, check_rc=0)[1]
            with open(os.path.join(out_dir, word + '.csv'), newline='') as f:
                assert f.read() == text, word
            want = []
            for row in cmp[key]:
                flat = flatten({k: v for k, v in row.items() if k != 'moved_from'})
                if 'moved_from' in row:
                    moved = row['moved_from'] or {}
                    flat['moved_from.file'] = moved.get('file')
                    flat['moved_from.line'] = moved.get('line')
                if word == 'line':  # a "[...]" row has none of them in JSON: empty cells
                    for column in ('file', 'line', 'text', 'moved_from.file', 'moved_from.line'):
                        flat.setdefault(column, None)
                pct = flat.pop('change_percent')
                flat['change'] = ('percent', pct)
                flat['base_share'] = flat['base_ns'] / base_ns
                flat['new_share'] = flat['new_ns'] / new_ns
                statuses.add(row['status'])
                want.append(flat)
            got = rows_csv(text)
            assert len(got) == len(want) > 0, (word, len(got), len(want))
            for g, w in zip(got, want):
                assert set(g) == set(w), (word, sorted(set(g) ^ set(w)))
                for column, value in w.items():
                    if column == 'change':  # unrounded, against the JSON's rounded percent
                        if value[1] is None:
                            assert g[column] == '', (word, g)
                        else:
                            assert abs(float(g[column]) * 100 - value[1]) <= 0.005 + 1e-9, g
                        continue
                    assert same(g[column], value, False), (word, column, g[column], value)
        assert {'same', 'changed', 'new', 'gone'} <= statuses, statuses


def acelyzer_expected(g, mhz):
    """acelyzer's table computed from the events and the manifest: per category (sdscprov's:
    TOTAL rule, largest entry's category; every event without one under "other"), the events'
    time in us, their count, and the ideal cycles of those whose ideal does not exceed their time."""
    rows = g.rows_of('both')
    table = {}
    for key, ns, _ in g.events:
        ideal = None
        if key in rows:
            for d in rows[key][1]:
                if g.ideal_of[d]['state'] == 'ok':
                    ideal = g.ideal_of[d]
                    break
        category = ideal['category'] if ideal and ideal['category'] else 'other'
        if key not in rows or ideal is None:
            assert category == 'other'
        t = table.setdefault(category, [0, 0, 0])
        t[0] += ns
        t[1] += 1
        if ideal and gen_cache.ideal_ns(ideal['cycles'], mhz) <= ns:
            t[2] += ideal['cycles']
    order = sorted(table.items(), key=lambda kv: (kv[1][0], kv[0]))
    total = [sum(v[i] for _, v in order) for i in range(3)]
    order.append(('Total', total))
    out = []
    for name, (ns, calls, cycles) in order:
        us, ideal = ns / 1000, cycles / mhz
        out.append({'Pid': '0', 'Phase': 'UNKN', 'Category': name,
                    'Kernel_Time': decimal.Decimal(ns) / 1000,
                    'Frac_Time': round(us / (total[0] / 1000), 4), 'Calls': calls,
                    'Ideal_Time': round(ideal, 4), 'Ideal_Cyc': cycles,
                    'Frac_Ideal': round(ideal / (total[2] / mhz), 4) if total[2] else 0.0,
                    'PT_Util': round(ideal / us, 4) if ns else 0.0})
    return out


def test_acelyzer_categories():
    with TempDir() as tmp:
        g = Generated(os.path.join(tmp, 'run'))
        for mhz in (1100, 733):
            text = profile(g, '--format', 'acelyzer-categories', '--core-mhz', str(mhz))
            assert text.split('\n', 1)[0] == ('Pid,Phase,Category,Kernel_Time,Frac_Time,Calls,'
                                              'Ideal_Time,Ideal_Cyc,Frac_Ideal,PT_Util')
            want = acelyzer_expected(g, mhz)
            got = rows_csv(text)
            assert [r['Category'] for r in got] == [w['Category'] for w in want], (got, want)
            assert any(w['Ideal_Cyc'] for w in want) and len(want) >= 4
            for r, w in zip(got, want):
                assert r['Pid'] == w['Pid'] and r['Phase'] == w['Phase']
                assert decimal.Decimal(r['Kernel_Time']) == w['Kernel_Time'], (r, w)
                assert int(r['Calls']) == w['Calls'] and int(r['Ideal_Cyc']) == w['Ideal_Cyc']
                for c in ('Frac_Time', 'Ideal_Time', 'Frac_Ideal', 'PT_Util'):
                    assert float(r[c]) == w[c], (c, r, w)
            if pandas is not None:
                frame = pandas.read_csv(io.StringIO(text))
                assert list(frame['Category']) == [w['Category'] for w in want]
                assert frame['Calls'].dtype.kind == 'i' and frame['PT_Util'].dtype.kind == 'f'
                total = frame[frame['Category'] == 'Total'].iloc[0]
                assert total['Calls'] == len(g.events)


def test_scan_and_check_rows():
    with TempDir() as tmp:
        cache = os.path.join(tmp, 'cache')
        generate(cache, 60, '--handles', 'populated,null,absent')
        # A kernel directory whose name CSV must quote.
        dirs = sorted(os.path.join(r, d) for r, ds, _ in os.walk(cache) for d in ds
                      if os.path.basename(r) == 'inductor-spyre')
        hostile = dirs[0] + ',"x"\nz\u202e=1'
        os.rename(dirs[0], hostile)
        scan = json.loads(run('scan', cache, '--format', 'json', check_rc=0)[1])
        text = run('scan', cache, '--format', 'csv', check_rc=0)[1]
        members = list(scan['superdsc_json']['members'])
        want = []
        for k in scan['kernels']:
            row = {'dir': k['dir'], 'kernel': k['kernel'], 'bundle': k['bundle']}
            row.update(k['counts'])
            for m in members:
                row['provenance.' + m] = sum(m in f['provenance'] for f in k['files']
                                             if f['status'] == 'ok')
            want.append(row)
        assert any(r['dir'] == hostile for r in want)
        check_rows(rows_csv(text), want, False, 'scan')
        if pandas is not None:
            check_rows(rows_pandas(text, ['dir', 'kernel']), want, True, 'scan (pandas)')

        found = json.loads(run('check', cache, '--format', 'json', check_rc=1)[1])['findings']
        text = run('check', cache, '--format', 'csv', check_rc=1)[1]
        assert found and any(f['path'].startswith(hostile) for f in found)
        check_rows(rows_csv(text), found, False, 'check')
        if pandas is not None:
            check_rows(rows_pandas(text, ['path', 'rule', 'message']), found, True,
                       'check (pandas)')


def test_out_dir_refusals_and_misuse():
    with TempDir() as tmp:
        g = Generated(os.path.join(tmp, 'run'))
        # A symbolic link where a file goes: refused, exit 2, nothing replaced.
        out_dir = os.path.join(tmp, 'tables')
        os.mkdir(out_dir)
        victim = os.path.join(tmp, 'victim')
        with open(victim, 'w') as f:
            f.write('keep')
        os.symlink(victim, os.path.join(out_dir, 'aten.csv'))
        rc, out, err = run('profile', g.trace, g.cache, '--format', 'csv', '--out-dir', out_dir)
        assert rc == 2 and 'aten.csv' in err and 'symbolic link' in err, err
        assert open(victim).read() == 'keep'
        assert sorted(os.listdir(out_dir)) == ['aten.csv'], os.listdir(out_dir)
        # An existing file is replaced whole; its mode kept.
        os.remove(os.path.join(out_dir, 'aten.csv'))
        old = os.path.join(out_dir, 'line.csv')
        with open(old, 'w') as f:
            f.write('old')
        os.chmod(old, 0o640)
        profile(g, '--format', 'csv', '--out-dir', out_dir)
        assert open(old).read().startswith('label,file,line,')
        assert os.stat(old).st_mode & 0o777 == 0o640
        # An input where a file goes (a trace named kernel.csv): refused, the trace kept.
        named = os.path.join(out_dir, 'kernel.csv')
        shutil.copy(g.trace, named)
        before = open(named, 'rb').read()
        rc, _, err = run('profile', named, g.cache, '--format', 'csv', '--out-dir', out_dir)
        assert rc == 2 and 'input of this run' in err, err
        assert open(named, 'rb').read() == before
        os.remove(named)
        # DIR a file: refused.
        rc, _, err = run('profile', g.trace, g.cache, '--format', 'csv', '--out-dir', victim)
        assert rc == 2 and 'not a directory' in err, err
        for args, words in (
                (['--out-dir', out_dir], '--out-dir writes CSV files'),
                (['--format', 'csv', '--by', 'line,aten'], 'one ranking'),
                (['--format', 'acelyzer-categories', '--baseline', g.trace], 'without --baseline')):
            rc, out, err = run('profile', g.trace, g.cache, *args)
            assert rc == 2 and words in err and out == '', (args, rc, err)


def test_pandas_available():
    """Says when pandas is missing: its checks were skipped (the csv module's ran)."""
    if pandas is None:
        print('pandas cannot be imported: the pandas read-back was skipped')
        return SKIP
    return None


if __name__ == '__main__':
    main([test_profile_rankings_equal_json, test_hostile_names_round_trip, test_comparison_rows,
          test_acelyzer_categories, test_scan_and_check_rows, test_out_dir_refusals_and_misuse,
          test_pandas_available])
