"""The source-text rule (docs/safety.md, "Source text"): a handle names any path its producer
chose, and no report copies a file that is not a Python source under the allowed roots; a report
holds only the lines it shows (the page: a window around each); --source-root, --source-map and
--no-source-text; what was not read is said once, with the option that would reach it.

The demo cache is annotated with its origins map rewritten so that the stack traces name the
files each test needs; every expectation comes from the files the test wrote.
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import TESTDATA, TempDir, copy_tree, main, run  # noqa: E402
from test_html import demo_trace  # noqa: E402

DEMO = os.path.join(TESTDATA, 'demo')
KERNEL = 'sdsc_fused_addmm_linear_relu_0'  # its handles name the demo model's lines 18 and 19
SECRET = '-----BEGIN OPENSSH PRIVATE KEY-----'
MODEL = ['import torch', '', 'class SimpleMLP(torch.nn.Module):'] + [f'    # {n}' for n in range(4, 18)] + \
        ['        x = self.fc1(x)', '        x = torch.relu(x)', '        x = self.fc2(x)', '        return x']


class Run:
    """A work directory (the current directory of every command: an allowed root) holding the
    demo cache annotated with handles whose model lines 18, 19 and 20 name instead the (path,
    line) that `names` gives them; a private directory beside it, outside every root, holding a
    key and a .py with one."""

    def __init__(self, tmp, names=None):
        self.tmp = tmp
        self.work = os.path.join(tmp, 'work')
        self.private = os.path.join(tmp, 'private')
        os.makedirs(self.private)
        os.makedirs(self.work)
        self.key = os.path.join(self.private, 'id_ed25519')
        self.key_py = os.path.join(self.private, 'key.py')
        for path in (self.key, self.key_py):
            with open(path, 'w') as f:
                f.write('line 1\n' + SECRET + '\nAAAA\n-----END OPENSSH PRIVATE KEY-----\n')
        with open(os.path.join(DEMO, 'origins.json')) as f:
            origins = f.read()
        for line, target in (names or {}).items():
            origins = origins.replace('/workspace/simple_mlp.py\\", line %d' % line,
                                      '%s\\", line %d' % (json.dumps(target[0])[1:-1], target[1]))
        with open(os.path.join(self.work, 'origins.json'), 'w') as f:
            f.write(origins)
        copy_tree(os.path.join(DEMO, 'inductor-spyre'), os.path.join(self.work, 'cache'))
        run('annotate', '--origins', 'origins.json', 'cache', check_rc=0, cwd=self.work)

    def sdscprov(self, *args, rc=0):
        return run(*args, check_rc=rc, cwd=self.work)[1]

    def trace(self):
        """A device trace of the annotated demo cache (paired through the handles' ids)."""
        path = os.path.join(self.work, 'trace.json')
        demo_trace(os.path.join(self.work, 'cache'), path,
                   {'sdsc_fused_addmm_linear_relu_0_q7k2m_x4': ('fused_addmm_relu', [400000, 390000]),
                    'sdsc_fused_addmm_1_b9d3wz0e': ('fused_addmm', [120000])})
        return path

    def pages(self, *extra):
        """The pages of check, scan, explain and profile (each the data it embeds, and its bytes)."""
        trace = self.trace()
        out = {}
        for name, args in (('check', ('check', 'cache')), ('scan', ('scan', 'cache')),
                           ('explain', ('explain', KERNEL, 'cache')),
                           ('profile', ('profile', trace, 'cache'))):
            rc, html, err = run(*args, '--format', 'html', *extra, cwd=self.work)
            assert rc in (0, 1) and html.startswith('<!DOCTYPE html>'), (name, rc, err)
            out[name] = (page_data(html), html)
        return out


def page_data(html):
    m = re.search(r'<script type="application/json" id="sdscprov-data">(.*?)</script>', html, re.S)
    return json.loads(m.group(1))


def source_lines(data, path):
    """{line: text} of `path` in the page's model."""
    (source,) = [s for s in data['sources'] if s['path'] == path]
    return {n: text for n, text in source['lines']}


def explain_json(r, *extra):
    return json.loads(r.sdscprov('explain', '--format', 'json', KERNEL, 'cache', *extra))


def op_texts(doc):
    """(file, line, text) of each op's handle source in explain's JSON."""
    return [(op['debug_handle']['source']['file'], op['debug_handle']['source']['start_line'],
             op['source_line_text'])
            for k in doc['kernels'] for op in k['ops'] if op['debug_handle'] and op['debug_handle']['source']]


def test_a_private_file_a_handle_names_reaches_no_report():
    """The repro: a handle naming a private key (and a .py holding one) outside the roots."""
    with TempDir() as tmp:
        key, key_py = os.path.join(tmp, 'private', 'id_ed25519'), os.path.join(tmp, 'private', 'key.py')
        r = Run(tmp, {18: (key, 2), 19: (key_py, 2), 20: (key_py, 2)})
        for name, (data, html) in r.pages().items():
            assert html.count('PRIVATE KEY') == 0, name
            # The handle's path is the provenance: shown as it is, its lines without text.
            assert source_lines(data, r.key) == {2: None}, (name, data['sources'])
            assert source_lines(data, r.key_py) == {2: None}, (name, data['sources'])
            assert data['srcnote'][0] == ('source text: 2 files not shown: 1 outside the allowed roots '
                                          '(--source-root DIR), 1 not a Python file'), (name, data['srcnote'])
        doc = explain_json(r)
        assert 'PRIVATE KEY' not in json.dumps(doc)
        assert (r.key, 2, None) in op_texts(doc) and (r.key_py, 2, None) in op_texts(doc), op_texts(doc)
        assert doc['source_text'] == {'read': True, 'unreadable_prefixes': [], 'not_shown': sorted(
            [{'file': r.key, 'reason': 'not_python'}, {'file': r.key_py, 'reason': 'outside_roots'}],
            key=lambda x: x['file'])}, doc['source_text']
        text = r.sdscprov('explain', '--color', 'never', KERNEL, 'cache')
        assert 'PRIVATE KEY' not in text
        assert f'{r.key}:2 (not readable here)' in text, text
        # Said once, after the kernels, not per line.
        assert text.count('source text:') == 1 and text.rstrip('\n').endswith(
            'source text: 2 files not shown: 1 outside the allowed roots (--source-root DIR), '
            '1 not a Python file'), text
        profile = r.sdscprov('profile', r.trace(), 'cache', '--format', 'json')
        assert 'PRIVATE KEY' not in profile
        assert json.loads(profile)['source_text']['not_shown'] == doc['source_text']['not_shown']
        text = r.sdscprov('profile', r.trace(), 'cache', '--top', '0')
        assert 'PRIVATE KEY' not in text and text.count('source text: 2 files not shown') == 1, text


def test_a_link_named_py_to_a_private_file_is_refused():
    with TempDir() as tmp:
        link = os.path.join(tmp, 'work', 'src', 'x.py')
        r = Run(tmp, {18: (link, 2)})
        os.makedirs(os.path.dirname(link))
        os.symlink(r.key, link)
        for name, (data, html) in r.pages().items():
            assert html.count('PRIVATE KEY') == 0, name
            assert source_lines(data, link) == {2: None}, name
        doc = explain_json(r)
        assert (link, 2, None) in op_texts(doc)
        assert {'file': link, 'reason': 'not_python'} in doc['source_text']['not_shown']
        # A link named x.py to a source outside the roots: refused by where it leads.
        os.remove(link)
        os.symlink(r.key_py, link)
        doc = explain_json(r)
        assert 'PRIVATE KEY' not in json.dumps(doc)
        assert {'file': link, 'reason': 'outside_roots'} in doc['source_text']['not_shown']


def test_a_source_outside_the_roots_is_read_once_allowed():
    with TempDir() as tmp:
        model = os.path.join(tmp, 'elsewhere', 'model.py')
        r = Run(tmp, {18: (model, 18)})
        os.makedirs(os.path.dirname(model))
        with open(model, 'w') as f:
            f.write('\n'.join(MODEL) + '\n')
        doc = explain_json(r)
        assert (model, 18, None) in op_texts(doc)
        assert {'file': model, 'reason': 'outside_roots'} in doc['source_text']['not_shown']
        doc = explain_json(r, '--source-root', os.path.dirname(model))
        assert (model, 18, '        x = self.fc1(x)') in op_texts(doc), op_texts(doc)
        assert not any(n['file'] == model for n in doc['source_text']['not_shown'])
        # A --source-root that is not a directory is refused.
        rc, out, err = run('explain', KERNEL, 'cache', '--source-root', model, cwd=r.work)
        assert rc == 2 and '--source-root' in err and out == '', (rc, out, err)


def test_proc_paths_are_refused():
    with TempDir() as tmp:
        around = '/proc/self/root' + os.path.join(tmp, 'private', 'key.py')
        r = Run(tmp, {18: ('/proc/self/environ', 1), 19: (around, 2)})
        env = dict(os.environ, SDSCPROV_TEST_SECRET=SECRET)
        for args in (('explain', '--format', 'json', KERNEL, 'cache'),
                     ('explain', '--format', 'json', KERNEL, 'cache', '--source-root', '/proc'),
                     ('check', '--format', 'html', 'cache')):
            rc, out, err = run(*args, env=env, cwd=r.work)
            assert 'PRIVATE KEY' not in out and 'SDSCPROV_TEST_SECRET' not in out, args
        doc = json.loads(run('explain', '--format', 'json', KERNEL, 'cache', env=env, cwd=r.work)[1])
        assert {'file': '/proc/self/environ', 'reason': 'not_python'} in doc['source_text']['not_shown']
        assert {'file': around, 'reason': 'outside_roots'} in doc['source_text']['not_shown'], doc['source_text']


def test_no_source_text_reads_nothing():
    with TempDir() as tmp:
        model = os.path.join(tmp, 'work', 'model.py')
        r = Run(tmp, {18: (model, 18)})
        with open(model, 'w') as f:
            f.write('\n'.join(MODEL) + '\n')
        assert (model, 18, '        x = self.fc1(x)') in op_texts(explain_json(r))
        doc = explain_json(r, '--no-source-text')
        assert (model, 18, None) in op_texts(doc)
        assert doc['source_text'] == {'read': False, 'not_shown': [], 'unreadable_prefixes': []}
        text = r.sdscprov('explain', '--color', 'never', KERNEL, 'cache', '--no-source-text')
        assert 'self.fc1' not in text and text.rstrip('\n').endswith('source text: not read (--no-source-text)')
        for name, (data, html) in r.pages('--no-source-text').items():
            assert 'self.fc1' not in html, name
            assert data['srcnote'] == ['source text: not read (--no-source-text)'], name


def test_source_map_reads_another_machines_paths():
    """The demo's handles name /workspace/simple_mlp.py, the container's path."""
    with TempDir() as tmp:
        r = Run(tmp)
        here = os.path.join(tmp, 'checkout')  # outside the roots: --source-map's TO allows it
        os.makedirs(here)
        with open(os.path.join(here, 'simple_mlp.py'), 'w') as f:
            f.write('\n'.join(MODEL) + '\n')
        shown = '/workspace/simple_mlp.py'
        hint = 'lines under /workspace/ are not readable here: --source-map /workspace=DIR'
        # Without the map: not found, and the prefix named with the option that reaches it.
        doc = explain_json(r)
        assert (shown, 18, None) in op_texts(doc)
        assert doc['source_text']['unreadable_prefixes'] == ['/workspace/']
        text = r.sdscprov('explain', '--color', 'never', KERNEL, 'cache')
        assert text.count(hint) == 1 and text.count('(not readable here)') >= 2, text
        trace = r.trace()
        text = r.sdscprov('profile', trace, 'cache')
        assert text.count(hint) == 1 and 'self.fc1' not in text, text
        data = r.pages()['profile'][0]
        assert hint in data['srcnote'] and source_lines(data, shown)[18] is None

        mapping = ('--source-map', '/nowhere=/nothing', '--source-map', f'/workspace/={here}/')
        doc = explain_json(r, *mapping)
        assert (shown, 18, '        x = self.fc1(x)') in op_texts(doc), op_texts(doc)
        assert (shown, 19, '        x = torch.relu(x)') in op_texts(doc)
        assert doc['source_text'] == {'read': True, 'not_shown': [], 'unreadable_prefixes': []}
        text = r.sdscprov('explain', '--color', 'never', KERNEL, 'cache', *mapping)
        assert f'{shown}:18\n' in text and '> x = self.fc1(x)' in text and 'source text' not in text, text
        text = r.sdscprov('profile', trace, 'cache', *mapping)
        assert f'{shown}:18' in text and 'x = self.fc1(x)' in text and 'source text' not in text, text
        rows = json.loads(r.sdscprov('profile', trace, 'cache', '--format', 'json', *mapping))['by_line']
        assert {(x['file'], x['line'], x['text']) for x in rows if x['file']} == {
            (shown, 18, '        x = self.fc1(x)'), (shown, 19, '        x = torch.relu(x)'),
            (shown, 20, '        x = self.fc2(x)')}, rows
        for name, (data, html) in r.pages(*mapping).items():
            lines = source_lines(data, shown)
            assert lines[18] == '        x = self.fc1(x)' and lines[8] == '    # 8' and 7 not in lines, (name, lines)
            assert data['srcnote'] == [], name
        # Several traces, and --baseline: the same rows read through the map.
        doc = json.loads(r.sdscprov('profile', trace, trace, 'cache', '--format', 'json', *mapping))
        assert len(doc['traces']) == 2 and {(x['file'], x['line'], x['text']) for x in doc['by_line'] if x['file']} \
            == {(x['file'], x['line'], x['text']) for x in rows if x['file']}, doc['by_line']
        assert doc['source_text']['not_shown'] == []
        doc = json.loads(r.sdscprov('profile', trace, trace, 'cache', '--format', 'json'))
        assert {x['text'] for x in doc['by_line']} == {None} and doc['source_text']['unreadable_prefixes'] == [
            '/workspace/'], doc['source_text']
        doc = json.loads(r.sdscprov('profile', '--baseline', trace, trace, 'cache', '--format', 'json', *mapping))
        assert {x['text'] for x in doc['by_line'] if x.get('file')} == {
            '        x = self.fc1(x)', '        x = torch.relu(x)', '        x = self.fc2(x)'}, doc['by_line']
        assert doc['source_text']['not_shown'] == []
        page = page_data(r.sdscprov('profile', '--baseline', trace, trace, 'cache', '--format', 'html', *mapping))
        assert source_lines(page, shown)[19] == '        x = torch.relu(x)'


def test_a_malformed_source_map_is_refused():
    with TempDir() as tmp:
        r = Run(tmp)
        for args in (('explain', KERNEL, 'cache'), ('check', '--format', 'html', 'cache'),
                     ('profile', 'trace.json', 'cache')):
            for bad in ('/workspace', '=/x', '/x='):
                rc, out, err = run(*args, '--source-map', bad, cwd=r.work)
                assert rc == 2 and out == '' and f"--source-map: '{bad}': FROM=TO is needed" in err, \
                    (args, bad, rc, out, err)


def test_the_page_holds_a_window_not_the_file():
    with TempDir() as tmp:
        model = os.path.join(tmp, 'work', 'big.py')
        r = Run(tmp, {18: (model, 100), 19: (model, 104), 20: (model, 104)})
        with open(model, 'w') as f:
            for n in range(1, 301):
                f.write(f'line_{n} = {n}  # PRIVATE KEY-like secret {n}\n' if n in (1, 80, 200)
                        else f'line_{n} = {n}\n')
        for name, (data, html) in r.pages().items():
            lines = source_lines(data, model)
            # Lines 100 and 104, 10 around each, in one window: 90..114, nothing else.
            assert sorted(lines) == list(range(90, 115)), (name, sorted(lines))
            assert lines[100] == 'line_100 = 100' and lines[114] == 'line_114 = 114', name
            assert 'secret' not in html and 'line_89 ' not in html and 'line_115 ' not in html, name


if __name__ == '__main__':
    main([test_a_private_file_a_handle_names_reaches_no_report,
          test_a_link_named_py_to_a_private_file_is_refused,
          test_a_source_outside_the_roots_is_read_once_allowed,
          test_proc_paths_are_refused,
          test_no_source_text_reads_nothing,
          test_source_map_reads_another_machines_paths,
          test_a_malformed_source_map_is_refused,
          test_the_page_holds_a_window_not_the_file])
