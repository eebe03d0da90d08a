#!/usr/bin/env python3
"""Python baseline of a provenance review's SuperDSC reader: count SDSC files and their provenance.

    audit_scan.py [--json] PATH...

Written from docs/formats.md alone and sharing no code with the C++ scanner, so it can serve both as
the benchmark baseline and as an independent cross-check of the scanner's totals.

- Walk every PATH (os.walk, sorted, directory symlinks not followed). Directories below a PATH
  whose name contains ".tmp." or is "failed" (kernel-cache temporaries and failed compiles,
  docs/formats.md) are skipped.
- Candidate files: sdsc_<N>.json, sdsc_<N>_<opfunc>.json (N decimal digits, opfunc
  [A-Za-z0-9_]+), and sdsc.json in a directory whose parent is named "execute".
- json.load each candidate. An SDSC document is an object with exactly one member, whose key
  matches ^[0-9]+_[A-Za-z0-9_]+$ (any key for execute/*/sdsc.json), holding an object: the op
  object (docs/formats.md). Anything else is counted as not_sdsc; unreadable JSON as parse_errors.
- debug_handle_ of the op object: absent (no member), null, populated (an object), malformed
  (anything else).
- provenance: per docs/formats.md member name, the number of SDSC files with such a member, at any
  depth, whose value is populated (not null, "", [] or {}; 0 counts).
- Kernel directory: the file's directory, or for execute/<x>/sdsc.json the parent of execute.
  "kernels" and "files" count SDSC documents only.
"""

import argparse
import json
import os
import re
import sys

CANDIDATE_RE = re.compile(r'^sdsc_[0-9]+(?:_[A-Za-z0-9_]+)?\.json$')
OP_KEY_RE = re.compile(r'^[0-9]+_[A-Za-z0-9_]+$')
PROVENANCE_MEMBERS = ('stack_trace', 'original_aten', 'from_node', 'origins', 'origin_node',
                      'traceback', 'provenance', 'debug_handle_')
_PROVENANCE_SET = frozenset(PROVENANCE_MEMBERS)


def is_skipped_dir(name):
    return '.tmp.' in name or name == 'failed'


def candidate_kind(path):
    """'numbered' for sdsc_<N>[_<opfunc>].json, 'execute' for execute/<x>/sdsc.json, else None."""
    name = os.path.basename(path)
    if CANDIDATE_RE.match(name):
        return 'numbered'
    if name == 'sdsc.json':
        parent = os.path.dirname(os.path.abspath(path))
        if os.path.basename(os.path.dirname(parent)) == 'execute':
            return 'execute'
    return None


def kernel_dir_of(path, kind):
    parent = os.path.dirname(os.path.abspath(path))
    return os.path.dirname(os.path.dirname(parent)) if kind == 'execute' else parent


def iter_candidates(paths):
    """(path, kind) of every candidate file under the given paths, in a stable order."""
    for root in paths:
        if os.path.isfile(root):
            kind = candidate_kind(root)
            if kind:
                yield root, kind
            continue
        for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
            dirnames[:] = sorted(d for d in dirnames if not is_skipped_dir(d))
            for name in sorted(filenames):
                path = os.path.join(dirpath, name)
                kind = candidate_kind(path)
                if kind:
                    yield path, kind


def _populated(value):
    return not (value is None or value == '' or value == [] or value == {})


def provenance_members(doc):
    """Names of docs/formats.md members that occur populated anywhere in doc."""
    found = set()
    stack = [doc]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                if key in _PROVENANCE_SET and key not in found and _populated(value):
                    found.add(key)
                if isinstance(value, (dict, list)):
                    stack.append(value)
        elif isinstance(node, list):
            stack.extend(v for v in node if isinstance(v, (dict, list)))
    return found


def op_object(doc, kind):
    """The op object of an SDSC document, or None if doc is not one."""
    if not isinstance(doc, dict) or len(doc) != 1:
        return None
    key, value = next(iter(doc.items()))
    if not isinstance(value, dict):
        return None
    if kind != 'execute' and not OP_KEY_RE.match(key):
        return None
    return value


def handle_state(op):
    if 'debug_handle_' not in op:
        return 'absent'
    value = op['debug_handle_']
    if value is None:
        return 'null'
    if isinstance(value, dict):
        return 'populated'
    return 'malformed'


def scan(paths):
    totals = {'kernels': 0, 'files': 0, 'handles_populated': 0, 'handles_null': 0,
              'handles_absent': 0, 'handles_malformed': 0, 'not_sdsc': 0, 'parse_errors': 0,
              'provenance': {m: 0 for m in PROVENANCE_MEMBERS}}
    kernels = set()
    for path, kind in iter_candidates(paths):
        try:
            with open(path, 'rb') as f:
                doc = json.load(f)
        except (OSError, ValueError):
            totals['parse_errors'] += 1
            continue
        op = op_object(doc, kind)
        if op is None:
            totals['not_sdsc'] += 1
            continue
        totals['files'] += 1
        kernels.add(kernel_dir_of(path, kind))
        totals['handles_' + handle_state(op)] += 1
        for member in provenance_members(doc):
            totals['provenance'][member] += 1
    totals['kernels'] = len(kernels)
    return totals


def human_summary(t):
    files = t['files']

    def cell(n):
        return 'all' if files and n == files else ('none' if n == 0 else '%d of %d' % (n, files))

    lines = ['%d SDSC files in %d kernel directories' % (files, t['kernels']),
             'debug_handle_: %d populated, %d null, %d absent, %d malformed' % (
                 t['handles_populated'], t['handles_null'], t['handles_absent'],
                 t['handles_malformed']),
             'skipped: %d not SDSC, %d parse errors' % (t['not_sdsc'], t['parse_errors']),
             'provenance members (files where populated):']
    lines += ['  %-14s %s' % (m, cell(t['provenance'][m])) for m in PROVENANCE_MEMBERS]
    return '\n'.join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    p.add_argument('paths', nargs='+', metavar='PATH')
    p.add_argument('--json', action='store_true', help='print the totals as one JSON object')
    a = p.parse_args(argv)
    missing = [x for x in a.paths if not os.path.exists(x)]
    if missing:
        print('audit_scan: no such path: %s' % ', '.join(missing), file=sys.stderr)
        return 2
    totals = scan(a.paths)
    print(json.dumps(totals) if a.json else human_summary(totals))
    return 0


if __name__ == '__main__':
    sys.exit(main())
