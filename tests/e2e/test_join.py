"""End-to-end: which kernel directories a kernel event's bundle is (args.sdsc_bundle_dir_prefix,
kernel_name.txt, one key in two directories whose ideals differ), and every label profile prints
explained by explain (labels over 255 bytes, bundles in no directory), on the generators' caches."""
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import SCRIPTS, TempDir, main, run  # noqa: E402


def join_cases(tmp):
    subprocess.run([sys.executable, os.path.join(SCRIPTS, 'gen_trace.py'), tmp, '--join-cases'],
                   check=True, capture_output=True, timeout=600)
    with open(os.path.join(tmp, 'expected.json')) as f:
        return json.load(f)['cases']


def profile_json(tmp, *extra):
    rc, out, err = run('profile', 'trace.json', 'cache', *extra, '--format', 'json', check_rc=0,
                       cwd=tmp)
    return json.loads(out), err


def test_the_event_names_its_directory_and_an_ideal_is_never_another_directorys():
    with TempDir() as tmp:
        cases = join_cases(tmp)
        report, err = profile_json(tmp, '--origins', 'spyre_provenance.json')
        by_label = {r['label']: r for r in report['by_kernel']}
        assert len(by_label) == len(report['by_kernel'])
        for name, case in cases.items():
            row = by_label[case['label']]
            assert row['kernel_dirs'] == [os.path.join('cache', d) for d in case['dirs']], (name, row)
            assert row['kernels'] == [case['kernel']], (name, row)
            # 1100 MHz: an ideal of C cycles is C * 1000 / 1100 ns per event.
            util = row['utilization']
            if case['ideal_cycles'] is None:
                assert util['events'] == 0 and util['ideal_ns'] == 0, (name, util)
            else:
                assert util['ideal_ns'] == row['events'] * case['ideal_cycles'] * 1000 // 1100, \
                    (name, util)
        # The events without a prefix, with a wrong one and with one of another kernel are one
        # bundle: the key's two directories, whose ideals differ: no ideal, said once.
        absent = cases['absent']
        assert cases['wrong']['label'] == cases['other-kernel']['label'] == absent['label']
        assert by_label[absent['label']]['events'] == 6
        ambiguous = [d for d in report['diagnostics'] if d['code'] == 'ambiguous-ideal']
        assert len(ambiguous) == 1, ambiguous
        assert all(os.path.join('cache', d) in ambiguous[0]['message'] for d in absent['dirs'])
        assert ambiguous[0]['events'] == 6
        prefixes = {d['message'].split("'")[1]: d for d in report['diagnostics']
                    if d['code'] == 'bad-bundle-dir-prefix'}
        assert sorted(prefixes) == ['cccc0003', 'dddd0004'], prefixes
        assert 'names no kernel directory' in prefixes['cccc0003']['message']
        assert 'not a directory of kernel ' + absent['kernel'] in prefixes['dddd0004']['message']
        assert all(d['events'] == 2 for d in prefixes.values())
        assert '[ambiguous-ideal]' in err and '[bad-bundle-dir-prefix]' in err, err


def test_kernel_name_txt_names_a_cache_entry():
    with TempDir() as tmp:
        case = join_cases(tmp)['kernel-name-list']
        entry = os.path.join(tmp, 'cache', case['dirs'][0])
        # Without the sidecar, the kernel name comes from the entry's kernel_name.txt.
        report, _ = profile_json(tmp)
        (row,) = [r for r in report['by_kernel'] if r['key'] == case['key']]
        assert row['kernels'] == [case['kernel']], row
        assert row['label'] == case['label'], row
        rc, out, _ = run('explain', '--format', 'json', entry, check_rc=0)
        assert json.loads(out)['kernels'][0]['kernel'] == case['kernel']
        rc, out, _ = run('explain', '--color', 'never', entry, check_rc=0)
        assert out.startswith('kernel ' + case['kernel'] + '  '), out
        # The name looks the entry up, as its other name does.
        for name in (case['kernel'], 'sdsc_fused_another_name_8'):
            rc, out, _ = run('explain', '--format', 'json', name, os.path.join(tmp, 'cache'),
                             check_rc=0)
            assert [k['dir'] for k in json.loads(out)['kernels']] == [entry], name


def test_every_label_explains_long_ones_and_bundles_in_no_directory():
    with TempDir() as tmp:
        cases = join_cases(tmp)
        report, _ = profile_json(tmp, '--origins', 'spyre_provenance.json')
        labels = [r['label'] for r in report['by_kernel']]
        assert max(len(l.encode()) for l in labels) > 255
        for case in cases.values():
            rc, out, err = run('explain', case['label'], 'cache', '--origins',
                               'spyre_provenance.json', '--format', 'json', cwd=tmp)
            assert rc == 0, (case['label'], err)
            kernels = json.loads(out)['kernels']
            assert sorted(os.path.relpath(k['dir'], 'cache') for k in kernels if k['dir']) == \
                sorted(case['dirs']), (case['label'], kernels)
        # A bundle in no directory: what the sidecar knows, and where directories were looked for.
        ghost = cases['no-directory']
        rc, out, err = run('explain', ghost['label'], 'cache', '--origins',
                           'spyre_provenance.json', '--format', 'json', check_rc=0, cwd=tmp)
        (kernel,) = json.loads(out)['kernels']
        assert kernel['kernel'] == ghost['kernel']
        assert kernel['bundle']['key'] == ghost['key']
        assert kernel['bundle']['looked_in'] == ['cache']
        assert kernel['bundle']['aten_ops'] == ghost['ops']
        assert [op['debug_handle']['id'] for op in kernel['ops']] == ghost['handles']
        rc, text, _ = run('explain', ghost['label'], 'cache', '--origins',
                          'spyre_provenance.json', '--color', 'never', check_rc=0, cwd=tmp)
        assert "no kernel directory found under 'cache': shown from" in text or \
            'no kernel directory found under cache: shown from' in text, text
        for line, number in ghost['lines']:
            assert '%s:%d' % (line, number) in text, (line, text)
        # A label is never a path: one over 255 bytes is looked up, not stat'ed.
        long_label = cases['long-label']['label']
        assert len(long_label.encode()) > 255
        rc, _, err = run('explain', long_label + 'x', 'cache', cwd=tmp)
        assert rc == 2 and 'File name too long' not in err and 'no kernel directory named' in err


def test_every_label_of_a_20000_file_cache_explains():
    """`profile --by kernel --top 0` on the generated 20,000-file cache: every label explains,
    in one run of explain (--targets-from)."""
    with TempDir() as tmp:
        subprocess.run([sys.executable, os.path.join(SCRIPTS, 'gen_trace.py'), tmp, '--files',
                        '20000', '--copies', '3', '--iterations', '1'], check=True,
                       capture_output=True, timeout=900)
        report, _ = profile_json(tmp, '--origins', 'spyre_provenance.json')
        rows = report['by_kernel']
        assert len(rows) > 500, len(rows)
        with open(os.path.join(tmp, 'labels.txt'), 'w') as f:
            f.write(''.join(r['label'] + '\n' for r in rows))
        start = time.monotonic()
        rc, out, err = run('explain', '--targets-from', 'labels.txt', 'cache', '--origins',
                           'spyre_provenance.json', '--format', 'json', cwd=tmp)
        took = time.monotonic() - start
        assert rc == 0, err[-2000:]
        kernels = json.loads(out)['kernels']
        shown = sorted(os.path.join('cache', os.path.relpath(k['dir'], 'cache'))
                       for k in kernels if k['dir'])
        want = sorted(d for r in rows for d in r['kernel_dirs'])
        assert shown == want
        print('explained %d labels in %.1f s' % (len(rows), took))


def test_explain_says_its_errors_on_standard_error_whatever_the_format():
    with TempDir() as tmp:
        join_cases(tmp)
        kdir = sorted(os.path.join(tmp, 'cache', 'inductor-spyre', d)
                      for d in os.listdir(os.path.join(tmp, 'cache', 'inductor-spyre')))[0]
        bad = os.path.join(kdir, 'sdsc_0.json')
        with open(bad, 'w') as f:
            f.write('{"0_add": {\n  "debug_handle_": nul}\n}\n')
        for fmt in ('text', 'json', 'html'):
            rc, out, err = run('explain', '--format', fmt, kdir)
            assert rc == 2, (fmt, rc)
            assert bad + ':2:' in err and 'error' in err, (fmt, err)
            rc, out, err = run('explain', '--format', fmt, 'sdsc_no_such_kernel_0',
                               os.path.join(tmp, 'cache'))
            assert rc == 2 and "no kernel directory named 'sdsc_no_such_kernel_0'" in err, (fmt, err)
        # An unreadable --targets-from: said at its path, nothing explained.
        missing = os.path.join(tmp, 'no-such-labels.txt')
        rc, out, err = run('explain', '--targets-from', missing, os.path.join(tmp, 'cache'))
        assert rc == 2 and out == '' and missing + ': error: cannot read: ' in err, (rc, err)


if __name__ == '__main__':
    main([test_the_event_names_its_directory_and_an_ideal_is_never_another_directorys,
          test_kernel_name_txt_names_a_cache_entry,
          test_every_label_explains_long_ones_and_bundles_in_no_directory,
          test_every_label_of_a_20000_file_cache_explains,
          test_explain_says_its_errors_on_standard_error_whatever_the_format])
