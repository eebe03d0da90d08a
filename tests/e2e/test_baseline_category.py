"""End-to-end tests of `profile --baseline` on the kernel-category rows (`--by category`).

Two traces of one generated model whose cache has the compiler's ideal cycles (each kernel's
category is that of its largest entry), the new one with two bundles slowed. Each category's base
and new time is what a profile of that trace alone reports for the category (the single-run
category rows, tested on their own in test_utilization); the comparison must join them exactly,
rank them by the absolute change and gate them with `--by category`.
"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import SCRIPTS, TempDir, main, run  # noqa: E402

SLOWED = ['--scale', '19=125', '--scale', '0=150']


def generate(out, *args):
    subprocess.run([sys.executable, os.path.join(SCRIPTS, 'gen_trace.py'), out,
                    '--ideal-cycles', '1.0', *args], check=True, capture_output=True, timeout=600)
    return os.path.join(out, 'trace.json'), os.path.join(out, 'cache')


class Runs:
    def __init__(self, tmp):
        self.base_trace, self.cache = generate(os.path.join(tmp, 'base'))
        self.new_trace, _ = generate(os.path.join(tmp, 'new'), *SLOWED)
        self.sidecar = os.path.join(tmp, 'base', 'spyre_provenance.json')

    def alone(self, trace):
        _, out, _ = run('profile', trace, self.cache, '--origins', self.sidecar, '--format',
                        'json', check_rc=0)
        return {r['label']: (r['device_ns'], r['events']) for r in json.loads(out)['by_category']}

    def compare(self, *args, check_rc=None):
        return run('profile', '--baseline', self.base_trace, self.new_trace, self.cache,
                   '--origins', self.sidecar, *args, check_rc=check_rc)


def expected(base, new):
    rows = []
    for label in set(base) | set(new):
        b, n = base.get(label, (0, 0)), new.get(label, (0, 0))
        rows.append({'label': label, 'base_ns': b[0], 'new_ns': n[0], 'base_events': b[1],
                     'new_events': n[1], 'change_ns': n[0] - b[0]})
    rows.sort(key=lambda r: (-abs(r['change_ns']), -r['change_ns'], -r['new_ns'],
                             r['label'].encode()))
    return rows


def test_category_rows_exact_to_the_ns():
    with TempDir() as tmp:
        runs = Runs(tmp)
        want = expected(runs.alone(runs.base_trace), runs.alone(runs.new_trace))
        assert sum(1 for r in want if r['change_ns'] > 0) >= 1, want
        _, out, _ = runs.compare('--format', 'json', check_rc=0)
        got = [{k: r[k] for k in ('label', 'base_ns', 'new_ns', 'base_events', 'new_events',
                                  'change_ns')} for r in json.loads(out)['by_category']]
        assert got == want, (got, want)
        # The text table of --by category: the categories in the same order, under its title.
        _, text, _ = runs.compare('--by', 'category', '--top', '0', check_rc=0)
        assert 'By kernel category, by the absolute change (%d rows)' % len(want) in text, text
        lines = text.splitlines()
        start = next(i for i, l in enumerate(lines) if l.startswith('By kernel category')) + 2
        # base ms (10), new ms (10), change ms (11), change (8), each with a space, then two.
        shown = [line[44:] for line in lines[start:] if line.strip()]
        assert shown == [r['label'] for r in want], (shown, want)
        # The page: a ranked category table in the comparison's order, each row's new time.
        _, page, _ = runs.compare('--format', 'html', check_rc=0)
        model = json.loads(page.split('<script type="application/json" id="sdscprov-data">')[1]
                           .split('</script>')[0])
        table = next(t for t in model['rankings'] if t['id'] == 'category')
        assert [(r[0], r[1]) for r in table['rows']] == [(r['label'], r['new_ns']) for r in want]


def test_gate_by_category():
    with TempDir() as tmp:
        runs = Runs(tmp)
        want = expected(runs.alone(runs.base_trace), runs.alone(runs.new_trace))
        grown = [r['label'] for r in want if r['base_ns'] and r['change_ns'] > 0 and
                 100 * r['change_ns'] / r['base_ns'] > 5]
        assert grown, want
        _, _, err = runs.compare('--fail-over', '5', '--by', 'category', check_rc=1)
        # Each finding names its category, then the kernels whose time grew in it.
        named = [re.match(r'^.*?\): (.*?); kernels? \S', line).group(1)
                 for line in err.splitlines() if line.endswith('[fail-over]')]
        assert named == grown, (named, grown, err)
        # The same rows by source line are another gate: --by decides what is gated.
        _, _, err_lines = runs.compare('--fail-over', '5', check_rc=1)
        assert err_lines != err
        # Above every category's growth the gate passes.
        runs.compare('--fail-over', '100000', '--by', 'category', check_rc=0)


if __name__ == '__main__':
    main([test_category_rows_exact_to_the_ns, test_gate_by_category])
