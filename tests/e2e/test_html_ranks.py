"""End-to-end test of the HTML page of `sdscprov profile T1 T2 T3 --format html`: three ranks of
one generated model (scripts/gen_trace.py --rank), rank 1's bundle 19 slowed to 160 %. The page,
opened in chromium, names the straggler line and the slowest rank under its title, above the fold
at 1400x1000 and 800x600, with the figures of the JSON report of the same traces; its ranking has
a column per rank, and every source-line cell in view shows its file's name and line whole.
Screenshots go to <build>/screenshots/.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import BIN, SCRIPTS, TempDir, main, run  # noqa: E402

sys.path.insert(0, SCRIPTS)
from html_browser import Browser, check_line_cells  # noqa: E402

SHOTS = os.path.join(os.path.dirname(os.path.abspath(BIN)), 'screenshots')
SIZES = ((1400, 1000), (800, 600))


def generate(out, *args):
    subprocess.run([sys.executable, os.path.join(SCRIPTS, 'gen_trace.py'), out, *args],
                   check=True, capture_output=True, timeout=600)
    return os.path.join(out, 'trace.json')


def ms(ns):
    us = (ns + 500) // 1000
    return f'{us // 1000:,}.{us % 1000:03d}'


def ratio(longest, shortest):
    """max / min with two decimals, more (up to six) until it differs from 1 when the times do."""
    for digits in range(2, 7):
        text = f'{longest / shortest:.{digits}f}'
        if longest == shortest or float(text) != 1.0:
            break
    return text + 'x'


def straggler(report):
    """Among lines of at least 1 % of the device time, the largest max/min, then the largest lead."""
    best = None
    for row in report['by_line']:
        ns = row['rank_ns']
        if max(ns) == min(ns) or row['device_ns'] * 100 < report['coverage']['kernel_ns']:
            continue
        key = (max(ns) / min(ns) if min(ns) else float('inf'), max(ns) - min(ns))
        if best is None or key > best[0]:
            best = (key, row)
    return best[1]


def test_rank_page_names_the_straggler():
    with TempDir() as tmp, Browser() as b:
        dirs = [os.path.join(tmp, f'rank{r}') for r in range(3)]
        traces = [generate(dirs[0], '--rank', '0'),
                  generate(dirs[1], '--rank', '1', '--scale', '19=160'),
                  generate(dirs[2], '--rank', '2')]
        args = ['profile', *traces, '--origins', os.path.join(dirs[0], 'spyre_provenance.json')]
        _, out, _ = run(*args, '--format', 'json')
        report = json.loads(out)
        row = straggler(report)
        ns = row['rank_ns']
        slow, fast = ns.index(max(ns)), ns.index(min(ns))
        ranks = [t['rank'] for t in report['traces']]
        assert ranks[slow] == 1, (row['label'], ns)
        want = (f"straggler line: {row['label']}: rank {ranks[slow]} took {ms(max(ns))} ms, "
                f"{ratio(max(ns), min(ns))} the fastest (rank {ranks[fast]}, {ms(min(ns))} ms)")
        totals = [t['kernel_ns'] for t in report['traces']]
        slow_t = totals.index(max(totals))
        slowest = (f"rank {ranks[slow_t]} ({traces[slow_t]}), {ms(max(totals))} ms of device time, "
                   f"{ms(max(totals) - min(totals))} ms more than the fastest "
                   f"(rank {ranks[totals.index(min(totals))]}, {ms(min(totals))} ms): "
                   f"{ratio(max(totals), min(totals))} its time")
        p = subprocess.run([BIN, *args, '--format', 'html'], capture_output=True, timeout=300)
        assert p.returncode == 0, p.stderr.decode(errors='replace')
        path = os.path.join(tmp, 'ranks.html')
        with open(path, 'wb') as f:
            f.write(p.stdout)
        b.open(path)
        os.makedirs(SHOTS, exist_ok=True)
        for width, height in SIZES:
            b.resize(width, height)
            text, bottom = b.eval("(() => { const v = document.getElementById('verdict'); "
                                  "return [v.textContent, v.getBoundingClientRect().bottom]; })()")
            assert text == want, (text, want)
            assert 0 < bottom <= height, f'the straggler line is below the fold at {width}: {bottom}'
            summary = b.eval("document.getElementById('summary').textContent")
            assert slowest in summary, (slowest, summary)
            b.screenshot(os.path.join(SHOTS, f'profile-ranks-{width}x{height}.png'))
            # Each rank's column: its device time in every row in view, in the ranks' order.
            head = b.eval("[...document.querySelectorAll('#rank-head .c-rank')].map((e) => e.textContent)")
            assert head == [f'rank {r}' for r in ranks], (width, head)
            by_label = {r['label']: r['rank_ns'] for r in report['by_line']}
            shown = b.eval("[...document.querySelectorAll('#rank-list .rank-row')].map((e) => "
                           "[e.querySelector('.label').title, [...e.querySelectorAll('.c-rank')].map((c) => c.textContent)])")
            assert len(shown) >= 5, shown
            for label, cells in shown:
                assert cells == [f'{ms(v)} ms' for v in by_label[label]], (width, label, cells, by_label[label])
            # Every source-line cell in view shows its file and line whole.
            check_line_cells(b, f'ranks at {width}x{height}')
            b.eval('scrollTo(0, 0)')


if __name__ == '__main__':
    main([test_rank_page_names_the_straggler])
