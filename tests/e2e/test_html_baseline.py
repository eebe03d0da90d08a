"""The page of `sdscprov profile --baseline BASE TRACE --format html` in a headless browser: both
runs in the header, the compared rankings (base, new, change, new/gone) in the comparison's order,
the bundles of either run as kernels, and the heat by change with its switch.

The two traces are those of test_baseline.py (one generated model, chosen bundles slowed, sped up,
left out of one run or the other); every expectation is computed from what the generator wrote
into each trace (its expected.json), never from sdscprov's output. Screenshots go to
<build>/screenshots/ as test_html.py's do.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import TempDir, main  # noqa: E402
from test_baseline import Runs, SteppedRuns, expected_rows, outside  # noqa: E402
from test_html import Browser, all_rows, source_files, assert_clean, count, fmt_dur, fmt_share, set_sort, shoot, \
    text_of, write_page  # noqa: E402

# The heat's colours (rgb or rgba as the browser gives them back).
GROWTH, SHRINK = '(224, 49, 49', '(28, 126, 214'


def fmt_signed(ns):
    return ('+' if ns > 0 else '-' if ns < 0 else '') + fmt_dur(abs(ns))


def fmt_pct(change, base):
    """The change in percent of the base, one decimal, its size rounded half up ("-": no base)."""
    if not base:
        return '-'
    tenths = (2000 * abs(change) + base) // (2 * base)
    return ('' if not tenths else '-' if change < 0 else '+') + f'{tenths // 10}.{tenths % 10}%'


def mark(r):
    return r['status'] if r['status'] in ('new', 'gone') else fmt_pct(r['change_ns'], r['base_ns'])


def shown_row(r):
    """A compared row as the page must show it: base, new, change, its mark, the label."""
    return [fmt_dur(r['base_ns']) if r['status'] != 'new' else '-',
            fmt_dur(r['new_ns']) if r['status'] != 'gone' else '-',
            fmt_signed(r['change_ns']), mark(r), r['label']]


def share_or_dash(part, whole):
    return fmt_share(part, whole) if whole else '-'


def headline(base, new):
    """The header's sentence after "Compared totals of each run (WHY): " (WHY: the product's own
    words for why the runs are not compared per step)."""
    b, n = base['coverage'], new['coverage']
    change = n['kernel_ns'] - b['kernel_ns']
    return (f"base {fmt_dur(b['kernel_ns'])} in "
            f"{count(b['kernel_events'], 'kernel event', 'kernel events')}, new {fmt_dur(n['kernel_ns'])} in "
            f"{count(n['kernel_events'], 'kernel event', 'kernel events')}: {fmt_signed(change)} "
            f"({fmt_pct(change, b['kernel_ns'])}). Paired with provenance: "
            f"{share_or_dash(b['resolved_ns'], b['kernel_ns'])} of the base, "
            f"{share_or_dash(n['resolved_ns'], n['kernel_ns'])} of the new.")


def check_totals_headline(b, base, new):
    text = text_of(b, 'headline')
    why, sep, rest = text.partition('): ')
    assert why.startswith('Compared totals of each run (') and 'step' in why and sep, text
    assert rest == headline(base, new), (rest, headline(base, new))


def step_headline(runs):
    """The header of runs compared per step: time per step, the events of the steps, the steps,
    and the events that start in no step."""
    def run(view, whole):
        return (f"{fmt_dur(view['coverage']['kernel_ns'])} per step "
                f"({count(whole['steps']['sidecar']['coverage']['kernel_events'], 'kernel event', 'kernel events')} in "
                f"{count(whole['steps']['spans'], 'step', 'steps')})")
    b, n = runs.base['coverage']['kernel_ns'], runs.new['coverage']['kernel_ns']
    cb, cn = runs.base_all['sidecar']['coverage'], runs.new_all['sidecar']['coverage']
    (ob, obns), (on, onns) = outside(runs.base_all), outside(runs.new_all)
    return (f"Compared per step: base {run(runs.base, runs.base_all)}, new {run(runs.new, runs.new_all)}: "
            f"{fmt_signed(n - b)} ({fmt_pct(n - b, b)}). Paired with provenance: "
            f"{fmt_share(cb['resolved_ns'], cb['kernel_ns'])} of the base, "
            f"{fmt_share(cn['resolved_ns'], cn['kernel_ns'])} of the new. Left out: the kernel events "
            f"that start in no step, {ob:,} of the base ({fmt_dur(obns)}), {on:,} of the new ({fmt_dur(onns)}).")


def check_rankings(b, runs):
    for tab, table in (('line', 'by_line'), ('aten', 'by_aten'), ('kernel', 'by_kernel')):
        b.click(f'.tab[data-tab="{tab}"]')
        rows = all_rows(b, 'rank-list', "[...['.c-base', '.c-new', '.c-change', '.c-pct', '.label']]"
                                        ".map((s) => e.querySelector(s).textContent)")
        want = [shown_row(r) for r in expected_rows(runs.base, runs.new, table)]
        assert rows == want, (tab, [(g, w) for g, w in zip(rows, want) if g != w][:3], len(rows), len(want))
        # Each time exact to the ns, in the cells' tooltips.
        exact = all_rows(b, 'rank-list', "[...['.c-base', '.c-new', '.c-change']].map((s) => e.querySelector(s).title)")
        want = [[f"{r['base_ns']} ns", f"{r['new_ns']} ns", f"{r['change_ns']:+d} ns" if r['change_ns'] else '0 ns']
                for r in expected_rows(runs.base, runs.new, table)]
        assert exact == want, (tab, [(g, w) for g, w in zip(exact, want) if g != w][:3])
        if tab != 'aten':  # ATen ops are shared by several bundles
            assert {'new', 'gone'} <= {r[3] for r in rows}, (tab, {r[3] for r in rows})
    b.click('.tab[data-tab="line"]')


def check_growth_order(b, runs):
    """The switch of the rankings' order: by growth, the largest first and the largest shrink
    last (the comparison's order between rows of the same change)."""
    b.eval("(() => { const s = document.getElementById('rank-order'); s.value = 'growth'; "
           "s.dispatchEvent(new Event('change')); })()")
    b.settle()
    for tab, table in (('line', 'by_line'), ('kernel', 'by_kernel')):
        b.click(f'.tab[data-tab="{tab}"]')
        rows = all_rows(b, 'rank-list', "e.querySelector('.label').textContent")
        want = [r['label'] for r in sorted(expected_rows(runs.base, runs.new, table), key=lambda r: -r['change_ns'])]
        assert rows == want, (tab, rows[:5], want[:5])
    # A row clicked in that order is the row shown (the last: the largest shrink).
    assert want[-1] != expected_rows(runs.base, runs.new, 'by_kernel')[-1]['label']
    b.eval("document.getElementById('rank-list').scrollTop = 1e9")
    b.settle()
    b.click(f'.rank-row[data-i="{len(want) - 1}"]')
    assert text_of(b, 'line-status').startswith(want[-1] + ' \u2192 '), (text_of(b, 'line-status'), want[-1])
    b.click('#focus-clear')
    b.eval("(() => { const s = document.getElementById('rank-order'); s.value = 'change'; "
           "s.dispatchEvent(new Event('change')); })()")
    b.settle()
    b.click('.tab[data-tab="line"]')


def check_labels_whole(b):
    """At 1400x1000 the compared rows leave each label's tail in view."""
    cut = b.eval("""[...document.querySelectorAll('.rank-row .mid')].filter((e) =>
        e.querySelector('.tail').getBoundingClientRect().right - e.getBoundingClientRect().right > 0.5
        || e.getBoundingClientRect().right > e.parentElement.getBoundingClientRect().right + 0.5).map((e) => e.title)""")
    assert cut == [], f'labels cut off at their tail: {cut[:5]}'


def line_heat(b):
    """Every source line's heat on the page, in each file: {file:line: (title, colour)}."""
    heat = {}
    for path in source_files(b):
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


def open_compared(b, runs, path, page):
    """The page of `profile --baseline` over the two runs, written to `path` and opened clean."""
    write_page(path, 'profile', '--baseline', runs.base_trace, runs.new_trace, '--origins', runs.sidecar)
    b.open(path)
    assert_clean(b, page)


def test_baseline_page():
    with TempDir() as tmp, Browser() as b:
        runs = Runs(tmp)
        open_compared(b, runs, os.path.join(tmp, 'baseline.html'), 'profile-baseline')
        check_totals_headline(b, runs.base, runs.new)
        summary = text_of(b, 'summary')
        assert runs.base_trace + 'base trace' in summary and runs.new_trace + 'new trace' in summary, summary
        check_compared(b, runs, 'profile-baseline')


def check_compared(b, runs, page):
    """The rows, the first view, the orders, the heat and the kernels of a compared page."""
    # The page opens on the line that grew the most.
    grew = next(r for r in expected_rows(runs.base, runs.new, 'by_line')
                if r['change_ns'] > 0 and not r['label'].startswith('['))
    assert text_of(b, 'line-status').startswith(
        f"The largest growth: {grew['label']}, {fmt_signed(grew['change_ns'])} ({mark(grew)})."), \
        (text_of(b, 'line-status'), grew)
    check_rankings(b, runs)
    check_labels_whole(b)
    check_growth_order(b, runs)
    check_heat(b, runs)
    check_kernels(b, runs)
    shoot(b, page)


def test_baseline_page_per_step():
    """Runs of 10 and 12 steps: every figure per step, the header says so and what it left out."""
    with TempDir() as tmp, Browser() as b:
        runs = SteppedRuns(tmp)
        open_compared(b, runs, os.path.join(tmp, 'steps.html'), 'profile-baseline-steps')
        assert text_of(b, 'headline') == step_headline(runs), (text_of(b, 'headline'), step_headline(runs))
        assert outside(runs.base_all)[0] > 0
        check_compared(b, runs, 'profile-baseline-steps')


def cpu_only_trace(path):
    """A trace with no device kernel event (a CPU-only capture)."""
    events = [{'ph': 'X', 'cat': 'cpu_op', 'name': 'aten::mm', 'pid': 1, 'tid': 1, 'ts': i, 'dur': 1}
              for i in range(45)]
    with open(path, 'w') as f:
        json.dump({'traceEvents': events}, f)


def test_baseline_page_with_a_run_without_kernel_events():
    """One of the two runs has no device time (no source line ran in it): the page still opens,
    every row new (or gone), the heat by change that of the other run."""
    with TempDir() as tmp, Browser() as b:
        runs = Runs(tmp)
        cpu = os.path.join(tmp, 'cpu.json')
        cpu_only_trace(cpu)
        empty = {'coverage': {'kernel_ns': 0, 'kernel_events': 0, 'resolved_ns': 0},
                 'by_line': {}, 'by_aten': {}, 'by_kernel': {}}
        for name, base, new, base_expected, new_expected, status in (
                ('no-base', cpu, runs.new_trace, empty, runs.new, 'new'),
                ('no-new', runs.base_trace, cpu, runs.base, empty, 'gone')):
            path = os.path.join(tmp, f'{name}.html')
            write_page(path, 'profile', '--baseline', base, new, '--origins', runs.sidecar)
            b.open(path)
            assert_clean(b, f'profile-baseline-{name}')
            rows = all_rows(b, 'rank-list', "[...['.c-base', '.c-new', '.c-change', '.c-pct', '.label']]"
                                            ".map((s) => e.querySelector(s).textContent)")
            want = expected_rows(empty if status == 'new' else runs.base, runs.new if status == 'new' else empty,
                                 'by_line')
            assert rows == [shown_row(r) for r in want] and rows, (name, rows[:3])
            assert {r[3] for r in rows} == {status}, (name, rows[:3])
            lines = [r for r in want if not r['label'].startswith('[')]
            heat = line_heat(b)
            assert {k: v[0] for k, v in heat.items()} == {r['label']: fmt_signed(r['change_ns']) for r in lines}, name
            check_totals_headline(b, base_expected, new_expected)


if __name__ == '__main__':
    main([test_baseline_page, test_baseline_page_per_step,
          test_baseline_page_with_a_run_without_kernel_events])
