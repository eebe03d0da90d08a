#!/usr/bin/env python3
"""Write a trace of N kernel events with N distinct names that nothing pairs: the memory test of
`sdscprov profile` (its memory must stay bounded whatever the number of distinct unpaired names).

Event i is `spyre_kernel_v1_unpaired_<key>` (a well-formed name whose 16-character key no sidecar
has) with dur = (i mod 1000) + 1 microseconds, or, with --unparsable, `spyre_kernel_unpaired_<i>`.
The expected totals go to OUT.expected.json: kernel events, device time in ns, and the names of
the --top largest groups (event names by device time, then name), for the tests to compare with.
"""
import argparse
import json

ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567'


def key_of(i):
    chars = []
    for _ in range(16):
        chars.append(ALPHABET[i % 32])
        i //= 32
    return ''.join(reversed(chars))


def name_of(i, unparsable):
    return f'spyre_kernel_unpaired_{i}' if unparsable else f'spyre_kernel_v1_unpaired_{key_of(i)}'


def dur_us(i):
    return i % 1000 + 1


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    p.add_argument('out', help='the trace to write')
    p.add_argument('--events', type=int, default=1000000)
    p.add_argument('--unparsable', action='store_true', help='names that do not parse')
    p.add_argument('--top', type=int, default=10, help='largest groups listed in the expectations')
    args = p.parse_args(argv)
    with open(args.out, 'w') as f:
        f.write('{"traceEvents": [\n')
        for i in range(args.events):
            f.write('%s{"ph": "X", "cat": "kernel", "name": "%s", "pid": 1, "tid": 0, "ts": %d, '
                    '"dur": %d}\n' % (',' if i else '', name_of(i, args.unparsable), i * 2000,
                                      dur_us(i)))
        f.write(']}\n')
    ranked = sorted(range(args.events), key=lambda i: (-dur_us(i), name_of(i, args.unparsable)))
    expected = {
        'kernel_events': args.events,
        'kernel_ns': sum(dur_us(i) for i in range(args.events)) * 1000,
        'largest': [[name_of(i, args.unparsable), dur_us(i) * 1000] for i in ranked[:args.top]],
    }
    with open(args.out + '.expected.json', 'w') as f:
        json.dump(expected, f, indent=1)


if __name__ == '__main__':
    main()
