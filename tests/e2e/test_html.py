"""The HTML page (`--format html`) in a real headless browser: what a person sees on the pages of
scan, annotate, check, explain and profile. Chromium is driven over the DevTools protocol
(scripts/html_browser.py); every page must load with no console error or exception and no
request other than its own file, show the kernels and source lines the files on disk name, and
answer clicks and the filter. Screenshots go to <build>/screenshots/.

Expectations come from the SDSC files on disk and from the generators' own totals, never from
sdscprov's output. Without chromium the test fails (SDSCPROV_TEST_TOOLS=1 scripts/setup.sh
installs it): a browser test that cannot run must not pass.
"""
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import BIN, SCRIPTS, TESTDATA, TempDir, copy_tree, main, run  # noqa: E402

sys.path.insert(0, SCRIPTS)
from html_browser import Browser  # noqa: E402

SHOTS = os.path.join(os.path.dirname(os.path.abspath(BIN)), 'screenshots')
# A model directory whose name is markup, quotes and an ampersand: it must show as text.
HOSTILE = "m</script><img src=x onerror=window.pwned=1>&'q"
DEMO_KERNELS = ['cache/inductor-spyre/sdsc_fused_addmm_linear_relu_0_q7k2m_x4',
                'cache/inductor-spyre/sdsc_fused_addmm_1_b9d3wz0e']


def write_page(path, *args, rc=0, cwd=None):
    p = subprocess.run([BIN, *args, '--format', 'html'], capture_output=True, cwd=cwd, timeout=300)
    assert p.returncode == rc, f'{args}: exit {p.returncode}\n{p.stderr.decode(errors="replace")}'
    assert p.stdout.startswith(b'<!DOCTYPE html>'), p.stdout[:200]
    with open(path, 'wb') as f:
        f.write(p.stdout)
    return p.stdout


def handles(value):
    """Every debug_handle_ object in a parsed SDSC document."""
    if isinstance(value, dict):
        for k, v in value.items():
            if k == 'debug_handle_' and isinstance(v, dict):
                yield v
            else:
                yield from handles(v)
    elif isinstance(value, list):
        for v in value:
            yield from handles(v)


def lines_on_disk(kernel_dir, source_file):
    """The lines of source_file the handles of kernel_dir's SDSC files name (fused_from too)."""
    found = set()

    def visit(h):
        if h.get('source') and h['source']['file'] == source_file:
            found.add(h['source']['start_line'])
        for c in h.get('fused_from', []):
            visit(c)
    for name in os.listdir(kernel_dir):
        if re.fullmatch(r'sdsc_\d+.*\.json', name):
            with open(os.path.join(kernel_dir, name)) as f:
                for h in handles(json.load(f)):
                    visit(h)
    return found


def demo(tmp):
    """The demo cache twice (cache: annotated, fresh: as shipped) with its handles pointing at a
    readable model file under a hostile directory name; returns the model file's path."""
    model_dir = os.path.join(tmp, HOSTILE)
    os.makedirs(model_dir)
    model = os.path.join(model_dir, 'simple_mlp.py')
    lines = [f'# line {n}'.encode() for n in range(1, 41)]
    lines[17] = b'        x = self.fc1(x)  # </script><b id="bold">b</b> & "q" <!--'
    lines[18] = '        x = torch.relu(x)  # \u2028 \u2029 separators'.encode()
    lines[19] = b'        x = self.fc2(x)  # invalid \xff byte'
    with open(model, 'wb') as f:
        f.write(b'\n'.join(lines) + b'\n')
    with open(os.path.join(TESTDATA, 'demo', 'origins.json')) as f:
        origins = f.read().replace('/workspace/simple_mlp.py', json.dumps(model)[1:-1])
    with open(os.path.join(tmp, 'origins.json'), 'w') as f:
        f.write(origins)
    copy_tree(os.path.join(TESTDATA, 'demo', 'inductor-spyre'), os.path.join(tmp, 'cache', 'inductor-spyre'))
    copy_tree(os.path.join(TESTDATA, 'demo', 'inductor-spyre'), os.path.join(tmp, 'fresh', 'inductor-spyre'))
    run('annotate', '--origins', os.path.join(tmp, 'origins.json'), os.path.join(tmp, 'cache'), check_rc=0)
    return model


def assert_clean(b, page):
    assert b.errors == [], f'{page}: console errors or exceptions: {b.errors}'
    assert b.requests == [], f'{page}: requests leaving the file: {b.requests}'
    assert b.eval("document.querySelectorAll('img, b#bold, script:not([id]) ~ script').length") == 0, \
        f'{page}: markup from a file was rendered'
    assert b.eval('window.pwned === undefined'), f'{page}: a file name ran as script'


def kernel_dirs_shown(b, selector='.kernel-row'):
    """The kernel rows' directories, the fresh copy's named as the annotated one's."""
    return b.eval("[...document.querySelectorAll('%s')].map((e) => "
                  "e.querySelector('.dir').textContent.replace(/^fresh\\//, 'cache/'))"
                  % selector)


def check_model_page(b, page, tmp, model, fx_kernels):
    """The source lines and the clicks of a page whose handles name `model`."""
    shown = kernel_dirs_shown(b)
    for k in DEMO_KERNELS:
        assert k in shown, f'{page}: kernel {k} not shown: {shown}'
    options = b.eval("[...document.querySelectorAll('#source-select option')].map((o) => o.textContent)")
    assert any(o.startswith(model + '  (') for o in options), f'{page}: hostile path not shown as text: {options}'
    b.eval("(() => { const s = document.getElementById('source-select'); "
           "s.value = [...s.options].find((o) => o.textContent.startsWith(%s)).value; "
           "s.dispatchEvent(new Event('change')); })()" % json.dumps(model + '  ('))
    b.settle()
    text = b.eval("Object.fromEntries([...document.querySelectorAll('.line-row')].map((e) => "
                  "[e.dataset.line, e.querySelector('.src').textContent]))")
    assert text['18'] == '        x = self.fc1(x)  # </script><b id="bold">b</b> & "q" <!--', text.get('18')
    assert text['19'] == '        x = torch.relu(x)  # \u2028 \u2029 separators', text.get('19')
    assert text['20'] == '        x = self.fc2(x)  # invalid \ufffd byte', text.get('20')
    assert text['1'] == '# line 1' and len(text) >= 30, f'{page}: the whole file is not shown'
    expected = {n: sorted(k for k in DEMO_KERNELS if n in lines_on_disk(os.path.join(tmp, k), model))
                for n in (18, 19, 20)}
    for n, kernels in expected.items():
        assert kernels, f'the demo names line {n} in no kernel'
        b.click(f'.line-row[data-line="{n}"]')
        hl = sorted(kernel_dirs_shown(b, '.kernel-row.hl'))
        assert hl == kernels, f'{page}: line {n} highlights {hl}, expected {kernels}'
        assert b.eval(f"document.querySelector('.line-row[data-line=\"{n}\"]').classList.contains('hl')")
    for k in DEMO_KERNELS:
        b.click(f'.kernel-row[data-kernel="{DEMO_KERNELS_ORDER[page].index(k)}"]')
        lines = sorted(int(x) for x in b.eval("[...document.querySelectorAll('.line-row.hl')].map((e) => e.dataset.line)"))
        want = sorted(lines_on_disk(os.path.join(tmp, k), model))
        assert lines == want, f'{page}: kernel {k} highlights lines {lines}, expected {want}'
        detail = b.eval("document.getElementById('kernel-detail').textContent")
        assert 'aten.' in detail and (not want or model + ':' in detail), f'{page}: kernel detail: {detail[:500]}'
        if k in fx_kernels:
            assert 'pre-grad nodes' in detail, detail[:500]


def check_filter(b, page):
    b.type_into('#filter', 'addmm_1')
    shown = kernel_dirs_shown(b)
    assert shown == ['cache/inductor-spyre/sdsc_fused_addmm_1_b9d3wz0e'], f'{page}: filtered: {shown}'
    assert b.eval("document.getElementById('kernel-count').textContent") == '1 of 2 kernels'
    b.type_into('#filter', 'no such kernel')
    assert kernel_dirs_shown(b) == []
    b.type_into('#filter', '')
    assert len(kernel_dirs_shown(b)) == 2


DEMO_KERNELS_ORDER = {}


def test_demo_pages_scan_annotate_check_explain():
    with TempDir() as tmp, Browser() as b:
        model = demo(tmp)
        pages = {
            'scan': (['scan', 'cache'], 0),
            'annotate': (['annotate', '--dry-run', '--origins', 'origins.json', 'fresh'], 0),
            'check': (['check', 'fresh'], 1),
            'explain': (['explain', 'cache'], 0),
        }
        for page, (args, rc) in pages.items():
            path = os.path.join(tmp, page + '.html')
            raw = write_page(path, *args, rc=rc, cwd=tmp)
            assert b'<img' not in raw and b'<b id' not in raw, f'{page}: markup from a file in the page bytes'
            assert raw == write_page(path, *args, rc=rc, cwd=tmp), f'{page}: not the same bytes twice'
            b.open(path)
            assert_clean(b, page)
            if page in ('annotate', 'check'):  # the fresh copy's directories
                shown = b.eval("[...document.querySelectorAll('.kernel-row .dir')].map((e) => e.textContent)")
                assert sorted(shown) == sorted(k.replace('cache/', 'fresh/') for k in DEMO_KERNELS), shown
            order = b.eval("[...document.querySelectorAll('.kernel-row')].map((e) => "
                           "[Number(e.dataset.kernel), e.querySelector('.dir').textContent.replace('fresh/', 'cache/')])")
            DEMO_KERNELS_ORDER[page] = [d for _, d in sorted(order)]
            if page == 'check':
                files = sum(len([n for n in os.listdir(os.path.join(tmp, 'fresh', 'inductor-spyre', k))
                                 if re.fullmatch(r'sdsc_\d+\.json', n)]) for k in os.listdir(os.path.join(tmp, 'fresh', 'inductor-spyre')))
                rows = b.eval("[...document.querySelectorAll('.problem-row')].map((e) => e.textContent)")
                assert len(rows) == files, f'check: {len(rows)} findings shown, {files} files lack a handle: {rows}'
                for r in rows:
                    m = re.match(r'(fresh/inductor-spyre/[^:]+/sdsc_\d+\.json):(\d+):(\d+): finding', r)
                    assert m and int(m.group(2)) > 0 and os.path.exists(os.path.join(tmp, m.group(1))), r
                finding_counts = b.eval("[...document.querySelectorAll('.kernel-row .finding')].map((e) => e.textContent)")
                assert sorted(finding_counts) == ['1 finding', '4 findings'], finding_counts
            else:
                check_model_page(b, page, tmp, model, fx_kernels=())
            check_filter(b, page)
            b.click('.kernel-row')
            b.screenshot(os.path.join(SHOTS, f'{page}.png'))
            assert_clean(b, page)


def test_profile_page():
    with TempDir() as tmp, Browser() as b:
        out = os.path.join(tmp, 't')
        subprocess.run([sys.executable, os.path.join(SCRIPTS, 'gen_trace.py'), out, '--files', '80'],
                       check=True, capture_output=True, timeout=600)
        with open(os.path.join(out, 'expected.json')) as f:
            expected = json.load(f)['both']
        path = os.path.join(tmp, 'profile.html')
        write_page(path, 'profile', os.path.join(out, 'trace.json'), os.path.join(out, 'cache'),
                   '--origins', os.path.join(out, 'spyre_provenance.json'))
        b.open(path)
        assert_clean(b, 'profile')
        # The hottest kernel: filtered to, its time shown, its stages in the detail.
        name, (ns, events) = max(expected['by_kernel'].items(), key=lambda kv: (kv[1][0], kv[0]))
        b.type_into('#filter', name)
        b.click('.kernel-row')
        detail = b.eval("document.getElementById('kernel-detail').textContent")
        assert f'{ns / 1e6:.3f} ms' in detail, f'{name}: {ns} ns not in {detail[:400]}'
        assert 'DMI' in detail and 'CMPT' in detail, detail[:400]
        # The heat: every source line with device time, with the time the generator summed.
        heat = {}
        for i in range(b.eval("document.getElementById('source-select').options.length")):
            b.eval(f"(() => {{ const s = document.getElementById('source-select'); s.value = '{i}'; "
                   "s.dispatchEvent(new Event('change')); })()")
            b.settle()
            path_i = b.eval("document.getElementById('source-select').selectedOptions[0].textContent.split('  (')[0]")
            for line, title in b.eval("[...document.querySelectorAll('.line-row')].map((e) => "
                                      "[e.dataset.line, e.querySelector('.heat').title])"):
                if title != '0.000 ms':
                    heat[f'{path_i}:{line}'] = title
        want = {label: f'{v[0] / 1e6:.3f} ms' for label, v in expected['by_line'].items()
                if not label.startswith('[') and v[0] > 0}
        assert heat == want, f'heat differs: {set(heat.items()) ^ set(want.items())}'
        b.type_into('#filter', '')
        b.click('.line-row.has')
        assert len(kernel_dirs_shown(b, '.kernel-row.hl')) >= 1
        b.screenshot(os.path.join(SHOTS, 'profile.png'))
        assert_clean(b, 'profile')


def test_large_cache_page_is_virtualised():
    with TempDir() as tmp, Browser() as b:
        cache = os.path.join(tmp, 'c')
        manifest = os.path.join(tmp, 'manifest.json')
        subprocess.run([sys.executable, os.path.join(SCRIPTS, 'gen_cache.py'), cache, '--files', '6000',
                        '--manifest', manifest], check=True, capture_output=True, timeout=600)
        with open(manifest) as f:
            kernels = json.load(f)['kernel_dirs']
        path = os.path.join(tmp, 'large.html')
        write_page(path, 'scan', cache)
        b.open(path)
        assert_clean(b, 'large')
        count = b.eval("document.getElementById('kernel-count').textContent")
        assert count == f'{len(kernels)} of {len(kernels)} kernels', (count, len(kernels))
        rows = b.eval("document.querySelectorAll('#kernel-list .row').length")
        assert 0 < rows < 100, f'{rows} kernel rows in the DOM for {len(kernels)} kernels'
        b.eval("document.getElementById('kernel-list').scrollTop = 1e9")
        b.settle()
        b.settle()
        assert kernel_dirs_shown(b) and b.eval("document.querySelectorAll('#kernel-list .row').length") < 100
        for k in (kernels[0], kernels[len(kernels) // 2], kernels[-1]):
            b.type_into('#filter', os.path.basename(k['dir']))
            shown = b.eval("[...document.querySelectorAll('.kernel-row')].map((e) => "
                           "[e.querySelector('.dir').textContent, e.querySelector('.bar').title])")
            want = [[os.path.join(cache, k['dir']),
                     f"populated {k['populated']}, null {k['null']}, absent {k['absent']}, malformed 0"]]
            assert shown == want, (shown, want)
        b.screenshot(os.path.join(SHOTS, 'large.png'))
        assert_clean(b, 'large')


if __name__ == '__main__':
    main([test_demo_pages_scan_annotate_check_explain, test_profile_page,
          test_large_cache_page_is_virtualised])
