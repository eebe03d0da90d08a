#!/usr/bin/env python3
"""The obvious Python script for what `sdscprov profile TRACE --origins SIDECAR` computes:
json.load the trace and the sidecar, then loop over the events, adding each kernel event's dur to
its bundle's source lines, ATen ops and kernels. The profile benchmark's baseline (it does less
than sdscprov: no validation of the sidecar, no diagnostics, float sums).

    py_profile_baseline.py TRACE SIDECAR      (TRACE plain or gzip)
"""
import collections
import gzip
import json
import sys


def main():
    trace_path, sidecar_path = sys.argv[1], sys.argv[2]
    with open(trace_path, 'rb') as f:
        compressed = f.read(2) == b'\x1f\x8b'
    with (gzip.open if compressed else open)(trace_path, 'rt', encoding='utf-8') as f:
        trace = json.load(f)
    with open(sidecar_path, encoding='utf-8') as f:
        sidecar = json.load(f)
    handles = sidecar['handles']
    identities = sidecar['kernelIdentities']
    kernels = collections.defaultdict(set)
    for occurrence in sidecar['kernelOccurrences'].values():
        kernels[occurrence['identityKey']].add(occurrence['compilerKernelName'])

    # A bundle whose handles are all compiler-generated ops' (source null, made by a source-less
    # pass) is "[compiler-generated]" rather than "[no source]" (docs/formats.md).
    sourceless = {'insert_restickify', 'insert_post_mutation_restickify', 'insert_bmm_padding'}

    def generated(key):
        direct = [handles[i] for i in identities[key]['directHandleIds']]
        return bool(direct) and all(
            h['source'] is None and any(s['pass_name'] in sourceless
                                        for s in h.get('transform_history') or [])
            for h in direct)

    def provenance(key):
        lines, ops, pending = set(), set(), list(identities[key]['directHandleIds'])
        while pending:
            h = handles[pending.pop()]
            if h['source']:
                lines.add('%s:%d' % (h['source']['file'], h['source']['start_line']))
            if h['aten_op']:
                ops.add(h['aten_op'])
            pending.extend(h['fused_from'])
        no_line = '[compiler-generated]' if generated(key) else '[no source]'
        return (sorted(lines) or [no_line], sorted(ops) or ['[no aten op]'],
                '+'.join(sorted(kernels[key])) or identities[key]['eventNameBase'])

    bundles = {}
    by_line = collections.Counter()
    by_op = collections.Counter()
    by_kernel = collections.Counter()
    stages = [0, 0, 0, 0]
    total = paired = 0.0
    events = 0
    for event in trace['traceEvents']:
        if not isinstance(event, dict) or event.get('ph') != 'X':
            continue
        name = event.get('name', '')
        if not name.startswith('spyre_kernel_v1_'):
            continue
        events += 1
        dur = event.get('dur', 0)
        total += dur
        key = name.split('#')[0][-16:]
        args = event.get('args') or {}
        ts = args.get('cycles_ts')
        if isinstance(ts, list) and len(ts) == 5:
            for i in range(4):
                if ts[i] and ts[i + 1]:
                    stages[i] += (ts[i + 1] - ts[i]) % 2**32
        if args.get('provenance_key', key) != key or key not in identities:
            by_line['[unresolved]'] += dur
            continue
        if key not in bundles:
            bundles[key] = provenance(key)
        lines, ops, kernel = bundles[key]
        paired += dur
        for line in lines:
            by_line[line] += dur
        for op in ops:
            by_op[op] += dur
        by_kernel[kernel] += dur
    json.dump({'kernel_events': events, 'kernel_us': total, 'resolved_us': paired,
               'stages': stages, 'by_line': by_line.most_common(),
               'by_aten': by_op.most_common(), 'by_kernel': by_kernel.most_common()},
              sys.stdout, indent=1)
    print()


if __name__ == '__main__':
    main()
