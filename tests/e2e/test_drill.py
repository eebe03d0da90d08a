"""End-to-end tests of profile's drill-down: `--line FILE:LINE`, `--op ATEN` and `--kernel LABEL`
show one row's kernels (or a kernel's source lines and ops), each kernel with the `sdscprov
explain` command that goes on, and the text report ends with the command that drills into its
top row.

The trace, cache and sidecar come from scripts/gen_trace.py; which kernels a source line or an op
has is worked out here from the sidecar's handles (test_utilization.Generated), never from
sdscprov's output.
"""
import json
import os
import re
import shlex
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import BIN, TempDir, main, run  # noqa: E402
from test_profile import run_on_terminal  # noqa: E402
from test_utilization import Generated  # noqa: E402

ROW = re.compile(r'^ +[0-9.,]+ +[0-9.]+ +[0-9,]+ ')
NEXT = re.compile(r'^ +next: (?P<command>.+)$')
COLUMNS = ('source line', 'ATen op', 'kernel')   # the label column's heading, last in the head


def drill_rows(text):
    """The rows of the tables in `text`: [(label, explain command or None)], in order. A label
    starts where its column's heading does."""
    rows, at = [], None
    for line in text.splitlines():
        if 'time (ms)' in line and line.endswith(COLUMNS):
            at = len(line) - len(next(c for c in COLUMNS if line.endswith(c)))
        elif m := NEXT.match(line):
            assert rows and rows[-1][1] is None, line
            rows[-1] = (rows[-1][0], m['command'])
        elif at is not None and ROW.match(line):
            rows.append((line[at:], None))
    return rows


def run_command(command):
    """A printed `sdscprov ...` command, run as a shell would split it."""
    words = shlex.split(command)
    assert words[0] == 'sdscprov', command
    return run(*words[1:])


def expected(g):
    """label of a source line or op -> the kernel rows' labels of the paired bundles in it."""
    by_line, by_op, kernel_of = {}, {}, {}
    for key, (label, _) in g.rows_of('both').items():
        kernel_of[label] = key
        for line in g.lines[key] or ['[no source]']:
            by_line.setdefault(line, set()).add(label)
        for op in g.ops[key] or ['[no aten op]']:
            by_op.setdefault(op, set()).add(label)
    return by_line, by_op, kernel_of


def scene(tmp):
    """The generated run, the profile command's words over it, and its JSON report."""
    g = Generated(tmp)
    base = ('profile', g.trace, g.cache, '--origins', g.sidecar)
    return g, base, json.loads(run(*base, '--format', 'json', check_rc=0)[1])


def test_a_line_s_and_an_op_s_kernels_with_their_explain_commands():
    with TempDir() as tmp:
        g, base, report = scene(tmp)
        by_line, by_op, _ = expected(g)
        lines = [r['label'] for r in report['by_line'] if r['label'] in by_line]
        ops = [r['label'] for r in report['by_aten'] if r['label'] in by_op]
        assert len(lines) >= 3 and len(ops) >= 3, (lines, ops)
        explained = 0
        for option, labels, want in (('--line', lines[:3] + lines[-1:], by_line),
                                     ('--op', ops[:3], by_op)):
            for label in labels:
                _, text, _ = run(*base, option, label, '--top', '0', check_rc=0)
                assert f'{option} {label}: ' in text, text[-2000:]
                rows = drill_rows(text.split(f'{option} {label}: ', 1)[1])
                assert {r[0] for r in rows} == want[label], (option, label, rows, want[label])
                for kernel, command in rows:
                    assert command == shlex.join(['sdscprov', 'explain', kernel, g.cache,
                                                  '--origins', g.sidecar]), command
                # Each kernel's command goes on: explain shows that kernel.
                kernel, command = rows[0]
                rc, out, err = run_command(command)
                assert rc == 0 and kernel.split('@')[0] in out, (command, rc, err[-1000:])
                explained += 1
        assert explained == 7


def test_a_kernel_s_lines_and_ops():
    with TempDir() as tmp:
        g, base, report = scene(tmp)
        _, _, kernel_of = expected(g)
        labels = [r['label'] for r in report['by_kernel'] if r['label'] in kernel_of][:4]
        assert len(labels) == 4, labels
        for label in labels:
            key = kernel_of[label]
            _, text, _ = run(*base, '--kernel', label, '--top', '0', check_rc=0)
            drill = text.split(f'--kernel {label}: ', 1)[1]
            lines_part, ops_part = drill.split('ATen ops by device time', 1)
            shown_lines = {r[0] for r in drill_rows(lines_part)}
            shown_ops = {r[0] for r in drill_rows(ops_part)}
            want_lines = set(g.lines[key] or ['[no source]'])
            assert shown_lines == want_lines, (label, shown_lines, want_lines)
            assert shown_ops == set(g.ops[key] or ['[no aten op]']), (label, shown_ops)
            said = [line for line in drill.splitlines() if line.startswith('next: ')]
            assert said == ['next: ' + shlex.join(['sdscprov', 'explain', label, g.cache,
                                                   '--origins', g.sidecar])], said


def test_labels_as_people_copy_them_and_what_cannot_be_shown():
    with TempDir() as tmp:
        g, base, report = scene(tmp)
        by_line, _, kernel_of = expected(g)
        line = next(r['label'] for r in report['by_line'] if r['label'] in by_line
                    and r['file'])
        whole = drill_rows(run(*base, '--line', line, check_rc=0)[1])
        # The end of its path (from a path component on), and a label a terminal shortened.
        file, number = line.rsplit(':', 1)
        tail = os.path.basename(file) + ':' + number
        if sum(r['label'].endswith('/' + tail) for r in report['by_line']) == 1:
            assert drill_rows(run(*base, '--line', tail, check_rc=0)[1]) == whole
        shortened = '\u2026/' + tail
        assert drill_rows(run(*base, '--line', shortened, check_rc=0)[1]) == whole
        kernel = next(r['label'] for r in report['by_kernel'] if r['label'] in kernel_of)
        middle = kernel[:6] + '\u2026' + kernel[-8:]
        if sum(r['label'].startswith(kernel[:6]) and r['label'].endswith(kernel[-8:])
               for r in report['by_kernel']) == 1:
            rc, text, _ = run(*base, '--kernel', middle, check_rc=0)
            assert f'--kernel {kernel}: ' in text
        # None answers: exit 2, the rows like it named.
        rc, out, err = run(*base, '--line', tail.replace(':', '9:'))
        assert rc == 2 and out == '' and 'no source line row answers' in err, (rc, err[-500:])
        # Several answer: exit 2, each of them named.
        rc, out, err = run(*base, '--kernel', 'sdsc_\u2026')
        many = [r['label'] for r in report['by_kernel'] if r['label'].startswith('sdsc_')]
        assert len(many) > 1
        assert rc == 2 and 'several kernel rows answer' in err, (rc, err[-500:])
        # The first 10 in the table's order, then how many more.
        said = err.split('several kernel rows answer; give one of them:\n', 1)[1].splitlines()
        if len(many) > 10:
            assert said[:11] == ['  ' + label for label in many[:10]] + [
                '  and %d more' % (len(many) - 10)], said[:12]
        else:
            assert said[:len(many)] == ['  ' + label for label in many], said
        # Usage errors: two drill-downs, another format, a comparison.
        for extra in (['--op', 'aten.add.Tensor'], ['--format', 'json'],
                      ['--baseline', g.trace]):
            rc, out, err = run(*base, '--line', line, *extra)
            assert rc == 2 and out == '' and 'sdscprov profile: --' in err, (extra, rc, err)


def test_the_report_ends_with_the_drill_into_its_top_row():
    with TempDir() as tmp:
        g = Generated(tmp)
        for order, ranking, option in ((['--by', 'line'], 'by_line', '--line'),
                                       (['--by', 'aten'], 'by_aten', '--op'),
                                       (['--by', 'kernel,lost'], 'by_kernel', '--kernel')):
            base = ('profile', g.trace, g.cache, '--origins', g.sidecar, '--core-mhz', '900')
            _, text, _ = run(*base, *order, check_rc=0)
            report = json.loads(run(*base, '--format', 'json', check_rc=0)[1])
            rows = report[ranking]
            if order[-1].endswith('lost'):
                rows = sorted(rows, key=lambda r: -r['utilization']['lost_ns'])  # stable
            top = rows[0]['label']
            last = text.rstrip('\n').splitlines()[-1]
            want = shlex.join(['sdscprov', 'profile', g.trace, g.cache, '--origins', g.sidecar,
                               '--core-mhz', '900', option, top])
            assert last == 'next: ' + want, (last, want)
            rc, out, err = run_command(want)
            assert rc == 0 and f'{option} {top}: ' in out, (rc, err[-1000:])


def commands_in(text):
    """The `next:` commands of a text report, a shell's line continuations joined."""
    joined = re.sub(r' \\\n +', ' ', text)
    return [m['command'] for m in map(NEXT.match, ('  ' + line for line in joined.splitlines()))
            if m]


def test_on_a_narrow_terminal_commands_fit_and_paste_whole():
    with TempDir() as tmp:
        g, base, report = scene(tmp)
        line = report['by_line'][0]['label']
        for args in ((), ('--line', line)):
            _, piped, _ = run(*base, *args, check_rc=0)
            rc, tty = run_on_terminal(*base, *args, '--color', 'never', env={'COLUMNS': '72'})
            assert rc == 0, tty
            # The command lines: "next:" and the continuations after it.
            lines, inside = [], False
            for x in tty.splitlines():
                inside = x.lstrip().startswith('next: ') or (inside and x.startswith('    '))
                if inside:
                    lines.append(x)
            # A line longer than the width holds one word (a label: never broken), no other.
            assert lines and all(len(x) <= 72 or x.split() in ([w, '\\'] for w in x.split()[:1])
                                 for x in lines), lines
            assert ' \\\n' in tty, 'no command was broken: the test shows nothing'
            piped_commands = commands_in(piped)
            assert piped_commands and commands_in(tty) == piped_commands, \
                (commands_in(tty), piped_commands)
            for command in piped_commands:
                shlex.split(command)  # each a whole shell command


if __name__ == '__main__':
    main([test_a_line_s_and_an_op_s_kernels_with_their_explain_commands,
          test_a_kernel_s_lines_and_ops,
          test_labels_as_people_copy_them_and_what_cannot_be_shown,
          test_the_report_ends_with_the_drill_into_its_top_row,
          test_on_a_narrow_terminal_commands_fit_and_paste_whole])
