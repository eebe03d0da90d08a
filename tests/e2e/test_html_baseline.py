"""The page of `sdscprov profile --baseline BASE TRACE --format html` in a headless browser: both
runs in the header, the compared rankings (base, new, change, new/gone) in the comparison's order,
the bundles of either run as kernels, and the heat by change with its switch.

The two traces are those of test_baseline.py (one generated model, chosen bundles slowed, sped up,
left out of one run or the other); every expectation is computed from what the generator wrote
into each trace (its expected.json), never from sdscprov's output. Screenshots go to
<build>/screenshots/ as test_html.py's do.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import TempDir, main  # noqa: E402
from test_baseline import Runs, expected_rows  # noqa: E402
from test_html import Browser, all_rows, assert_clean, count, fmt_dur, fmt_share, set_sort, shoot, \
    text_of, write_page  # noqa: E402

# The heat's colours (rgb or rgba as the browser gives them back).
GROWTH, SHRINK = '(224, 49, 49', '(28, 126, 214'


def fmt_signed(ns):
    return ('+' if ns > 0 else '-' if ns < 0 else '') + fmt_dur(abs(ns))


def fmt_pct(change, base):
    """The change in percent of the base, one decimal, its size rounded half up."""
    tenths = (2000 * abs(change) + base) // (2 * base)
    return ('' if not tenths else '-' if change < 0 else '+') + f'{tenths // 10}.{tenths % 10}%'


def mark(r):
    return r['status'] if r['status'] in ('new', 'gone') else fmt_pct(r['change_ns'], r['base_ns'])


def shown_row(r):
    """A compared row as the page must show it: base, new, change, its mark, the label."""
    return [fmt_dur(r['base_ns']) if r['status'] != 'new' else '-',
            fmt_dur(r['new_ns']) if r['status'] != 'gone' else '-',
            fmt_signed(r['change_ns']), mark(r), r['label']]


def headline(base, new):
    b, n = base['coverage'], new['coverage']
    change = n['kernel_ns'] - b['kernel_ns']
    return (f"Compared totals of each run: base {fmt_dur(b['kernel_ns'])} in "
            f"{count(b['kernel_events'], 'kernel event', 'kernel events')}, new {fmt_dur(n['kernel_ns'])} in "
            f"{count(n['kernel_events'], 'kernel event', 'kernel events')}: {fmt_signed(change)} "
            f"({fmt_pct(change, b['kernel_ns'])}). Paired with provenance: "
            f"{fmt_share(b['resolved_ns'], b['kernel_ns'])} of the base, "
            f"{fmt_share(n['resolved_ns'], n['kernel_ns'])} of the new.")


def check_rankings(b, runs):
    for tab, table in (('line', 'by_line'), ('aten', 'by_aten'), ('kernel', 'by_kernel')):
        b.click(f'.tab[data-tab="{tab}"]')
        rows = all_rows(b, 'rank-list', "[...['.c-base', '.c-new', '.c-change', '.c-pct', '.label']]"
                                        ".map((s) => e.querySelector(s).textContent)")
        want = [shown_row(r) for r in expected_rows(runs.base, runs.new, table)]
        assert rows == want, (tab, [(g, w) for g, w in zip(rows, want) if g != w][:3], len(rows), len(want))
        if tab != 'aten':  # ATen ops are shared by several bundles
            assert {'new', 'gone'} <= {r[3] for r in rows}, (tab, {r[3] for r in rows})
    b.click('.tab[data-tab="line"]')


def line_heat(b):
    """Every source line's heat on the page, in each file: {file:line: (title, colour)}."""
    heat = {}
    for i in range(b.eval("document.getElementById('source-select').options.length")):
        b.eval(f"(() => {{ const s = document.getElementById('source-select'); s.value = s.options[{i}].value; "
               "s.dispatchEvent(new Event('change')); })()")
        b.settle()
        path = b.eval("document.getElementById('source-select').selectedOptions[0].textContent.split('  (')[0]")
        for line, title, colour in all_rows(b, 'line-list', "[e.dataset.line, e.querySelector('.heat').title, "
                                                            "getComputedStyle(e.querySelector('.heat')).backgroundColor]"):
            if title not in ('0.000 ms', ''):
                heat[f'{path}:{line}'] = (title, colour)
    return heat


def set_heat(b, value):
    b.eval("(() => { const s = document.getElementById('heat-select'); s.value = %r; "
           "s.dispatchEvent(new Event('change')); })()" % value)
    b.settle()


def check_heat(b, runs):
    """The heat by change first (growth and shrink apart), then each run's device time."""
    lines = [r for r in expected_rows(runs.base, runs.new, 'by_line') if not r['label'].startswith('[')]
    assert b.eval("document.getElementById('heat-select').value") == 'change'
    heat = line_heat(b)
    want = {r['label']: fmt_signed(r['change_ns']) for r in lines if r['change_ns']}
    assert {k: v[0] for k, v in heat.items()} == want, set(want.items()) ^ {(k, v[0]) for k, v in heat.items()}
    assert any(r['change_ns'] > 0 for r in lines) and any(r['change_ns'] < 0 for r in lines)
    for r in lines:
        if r['change_ns']:
            colour = heat[r['label']][1]
            assert (GROWTH if r['change_ns'] > 0 else SHRINK) in colour.replace('rgba', 'rgb'), (r, colour)
    for value, key in (('time', 'new_ns'), ('base', 'base_ns')):
        set_heat(b, value)
        heat = line_heat(b)
        want = {r['label']: fmt_dur(r[key]) for r in lines if r[key]}
        assert {k: v[0] for k, v in heat.items()} == want, (value, set(want.items()) ^ {(k, v[0]) for k, v in heat.items()})
        assert all(GROWTH in v[1].replace('rgba', 'rgb') for v in heat.values()), value
    set_heat(b, 'change')


def check_kernels(b, runs):
    """The bundles of both runs, by change first (growth before a shrink of the same size)."""
    want = {r['label']: r for r in expected_rows(runs.base, runs.new, 'by_kernel')}
    assert b.eval("document.getElementById('sort').value") == 'change'
    rows = all_rows(b, 'kernel-list', "[e.querySelector('.name').title, ...[...e.querySelectorAll('.num')]"
                                      ".map((c) => c.textContent)]")
    assert sorted(r[0] for r in rows) == sorted(want), (sorted(r[0] for r in rows), sorted(want))
    for name, new, change, pct in rows:
        assert [new, change, pct] == shown_row(want[name])[1:4], (name, new, change, pct, want[name])
    order = [(-abs(want[r[0]]['change_ns']), -want[r[0]]['change_ns'], -want[r[0]]['new_ns']) for r in rows]
    assert order == sorted(order), rows[:5]
    # A gone bundle: its ranking row lists it, and its detail says it is gone.
    gone = next(r for r in want.values() if r['status'] == 'gone')
    b.click('.tab[data-tab="kernel"]')
    i = [r['label'] for r in expected_rows(runs.base, runs.new, 'by_kernel')].index(gone['label'])
    b.eval(f"document.getElementById('rank-list').scrollTop = {i} * 20")
    b.settle()
    b.click(f'.rank-row[data-i="{i}"]')
    assert b.eval("[...document.querySelectorAll('.kernel-row .name')].map((e) => e.title)") == [gone['label']]
    detail = text_of(b, 'kernel-detail')
    assert 'gone (not in the new run)' in detail and f"{fmt_dur(gone['base_ns'])} in " in detail, detail[:400]
    b.click('#focus-clear')
    set_sort(b, 'name')
    names = b.eval("[...document.querySelectorAll('.kernel-row .name')].map((e) => e.title)")
    assert names == sorted(names), names
    set_sort(b, 'change')
    b.click('.tab[data-tab="line"]')


def test_baseline_page():
    with TempDir() as tmp, Browser() as b:
        runs = Runs(tmp)
        path = os.path.join(tmp, 'baseline.html')
        write_page(path, 'profile', '--baseline', runs.base_trace, runs.new_trace, '--origins', runs.sidecar)
        b.open(path)
        assert_clean(b, 'profile-baseline')
        assert text_of(b, 'headline') == headline(runs.base, runs.new), text_of(b, 'headline')
        summary = text_of(b, 'summary')
        assert runs.base_trace + 'base trace' in summary and runs.new_trace + 'new trace' in summary, summary
        check_rankings(b, runs)
        # The page opens on the line that grew the most.
        grew = next(r for r in expected_rows(runs.base, runs.new, 'by_line')
                    if r['change_ns'] > 0 and not r['label'].startswith('['))
        assert text_of(b, 'line-status').startswith(
            f"The largest growth: {grew['label']}, {fmt_signed(grew['change_ns'])} ({mark(grew)})."), \
            (text_of(b, 'line-status'), grew)
        check_heat(b, runs)
        check_kernels(b, runs)
        shoot(b, 'profile-baseline')


if __name__ == '__main__':
    main([test_baseline_page])
