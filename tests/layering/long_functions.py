#!/usr/bin/env python3
"""Functions whose body is over LIMIT lines (80): a function that long is doing two things.

A brace-matching scan of the C++ sources, not a parser: comments, string, character and raw
string literals and preprocessor lines are blanked first, then every `{` at namespace or class
level whose head (the text since the last `;`, `{` or `}`) has a parameter list opens a function
body; lambdas and local classes inside it count as its lines. The body's lines are those strictly
between the line of its `{` and the line of its `}`.

Usage: long_functions.py ROOT [LIMIT]. Prints one `path:line: name: N body lines, over LIMIT` line
per function (the line of its `{`), sorted by path then line, and a count on stderr; exits 0 (the
list is a report, check_layering.py decides whether it fails)."""

import os
import re
import sys

LIMIT = 80
SOURCES = ('.cpp', '.hpp', '.h')
CONTAINER = re.compile(r'(?:^|[\s;{}])(?:namespace|class|struct|union|enum)\b(?![^(]*\()|'
                       r'(?:^|\s)extern\s*$')
# Heads ending in these open a block that is not a function body even with a `(` in them.
NOT_BODY = re.compile(r'(?:=|\breturn|,|\(|\[|\boperator\s*\S*)\s*$')
NAME = re.compile(r'((?:[A-Za-z_~][A-Za-z_0-9]*\s*(?:<[^()]*>)?\s*::\s*)*'
                  r'(?:operator\s*[^\s(]+|operator\s*\(\s*\)|~?[A-Za-z_][A-Za-z_0-9]*))\s*\($')


def blank(text):
    """The text with comments, literals and preprocessor lines turned into spaces (newlines kept),
    so that only code braces and parentheses are left."""
    out = []
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c == '#':
            j = i
            while j < n and (text[j] != '\n' or text[j - 1] == '\\'):
                j += 1
            out.append(re.sub(r'[^\n]', ' ', text[i:j]))
            i = j
            continue
        if c == '\n':
            line_start = True
            out.append(c)
            i += 1
            continue
        if not c.isspace():
            line_start = False
        if text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            out.append(' ' * (j - i))
            i = j
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r'[^\n]', ' ', text[i:j]))
            i = j
        elif c == 'R' and text.startswith('R"', i) and (i == 0 or not _ident(text[i - 1]) or
                                                         text[max(0, i - 2):i] in ('u8',) or
                                                         text[i - 1] in 'uUL'):
            m = re.match(r'R"([^()\\\s]{0,16})\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = text.find(')' + m.group(1) + '"', i + m.end())
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append(re.sub(r'[^\n]', ' ', text[i:j]))
            i = j
        elif c == '"' or (c == "'" and not (i > 0 and text[i - 1].isalnum())):
            j = i + 1
            while j < n and text[j] != c and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            j = min(n, j + 1)
            out.append(' ' * (j - i))
            i = j
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def _ident(c):
    return c.isalnum() or c == '_'


def function_name(head):
    """The name before the parameter list of a function head, or '' when there is none."""
    depth = 0
    for k, c in enumerate(head):
        if c == '(':
            if depth == 0:
                m = NAME.search(head[:k + 1])
                if m:
                    return re.sub(r'\s+', '', m.group(1))
            depth += 1
        elif c == ')':
            depth -= 1
    return ''


def functions(text):
    """(name, line of `{`, body lines) for every function body at namespace or class level."""
    code = blank(text)
    found = []
    # One entry per open brace: 'scope' (namespace, class, extern), 'function' or 'block'.
    stack = []
    head_start = 0
    line = 1
    opened = []  # (name, line) of the function whose body is open at the top function entry
    for i, c in enumerate(code):
        if c == '\n':
            line += 1
        elif c == ';':
            head_start = i + 1
        elif c == '{':
            head = code[head_start:i]
            in_function = 'function' in stack
            if in_function:
                kind = 'block'
            elif CONTAINER.search(head) or head.strip() == '':
                kind = 'scope' if CONTAINER.search(head) else 'block'
            elif '(' in head and not NOT_BODY.search(head):
                kind = 'function'
                opened.append((function_name(head) or '(unnamed)', line))
            else:
                kind = 'block'
            stack.append(kind)
            head_start = i + 1
        elif c == '}':
            kind = stack.pop() if stack else 'block'
            if kind == 'function':
                name, start = opened.pop()
                found.append((name, start, line - start - 1))
            head_start = i + 1
    return found


def long_functions(root, limit=LIMIT):
    """(relative path, line, name, body lines) of every function of src/ over `limit` lines."""
    result = []
    for folder, dirs, names in os.walk(os.path.join(root, 'src')):
        dirs.sort()
        for name in sorted(names):
            if not name.endswith(SOURCES):
                continue
            path = os.path.join(folder, name)
            with open(path, encoding='utf-8', errors='replace') as f:
                text = f.read()
            rel = os.path.relpath(path, root)
            for fname, start, count in functions(text):
                if count > limit:
                    result.append((rel, start, fname, count))
    result.sort()
    return result


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else '.'
    limit = int(sys.argv[2]) if len(sys.argv) > 2 else LIMIT
    found = long_functions(root, limit)
    for rel, start, name, count in found:
        print(f'{rel}:{start}: {name}: {count} body lines, over {limit}')
    print(f'long_functions: {len(found)} functions over {limit} lines', file=sys.stderr)
    return 0


if __name__ == '__main__':
    sys.exit(main())
