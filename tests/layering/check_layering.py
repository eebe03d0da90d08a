#!/usr/bin/env python3
"""The include arrows go one way: a file of a stage (src/<stage>/, include/sdscprov/<stage>/)
includes only its own stage's headers and those of earlier stages. The stages and their order are
the SDSCPROV_STAGES list of the top CMakeLists.txt. src/cli/ (the front) may include any stage;
src/usage/ (the command line's generated documents) any stage but not the front. No source file
is loose in src/, none is over 900 lines, and none of src/cli/ or src/usage/ over 300: a file
that grows past that is doing two things. src/cli/ holds at most 2,500 lines in all: the front
parses, calls the library and prints, and run logic belongs in the library. No function of src/ has a body over 80 lines
(long_functions.py).

Usage: check_layering.py ROOT. Exit 1 with one `path:line: ...` line per upward include."""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import long_functions  # noqa: E402

# A function of src/ over 80 lines fails the check.
FUNCTIONS_FAIL = True
# The front's lines in all.
FRONT_LIMIT = 2500
FRONT_FOLDERS = ('cli', 'usage')

INCLUDE = re.compile(r'^\s*#\s*include\s*"(?:sdscprov/)?([a-z_]+)/[^"]+"')


def stages(root):
    with open(os.path.join(root, 'CMakeLists.txt')) as f:
        m = re.search(r'set\(SDSCPROV_STAGES ([^)]*)\)', f.read())
    if not m:
        sys.exit('check_layering: no SDSCPROV_STAGES in CMakeLists.txt')
    return m.group(1).split()


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else '.'
    order = stages(root)
    rank = {s: i for i, s in enumerate(order)}
    bad = []
    files = 0
    for base in (os.path.join(root, 'src'), os.path.join(root, 'include', 'sdscprov')):
        for stage in order:
            folder = os.path.join(base, stage)
            if not os.path.isdir(folder):
                continue
            for name in sorted(os.listdir(folder)):
                if not name.endswith(('.hpp', '.cpp', '.h')):
                    continue
                path = os.path.join(folder, name)
                files += 1
                with open(path, encoding='utf-8') as f:
                    for n, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m or m.group(1) not in rank and m.group(1) != 'cli':
                            continue
                        target = m.group(1)
                        if target == 'cli' or rank[target] > rank[stage]:
                            bad.append(f'{os.path.relpath(path, root)}:{n}: {stage}/ includes '
                                       f'{line.strip()[len("#include "):]}, of a later stage '
                                       f'({" < ".join(order)})')
    usage = os.path.join(root, 'src', 'usage')
    for name in sorted(os.listdir(usage)) if os.path.isdir(usage) else []:
        with open(os.path.join(usage, name), encoding='utf-8') as f:
            for n, line in enumerate(f, 1):
                if re.match(r'^\s*#\s*include\s*"cli/', line):
                    bad.append(f'src/usage/{name}:{n}: usage/ includes the front '
                               f'({line.strip()[len("#include "):]})')
    loose = [n for n in sorted(os.listdir(os.path.join(root, 'src')))
             if os.path.isfile(os.path.join(root, 'src', n))]
    for n in loose:
        bad.append(f'src/{n}:1: a loose source file: every file belongs to a stage folder or cli/')
    front = 0
    for folder, dirs, names in os.walk(os.path.join(root, 'src')):
        for name in sorted(names):
            path = os.path.join(folder, name)
            limit = 300 if os.path.basename(folder) in FRONT_FOLDERS else 900
            with open(path, encoding='utf-8', errors='replace') as f:
                count = sum(1 for _ in f)
            if count > limit:
                bad.append(f'{os.path.relpath(path, root)}:{count}: {count} lines, over {limit}')
            if os.path.relpath(folder, root) == os.path.join('src', 'cli'):
                front += count
    if front > FRONT_LIMIT:
        bad.append(f'src/cli:1: the front holds {front} lines, over {FRONT_LIMIT}: move run '
                   f'logic into the library')
    long = [f'{rel}:{start}: {name}: {count} body lines, over {long_functions.LIMIT}'
            for rel, start, name, count in long_functions.long_functions(root)]
    if FUNCTIONS_FAIL:
        bad.extend(long)
    else:
        for line in long:
            print(f'report: {line}', file=sys.stderr)
    for b in bad:
        print(b)
    if files < 20:
        print(f'check_layering: only {files} files looked at: wrong root?')
        return 1
    print(f'check_layering: {files} files, {len(bad)} upward includes, loose or long files; '
          f'{len(long)} functions over {long_functions.LIMIT} lines'
          f'{"" if FUNCTIONS_FAIL else " (reported, not failed)"}', file=sys.stderr)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
