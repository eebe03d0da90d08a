#!/usr/bin/env python3
"""Generate a profiler trace for a kernel cache it also writes, with the totals `sdscprov profile`
must give for it: test data for profile's tests, and the large trace of its benchmark.

    gen_trace.py OUT_DIR [--files N] [--seed S] [--iterations I | --target-bytes B | --steps N]
                 [--gzip] [--copies N] [--rank N] [--scale INDEX=PERCENT ...]
                 [--ideal-cycles SHARE [--ideal-total SHARE] [--ideal-malformed SHARE]]
                 [--host-lanes [--devices N] [--submitted consistent|inconsistent]]
    gen_trace.py OUT_DIR --demo CACHE     # testdata/demo/trace.json, from the annotated demo
    gen_trace.py OUT_DIR --join-cases     # the join of events with their kernel directories

Writes, deterministically for the same arguments:
  OUT_DIR/cache/                 a kernel cache (scripts/gen_cache.py: SDSC files with handles,
                                 a few null; inductor-spyre/ and inductor-spyre-cache/ layouts)
  OUT_DIR/spyre_provenance.json  torch-spyre's sidecar for it (schema v1): one bundle identity
                                 per kernel directory, its handles, one compile's occurrences
  OUT_DIR/trace.json[.gz]        the Chrome trace prof.export_chrome_trace writes with
                                 torch-spyre, in Kineto's layout
  OUT_DIR/expected.json          what profile's JSON and folded output must hold, per pairing:
                                 "sidecar" (--origins only), "caches" (the cache only) and
                                 "both"; computed here from the events written, with this
                                 script's own arithmetic (integer nanoseconds chosen first, then
                                 written as microseconds); "kernel_rows" gives each kernel row's
                                 kernel, key and directories, "bundle_dirs" each bundle key's
                                 kernel directory in the cache's manifest
  OUT_DIR/cache_manifest.json    with --ideal-cycles SHARE [--ideal-total S] [--ideal-malformed S]:
                                 the cache's manifest (gen_cache.py), whose kernel_dirs say what
                                 each perf/ideal_cycles.json gives
With --host-lanes, the host lanes of scripts/gen_timeline.py are written too, and expected.json
gains "timeline" (devices, steps slowest first, idle split, launch and queue delays) and
"timeline_rows" (each row's idle and launch delays, the sidecar pairing).
With --copies N, N kernel directories are copied byte for byte under another name: one bundle
found in two directories. Kernel names repeat across directories as in a cache that kept several
compiles (each its own bundle: its own row).

The trace has every lane a torch-spyre trace has: the two whole-window `Spans` wrappers, host CPU
ops and the host events naming kernels (prepare_kernel:, launch_jobplan:, dxp_standalone:), DMA
copies (tid 100 and 200), memset/release (tid 400), flow and metadata events, and device kernel
events (tid 0) `spyre_kernel_v1_<summary>_<key>#<step>` with several non-contiguous steps per
bundle, repeated every iteration. Kernel events of a bundle carry args.provenance_key,
args.debug_handles and args.cycles_ts, only some of them, or no args at all (so the cache-only
pairing leaves them unpaired); counters wrap past 2^32, some are only half filled (DMAI, DMAO) or
all zero (counters failed). Durations are written as Kineto does (3 decimals), some as integers,
with 4 decimals (rounded half away from zero to the nanosecond) or with an exponent. Events are
not in time order.
"""

import argparse
import base64
import gzip
import hashlib
import json
import os
import random
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_cache  # noqa: E402  (the cache generator beside this script)
import gen_timeline  # noqa: E402  (the host lanes, --host-lanes)

PREFIX = 'spyre_kernel_v1_'
LARGEST_STEP = '#18446744073709551615'


# ---------------------------------------------------------------------------------------------
# The cache and its bundles

def cache_handles(cache_dir, rel):
    """The handles of a kernel directory's SDSC files, in file order (each file's op object's
    debug_handle_; null ones left out), de-duplicated by id."""
    kdir = os.path.join(cache_dir, rel)
    files = []
    for name in os.listdir(kdir):
        m = re.fullmatch(r'sdsc_(\d+)(_[A-Za-z0-9_]+)?\.json', name)
        if m:
            files.append((int(m.group(1)), name, os.path.join(kdir, name)))
    execute = os.path.join(kdir, 'execute')
    if os.path.isdir(execute):
        for sub in sorted(os.listdir(execute)):
            path = os.path.join(execute, sub, 'sdsc.json')
            if os.path.isfile(path):
                files.append((0, 'execute/' + sub, path))
    handles, seen = [], set()
    for _, _, path in sorted(files):
        with open(path) as f:
            doc = json.load(f)
        (op,) = doc.values()
        h = op.get('debug_handle_')
        if isinstance(h, dict) and h['id'] not in seen:
            seen.add(h['id'])
            handles.append(h)
    return handles


def walk(h, lines, ops):
    if h['source'] is not None:
        lines.add((h['source']['file'], h['source']['start_line']))
    if h['aten_op'] is not None:
        ops.add(h['aten_op'])
    for child in h['fused_from']:
        walk(child, lines, ops)


def summary_of(ops):
    packets = sorted({re.sub(r'[^A-Za-z0-9]+', '_', op.split('.')[1]) for op in ops
                      if op.count('.') >= 1})
    summary = 'fused_' + '_'.join(packets) if packets else 'fused_unknown'
    room = 127 - len(PREFIX) - 1 - 16 - len(LARGEST_STEP)
    return summary[:room].rstrip('_') or 'fused'


def copy_dirs(cache_dir, manifest, copies, rng):
    """A byte-identical copy of `copies` kernel directories of the inductor-spyre layout (those
    with handles first), each under another mkdtemp suffix: a cache that kept a recompile which
    gave the same bundle. Returns {original dir: [its copies]}."""
    chosen = [d for d in manifest['kernel_dirs'] if d['kernel'] and d['populated']][:copies]
    made = {}
    for d in chosen:
        name = os.path.basename(d['dir'])
        new = name[:-8] + ''.join(rng.choice('abcdefghijklmnopqrstuvwxyz0123456789_')
                                  for _ in range(8))
        target = os.path.join(os.path.dirname(d['dir']), new)
        shutil.copytree(os.path.join(cache_dir, d['dir']), os.path.join(cache_dir, target),
                        symlinks=True)
        execute = os.path.join(cache_dir, target, 'execute', name)
        if os.path.isdir(execute):
            os.rename(execute, os.path.join(cache_dir, target, 'execute', new))
        made[d['dir']] = [target]
    return made


# torch-spyre's passes whose new buffers have no model source (docs/formats.md, "Compiler-generated
# ops"): a bundle whose handles are all such ops' is ranked "[compiler-generated]", not "[no source]".
SOURCELESS_PASSES = {'insert_restickify', 'insert_post_mutation_restickify', 'insert_bmm_padding'}


def compiler_generated(handles):
    """Whether every handle (at least one) is a compiler-generated op's: source null, and a
    source-less creation pass in its transform_history."""
    return bool(handles) and all(
        h['source'] is None and any(s['pass_name'] in SOURCELESS_PASSES
                                    for s in h.get('transform_history') or [])
        for h in handles)


def make_bundles(cache_dir, manifest, rng, copies=None):
    """One bundle per kernel directory (a copied directory's copy is the same bundle). Each has
    'dirs': the cache's kernel directories, every one with its kernel name and its handles' ids,
    for the pairing rules of Expected."""
    copies = copies or {}
    bundles = []
    for i, d in enumerate(manifest['kernel_dirs']):
        handles = cache_handles(cache_dir, d['dir'])
        ids = [h['id'] for h in handles]
        digest = hashlib.sha256(('%s|%s' % (d['dir'], ','.join(ids))).encode()).digest()
        key = base64.b32encode(digest[:10]).decode().lower()
        lines, ops = set(), set()
        for h in handles:
            walk(h, lines, ops)
        # The compiler kernel name; a kernel-cache directory's name does not carry it.
        kernel = d['kernel'] or 'sdsc_fused_%s_%d' % ('_'.join(
            sorted({op.split('.')[1] for op in ops})) or 'unknown', 900 + i)
        steps = sorted(rng.sample(range(1, 40), rng.choice([1, 1, 2, 3])))
        bundles.append({
            'dir': d['dir'], 'dir_kernel': d['kernel'], 'kernel': kernel, 'key': key,
            'base': PREFIX + summary_of(ops) + '_' + key, 'handles': handles, 'ids': ids,
            'lines': sorted(lines), 'ops': sorted(ops), 'steps': steps,
            'generated': not lines and compiler_generated(handles),
            # which args its kernel events carry: all, the key and counters only, or none
            'carrier': rng.choices(['full', 'key', 'none'], weights=[75, 15, 10])[0],
            'weight': rng.choice([1, 1, 1, 2, 4]),     # launches per iteration
            'mean_ns': rng.choice([2000, 8000, 30000, 120000, 900000]),
        })
    cache = []
    for b in bundles:
        for rel in [b['dir']] + copies.get(b['dir'], []):
            cache.append({'dir': rel, 'kernel': b['dir_kernel'], 'ids': set(b['ids'])})
    for b in bundles:
        b['cache'] = cache
    return bundles


# ---------------------------------------------------------------------------------------------
# The sidecar (torch-spyre's spyre_provenance.json, schema v1)

def flatten(h, out):
    out[h['id']] = {'id': h['id'], 'source': h['source'], 'aten_op': h['aten_op'],
                    'ir_chain': h['ir_chain'], 'fused_from': [c['id'] for c in h['fused_from']],
                    'transform_history': h['transform_history']}
    for c in h['fused_from']:
        flatten(c, out)


def sidecar(bundles):
    compile_id = hashlib.sha256(b'gen_trace compile').hexdigest()
    handles, identities, occurrences, kernels = {}, {}, {}, []
    for b in bundles:
        for h in b['handles']:
            flatten(h, handles)
        identities[b['key']] = {
            'directHandleIds': b['ids'],
            'specHandleBindings': [{'specPath': [i], 'handleId': hid}
                                   for i, hid in enumerate(b['ids'])],
            'atenOps': b['ops'], 'eventNameBase': b['base']}
        occurrence = hashlib.sha256(('%s|%s|%s' % (compile_id, b['kernel'], b['key']))
                                    .encode()).hexdigest()
        occurrences[occurrence] = {
            'identityKey': b['key'], 'compileId': compile_id, 'compilerKernelName': b['kernel'],
            'registrations': [{'ordinal': 1, 'alias': b['kernel'] + ':1'}]}
        kernels.append({'compilerKernelName': b['kernel'], 'identityKey': b['key']})
    projection = {
        'source': 'inductor_provenance_tracking_node_mappings', 'version': 2.0,
        'producer': {'torchSpyreVersion': '0.1.0', 'torchVersion': '2.13.0+cpu'},
        'settings': {'provenanceTrackingLevel': 1, 'structuredTracing': True},
        'kernels': kernels, 'uncollectedKernels': [], 'upstreamProjectionFailed': False,
        'upstreamJoin': 'ok', 'preToPost': {}, 'postToPre': {}, 'cppCodeToPost': {},
        'postToCppCode': {}, 'kernelStackTraces': {}}
    return {'schemaVersion': 1,
            'eventKey': {'version': 1, 'algorithm': 'sha256-prefix-80-base32-lower', 'width': 16,
                         'stepAttribution': 'bundle'},
            'mergeGeneration': 1, 'status': 'complete', 'diagnostics': {}, 'handles': handles,
            'kernelIdentities': identities, 'kernelOccurrences': occurrences,
            'upstreamProjections': {compile_id: projection}}


# ---------------------------------------------------------------------------------------------
# The trace

def dur_text(rng, ns):
    """(text, expected ns): a duration of about ns nanoseconds in microseconds, written one of
    the ways traces write numbers; the expected value is rounded half away from zero."""
    roll = rng.random()
    if roll < 0.08:
        tenths = ns * 10 + rng.choice([5, 5, 4, 6, 0, 9])      # 4 decimals: rounding matters
        return '%d.%04d' % (tenths // 10000, tenths % 10000), (tenths + 5) // 10
    if roll < 0.12:
        us = max(1, ns // 1000)
        return '%d' % us, us * 1000                            # a whole number of microseconds
    if roll < 0.15:
        digits = str(ns)                                       # 12.345 us as 1.2345e1
        return '%s.%se%d' % (digits[0], digits[1:] or '0', len(digits) - 1 - 3), ns
    return '%d.%03d' % (ns // 1000, ns % 1000), ns


def cycles(rng):
    """(cycles_ts text or None, stage ticks (4) or None, failed counters)."""
    roll = rng.random()
    if roll < 0.05:
        return None, None, False
    if roll < 0.08:
        return '[0, 0, 0, 0, 0]', None, True
    lengths = [rng.randint(50, 4000), rng.randint(10, 500), rng.randint(200, 90000),
               rng.randint(50, 4000)]
    start = rng.choice([rng.randint(1, 2**32 - 1), 2**32 - rng.randint(1, 20000)])  # wraps
    ts = [start]
    for n in lengths:
        ts.append((ts[-1] + n) % 2**32)
    if any(t == 0 for t in ts):                                # 0 means "not filled"
        ts = [t or 1 for t in ts]
        lengths = [(ts[i + 1] - ts[i]) % 2**32 for i in range(4)]
    stages = list(lengths)
    if roll < 0.13:                                            # async DMAI: TS1-TS2 only
        ts[2:] = [0, 0, 0]
        stages = [lengths[0], None, None, None]
    elif roll < 0.18:                                          # DMAO: TS4-TS5 only
        ts[:3] = [0, 0, 0]
        stages = [None, None, None, lengths[3]]
    return '[%s]' % ', '.join(str(t) for t in ts), stages, False


class Expected:
    """Per bundle (and per way of pairing) what profile must add up."""

    def __init__(self, bundles):
        self.bundles = bundles
        self.per = {b['key']: {'events': 0, 'ns': 0, 'stages': [[0, 0] for _ in range(4)],
                               'args_events': 0, 'args_ns': 0,
                               'args_stages': [[0, 0] for _ in range(4)]} for b in bundles}
        self.failed = {'all': 0, 'args': 0}
        self.trace_events = 0

    def kernel_event(self, b, ns, stages, failed, with_handles):
        for scope in (('', 'all'), ('args_', 'args')) if with_handles else (('', 'all'),):
            prefix, name = scope
            p = self.per[b['key']]
            p[prefix + 'events'] += 1
            p[prefix + 'ns'] += ns
            if stages:
                for i, t in enumerate(stages):
                    if t is not None:
                        p[prefix + 'stages'][i][0] += t
                        p[prefix + 'stages'][i][1] += 1
            self.failed[name] += failed

    def result(self, pairing):
        """The report's figures for one pairing: 'sidecar', 'caches' or 'both'."""
        by_line, by_aten, by_kernel, folded = {}, {}, {}, {}
        rows, stacks, kernel_rows = [], [], {}
        keys = []  # each row's source line and ATen op rows
        stages = [[0, 0] for _ in range(4)]
        coverage = {'kernel_events': 0, 'resolved_events': 0, 'kernel_ns': 0, 'resolved_ns': 0,
                    'unmeasured_events': 0, 'counters_failed_events': self.failed['all'],
                    'paired_bundles': 0, 'dirless_bundles': 0, 'dirless_events': 0,
                    'dirless_ns': 0}

        def add(table, label, events, ns):
            row = table.setdefault(label, [0, 0])
            row[0] += ns
            row[1] += events

        for b in self.bundles:
            p = self.per[b['key']]
            if p['events'] == 0:
                continue
            for i in range(4):
                stages[i][0] += p['stages'][i][0]
                stages[i][1] += p['stages'][i][1]
            coverage['kernel_events'] += p['events']
            coverage['kernel_ns'] += p['ns']
            groups = []          # (events, ns, paired, kernel, its directories)
            holding = [d for d in b['cache'] if b['ids'] and set(b['ids']) <= d['ids']]
            if pairing == 'caches':
                # Paired through args.debug_handles: the directories holding them, and their
                # names' kernels (else the event name). Events without handles are unpaired.
                names = sorted({d['kernel'] for d in holding if d['kernel']})
                if p['args_events']:
                    groups.append((p['args_events'], p['args_ns'], True,
                                   '+'.join(names) or b['base'], holding))
                if p['events'] > p['args_events']:
                    groups.append((p['events'] - p['args_events'], p['ns'] - p['args_ns'], False,
                                   b['base'], []))
            elif pairing == 'sidecar':
                groups.append((p['events'], p['ns'], True, b['kernel'], []))
            else:
                # The sidecar names the kernel; of the directories of that name, those holding
                # the handles (all of them for a bundle without handles).
                named = [d for d in b['cache'] if d['kernel'] == b['kernel']]
                if b['ids']:
                    dirs = [d for d in named if d in holding] if named else holding
                else:
                    dirs = named
                groups.append((p['events'], p['ns'], True, b['kernel'], dirs))
            for events, ns, paired, kernel, dirs in groups:
                # The kernel row's label: KERNEL@DIRECTORY-NAME in one directory, else
                # KERNEL@KEY (the event name alone, when it is the kernel: it ends with the key);
                # an unpaired group's is its name.
                if not paired:
                    row = kernel
                elif len(dirs) == 1:
                    row = kernel + '@' + os.path.basename(dirs[0]['dir'])
                else:
                    row = kernel if kernel == b['base'] else kernel + '@' + b['key']
                rows.append((row, kernel, b['key'] if paired else None,
                             sorted(d['dir'] for d in dirs), events, ns, paired))
                lines = ['%s:%d' % l for l in b['lines']]
                if paired:
                    coverage['resolved_events'] += events
                    coverage['resolved_ns'] += ns
                    coverage['paired_bundles'] += 1
                    if not dirs:
                        coverage['dirless_bundles'] += 1
                        coverage['dirless_events'] += events
                        coverage['dirless_ns'] += ns
                    no_line = '[compiler-generated]' if b['generated'] else '[no source]'
                    for l in lines or [no_line]:
                        add(by_line, l, events, ns)
                    for op in b['ops'] or ['[no aten op]']:
                        add(by_aten, op, events, ns)
                    root = '+'.join(lines) or no_line
                    aten = '+'.join(b['ops']) or '[no aten op]'
                    keys.append((lines or ['[no source]'], b['ops'] or ['[no aten op]']))
                else:
                    add(by_line, '[unresolved]', events, ns)
                    add(by_aten, '[unresolved]', events, ns)
                    root = aten = '[unresolved]'
                    keys.append((['[unresolved]'], ['[unresolved]']))
                stacks.append((root, aten))
        # Two bundles with one KERNEL@DIRECTORY-NAME are told apart by their keys.
        labels = [r[0] for r in rows]
        b_base = {b['key']: b['base'] for b in self.bundles}
        # Each row's bundles, as kernel rows (what a gate finding names as its cause).
        members = {'by_line': {}, 'by_aten': {}, 'by_kernel': {}}
        for (label, kernel, key, dirs, events, ns, paired), (root, aten), (line_keys, op_keys) in \
                zip(rows, stacks, keys):
            if paired and labels.count(label) > 1:
                label = kernel if kernel == b_base[key] else kernel + '@' + key
            for table, row_keys in (('by_line', line_keys), ('by_aten', op_keys),
                                    ('by_kernel', [label])):
                for k in row_keys:
                    members[table].setdefault(k, set()).add(label)
            add(by_kernel, label, events, ns)
            kernel_rows[label] = {'kernel': kernel, 'key': key, 'dirs': dirs}
            if ns:
                stack = '%s;%s;%s' % (root, aten, label)
                folded[stack] = folded.get(stack, 0) + ns
        return {'coverage': coverage,
                'stages': {name: stages[i] for i, name in enumerate(['DMI', 'PREP', 'CMPT', 'DMO'])},
                'by_line': by_line, 'by_aten': by_aten, 'by_kernel': by_kernel, 'folded': folded,
                'kernel_rows': kernel_rows,
                'members': {t: {k: sorted(v) for k, v in m.items()} for t, m in members.items()}}


def event_text(fields, args=None):
    head = ', '.join('"%s": %s' % kv for kv in fields)
    if args is None:
        return '  {\n    %s\n  }' % head
    return '  {\n    %s,\n    "args": {\n      %s\n    }\n  }' % (
        head, ', '.join('"%s": %s' % kv for kv in args))


def write_trace(out, bundles, rng, iterations, target_bytes, expected, in_steps=None,
                rank=None, lanes=None):
    """With in_steps (an Expected): every iteration but the first is a profiler step, its
    `ProfilerStep#N` span written after its device events, and in_steps adds up the kernel events
    that start in one. With lanes (gen_timeline.HostLanes): the host lanes too, and what lanes
    adds up of them."""
    pid, host = 1, 4242
    t = 1732000000000000          # nanoseconds: about 1.7e15 us, like Kineto's epoch timestamps
    start = t
    out.write('{\n  "schemaVersion": 1,\n  "deviceProperties": [\n    {"id": 0, "name": '
              '"IBM Spyre", "totalGlobalMem": 137438953472}\n  ],\n')
    if rank is not None:
        # torch.profiler's distributed run: the rank in distributedInfo (world size 2^k above it)
        out.write('  "distributedInfo": {"backend": "gloo", "rank": %d, "world_size": %d},\n'
                  % (rank, 1 << rank.bit_length()))
    out.write('  "record_shapes": 0,\n  "with_stack": 1,\n  "traceEvents": [\n')
    written = [0]
    first = [True]

    def emit(text):
        if not first[0]:
            out.write(',\n')
        first[0] = False
        out.write(text)
        written[0] += len(text) + 2
        expected.trace_events += 1

    def us(ns):
        return '%d.%03d' % (ns // 1000, ns % 1000)

    for meta, p, tid, value in (('process_name', pid, 0, '"Spyre device 0"'),
                                ('thread_name', pid, 0, '"kernels"'),
                                ('thread_name', pid, 100, '"DMA HtoD"'),
                                ('thread_name', pid, 200, '"DMA DtoH"'),
                                ('thread_name', pid, 400, '"memset"'),
                                ('process_name', host, host, '"python3"')):
        emit(event_text([('name', '"%s"' % meta), ('ph', '"M"'), ('ts', us(t)), ('pid', p),
                         ('tid', tid)], [('name', value)]))
    correlation = 1
    iteration = 0
    spans_at = None
    while True:
        if iterations is not None and iteration >= iterations:
            break
        if target_bytes is not None and written[0] >= target_bytes:
            break
        host_events, device_events = [], []
        iteration_start, last_start = t, t
        stepped = in_steps is not None and iteration > 0
        for index, b in enumerate(bundles):
            for _ in range(b['weight']):
                launch = t
                device = lanes.device_of(index) if lanes else None
                if lanes:
                    when = lanes.launch_time(device, t)
                    if when is not None:
                        host_events.extend(lanes.runtime_events(when, correlation, host, us,
                                                                event_text))
                host_events.append(event_text(
                    [('ph', '"X"'), ('cat', '"user_annotation"'),
                     ('name', '"launch_jobplan:%s"' % b['kernel']), ('pid', host),
                     ('tid', host), ('ts', us(launch)), ('dur', us(rng.randint(3000, 9000)))],
                    [('External id', correlation)]))
                if iteration == 0:
                    host_events.append(event_text(
                        [('ph', '"X"'), ('cat', '"user_annotation"'),
                         ('name', '"prepare_kernel:%s"' % b['kernel']), ('pid', host),
                         ('tid', host), ('ts', us(launch - 500)), ('dur', '0.400')]))
                if rng.random() < 0.3:
                    host_events.append(event_text(
                        [('ph', '"X"'), ('cat', '"cpu_op"'), ('name', '"aten::linear"'),
                         ('pid', host), ('tid', host), ('ts', us(launch - 200)),
                         ('dur', us(rng.randint(1000, 5000)))],
                        [('External id', correlation), ('Record function id', 0),
                         ('Ev Idx', correlation)]))
                    host_events.append(event_text(
                        [('ph', '"s"'), ('id', correlation), ('pid', host), ('tid', host),
                         ('ts', us(launch)), ('cat', '"ac2g"'), ('name', '"ac2g"')]))
                if rng.random() < 0.2:
                    # drawn in the order the arguments were before there were host lanes
                    copy_tid = rng.choice([100, 200])
                    copy_ns, copy_bytes = rng.randint(500, 40000), rng.randint(1, 1 << 24)
                    copy_args = [('correlation', correlation), ('bytes', copy_bytes)]
                    if lanes:
                        copy_args.append(('device', device))
                        lanes.activity(device, launch + 100, launch + 100 + copy_ns, True,
                                       None, correlation, copy_bytes)
                    device_events.append(event_text(
                        [('ph', '"X"'), ('cat', '"gpu_memcpy"'),
                         ('name', '"Memcpy HtoD (Host -> Device)"'), ('pid', pid),
                         ('tid', copy_tid), ('ts', us(launch + 100)),
                         ('dur', us(copy_ns))], copy_args))
                if rng.random() < 0.05:
                    fields = [('ph', '"X"'), ('cat', '"gpu_memset"'), ('name', '"Memset (Device)"'),
                              ('pid', pid), ('tid', 400), ('ts', us(launch + 50)),
                              ('dur', '1.000')]
                    if lanes:
                        lanes.activity(device, launch + 50, launch + 1050, True, None, None)
                        device_events.append(event_text(fields, [('device', device)]))
                    else:
                        device_events.append(event_text(fields))
                for step in b['steps']:
                    ns = max(1, int(rng.expovariate(1.0 / b['mean_ns'])))
                    # --scale: the same random draws, this bundle's durations scaled (or dropped)
                    ns = max(1, ns * b.get('scale', 100) // 100)
                    text, ns = dur_text(rng, ns)
                    fields = [('ph', '"X"'), ('cat', '"kernel"'),
                              ('name', '"%s#%d"' % (b['base'], step)), ('pid', pid), ('tid', 0),
                              ('ts', us(t)), ('dur', text)]
                    cyc, stages, failed = cycles(rng)
                    args = [('correlation', correlation), ('stream', 0)]
                    if lanes and b['carrier'] != 'none' and b.get('scale') != 0:
                        args += [('device', device)] + lanes.queue_args(t)
                    with_handles = False
                    if b['carrier'] == 'full':
                        args += [('provenance_key', '"%s"' % b['key']),
                                 ('debug_handles', json.dumps(b['ids']))]
                        with_handles = True
                    elif b['carrier'] == 'key':
                        args.append(('provenance_key', '"%s"' % b['key']))
                    if cyc is not None and b['carrier'] != 'none':
                        args.append(('cycles_ts', cyc))
                    else:
                        stages, failed = None, False
                    if b.get('scale') == 0:
                        device_events.append(None)  # left out, shuffled as if written
                    elif b['carrier'] == 'none':
                        device_events.append(event_text(fields))
                    else:
                        device_events.append(event_text(fields, args))
                    if b.get('scale') != 0:
                        if lanes:
                            with_args = b['carrier'] != 'none'
                            lanes.activity(device if with_args else 'p%d' % pid, t, t + ns, False,
                                           b['key'], correlation if with_args else None)
                        expected.kernel_event(b, ns, stages, failed, with_handles)
                        last_start = t
                        if stepped:
                            in_steps.kernel_event(b, ns, stages, failed, with_handles)
                    t += ns + rng.randint(100, 3000)
                correlation += 1
        # Kineto writes the host's events, then the device's: not in time order, and a little
        # shuffled within each.
        for events in (host_events, device_events):
            for i in range(0, len(events), 8):
                window = events[i:i + 8]
                rng.shuffle(window)
                for e in window:
                    if e is not None:
                        emit(e)
        if lanes:
            phase = 'prefill' if iteration == 0 else 'decode'
            emit(event_text([('ph', '"X"'), ('cat', '"user_annotation"'),
                             ('name', '"%s"' % phase), ('pid', host), ('tid', host),
                             ('ts', us(iteration_start - 500)),
                             ('dur', us(t - iteration_start + 500))], [('External id', 0)]))
        if stepped:
            # The host's step ends 1 us after its last kernel started (or when the next step
            # begins): that kernel runs on past it, and still belongs to the step.
            end = min(last_start + 1000, t)
            if lanes:
                lanes.spans.append((iteration_start, end, iteration))
            emit(event_text([('ph', '"X"'), ('cat', '"user_annotation"'),
                             ('name', '"ProfilerStep#%d"' % iteration), ('pid', host),
                             ('tid', host), ('ts', us(iteration_start)),
                             ('dur', us(end - iteration_start))],
                            [('External id', 0)]))
        if spans_at is None:
            spans_at = t
        iteration += 1
    end = t
    for name, tid in (('__aiu_profiler__', '"__aiu_profiler__"'),
                      ('PyTorch Profiler (0)', '"PyTorch Profiler"')):
        emit(event_text([('ph', '"X"'), ('cat', '"Trace"'), ('ts', us(start)),
                         ('dur', us(end - start)), ('pid', '"Spans"'), ('tid', tid),
                         ('name', '"%s"' % name)], [('Op count', 0)]))
    out.write('\n  ],\n  "traceName": "spyre_trace.json",\n  "displayTimeUnit": "ms",\n'
              '  "baseTimeNanoseconds": 1732000000000000000\n}\n')
    return iteration


def demo_trace(cache_dir, out_dir):
    """--demo: the trace of a run of the demo compile (testdata/demo) once annotated: its two
    kernels' events carry the handles annotate wrote, so `sdscprov profile trace.json CACHE`
    pairs every one. Only OUT_DIR/trace.json is written."""
    kernel_dirs = []
    for name in sorted(os.listdir(os.path.join(cache_dir, 'inductor-spyre'))):
        m = re.fullmatch(r'(sdsc_[A-Za-z0-9_]+)_[a-z0-9_]{8}', name)
        if m:
            kernel_dirs.append({'dir': 'inductor-spyre/' + name, 'kernel': m.group(1),
                                'populated': 1})
    rng = random.Random('gen_trace:demo')
    bundles = make_bundles(cache_dir, {'kernel_dirs': kernel_dirs}, rng)
    if not all(b['ids'] for b in bundles):
        print('gen_trace: %s has kernel directories without handles: annotate it first'
              % cache_dir, file=sys.stderr)
        return 2
    for b in bundles:
        b['carrier'] = 'full'
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, 'trace.json')
    expected = Expected(bundles)
    with open(path, 'w', encoding='ascii') as out:
        write_trace(out, bundles, rng, 3, None, expected)
    print('gen_trace: %d kernels, %d trace events in %s' % (len(bundles), expected.trace_events,
                                                          path), file=sys.stderr)
    return 0


# ---------------------------------------------------------------------------------------------
# --join-cases: the cases of the join of an event with its kernel directory

def _ideal_file(kdir, cycles):
    os.makedirs(os.path.join(kdir, 'perf'), exist_ok=True)
    with open(os.path.join(kdir, 'perf', 'ideal_cycles.json'), 'w') as f:
        json.dump([{'op_category': 'matmul', 'ideal_cycles': cycles},
                   {'op_category': 'TOTAL', 'ideal_cycles': cycles}], f)


def _set_prefix(cache_dir, d, prefix):
    """Renames the inductor-spyre directory d['dir'] to carry `prefix`; returns the new path."""
    old = d['dir']
    name = os.path.basename(old)
    if re.fullmatch(r'[0-9a-f]{8}_sdsc_.*', name):
        name = name[9:]
    new = os.path.join(os.path.dirname(old), prefix + '_' + name)
    os.rename(os.path.join(cache_dir, old), os.path.join(cache_dir, new))
    execute = os.path.join(cache_dir, new, 'execute', os.path.basename(old))
    if os.path.isdir(execute):
        os.rename(execute, os.path.join(cache_dir, new, 'execute', os.path.basename(new)))
    d['dir'] = new
    return new


def join_cases(out_dir, seed):
    """OUT_DIR/cache, spyre_provenance.json, trace.json and expected.json for the join's cases:
    a kernel compiled twice with the same bundle (one key, two directories whose ideals differ),
    its events with args.sdsc_bundle_dir_prefix naming either directory, absent, naming no
    directory or a directory of another kernel; a persistent cache entry named only by its
    kernel_name.txt; a bundle whose kernel name makes its label over 255 bytes; a bundle in no
    kernel directory. expected.json "cases": per case its row label, directories (relative to the
    cache), ideal cycles (null: none) and the diagnostic codes its events give."""
    cache_dir = os.path.join(out_dir, 'cache')
    os.makedirs(cache_dir)
    manifest, _ = gen_cache.generate(cache_dir, 80, seed, ['current'],
                                     ['populated'], 'mixed', False, 1)
    rng = random.Random('join:%d' % seed)
    populated = [d for d in manifest['kernel_dirs'] if d['populated']]
    spyre = [d for d in populated if d['dir'].startswith('inductor-spyre/')]
    entries = [d for d in populated if d['dir'].startswith('inductor-spyre-cache/')]
    twice, other, long_one = spyre[0], spyre[1], spyre[2]
    first = _set_prefix(cache_dir, twice, 'aaaa0001')
    second = os.path.join(os.path.dirname(first),
                          'bbbb0002_' + twice['kernel'] + '_' + 'zz' + first[-6:])
    shutil.copytree(os.path.join(cache_dir, first), os.path.join(cache_dir, second))
    execute = os.path.join(cache_dir, second, 'execute', os.path.basename(first))
    if os.path.isdir(execute):
        os.rename(execute, os.path.join(cache_dir, second, 'execute', os.path.basename(second)))
    _ideal_file(os.path.join(cache_dir, first), 1100)
    _ideal_file(os.path.join(cache_dir, second), 3300)
    other_dir = _set_prefix(cache_dir, other, 'dddd0004')
    entry = entries[0]
    entry_kernel = 'sdsc_fused_from_the_list_7'
    with open(os.path.join(cache_dir, entry['dir'], 'kernel_name.txt'), 'w') as f:
        f.write(entry_kernel + '\n' + entry_kernel + '\nsdsc_fused_another_name_8\n')
    chosen = [dict(twice, kernel=twice['kernel']), dict(other), dict(entry, kernel=entry_kernel),
              dict(long_one, kernel='sdsc_fused_' + '_'.join(['addmm_linear_relu'] * 16) + '_3')]
    bundles = make_bundles(cache_dir, {'kernel_dirs': chosen}, rng)
    # A bundle in no kernel directory: its handles in no SDSC file, its kernel in no directory.
    ghost = json.loads(json.dumps(bundles[1]['handles']))
    for h in ghost:
        h['id'] = str(int(h['id']) + 7777777)
    lines, ops = set(), set()
    for h in ghost:
        walk(h, lines, ops)
    key = base64.b32encode(hashlib.sha256(b'ghost').digest()[:10]).decode().lower()
    bundles.append(dict(bundles[1], dir=None, kernel='sdsc_fused_nowhere_9', key=key,
                        base=PREFIX + summary_of(ops) + '_' + key, handles=ghost,
                        ids=[h['id'] for h in ghost]))
    with open(os.path.join(out_dir, 'spyre_provenance.json'), 'w') as f:
        f.write(json.dumps(sidecar(bundles), indent=2, sort_keys=True) + '\n')
    twice_b, other_b, entry_b, long_b, ghost_b = bundles
    name = os.path.basename
    cases = {
        'first': (twice_b, 'aaaa0001', [first], 1100, []),
        'second': (twice_b, 'bbbb0002', [second], 3300, []),
        'absent': (twice_b, None, sorted([first, second]), None, ['ambiguous-ideal']),
        'wrong': (twice_b, 'cccc0003', sorted([first, second]), None, ['bad-bundle-dir-prefix']),
        'other-kernel': (twice_b, 'dddd0004', sorted([first, second]), None,
                         ['bad-bundle-dir-prefix']),
        'kernel-name-list': (entry_b, None, [entry['dir']], None, []),
        'long-label': (long_b, None, [long_one['dir']], None, []),
        'no-directory': (ghost_b, None, [], None, []),
        'other': (other_b, None, [other_dir], None, []),
    }
    events, t = [], 1732000000000000
    for case, (b, prefix, dirs, cycles, codes) in sorted(cases.items()):
        for step in (1, 2):
            args = [('provenance_key', '"%s"' % b['key']), ('debug_handles', json.dumps(b['ids']))]
            if prefix is not None:
                args.append(('sdsc_bundle_dir_prefix', '"%s"' % prefix))
            events.append(event_text([('ph', '"X"'), ('cat', '"kernel"'),
                                      ('name', '"%s#%d"' % (b['base'], step)), ('pid', 1),
                                      ('tid', 0), ('ts', '%d.000' % (t // 1000)),
                                      ('dur', '%d.000' % (10 + step))], args))
            t += 50000
    with open(os.path.join(out_dir, 'trace.json'), 'w') as f:
        f.write('{\n  "traceEvents": [\n' + ',\n'.join(events) + '\n  ]\n}\n')
    out = {}
    for case, (b, prefix, dirs, cycles, codes) in cases.items():
        if len(dirs) == 1:
            label = b['kernel'] + '@' + name(dirs[0])
        else:
            label = b['kernel'] + '@' + b['key']
        out[case] = {'label': label, 'key': b['key'], 'kernel': b['kernel'], 'dirs': dirs,
                     'ideal_cycles': cycles, 'codes': codes, 'prefix': prefix,
                     'handles': b['ids'], 'ops': b['ops'], 'lines': b['lines']}
    with open(os.path.join(out_dir, 'expected.json'), 'w') as f:
        json.dump({'cases': out}, f, indent=1, sort_keys=True)
        f.write('\n')
    return 0


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    p.add_argument('out_dir')
    p.add_argument('--demo', metavar='CACHE',
                   help='write only OUT_DIR/trace.json: a run of the demo compile, whose events '
                        'carry the handles of CACHE (a copy of testdata/demo, annotated)')
    p.add_argument('--files', type=int, default=120, help='SDSC files in the cache')
    p.add_argument('--seed', type=int, default=1)
    p.add_argument('--iterations', type=int, help='model iterations in the trace (default 3)')
    p.add_argument('--target-bytes', type=float,
                   help='write iterations until the trace is this large (e.g. 1e9)')
    p.add_argument('--gzip', action='store_true', help='write trace.json.gz')
    p.add_argument('--steps', type=int, metavar='N',
                   help='N profiler steps (ProfilerStep#1..N spans) after one iteration outside '
                        'any step: N + 1 iterations; expected.json "steps" adds up the kernel '
                        'events that start in a step')
    p.add_argument('--scale', action='append', default=[], metavar='INDEX=PERCENT',
                   help="the INDEX-th bundle's (manifest order, from 0) kernel event durations "
                        'at PERCENT %%, every other event as without it (0: its events left out): '
                        'a run of the same model with chosen kernels slower or faster')
    p.add_argument('--rank', type=int, metavar='N',
                   help="the trace is rank N's of a distributed run (distributedInfo.rank); "
                        'with the same --seed and --scale for a straggler: the ranks of one run')
    p.add_argument('--copies', type=int, default=0,
                   help='copy this many kernel directories under another name, byte for byte '
                        '(one bundle in two directories)')
    p.add_argument('--ideal-cycles', type=float, metavar='SHARE',
                   help="the cache's kernel directories get perf/ideal_cycles.json in this share "
                        '(gen_cache.py --ideal-cycles); cache_manifest.json says what each gives')
    p.add_argument('--ideal-total', type=float, default=0.5, metavar='SHARE')
    p.add_argument('--ideal-malformed', type=float, default=0.0, metavar='SHARE')
    p.add_argument('--join-cases', action='store_true',
                   help="write only the join's cases (a small cache, sidecar and trace whose "
                        'events name their kernel directories or not; see join_cases)')
    p.add_argument('--host-lanes', action='store_true',
                   help='write the host lanes (scripts/gen_timeline.py): runtime launch events, '
                        'args.device, record_function spans; expected.json "timeline" and '
                        '"timeline_rows" (the sidecar pairing) say what profile must give')
    p.add_argument('--devices', type=int, default=1, metavar='N',
                   help='with --host-lanes: the kernels of the bundles on N devices')
    p.add_argument('--submitted', choices=['consistent', 'inconsistent'],
                   help="with --host-lanes: kernels' args.queued and args.submitted on the "
                        "trace's clock, or half of them on another")
    a = p.parse_args(argv)
    if a.join_cases:
        return join_cases(a.out_dir, a.seed)
    if (a.devices != 1 or a.submitted) and not a.host_lanes:
        print('gen_trace: --devices and --submitted go with --host-lanes', file=sys.stderr)
        return 2
    if a.demo:
        return demo_trace(a.demo, a.out_dir)
    iterations = a.iterations if a.iterations is not None or a.target_bytes else 3
    if a.steps is not None:
        if a.steps < 1 or a.iterations is not None or a.target_bytes:
            print('gen_trace: --steps N takes N >= 1, without --iterations or --target-bytes',
                  file=sys.stderr)
            return 2
        iterations = a.steps + 1
    target = int(a.target_bytes) if a.target_bytes else None

    cache_dir = os.path.join(a.out_dir, 'cache')
    if os.path.exists(cache_dir):
        print('gen_trace: %s already exists; remove it first' % cache_dir, file=sys.stderr)
        return 2
    os.makedirs(cache_dir)
    manifest, _ = gen_cache.generate(cache_dir, a.files, a.seed, ['current', 'may2026', 'execute'],
                                     ['populated', 'populated', 'populated', 'null'], 'mixed',
                                     False, 1, ideal=None if a.ideal_cycles is None else
                                     (a.ideal_cycles, a.ideal_total, a.ideal_malformed))
    if a.ideal_cycles is not None:
        with open(os.path.join(a.out_dir, 'cache_manifest.json'), 'w') as f:
            json.dump(manifest, f, indent=1, sort_keys=True)
            f.write('\n')
    rng = random.Random('gen_trace:%d' % a.seed)
    copies = copy_dirs(cache_dir, manifest, a.copies, random.Random('copies:%d' % a.seed))
    bundles = make_bundles(cache_dir, manifest, rng, copies)
    for spec in a.scale:
        index, percent = spec.split('=')
        bundles[int(index)]['scale'] = int(percent)
    with open(os.path.join(a.out_dir, 'spyre_provenance.json'), 'w') as f:
        f.write(json.dumps(sidecar(bundles), indent=2, sort_keys=True, ensure_ascii=True) + '\n')
    expected = Expected(bundles)
    in_steps = Expected(bundles) if a.steps is not None else None
    name = 'trace.json.gz' if a.gzip else 'trace.json'
    path = os.path.join(a.out_dir, name)
    if a.gzip:
        out = gzip.open(path, 'wt', compresslevel=1 if target else 6, encoding='ascii')
    else:
        out = open(path, 'w', encoding='ascii', buffering=1 << 20)
    with out:
        lanes = gen_timeline.HostLanes(random.Random('host-lanes:%d' % a.seed), a.devices,
                                       a.submitted) if a.host_lanes else None
        done = write_trace(out, bundles, rng, iterations, target, expected, in_steps, a.rank,
                           lanes)
    result = {'trace': name, 'iterations': done, 'trace_events': expected.trace_events,
              'bundles': len(bundles), 'copies': copies,
              'bundle_dirs': {b['key']: b['dir'] for b in bundles}}
    for pairing in ('sidecar', 'caches', 'both'):
        result[pairing] = expected.result(pairing)
    if in_steps is not None:
        result['steps'] = {'spans': a.steps}
        for pairing in ('sidecar', 'caches', 'both'):
            result['steps'][pairing] = in_steps.result(pairing)
    if lanes:
        timeline = lanes.expected()
        result['timeline_rows'] = gen_timeline.rows(timeline, bundles,
                                                    result['sidecar']['kernel_rows'])
        del timeline['keys']
        result['timeline'] = timeline
    with open(os.path.join(a.out_dir, 'expected.json'), 'w') as f:
        json.dump(result, f, indent=1, sort_keys=True)
        f.write('\n')
    print('gen_trace: %d bundles, %d iterations, %d trace events in %s' % (
        len(bundles), done, expected.trace_events, path), file=sys.stderr)
    return 0


if __name__ == '__main__':
    sys.exit(main())
