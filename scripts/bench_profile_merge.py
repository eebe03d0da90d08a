#!/usr/bin/env python3
"""Time `sdscprov merge` of many ranks' `profile --format json` reports.

    bench_profile_merge.py [--bin build/sdscprov] [--files 2000] [--ranks 64] [--runs 3]

Generates one model (scripts/gen_trace.py: a cache of FILES SDSC files and its trace), profiles
the trace against its cache, writes RANKS copies of the report as the ranks of one run (each its
own trace path and distributedInfo.rank), and merges them RUNS times. Prints the reports' size,
and per run the wall and CPU seconds and the peak resident memory (from wait4), and the wall time
per report. A figure to read, never a pass or a fail.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def rank_copies(doc, ranks, out_dir):
    """Writes RANKS copies of the profile report `doc` into OUT_DIR as the ranks of one run (rank R:
    trace rankRR/trace.json, distributedInfo.rank R); returns their paths, in rank order."""
    paths = []
    for r in range(ranks):
        doc['trace']['path'] = 'rank%02d/trace.json' % r
        doc['trace']['distributed_rank'] = r
        path = os.path.join(out_dir, 'rank%02d.profile.json' % r)
        with open(path, 'w') as f:
            json.dump(doc, f, indent=2)
        paths.append(path)
    return paths


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    p.add_argument('--bin', default=os.path.join(HERE, '..', 'build', 'sdscprov'))
    p.add_argument('--files', type=int, default=2000)
    p.add_argument('--ranks', type=int, default=64)
    p.add_argument('--runs', type=int, default=3)
    a = p.parse_args()
    tmp = tempfile.mkdtemp(prefix='sdscprov-bench-merge-')
    try:
        model = os.path.join(tmp, 'model')
        subprocess.run([sys.executable, os.path.join(HERE, 'gen_trace.py'), model, '--files',
                        str(a.files), '--rank', '0'], check=True, capture_output=True)
        out = subprocess.run([a.bin, 'profile', os.path.join(model, 'trace.json'),
                              os.path.join(model, 'cache'), '--format', 'json'],
                             capture_output=True, text=True)
        doc = json.loads(out.stdout)
        paths = rank_copies(doc, a.ranks, tmp)
        size = sum(os.path.getsize(x) for x in paths)
        print('%d reports, %.1f MB (%d bundles, %d handles each)' % (
            a.ranks, size / 1e6, len(doc['bundles']), len(doc['handles'])))
        for run in range(a.runs):
            start = time.monotonic()
            with open(os.devnull, 'w') as sink:
                proc = subprocess.Popen([a.bin, 'merge', *paths], stdout=sink)
                _, status, usage = os.wait4(proc.pid, 0)
            wall = time.monotonic() - start
            if os.waitstatus_to_exitcode(status) != 0:
                print('merge failed', file=sys.stderr)
                return 1
            print('run %d: %.3f s wall, %.3f s CPU, %.0f MB peak RSS, %.1f ms per report' % (
                run + 1, wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024,
                1000 * wall / a.ranks))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
