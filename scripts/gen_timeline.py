"""The host lanes of scripts/gen_trace.py (--host-lanes): what a trace needs for the time between
kernels, and the figures `sdscprov profile` must give for them, computed here from the events
written with this script's own arithmetic (docs/profile.md states the definitions).

What it adds to a trace: runtime launch events (`aiuLaunchControlBlocks`, cat `cuda_runtime`,
args.correlation; some correlations launched twice, the earliest counting), kernels launched
before the device is free (no host wait), after it (host wait), after they started (clock skew)
or never (no runtime event: unattributed), args.device on device events (--devices N: several
devices), kernel args.queued/args.submitted on the trace's clock or on another (--submitted),
transfers with bytes overlapping kernels, and a named record_function span per iteration
("prefill" for the first, "decode" for the others).
"""


def median(values):
    values = sorted(values)
    if not values:
        return 0
    mid = len(values) // 2
    if len(values) % 2:
        return values[mid]
    return (values[mid - 1] + values[mid]) // 2


def merged(intervals):
    """The union of [start, end) intervals as sorted, disjoint ones."""
    out = []
    for b, e in sorted(intervals):
        if out and b <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([b, e])
    return out


def overlap(a, b):
    """The length of the overlap of two lists of sorted, disjoint intervals."""
    total, j = 0, 0
    for start, end in a:
        while j < len(b) and b[j][1] <= start:
            j += 1
        k = j
        while k < len(b) and b[k][0] < end:
            total += min(end, b[k][1]) - max(start, b[k][0])
            k += 1
    return total


def idle_zero():
    return {'gaps': 0, 'idle_ns': 0, 'host_wait_ns': 0, 'launch_latency_ns': 0,
            'unattributed_ns': 0}


def idle_add(into, gap):
    for k in into:
        into[k] += gap[k]


class HostLanes:
    def __init__(self, rng, devices, submitted):
        self.rng = rng
        self.devices = devices
        self.submitted = submitted      # 'consistent', 'inconsistent' or None
        self.acts = []                  # dicts: device, start, end, transfer, key, corr, bytes
        self.launches = {}              # correlation -> earliest start
        self.launch_events = 0
        self.spans = []                 # (start, end, number)
        self.last_end = {}              # device -> latest end written (to place launches)
        self.queue = []                 # (queued, submitted, start) of kernels

    def device_of(self, index):
        return index % self.devices

    def launch_time(self, device, t):
        """When the host launches work starting at t on `device`; None: no runtime event."""
        prev = self.last_end.get(device)
        mode = self.rng.choices(['early', 'late', 'skew', 'none'], weights=[55, 30, 5, 10])[0]
        if prev is None or mode == 'early':
            base = prev if prev is not None else t
            return max(1, base - self.rng.randint(1000, 20000))
        if mode == 'late':
            return prev + self.rng.randint(0, max(0, t - prev))
        if mode == 'skew':
            return t + self.rng.randint(100, 2000)
        return None

    def runtime_events(self, launch, correlation, host, us, event_text):
        """The runtime events of one launch (a second one, later, for some)."""
        self.launch_events += 1
        self.launches[correlation] = min(launch, self.launches.get(correlation, launch))
        out = [event_text([('ph', '"X"'), ('cat', '"cuda_runtime"'),
                           ('name', '"aiuLaunchControlBlocks"'), ('pid', host), ('tid', host),
                           ('ts', us(launch)), ('dur', us(self.rng.randint(200, 3000)))],
                          [('num_cbs', 1), ('correlation', correlation)])]
        if self.rng.random() < 0.2:
            self.launch_events += 1
            out.append(event_text([('ph', '"X"'), ('cat', '"cuda_runtime"'),
                                   ('name', '"aiuLaunchDMIControlBlocks"'), ('pid', host),
                                   ('tid', host), ('ts', us(launch + 700)), ('dur', '1.000')],
                                  [('correlation', correlation)]))
        return out

    def queue_args(self, start):
        """args.queued and args.submitted of a kernel starting at `start` (ns), or []."""
        if self.submitted is None:
            return []
        queued = start - self.rng.randint(3000, 60000)
        submitted = queued + self.rng.randint(0, start - queued)
        if self.submitted == 'inconsistent' and self.rng.random() < 0.5:
            # the runtime's own clock, not shifted as the export shifted ts
            queued += 10**12
            submitted += 10**12
        self.queue.append((queued, submitted, start))
        return [('queued', queued), ('submitted', submitted)]

    def activity(self, device, start, end, transfer, key, corr, nbytes=0):
        self.acts.append({'device': device, 'start': start, 'end': end, 'transfer': transfer,
                          'key': key, 'corr': corr, 'bytes': nbytes})
        self.last_end[device] = max(end, self.last_end.get(device, end))

    # ---- the figures ----------------------------------------------------------------------

    def step_of(self, t):
        for i, (start, end, _) in enumerate(self.spans_sorted):
            if start <= t < end:
                return i
        return None

    def expected(self):
        self.spans_sorted = sorted(self.spans)
        steps = []
        if self.spans:
            for start, end, number in self.spans_sorted:
                steps.append({'name': 'ProfilerStep#%d' % number, 'start_ns': start,
                              'wall_ns': end - start})
        else:
            first = min(a['start'] for a in self.acts)
            last = max(a['end'] for a in self.acts)
            steps.append({'name': '(whole trace)', 'start_ns': first, 'wall_ns': last - first})
        for s in steps:
            s.update({'kernels': 0, 'transfers': 0, 'kernel_busy_ns': 0, 'transfer_ns': 0,
                      'transfer_bytes': 0, 'idle': idle_zero(), 'delays': [], 'skewed': 0})
        total, transfers_idle, outside_idle = idle_zero(), idle_zero(), idle_zero()
        per_key, delays_key = {}, {}
        all_delays, skewed, outside = [], 0, 0
        for a in self.acts:
            launch = self.launches.get(a['corr']) if a['corr'] is not None else None
            a['launch'] = launch
            if self.spans:
                a['step'] = self.step_of(launch if launch is not None else a['start'])
            else:
                a['step'] = 0
        by_device = {}
        for i, a in enumerate(self.acts):
            by_device.setdefault(a['device'], []).append((a['start'], a['end'], i))
        for device, items in by_device.items():
            items.sort()
            prev_end = None
            for start, end, i in items:
                a = self.acts[i]
                step = steps[a['step']] if a['step'] is not None else None
                if prev_end is not None and start > prev_end:
                    gap = start - prev_end
                    g = idle_zero()
                    g['gaps'], g['idle_ns'] = 1, gap
                    if a['launch'] is not None:
                        g['host_wait_ns'] = min(gap, max(0, a['launch'] - prev_end))
                        g['launch_latency_ns'] = gap - g['host_wait_ns']
                    else:
                        g['unattributed_ns'] = gap
                    idle_add(total, g)
                    if a['transfer']:
                        idle_add(transfers_idle, g)
                    else:
                        idle_add(per_key.setdefault(a['key'], idle_zero()), g)
                    idle_add(step['idle'] if step else outside_idle, g)
                prev_end = end if prev_end is None else max(prev_end, end)
                if a['launch'] is not None:
                    delay = max(0, start - a['launch'])
                    skew = start < a['launch']
                    all_delays.append(delay)
                    skewed += skew
                    if step:
                        step['delays'].append(delay)
                        step['skewed'] += skew
                    if not a['transfer']:
                        delays_key.setdefault(a['key'], []).append((delay, skew))
        # per step and device: unions
        groups = {}
        for a in self.acts:
            if a['step'] is None:
                outside += 1
                continue
            groups.setdefault((a['step'], a['device']), []).append(a)
        for (si, _), acts in groups.items():
            s = steps[si]
            kernel_ivs, transfer_ivs = [], []
            for a in acts:
                if a['transfer']:
                    s['transfers'] += 1
                    s['transfer_bytes'] += a['bytes']
                    transfer_ivs.append((a['start'], a['end']))
                else:
                    s['kernels'] += 1
                    kernel_ivs.append((a['start'], a['end']))
            kernel_u, transfer_u = merged(kernel_ivs), merged(transfer_ivs)
            s['kernel_busy_ns'] += sum(e - b for b, e in kernel_u)
            # the transfers' union less its overlap with the kernels' (both disjoint)
            s['transfer_ns'] += sum(e - b for b, e in transfer_u) - overlap(transfer_u, kernel_u)
        for s in steps:
            d = s.pop('delays')
            s['launch'] = {'launched': len(d), 'skewed': s.pop('skewed'), 'total_ns': sum(d),
                           'median_ns': median(d)}
        walls = [s['wall_ns'] for s in steps]
        steps.sort(key=lambda s: -s['wall_ns'])        # stable: ties by start
        keys = {}
        for key in set(per_key) | set(delays_key):
            d = delays_key.get(key, [])
            keys[key] = {'idle': per_key.get(key, idle_zero()),
                         'delays': [x for x, _ in d], 'skewed': sum(s for _, s in d)}
        queue = {'kernels': len(self.queue),
                 'inconsistent': sum(1 for q, s, t in self.queue if not (0 < q <= s <= t))}
        consistent = queue['kernels'] > 0 and queue['inconsistent'] == 0
        qd = [t - s for q, s, t in self.queue]
        queue.update({'consistent': consistent, 'total_ns': sum(qd) if consistent else None,
                      'median_ns': median(qd) if consistent else None})
        return {'devices': len(by_device), 'activities': len(self.acts),
                'launch_events': self.launch_events, 'steps': steps,
                'step_ns': {'min': min(walls), 'median': median(walls), 'max': max(walls)},
                'outside_steps': {'activities': outside if self.spans else 0,
                                  'idle': outside_idle},
                'idle': total, 'transfers_idle': transfers_idle,
                'launch': {'launched': len(all_delays), 'skewed': skewed,
                           'total_ns': sum(all_delays), 'median_ns': median(all_delays)},
                'queue': queue, 'keys': keys}


def rows(timeline, bundles, kernel_rows):
    """Each row's idle and launch figures for the sidecar pairing (every bundle paired): a
    bundle counts fully for each of its lines and ops, once for its kernel row."""
    by_key = {b['key']: b for b in bundles}
    label_of = {r['key']: label for label, r in kernel_rows.items()}
    out = {'by_line': {}, 'by_aten': {}, 'by_kernel': {}}
    for key, k in timeline['keys'].items():
        b = by_key[key]
        labels = {'by_line': ['%s:%d' % l for l in b['lines']] or ['[no source]'],
                  'by_aten': b['ops'] or ['[no aten op]'],
                  'by_kernel': [label_of[key]]}
        for table, names in labels.items():
            for name in names:
                row = out[table].setdefault(name, {'idle': idle_zero(), 'delays': [],
                                                   'skewed': 0})
                idle_add(row['idle'], k['idle'])
                row['delays'] += k['delays']
                row['skewed'] += k['skewed']
    for table in out.values():
        for name, row in table.items():
            d = row.pop('delays')
            row['launch'] = {'launched': len(d), 'skewed': row.pop('skewed'),
                             'total_ns': sum(d), 'median_ns': median(d)}
    return out
