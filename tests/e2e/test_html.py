"""The HTML page (`--format html`) in a real headless browser: what a person sees on the pages of
scan, annotate, check, explain and profile. Chromium is driven over the DevTools protocol
(scripts/html_browser.py); every page must load with no console error or exception and no
request other than its own file, show the kernels and source lines the files on disk name, worst
first, and answer clicks, the filter and the sort. Every page is also looked at in a small window
(800x600): one column, names shortened in the middle with their tail whole; a profile page's
source-line cells in view show `name.py:N` whole at 1400x1000 and 800x600. Screenshots of every
page at 1400x1000 and 800x600 go to <build>/screenshots/.

Expectations come from the SDSC files on disk, from the generators' own totals and from the
trace and sidecar files, never from sdscprov's output. Without chromium the test fails
(SDSCPROV_TEST_TOOLS=1 scripts/setup.sh installs it): a browser test that cannot run must not
pass.
"""
import base64
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import BIN, ROOT, SCRIPTS, TESTDATA, TempDir, copy_tree, main, run  # noqa: E402

sys.path.insert(0, SCRIPTS)
from html_browser import Browser, check_line_cells  # noqa: E402
from test_profile_timeline import complete_events, from_trace  # noqa: E402

SHOTS = os.path.join(os.path.dirname(os.path.abspath(BIN)), 'screenshots')
SIZES = ((1400, 1000), (800, 600))
# A model directory whose name is markup, quotes and an ampersand: it must show as text.
HOSTILE = "m</script><img src=x onerror=window.pwned=1>&'q"
DEMO_KERNELS = ['cache/inductor-spyre/sdsc_fused_addmm_linear_relu_0_q7k2m_x4',
                'cache/inductor-spyre/sdsc_fused_addmm_1_b9d3wz0e']
# The kernel name of each demo directory (the directory's name without its suffix).
DEMO_NAMES = {'sdsc_fused_addmm_linear_relu_0_q7k2m_x4': 'sdsc_fused_addmm_linear_relu_0',
              'sdsc_fused_addmm_1_b9d3wz0e': 'sdsc_fused_addmm_1'}


# ---- what the page must say, by the rules the text report writes numbers with -----------------

def fmt_dur(ns):
    """Device time: ms with three decimals under a second, else s with three; half up."""
    if ns >= 10**9:
        ms = (ns + 500000) // 10**6
        return f'{ms // 1000:,}.{ms % 1000:03d} s'
    us = (ns + 500) // 1000
    return f'{us // 1000}.{us % 1000:03d} ms'


def fmt_share(part, whole):
    tenths = (part * 1000 * 2 + whole) // (2 * whole)  # rounded half up
    return f'{tenths // 10}.{tenths % 10}%'


def count(n, one, many):
    return f'{n:,} {one if n == 1 else many}'


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


def sdsc_names(kernel_dir):
    return sorted((n for n in os.listdir(kernel_dir) if re.fullmatch(r'sdsc_\d+\.json', n)),
                  key=lambda n: int(n[5:-5]))


def lines_on_disk(kernel_dir, source_file):
    """The lines of source_file the handles of kernel_dir's SDSC files name (fused_from too)."""
    found = set()

    def visit(h):
        if h.get('source') and h['source']['file'] == source_file:
            found.add(h['source']['start_line'])
        for c in h.get('fused_from', []):
            visit(c)
    for name in sdsc_names(kernel_dir):
        with open(os.path.join(kernel_dir, name)) as f:
            for h in handles(json.load(f)):
                visit(h)
    return found


def lacking_on_disk(kernel_dir):
    """The SDSC files of kernel_dir without a populated debug_handle_."""
    n = 0
    for name in sdsc_names(kernel_dir):
        with open(os.path.join(kernel_dir, name)) as f:
            n += 0 if any(True for _ in handles(json.load(f))) else 1
    return n


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
    for copy in ('cache', 'fresh', 'written'):
        copy_tree(os.path.join(TESTDATA, 'demo', 'inductor-spyre'), os.path.join(tmp, copy, 'inductor-spyre'))
    run('annotate', '--origins', os.path.join(tmp, 'origins.json'), os.path.join(tmp, 'cache'), check_rc=0)
    return model


# ---- looking at a page -------------------------------------------------------------------------

def assert_clean(b, page):
    assert b.errors == [], f'{page}: console errors or exceptions: {b.errors}'
    assert b.requests == [], f'{page}: requests leaving the file: {b.requests}'
    assert b.eval("document.querySelectorAll('img, b#bold, script:not([id]) ~ script').length") == 0, \
        f'{page}: markup from a file was rendered'
    assert b.eval('window.pwned === undefined'), f'{page}: a file name ran as script'


def kernel_dirs_shown(b, selector='.kernel-row'):
    """The kernel rows' directories, the fresh copy's named as the annotated one's."""
    return b.eval("[...document.querySelectorAll('%s')].map((e) => "
                  "e.querySelector('.dir').textContent.replace(/^(fresh|written)\\//, 'cache/'))"
                  % selector)


def text_of(b, element_id):
    return b.eval(f"document.getElementById('{element_id}').textContent")


def source_files(b):
    """Each file of the page's source view, selected in turn: yields its path as the page names it."""
    for i in range(b.eval("document.getElementById('source-select').options.length")):
        b.eval(f"(() => {{ const s = document.getElementById('source-select'); s.value = s.options[{i}].value; "
               "s.dispatchEvent(new Event('change')); })()")
        b.settle()
        yield b.eval("document.getElementById('source-select').selectedOptions[0].textContent.split('  (')[0]")


def all_rows(b, box, value_js):
    """Every row of a virtualised list, in order, scrolled through a screen at a time; value_js
    reads each row element `e`."""
    found = {}
    b.eval(f"document.getElementById('{box}').scrollTop = 0")
    b.settle()
    while True:
        for i, v in b.eval(f"[...document.querySelectorAll('#{box} .vspace > .row')].map((e) => "
                           f"[Number(e.dataset.i), {value_js}])"):
            found[i] = v
        moved = b.eval(f"(() => {{ const e = document.getElementById('{box}'), before = e.scrollTop; "
                       "e.scrollTop += e.clientHeight; return e.scrollTop !== before; })()")
        b.settle()
        if not moved:
            break
    assert sorted(found) == list(range(len(found))), f'{box}: rows missing: {sorted(found)[:50]}'
    return [found[i] for i in range(len(found))]


def set_sort(b, value):
    b.eval("(() => { const s = document.getElementById('sort'); s.value = %s; "
           "s.dispatchEvent(new Event('change')); })()" % json.dumps(value))
    b.settle()


def check_small_window(b, page):
    """800x600: one column, and every name in view whole in the document, shortened on screen in
    the middle only, its tail in view."""
    panes = b.eval("['kernels-pane', 'model-pane'].map((id) => { const r = document.getElementById(id)"
                   ".getBoundingClientRect(); return [r.left, r.top, r.bottom, r.width]; })")
    (kl, kt, kb, kw), (ml, mt, mb, mw) = panes
    assert (mt >= kb or kt >= mb) and abs(kl - ml) < 1, f'{page}: two columns at 800x600: {panes}'
    assert kw > 700 and mw > 700, f'{page}: a narrow column at 800x600: {panes}'
    names = b.eval("""[...document.querySelectorAll('.vspace > .row .mid')].map((e) => {
        const box = e.getBoundingClientRect(), tail = e.querySelector('.tail').getBoundingClientRect(),
              head = e.querySelector('.head');
        return [e.textContent, e.title, e.querySelector('.tail').textContent, tail.right - box.right,
                tail.width, head.scrollWidth > head.clientWidth]; })""")
    assert names, f'{page}: no names in view'
    for text, tooltip, tail, past, width, cut in names:
        assert tooltip == text, (page, text, tooltip)
        # A source line's tail is its file's name and line (its directories give way); any
        # other name keeps a tail of 12 characters or half of it.
        line = re.search(r'/([^/]+\.py:\d+)$', text)
        assert text.endswith(tail) and (tail == line.group(1) if line else len(tail) >= min(12, len(text) // 2)), \
            (page, text, tail)
        assert past <= 0.5 and (not tail or width > 0), f'{page}: the tail of {text!r} is cut off'
    return sum(1 for n in names if n[5])


def check_copy(b, selector):
    """Selecting a shortened name whole copies the whole name."""
    copied, full = b.eval("(() => { const e = document.querySelector(%s), r = document.createRange(); "
                          "r.selectNodeContents(e); const s = getSelection(); s.removeAllRanges(); "
                          "s.addRange(r); const copied = s.toString(); s.removeAllRanges(); "
                          "return [copied, e.title]; })()" % json.dumps(selector))
    assert copied == full, (copied, full)


def shoot(b, page, checks=None):
    """Screenshots at both sizes, the small one after the 800x600 checks; back to 1400x1000. A
    profile page's source-line cells in view show their file's name and line whole at both."""
    for width, height in SIZES:
        b.resize(width, height)
        if b.eval("document.body.classList.contains('profile') && !document.getElementById('rank-pane').hidden"):
            check_line_cells(b, f'{page} at {width}x{height}')
            b.eval('scrollTo(0, 0)')
        if width == 800:
            check_small_window(b, page)
            if checks:
                checks()
        b.screenshot(os.path.join(SHOTS, f'{page}-{width}x{height}.png'))
    b.resize(*SIZES[0])
    assert_clean(b, page)


# ---- scan, annotate, check and explain ---------------------------------------------------------

def check_model_page(b, page, tmp, model, order):
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
    # The lines the handles name (18-20) with 10 around each: lines 8 to 30, not the whole file.
    assert sorted(map(int, text)) == list(range(8, 31)) and text['8'] == '# line 8', \
        f'{page}: not the window around lines 18-20: {sorted(map(int, text))}'
    expected = {n: sorted(k for k in DEMO_KERNELS if n in lines_on_disk(os.path.join(tmp, k), model))
                for n in (18, 19, 20)}
    for n, kernels in expected.items():
        assert kernels, f'the demo names line {n} in no kernel'
        b.click(f'.line-row[data-line="{n}"]')
        # The line's directories only, all of them marked, and how many.
        assert sorted(kernel_dirs_shown(b)) == kernels, f'{page}: line {n} lists {kernel_dirs_shown(b)}'
        assert sorted(kernel_dirs_shown(b, '.kernel-row.hl')) == kernels
        assert b.eval(f"document.querySelector('.line-row[data-line=\"{n}\"]').classList.contains('hl')")
        assert text_of(b, 'kernel-count') == (f'{count(len(kernels), "directory", "directories")} '
                                              f'({count(len(kernels), "kernel", "kernels")}) from {model}:{n}')
    b.click('#focus-clear')
    assert sorted(kernel_dirs_shown(b)) == sorted(DEMO_KERNELS), f'{page}: show all: {kernel_dirs_shown(b)}'
    for k in DEMO_KERNELS:
        b.click(f'.kernel-row[data-kernel="{order.index(k)}"]')
        lines = sorted(int(x) for x in b.eval("[...document.querySelectorAll('.line-row.hl')].map((e) => e.dataset.line)"))
        want = sorted(lines_on_disk(os.path.join(tmp, k), model))
        assert lines == want, f'{page}: kernel {k} highlights lines {lines}, expected {want}'
        detail = text_of(b, 'kernel-detail')
        assert 'aten.' in detail and (not want or model + ':' in detail), f'{page}: kernel detail: {detail[:500]}'
        assert 'sdscprov explain ' in detail, detail[:300]


def check_filter(b, page, tmp):
    b.type_into('#filter', 'addmm_1')
    shown = kernel_dirs_shown(b)
    assert shown == ['cache/inductor-spyre/sdsc_fused_addmm_1_b9d3wz0e'], f'{page}: filtered: {shown}'
    assert text_of(b, 'kernel-count') == '1 of 2 directories (1 of 2 kernels)'
    # The filter reaches the problems list too.
    problems = b.eval("[...document.querySelectorAll('.problem-row')].map((e) => e.textContent)")
    assert all('addmm_1' in p for p in problems), problems
    total = b.eval("document.getElementById('problem-count').textContent")
    if page == 'check':
        want = len(sdsc_names(os.path.join(tmp, 'fresh', 'inductor-spyre', 'sdsc_fused_addmm_1_b9d3wz0e')))
        assert len(problems) == want and total == f'({want} of 5)', (problems, total)
    b.type_into('#filter', 'no such kernel')
    assert kernel_dirs_shown(b) == []
    b.type_into('#filter', '')
    assert len(kernel_dirs_shown(b)) == 2
    assert not re.search(r' of ', b.eval("document.getElementById('problem-count').textContent"))


def check_order(b, page, tmp, copy):
    """Worst first (the most files lacking provenance; check: the most findings), then by name and
    as found."""
    base = os.path.join(tmp, copy, 'inductor-spyre')
    lacking = {DEMO_NAMES[d]: lacking_on_disk(os.path.join(base, d)) for d in os.listdir(base)}
    if page == 'annotate':  # the state the run would leave
        lacking = dict.fromkeys(lacking, 0)
    groups = b.eval("[...document.querySelectorAll('.group-row .name')].map((e) => e.textContent)")
    want = sorted(lacking, key=lambda g: (-lacking[g], g))
    assert groups == want, f'{page}: not worst first: {groups}, lacking {lacking}'
    assert b.eval("document.getElementById('sort').value") == 'worst'
    set_sort(b, 'name')
    assert b.eval("[...document.querySelectorAll('.group-row .name')].map((e) => e.textContent)") == sorted(groups)
    set_sort(b, 'found')
    found = b.eval("[...document.querySelectorAll('.kernel-row')].map((e) => Number(e.dataset.kernel))")
    assert found == list(range(len(found))), found
    set_sort(b, 'worst')
    return groups


def check_keyboard(b):
    """The kernel list without a mouse: arrows move, Enter opens a directory or folds a group;
    Escape empties the filter."""
    rows = b.eval("[...document.querySelectorAll('#kernel-list .row')].map((e) => e.dataset.kernel || 'g')")
    assert rows[0] == 'g' and rows[1] != 'g' and rows[3] != 'g', rows
    for key in ('Home', 'ArrowDown', 'ArrowDown', 'ArrowDown', 'Enter'):
        b.press('#kernel-list', key)
    shown = b.eval("document.querySelector('#kernel-list .row.sel').dataset.kernel")
    assert shown == rows[3] and b.eval("document.querySelector('#kernel-list .row.cur').dataset.kernel") == rows[3]
    name = b.eval("document.querySelector('#kernel-list .row.sel .dir').textContent")
    assert f'sdscprov explain {name}' in text_of(b, 'kernel-detail')
    b.press('#kernel-list', 'Home')
    b.press('#kernel-list', 'Enter')  # folds the first group
    assert b.eval("document.querySelectorAll('#kernel-list .row').length") == len(rows) - 1
    b.press('#kernel-list', 'Enter')
    assert b.eval("document.querySelectorAll('#kernel-list .row').length") == len(rows)
    b.type_into('#filter', 'addmm_1')
    b.press('#filter', 'Escape')
    assert b.eval("document.getElementById('filter').value") == '' and len(kernel_dirs_shown(b)) == 2


def test_demo_pages_scan_annotate_check_explain():
    with TempDir() as tmp, Browser() as b:
        model = demo(tmp)
        pages = {
            'scan': (['scan', 'cache'], 0),
            'scan-fresh': (['scan', 'fresh'], 0),
            'annotate': (['annotate', '--dry-run', '--origins', 'origins.json', 'fresh'], 0),
            'annotate-written': (['annotate', '--origins', 'origins.json', 'written'], 0),
            'check': (['check', 'fresh'], 1),
            'check-pass': (['check', 'cache'], 0),
            'explain': (['explain', 'cache'], 0),
        }
        fresh_files = sum(len(sdsc_names(os.path.join(tmp, 'fresh', 'inductor-spyre', k)))
                          for k in os.listdir(os.path.join(tmp, 'fresh', 'inductor-spyre')))
        for page, (args, rc) in pages.items():
            path = os.path.join(tmp, page + '.html')
            raw = write_page(path, *args, rc=rc, cwd=tmp)
            assert b'<img' not in raw and b'<b id' not in raw, f'{page}: markup from a file in the page bytes'
            if page != 'annotate-written':
                assert raw == write_page(path, *args, rc=rc, cwd=tmp), f'{page}: not the same bytes twice'
            b.open(path)
            assert_clean(b, page)
            if page != 'explain':  # the page counts kernels and directories as the text report does
                text = subprocess.run([BIN, 'scan', args[-1]], capture_output=True, text=True, cwd=tmp,
                                      timeout=300).stdout
                m = re.search(r'^(?:total|read): (\d+) kernels? \((\d+) director', text, re.M)
                figures = b.eval("[...document.querySelectorAll('#summary .fig')].map((f) => "
                                 "[f.querySelector('.fig-l').textContent, f.querySelector('.fig-v').textContent])")
                assert m and ['kernels', m.group(1)] in figures and ['kernel directories', m.group(2)] in figures, \
                    f'{page}: page {figures}, text {text[:300]}'
            copy = args[-1]
            if copy != 'cache':  # the directories of the copy the page is about
                shown = b.eval("[...document.querySelectorAll('.kernel-row .dir')].map((e) => e.textContent)")
                assert sorted(shown) == sorted(k.replace('cache/', copy + '/') for k in DEMO_KERNELS), shown
            order = b.eval("[...document.querySelectorAll('.kernel-row')].map((e) => "
                           "[Number(e.dataset.kernel), e.querySelector('.dir').textContent.replace(/^(fresh|written)\\//, 'cache/')])")
            order = [d for _, d in sorted(order)]
            verdict = b.eval("(() => { const v = document.getElementById('verdict'); return v.hidden ? null : v.textContent; })()")
            groups = check_order(b, page, tmp, copy)
            if page in ('scan-fresh', 'check'):  # directory order is the other way round
                assert groups == ['sdsc_fused_addmm_linear_relu_0', 'sdsc_fused_addmm_1'], groups
            if page == 'check':
                assert verdict == (f'check failed: {count(fresh_files, "finding", "findings")} in 2 of 2 '
                                   f'kernel directories ({count(fresh_files, "SDSC file", "SDSC files")})'), verdict
                rows = b.eval("[...document.querySelectorAll('.problem-row')].map((e) => e.textContent)")
                assert len(rows) == fresh_files, f'check: {len(rows)} findings shown, {fresh_files} files lack a handle: {rows}'
                for r in rows:
                    m = re.match(r'(fresh/inductor-spyre/[^:]+/sdsc_\d+\.json):(\d+):(\d+): finding', r)
                    assert m and int(m.group(2)) > 0 and os.path.exists(os.path.join(tmp, m.group(1))), r
                finding_counts = b.eval("[...document.querySelectorAll('.kernel-row .finding')].map((e) => e.textContent)")
                assert finding_counts == ['4 findings', '1 finding'], finding_counts
            elif page == 'check-pass':
                assert verdict == f'check passed: no findings in {count(fresh_files, "SDSC file", "SDSC files")}', verdict
            elif page == 'annotate':
                assert verdict.startswith(f'dry run: nothing was written; {fresh_files} files would change'), verdict
            elif page == 'annotate-written':
                assert verdict == f'written: {fresh_files} files; 0 files still lacking provenance', verdict
                check_model_page(b, page, tmp, model, order)
            else:
                assert verdict is None, f'{page}: a verdict: {verdict}'
                if page != 'scan-fresh':
                    check_model_page(b, page, tmp, model, order)
            if page != 'annotate-written':
                check_filter(b, page, tmp)
            if page == 'scan':
                check_keyboard(b)
            b.click('.kernel-row')
            shoot(b, page, lambda: check_copy(b, '.kernel-row .dir'))


# ---- profile -----------------------------------------------------------------------------------

def trace_keys(trace):
    """The provenance keys of the trace's kernel events (from their names)."""
    with open(trace) as f:
        events = json.load(f)['traceEvents']
    return {m.group(1) for e in events
            if (m := re.match(r'spyre_kernel_v1_\w+_([a-z2-7]{16})(#\d+)?$', e.get('name', '')))}


def stages_filled(trace, key):
    """Whether some kernel event of `key` has both readings of a stage in args.cycles_ts."""
    with open(trace) as f:
        events = json.load(f)['traceEvents']
    for e in events:
        ts = e.get('args', {}).get('cycles_ts') if isinstance(e.get('args'), dict) else None
        if key in e.get('name', '') and isinstance(ts, list) and len(ts) == 5:
            if any(ts[i] and ts[i + 1] for i in range(4)):
                return True
    return False


def keys_by_line(sidecar, keys):
    """file:line -> the keys of the bundles whose handles (fused_from included) name it."""
    with open(sidecar) as f:
        s = json.load(f)
    out = {}

    def visit(hid, key):
        h = s['handles'][hid]
        if h['source']:
            out.setdefault(f"{h['source']['file']}:{h['source']['start_line']}", set()).add(key)
        for c in h['fused_from']:
            visit(c, key)
    for key, identity in s['kernelIdentities'].items():
        if key in keys:
            for hid in identity['directHandleIds']:
                visit(hid, key)
    return out


def ranked(table, total):
    """A ranking as the page must show it: worst first (time, then events, then label)."""
    rows = sorted(table.items(), key=lambda kv: (-kv[1][0], -kv[1][1], kv[0].encode()))
    return [[fmt_dur(ns), fmt_share(ns, total), f'{ev:,}', label] for label, (ns, ev) in rows]


def headline(c):
    un = c['kernel_events'] - c['resolved_events']
    return (f"{fmt_dur(c['kernel_ns'])} of device time in {count(c['kernel_events'], 'kernel event', 'kernel events')}; "
            f"{fmt_share(c['resolved_ns'], c['kernel_ns'])} of it paired with provenance "
            f"({count(c['resolved_events'], 'event', 'events')}), "
            f"{fmt_share(c['kernel_ns'] - c['resolved_ns'], c['kernel_ns'])} unresolved ({count(un, 'event', 'events')}).")


def check_rankings(b, expected):
    total = expected['coverage']['kernel_ns']
    for tab, table in (('line', 'by_line'), ('aten', 'by_aten'), ('kernel', 'by_kernel')):
        b.click(f'.tab[data-tab="{tab}"]')
        rows = all_rows(b, 'rank-list', "[...['.c-time', '.c-share', '.c-ev', '.label']].map((s) => e.querySelector(s).textContent)")
        assert rows == ranked(expected[table], total), f'{tab}: {rows[:5]} ... != {ranked(expected[table], total)[:5]} ...'
    b.click('.tab[data-tab="line"]')


def test_profile_page():
    with TempDir() as tmp, Browser() as b:
        out = os.path.join(tmp, 't')
        subprocess.run([sys.executable, os.path.join(SCRIPTS, 'gen_trace.py'), out, '--files', '300'],
                       check=True, capture_output=True, timeout=600)
        with open(os.path.join(out, 'expected.json')) as f:
            all_expected = json.load(f)
        expected = all_expected['both']
        trace, sidecar = os.path.join(out, 'trace.json'), os.path.join(out, 'spyre_provenance.json')
        path = os.path.join(tmp, 'profile.html')
        write_page(path, 'profile', trace, os.path.join(out, 'cache'), '--origins', sidecar)
        b.open(path)
        assert_clean(b, 'profile')
        # The header: readable units, the paired and unresolved shares in words.
        assert text_of(b, 'headline') == headline(expected['coverage']), text_of(b, 'headline')
        assert '(ns)' not in text_of(b, 'summary'), text_of(b, 'summary')
        # The bundles that pair with no kernel directory, their count and time.
        c = expected['coverage']
        assert c['dirless_bundles'] > 0
        us = (c['dirless_ns'] + 500) // 1000
        assert (f"{c['dirless_bundles']} of {c['paired_bundles']}, {us // 1000}.{us % 1000:03d} ms"
                "bundles in no kernel directory of the caches") in text_of(b, 'summary'), \
            text_of(b, 'summary')
        # Ranked lines (across files), ATen ops and kernels, worst first, as the generator summed.
        check_rankings(b, expected)
        hot = next(label for label in [r[3] for r in ranked(expected['by_line'], 1)] if not label.startswith('['))
        files = {r[3].rsplit(':', 1)[0] for r in ranked(expected['by_line'], 1)[:10] if not r[3].startswith('[')}
        assert len(files) > 1, f'the generated trace has its top lines in one file: {files}'
        # The model opens on the hottest line's file, the line in view.
        hot_file, hot_line = hot.rsplit(':', 1)
        shown_file = b.eval("document.getElementById('source-select').selectedOptions[0].textContent.split('  (')[0]")
        assert shown_file == hot_file, (shown_file, hot)
        assert b.eval(f"""(() => {{ const e = document.querySelector('.line-row[data-line="{hot_line}"]'),
            box = document.getElementById('line-list').getBoundingClientRect();
            if (!e) return false; const r = e.getBoundingClientRect();
            return e.classList.contains('hl') && r.top >= box.top && r.bottom <= box.bottom; }})()"""), hot
        # Clicking a line lists that line's kernels (and only them), from the top.
        per_line = keys_by_line(sidecar, trace_keys(trace))
        label = max((lab for lab in per_line if lab in expected['by_line']), key=lambda lab: (len(per_line[lab]), lab))
        assert len(per_line[label]) >= 2, per_line[label]
        rank_i = [r[3] for r in ranked(expected['by_line'], 1)].index(label)
        b.eval("document.getElementById('kernel-list').scrollTop = 1e9")
        b.settle()
        assert b.eval("document.getElementById('kernel-list').scrollTop") > 0, 'too few kernels to scroll'
        b.eval(f"document.getElementById('rank-list').scrollTop = {rank_i} * 20")
        b.settle()
        b.click(f'.rank-row[data-i="{rank_i}"]')
        keys = b.eval("[...document.querySelectorAll('.kernel-row')].map((e) => e.dataset.key)")
        assert sorted(keys) == sorted(per_line[label]), (label, keys, per_line[label])
        assert text_of(b, 'kernel-count') == f'{count(len(keys), "kernel", "kernels")} from {label}'
        assert b.eval("document.getElementById('kernel-list').scrollTop") == 0, 'the new filter is not at the top'
        file_, line = label.rsplit(':', 1)
        b.click('#focus-clear')
        b.click(f'.line-row[data-line="{line}"]')
        keys = b.eval("[...document.querySelectorAll('.kernel-row')].map((e) => e.dataset.key)")
        assert sorted(keys) == sorted(per_line[label]), (label, keys)
        b.click('#focus-clear')
        # The hottest kernel row (one bundle): filtered to by its key, its time shown, its
        # stages in the detail, in view.
        key_of = {n: r['key'] for n, r in expected['kernel_rows'].items()}
        unique = [(n, v) for n, v in expected['by_kernel'].items() if key_of[n]]
        name, (ns, events) = max((kv for kv in unique if stages_filled(trace, key_of[kv[0]])),
                                 key=lambda kv: (kv[1][0], kv[0]))
        b.type_into('#filter', key_of[name])
        assert b.eval("document.querySelectorAll('.kernel-row').length") == 1
        b.click('.kernel-row')
        detail = text_of(b, 'kernel-detail')
        assert f'{fmt_dur(ns)} in {count(events, "event", "events")}' in detail, f'{name}: {ns} ns not in {detail[:400]}'
        assert 'DMI' in detail and 'CMPT' in detail, detail[:400]
        detail_in_view(b, name)
        # No stages when no event of the kernel filled its counters (not a row of zeros).
        bare = [n for n, _ in unique if not stages_filled(trace, key_of[n])]
        assert bare, 'every generated kernel has stages'
        b.type_into('#filter', key_of[bare[0]])
        b.click('.kernel-row')
        assert 'stages' not in text_of(b, 'kernel-detail') and bare[0] == text_of(b, 'kernel-detail')[:len(bare[0])]
        # The heat: every source line with device time, with the time the generator summed.
        heat = {}
        for path_i in source_files(b):
            for line, title in b.eval("[...document.querySelectorAll('.line-row')].map((e) => "
                                      "[e.dataset.line, e.querySelector('.heat').title])"):
                if title != '0.000 ms':
                    heat[f'{path_i}:{line}'] = title
        want = {label: fmt_dur(v[0]) for label, v in expected['by_line'].items()
                if not label.startswith('[') and v[0] > 0}
        assert heat == want, f'heat differs: {set(heat.items()) ^ set(want.items())}'
        b.type_into('#filter', '')
        shoot(b, 'profile', lambda: (b.click('.kernel-row'), detail_in_view(b, None)))
        # Without the sidecar some events stay unresolved: the header says how much.
        path = os.path.join(tmp, 'profile-caches.html')
        write_page(path, 'profile', trace, os.path.join(out, 'cache'))
        b.open(path)
        assert_clean(b, 'profile-caches')
        caches = all_expected['caches']
        assert caches['coverage']['resolved_ns'] < caches['coverage']['kernel_ns']
        assert text_of(b, 'headline') == headline(caches['coverage']), text_of(b, 'headline')
        check_rankings(b, caches)
        shoot(b, 'profile-caches')


def kernels_by_step(trace):
    """Step name -> provenance key -> [ns, events] of the trace's kernel events, each in the
    ProfilerStep span that holds its launch's start (the earliest runtime event of its
    correlation), else its own start; events in no span are left out."""
    spans, launches, kernels = [], {}, []
    for _, _, cat, name, args, start, dur in complete_events(trace):
        if name.startswith('ProfilerStep#') and cat in ('user_annotation', 'cpu_op'):
            spans.append((start, start + dur, name))
        elif 'runtime' in cat and isinstance(args.get('correlation'), int):
            c = args['correlation']
            launches[c] = min(start, launches.get(c, start))
        elif cat == 'kernel':
            kernels.append((name.split('#')[0][-16:], start, dur, args.get('correlation')))
    out = {}
    for key, start, dur, corr in kernels:
        at = launches.get(corr, start)
        for first, end, name in spans:
            if first <= at < end:
                row = out.setdefault(name, {}).setdefault(key, [0, 0])
                row[0] += dur
                row[1] += 1
                break
    return out


def step_table(pairing, table, in_step):
    """A ranking's rows (label -> [ns, events]) over one step's kernels: each row counts its
    bundles' time in the step, as the generator's members say which bundles a row holds."""
    key_of = {label: r['key'] for label, r in pairing['kernel_rows'].items()}
    out = {}
    for label, members in pairing['members'][table].items():
        ns = sum(in_step.get(key_of[m], [0, 0])[0] for m in members)
        events = sum(in_step.get(key_of[m], [0, 0])[1] for m in members)
        if ns > 0:
            out[label] = [ns, events]
    return out


def rank_rows(b):
    return all_rows(b, 'rank-list', "[...['.c-time', '.c-share', '.c-ev', '.label']].map((s) => "
                    "e.querySelector(s).textContent)")


STEP_SEGMENTS = ('busy', 'transfer', 'wait', 'latency', 'unattributed')


def step_figures(s):
    """A step's bar's segments (as the timeline's figures name them)."""
    return {'busy': s['kernel_busy_ns'], 'transfer': s['transfer_ns'],
            'wait': s['idle']['host_wait_ns'], 'latency': s['idle']['launch_latency_ns'],
            'unattributed': s['idle']['unattributed_ns']}


def test_profile_page_steps():
    with TempDir() as tmp, Browser() as b:
        out = os.path.join(tmp, 't')
        subprocess.run([sys.executable, os.path.join(SCRIPTS, 'gen_trace.py'), out, '--files', '80',
                        '--host-lanes', '--steps', '4', '--devices', '2'],
                       check=True, capture_output=True, timeout=600)
        with open(os.path.join(out, 'expected.json')) as f:
            expected = json.load(f)
        pairing = expected['sidecar']
        trace, sidecar = os.path.join(out, 'trace.json'), os.path.join(out, 'spyre_provenance.json')
        path = os.path.join(tmp, 'steps.html')
        write_page(path, 'profile', trace, '--origins', sidecar)
        b.open(path)
        assert_clean(b, 'steps')
        # One bar per step, the slowest first, its name and wall time as text.
        want = from_trace(trace)['steps']
        assert len(want) == 4 and len({s['wall_ns'] for s in want}) == 4, want
        bars = b.eval("""[...document.querySelectorAll('#step-bars .step-row')].map((e) => ({
            name: e.querySelector('.step-name').textContent, wall: e.querySelector('.step-wall').textContent,
            title: e.title, segs: [...e.querySelectorAll('.step-bar > i')].map((i) =>
              [i.dataset.seg, Number(i.dataset.ns), parseFloat(i.style.width)]) }))""")
        assert [x['name'] for x in bars] == [s['name'] for s in want], (bars, want)
        assert [x['wall'] for x in bars] == [fmt_dur(s['wall_ns']) for s in want], bars
        # Each segment its figure, all drawn to one scale: the longest wall or sum of parts (the
        # width as CSS keeps it: six significant digits).
        scale = max(max(s['wall_ns'], sum(step_figures(s).values())) for s in want)
        for x, s in zip(bars, want):
            figures = step_figures(s)
            assert [seg[:2] for seg in x['segs']] == [[k, figures[k]] for k in STEP_SEGMENTS], (x, s)
            for name, ns, width in x['segs']:
                exact = 100 * ns / scale
                assert abs(width - exact) <= 1e-5 * exact + 1e-9, (s['name'], name, ns, width, scale)
            assert sum(figures.values()) > 0 and figures['busy'] > 0, s
            # The tooltip: every figure in readable units.
            idle = s['idle']
            for text in (f"{s['name']}: wall {fmt_dur(s['wall_ns'])}",
                         f"kernel busy {fmt_dur(s['kernel_busy_ns'])} ({count(s['kernels'], 'kernel', 'kernels')})",
                         f"transfer {fmt_dur(s['transfer_ns'])} ({count(s['transfers'], 'transfer', 'transfers')})",
                         f"idle {fmt_dur(idle['idle_ns'])} in {count(idle['gaps'], 'gap', 'gaps')}: "
                         f"host wait {fmt_dur(idle['host_wait_ns'])}, launch latency "
                         f"{fmt_dur(idle['launch_latency_ns'])}, unattributed {fmt_dur(idle['unattributed_ns'])}",
                         f"{count(s['launch']['launched'], 'launch', 'launches')}, median launch delay "
                         f"{fmt_dur(s['launch']['median_ns'])}"):
                assert text in x['title'].split('\n'), (text, x['title'])
        assert b.eval("document.getElementById('step-clear').hidden")
        # A click on a step: each ranking shows the step's device time per row, as the trace's
        # kernel events in that step sum it; its share of the step's device time.
        by_step = kernels_by_step(trace)
        whole = pairing['coverage']['kernel_ns']
        for i in (0, len(want) - 1):
            name = want[i]['name']
            in_step = by_step[name]
            total = sum(ns for ns, _ in in_step.values())
            b.click(f'.step-row[data-step="{i}"]')
            assert not b.eval("document.getElementById('step-clear').hidden")
            assert name in text_of(b, 'step-status') and fmt_dur(total) in text_of(b, 'step-status')
            for tab, table in (('line', 'by_line'), ('aten', 'by_aten'), ('kernel', 'by_kernel')):
                b.click(f'.tab[data-tab="{tab}"]')
                rows = rank_rows(b)
                step_rows = ranked(step_table(pairing, table, in_step), total)
                assert rows == step_rows, f'{name} {tab}: {rows[:4]} ... != {step_rows[:4]} ...'
                assert rows != ranked(pairing[table], whole), f'{name} {tab}: the whole trace shown'
        b.click('.tab[data-tab="line"]')
        # "all steps" restores the whole trace's rankings.
        b.click('#step-clear')
        assert b.eval("document.getElementById('step-clear').hidden")
        for tab, table in (('line', 'by_line'), ('aten', 'by_aten'), ('kernel', 'by_kernel')):
            b.click(f'.tab[data-tab="{tab}"]')
            assert rank_rows(b) == ranked(pairing[table], whole), tab
        b.click('.tab[data-tab="line"]')
        # The heat by idle time: each source line's idle, as the generator charged its bundles.
        b.eval("(() => { const s = document.getElementById('heat-select'); s.value = 'idle'; "
               "s.dispatchEvent(new Event('change')); })()")
        b.settle()
        heat = {}
        for path_i in source_files(b):
            for line, ns in b.eval("[...document.querySelectorAll('.line-row')].map((e) => "
                                   "[e.dataset.line, Number(e.querySelector('.heat').dataset.ns)])"):
                if ns:
                    heat[f'{path_i}:{line}'] = ns
        want_idle = {label: r['idle']['idle_ns'] for label, r in expected['timeline_rows']['by_line'].items()
                     if not label.startswith('[') and r['idle']['idle_ns'] > 0}
        assert want_idle and heat == want_idle, f'idle heat differs: {set(heat.items()) ^ set(want_idle.items())}'
        shoot(b, 'steps')


def detail_in_view(b, name):
    """The kernel just clicked: its detail's title in the window, without scrolling by hand."""
    top, height, title = b.eval("(() => { const h = document.querySelector('#kernel-detail h3'); "
                                "return [h.getBoundingClientRect().top, innerHeight, h.textContent]; })()")
    assert 0 <= top <= height - 60, f'the kernel detail is out of view: top {top} of {height}'
    assert name is None or title == name, (title, name)


def demo_model(path):
    """A readable model file: the SimpleMLP whose forward() is at lines 217-221."""
    lines = ['"""SimpleMLP on Spyre: compile the model, run it and profile its device time."""', '',
             'import torch', 'import torch.nn as nn', '', '']
    while len(lines) < 200:
        lines += [f'def check_batch_{len(lines)}(x, features):',
                  '    """Fails early on a batch the model does not take."""',
                  '    assert x.shape[-1] == features, x.shape', '    return x', '']
    lines = lines[:203] + ['', 'class SimpleMLP(nn.Module):',
                           '    def __init__(self, d_in=64, d_hidden=256, d_out=10):',
                           '        super().__init__()', '        self.fc1 = nn.Linear(d_in, d_hidden)',
                           '        self.fc2 = nn.Linear(d_hidden, d_out)', '']
    lines += [''] * (216 - len(lines))
    lines += ['    def forward(self, x):', '        x = self.fc1(x)', '        x = torch.relu(x)',
              '        x = self.fc2(x)', '        return x', '', '', 'if __name__ == "__main__":',
              '    model = torch.compile(SimpleMLP().to("spyre"))', '    x = torch.randn(8, 64).to("spyre")']
    lines += [''] * (233 - len(lines))
    lines += ['    out = model(x)', '']
    assert lines[217].strip() == 'x = self.fc1(x)' and lines[233].strip() == 'out = model(x)'
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        f.write('\n'.join(lines))


def demo_trace(cache, path, plan):
    """A device trace of the demo cache's kernels: per directory, the durations (ns) of its
    steps, four iterations; paired through the events' debug_handles."""
    events, ts = [{'ph': 'M', 'name': 'process_name', 'pid': 1, 'args': {'name': 'spyre'}}], 1000.0
    for _ in range(4):
        for d, (summary, durations) in plan.items():
            ids = []
            for name in sdsc_names(os.path.join(cache, d)):
                with open(os.path.join(cache, d, name)) as f:
                    ids += [h['id'] for h in handles(json.load(f))]
            key = base64.b32encode(hashlib.sha256(d.encode()).digest()[:10]).decode().lower()
            for step, ns in enumerate(durations, 1):
                events.append({'ph': 'X', 'cat': 'kernel', 'name': f'spyre_kernel_v1_{summary}_{key}#{step}',
                               'pid': 1, 'tid': 0, 'ts': ts, 'dur': ns / 1000, 'args': {'debug_handles': ids}})
                ts += ns / 1000 + 5
    with open(path, 'w') as f:
        json.dump({'traceEvents': events}, f, indent=1)


def test_profile_demo_page():
    """The demo cache with a readable model and a small trace (the README's picture): the page
    opens on the hottest line, far down its file, in view."""
    with TempDir() as tmp, Browser() as b:
        demo_model(os.path.join(tmp, 'workspace', 'simple_mlp.py'))
        with open(os.path.join(TESTDATA, 'demo', 'origins.json')) as f:
            origins = re.sub(r'/workspace/simple_mlp.py\\", line (\d+)',
                             lambda m: 'workspace/simple_mlp.py\\", line %d' % (int(m.group(1)) + 200), f.read())
        with open(os.path.join(tmp, 'origins.json'), 'w') as f:
            f.write(origins)
        copy_tree(os.path.join(TESTDATA, 'demo', 'inductor-spyre'), os.path.join(tmp, 'cache'))
        run('annotate', '--origins', 'origins.json', 'cache', check_rc=0, cwd=tmp)
        plan = {'sdsc_fused_addmm_linear_relu_0_q7k2m_x4': ('fused_addmm_relu', [412345, 398120, 405002]),
                'sdsc_fused_addmm_1_b9d3wz0e': ('fused_addmm', [120500, 119875])}
        demo_trace(os.path.join(tmp, 'cache'), os.path.join(tmp, 'trace.json'), plan)
        path = os.path.join(tmp, 'profile-demo.html')
        write_page(path, 'profile', 'trace.json', 'cache', cwd=tmp)
        b.open(path)
        assert_clean(b, 'profile-demo')
        shoot(b, 'profile-demo')  # as it opens (docs/html-page.png)
        # The hottest kernel's lines tie: the first by label is the hottest line.
        hottest = max(plan, key=lambda d: sum(plan[d][1]))
        first = min(lines_on_disk(os.path.join(tmp, 'cache', hottest), 'workspace/simple_mlp.py'))
        assert first > 200, first
        rows = all_rows(b, 'rank-list', "e.querySelector('.label').textContent")
        assert rows[0] == f'workspace/simple_mlp.py:{first}', rows
        b.eval("document.getElementById('rank-list').scrollTop = 0")
        b.settle()
        in_view = b.eval("""(() => { const box = document.getElementById('line-list').getBoundingClientRect();
            return [...document.querySelectorAll('.line-row')].filter((e) => { const r = e.getBoundingClientRect();
              return r.top >= box.top && r.bottom <= box.bottom; }).map((e) => Number(e.dataset.line)); })()""")
        assert first in in_view and 'x = self.fc1(x)' in text_of(b, 'line-list'), (first, in_view)
        ns = 4 * sum(plan[hottest][1])
        assert f'{fmt_dur(ns)} (' in text_of(b, 'line-list'), text_of(b, 'line-list')
        b.click(f'.line-row[data-line="{first}"]')
        shown = b.eval("[...document.querySelectorAll('.kernel-row .name')].map((e) => e.title)")
        label = f'{DEMO_NAMES[hottest]}@{hottest}'  # the kernel row: one compiled bundle
        assert shown == [label], shown
        b.click('.kernel-row')
        detail_in_view(b, label)
        assert f'sdscprov explain cache/{hottest}' in text_of(b, 'kernel-detail')
        assert_clean(b, 'profile-demo')


def test_profile_page_without_kernel_events():
    """A trace with no device kernel event (a CPU-only capture): the page says so, and how to
    record them."""
    with TempDir() as tmp, Browser() as b:
        events = [{'ph': 'X', 'cat': 'cpu_op', 'name': f'aten::mm', 'pid': 1, 'tid': 1, 'ts': i, 'dur': 1}
                  for i in range(45)]
        with open(os.path.join(tmp, 'trace.json'), 'w') as f:
            json.dump({'traceEvents': events}, f)
        os.makedirs(os.path.join(tmp, 'cache'))
        path = os.path.join(tmp, 'cpu.html')
        write_page(path, 'profile', 'trace.json', 'cache', cwd=tmp)
        b.open(path)
        assert_clean(b, 'profile-cpu')
        assert text_of(b, 'headline') == ('No device kernel event among the trace\'s 45 events: torch-spyre '
                                          'writes them when the profiler records ProfilerActivity.PrivateUse1.')
        assert text_of(b, 'kernel-count') == '0 of 0 kernels'


# ---- the page's own files ------------------------------------------------------------------------

def test_page_is_its_files():
    """The stylesheet, markup and script of src/report/page/ are in every page byte for byte, each
    in its place: the files embedded at build time are the ones editors and linters read."""
    page_dir = os.path.join(ROOT, 'src', 'report', 'page')
    names = ('page.css', 'page.html', 'page.js')
    assert sorted(os.listdir(page_dir)) == sorted(names), os.listdir(page_dir)
    parts = {}
    for name in names:
        with open(os.path.join(page_dir, name), 'rb') as f:
            parts[name] = f.read()
    with TempDir() as tmp:
        page = write_page(os.path.join(tmp, 'scan.html'), 'scan', os.path.join(TESTDATA, 'demo', 'inductor-spyre'))
    head, data = page.split(b'<script type="application/json" id="sdscprov-data">')
    assert head.endswith(b'<style>\n' + parts['page.css'] + b'</style>\n</head>\n<body>\n' + parts['page.html']), \
        'the page lacks page.css or page.html as they are'
    assert data.endswith(b'</script>\n<script>\n' + parts['page.js'] + b'</script>\n</body>\n</html>\n'), \
        'the page lacks page.js as it is'


# ---- a large cache -----------------------------------------------------------------------------

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
        names = {}
        for k in kernels:
            g = names.setdefault(k['kernel'] or os.path.join(cache, k['dir']), [0])
            g[0] += k['null'] + k['absent']
        count_line = text_of(b, 'kernel-count')
        assert count_line == f'{len(kernels):,} of {count(len(kernels), "directory", "directories")} ' \
                             f'({len(names):,} of {count(len(names), "kernel", "kernels")})', count_line
        rows = b.eval("document.querySelectorAll('#kernel-list .row').length")
        assert 0 < rows < 100, f'{rows} kernel rows in the DOM for {len(kernels)} kernels'
        # Worst first: the most files lacking a populated handle (no file has a problem here).
        assert text_of(b, 'problem-count') == '(0)'
        groups = b.eval("[...document.querySelectorAll('.group-row .name')].map((e) => e.title)")
        want = sorted(names, key=lambda n: (-names[n][0], n))
        assert len(groups) > 3 and groups == want[:len(groups)], (groups, want[:len(groups)])
        set_sort(b, 'name')
        groups = b.eval("[...document.querySelectorAll('.group-row .name')].map((e) => e.title)")
        assert groups == sorted(names)[:len(groups)], groups
        set_sort(b, 'worst')
        b.eval("document.getElementById('kernel-list').scrollTop = 1e9")
        b.settle()
        b.settle()
        assert kernel_dirs_shown(b) and b.eval("document.querySelectorAll('#kernel-list .row').length") < 100
        # A new filter or order starts at the top, though the rows still fill many screens.
        for change in (lambda: b.type_into('#filter', 'sdsc_fused'), lambda: set_sort(b, 'name')):
            b.eval("document.getElementById('kernel-list').scrollTop = 1e9")
            b.settle()
            assert b.eval("document.getElementById('kernel-list').scrollTop") > 1000
            change()
            assert b.eval("document.getElementById('kernel-list').scrollTop") == 0
            assert b.eval("(() => { const e = document.getElementById('kernel-list'); return e.scrollHeight > 10 * e.clientHeight; })()")
        set_sort(b, 'worst')
        b.type_into('#filter', '')
        for k in (kernels[0], kernels[len(kernels) // 2], kernels[-1]):
            b.type_into('#filter', os.path.basename(k['dir']))
            assert b.eval("document.getElementById('kernel-list').scrollTop") == 0
            shown = b.eval("[...document.querySelectorAll('.kernel-row')].map((e) => "
                           "[e.querySelector('.dir').textContent, e.querySelector('.bar').title])")
            want = [[os.path.join(cache, k['dir']),
                     f"populated {k['populated']}, null {k['null']}, absent {k['absent']}, malformed 0"]]
            assert shown == want, (shown, want)
        b.type_into('#filter', '')

        def narrow():
            cut = check_small_window(b, 'large')
            assert cut > 0, 'no name shortened at 800x600: the check of the tails saw nothing'
            check_copy(b, '.kernel-row .dir')
        shoot(b, 'large', narrow)


if __name__ == '__main__':
    main([test_demo_pages_scan_annotate_check_explain, test_profile_page, test_profile_page_steps,
          test_profile_demo_page, test_profile_page_without_kernel_events, test_page_is_its_files,
          test_large_cache_page_is_virtualised])
