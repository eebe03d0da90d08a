#!/usr/bin/env python3
"""The layering check itself can fail: on a copy of the tree, an include of a later stage, a
loose file in src/ and an over-long CLI file are each reported, and the unchanged copy passes.
A function of 81 body lines is listed as long (one of 80 is not), braces in comments and literals
are not counted, and while the rule only reports the list goes to stderr without failing."""

import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import long_functions  # noqa: E402
ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, '..', '..'))
CHECK = os.path.join(HERE, 'check_layering.py')


def run(root, stderr=False):
    p = subprocess.run([sys.executable, CHECK, root], capture_output=True, text=True)
    return (p.returncode, p.stdout, p.stderr) if stderr else (p.returncode, p.stdout)


def body(lines):
    return ''.join(f'    total += {k};\n' for k in range(lines))


# Line 3 opens a body of 81 lines, the next function's body has 80; the braces inside comments,
# strings, characters and a raw string would unbalance a count that did not skip them.
LONG_SOURCE = (
    '#include <string>\n'
    'namespace demo {\n'
    'int Widget::too_long(int total) const {\n' + body(79) +
    '    const char* s = "}}"; char c = \'}\'; // }\n'
    '    auto raw = R"x(})x"; /* } */ return total + (s[0] == c) + static_cast<int>(raw[0]);\n'
    '}\n'
    'int just_right(int total) {\n' + body(80) + '}\n'
    'struct Holder {\n'
    '    void member() {\n' + body(81) + '    }\n'
    '};\n'
    '}  // namespace demo\n')


def check_long_functions(root):
    found = long_functions.functions(LONG_SOURCE)
    assert ('Widget::too_long', 3, 81) in found and ('just_right', 86, 80) in found, found
    member_line = LONG_SOURCE.count('\n', 0, LONG_SOURCE.index('void member')) + 1
    assert ('member', member_line, 81) in found, found
    assert len(found) == 3, found
    with open(os.path.join(root, 'src', 'core', 'long_demo.cpp'), 'w') as f:
        f.write(LONG_SOURCE)
    listed = long_functions.long_functions(root)
    mine = [f for f in listed if f[0] == os.path.join('src', 'core', 'long_demo.cpp')]
    assert [(f[1], f[2]) for f in mine] == [(3, 'Widget::too_long'), (member_line, 'member')], mine
    rc, out, err = run(root, stderr=True)
    if check_layering_fails_on_functions():
        assert rc == 1 and 'src/core/long_demo.cpp:3: Widget::too_long: 81 body lines' in out, out
    else:
        assert rc == 0 and out == '', out
        assert 'report: src/core/long_demo.cpp:3: Widget::too_long: 81 body lines' in err, err
    os.remove(os.path.join(root, 'src', 'core', 'long_demo.cpp'))


def check_layering_fails_on_functions():
    import check_layering
    return check_layering.FUNCTIONS_FAIL


def copy_tree(tmp):
    root = os.path.join(tmp, 'tree')
    os.makedirs(root)
    shutil.copy(os.path.join(ROOT, 'CMakeLists.txt'), root)
    for d in ('src', 'include'):
        shutil.copytree(os.path.join(ROOT, d), os.path.join(root, d))
    return root


def main():
    with tempfile.TemporaryDirectory() as tmp:
        root = copy_tree(tmp)
        rc, out = run(root)
        assert rc == 0 and out == '', out
        check_long_functions(root)
        # core/ including a header of report/ (the last stage).
        header = os.path.join(root, 'include', 'sdscprov', 'core', 'problem.hpp')
        with open(header) as f:
            text = f.read()
        with open(header, 'w') as f:
            f.write(text.replace('#pragma once\n', '#pragma once\n#include "sdscprov/report/report.hpp"\n', 1))
        rc, out = run(root)
        assert rc == 1 and 'include/sdscprov/core/problem.hpp:' in out and 'core/ includes' in out, out
        with open(header, 'w') as f:
            f.write(text)
        # A private header of a later stage, from a source file.
        source = os.path.join(root, 'src', 'walk', 'discover.cpp')
        with open(source, 'a') as f:
            f.write('#include "commands/anything.hpp"\n')
        rc, out = run(root)
        assert rc == 1 and 'src/walk/discover.cpp:' in out, out
        os.remove(source)
        # A loose file, and a CLI file of 301 lines.
        with open(os.path.join(root, 'src', 'loose.cpp'), 'w') as f:
            f.write('int x;\n')
        with open(os.path.join(root, 'src', 'cli', 'long.cpp'), 'w') as f:
            f.write('\n' * 301)
        rc, out = run(root)
        assert rc == 1 and 'src/loose.cpp:1:' in out and 'src/cli/long.cpp:301:' in out, out
        os.remove(os.path.join(root, 'src', 'loose.cpp'))
        os.remove(os.path.join(root, 'src', 'cli', 'long.cpp'))
        # The front over its lines in all, and the documents including the front.
        with open(os.path.join(root, 'src', 'cli', 'bulk.cpp'), 'w') as f:
            f.write('\n' * 2501)
        with open(os.path.join(root, 'src', 'usage', 'help.cpp'), 'a') as f:
            f.write('#include "cli/messages.hpp"\n')
        rc, out = run(root)
        assert rc == 1 and 'src/cli:1: the front holds' in out, out
        assert 'src/usage/help.cpp:' in out and 'usage/ includes the front' in out, out
    print('ok   the layering check fails on an upward include, a loose file, a long file, a front '
          'over its lines and documents that include the front, and lists the functions over 80 '
          'lines')
    return 0


if __name__ == '__main__':
    sys.exit(main())
