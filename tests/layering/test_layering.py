#!/usr/bin/env python3
"""The layering check itself can fail: on a copy of the tree, an include of a later stage, a
loose file in src/ and an over-long CLI file are each reported, and the unchanged copy passes."""

import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, '..', '..'))
CHECK = os.path.join(HERE, 'check_layering.py')


def run(root):
    p = subprocess.run([sys.executable, CHECK, root], capture_output=True, text=True)
    return p.returncode, p.stdout


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
    print('ok   the layering check fails on an upward include, a loose file and a long file')
    return 0


if __name__ == '__main__':
    sys.exit(main())
