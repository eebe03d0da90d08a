#!/usr/bin/env python3
"""Two builds' reports, byte for byte: every command of a set run with each binary on the same
generated data, standard output, the files the command writes and the exit status compared.

For a change that must not change what the tool prints (a refactor, a speed-up):

    scripts/same_reports.py --before OLD_BINARY [--after build/sdscprov] [--stderr]

Prints one line per command (`same` or what differs) and exits 1 when any differs. With
--stderr, standard error is compared too (messages may move between lines on purpose: read the
diff). The data is generated once in $SDSCPROV_BENCH_DIR (default /tmp/sdscprov-bench) by
scripts/gen_trace.py: a 2,000-file cache with ideal cycles (some malformed), a trace with step
spans, the same run with two kernels slowed (a baseline pair) and three ranks.
"""
import argparse
import difflib
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def gen_trace(out, *args):
    if os.path.exists(os.path.join(out, "done")):
        return
    shutil.rmtree(out, ignore_errors=True)
    subprocess.run([sys.executable, os.path.join(HERE, "gen_trace.py"), *args, out], check=True,
                   stdout=subprocess.DEVNULL)
    open(os.path.join(out, "done"), "w").close()


def generate(root):
    data = os.path.join(root, "same-reports")
    common = ["--files", "2000", "--seed", "7", "--ideal-cycles", "0.8", "--ideal-malformed", "0.1"]
    gen_trace(os.path.join(data, "base"), *common, "--steps", "3")
    gen_trace(os.path.join(data, "new"), *common, "--steps", "3", "--scale", "0=150",
              "--scale", "3=60")
    for rank in range(3):
        gen_trace(os.path.join(data, f"rank{rank}"), *common, "--rank", str(rank),
                  *(["--scale", "1=170"] if rank == 2 else []))
    return data


def command_set(d, work):
    base = os.path.join(d, "base")
    new = os.path.join(d, "new")
    cache = os.path.join(new, "cache")
    trace = os.path.join(new, "trace.json")
    base_trace = os.path.join(base, "trace.json")
    ranks = [os.path.join(d, f"rank{r}", "trace.json") for r in range(3)]
    demo = os.path.join(ROOT, "testdata", "demo")
    cmds = {}
    for fmt in ("text", "json", "folded", "html"):
        cmds[f"profile {fmt}"] = ["profile", "--format", fmt, trace, cache]
        cmds[f"ranks {fmt}"] = ["profile", "--format", fmt, *ranks, cache]
        cmds[f"baseline {fmt}"] = ["profile", "--format", fmt, "--baseline", base_trace, trace,
                                   cache]
    for by in ("kernel,line", "lost", "category", "aten --by lost", "kernel"):
        cmds[f"profile --by {by}"] = ["profile", *f"--by {by}".split(), "--top", "0", trace,
                                      cache]
        cmds[f"baseline --by {by}"] = ["profile", *f"--by {by}".split(), "--baseline",
                                       base_trace, trace, cache]
    cmds["profile --stages"] = ["profile", "--stages", trace, cache]
    for value in ("ideal", "lost"):
        cmds[f"folded --value {value}"] = ["profile", "--format", "folded", "--value", value,
                                           trace, cache]
    cmds["profile --core-mhz 900"] = ["profile", "--core-mhz", "900", "--format", "json", trace,
                                      cache]
    for fmt in ("text", "junit", "github", "sarif"):
        cmds[f"gate {fmt}"] = ["profile", "--format", fmt, "--fail-over", "5", "--baseline",
                               base_trace, trace, cache]
    cmds["gate --by aten"] = ["profile", "--fail-over", "5", "--by", "aten", "--baseline",
                              base_trace, trace, cache]
    cmds["baseline-cache"] = ["profile", "--baseline", base_trace, "--baseline-cache",
                              os.path.join(base, "cache"), trace, cache]
    cmds["annotate-trace -"] = ["profile", "--annotate-trace", "-", trace, cache]
    cmds["annotate-trace FILE"] = ["profile", "--annotate-trace",
                                   os.path.join(work, "{side}", "annotated.json"), trace, cache]
    cmds["annotate-trace FILE.gz"] = ["profile", "--format", "json", "--annotate-trace",
                                      os.path.join(work, "{side}", "annotated.json.gz"), trace,
                                      cache]
    cmds["profile demo"] = ["profile", os.path.join(demo, "trace.json"), demo]
    cmds["profile no trace"] = ["profile", cache]
    cmds["profile missing trace"] = ["profile", os.path.join(work, "nothing.json"), cache]
    cmds["profile missing cache"] = ["profile", trace, os.path.join(work, "no-cache")]
    cmds["profile -q"] = ["profile", "-q", trace, cache]
    cmds["ranks + baseline"] = ["profile", "--baseline", base_trace, *ranks, cache]
    cmds["fail-over without baseline"] = ["profile", "--fail-over", "5", trace, cache]
    for fmt in ("text", "json", "markdown", "html"):
        cmds[f"scan {fmt}"] = ["scan", "--format", fmt, cache]
    for fmt in ("text", "json", "sarif", "github", "junit", "html"):
        cmds[f"check {fmt}"] = ["check", "--format", fmt, cache]
    cmds["explain demo"] = ["explain", "sdsc_fused_addmm_linear_relu_0", demo]
    cmds["explain json"] = ["explain", "--format", "json", "sdsc_fused_addmm_linear_relu_0", demo]
    cmds["explain missing"] = ["explain", "no_such_kernel", demo]
    return cmds


def run(binary, argv, side, work):
    out_dir = os.path.join(work, side)
    os.makedirs(out_dir, exist_ok=True)
    argv = [a.replace("{side}", side) for a in argv]
    p = subprocess.run([binary, *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       stdin=subprocess.DEVNULL, env={**os.environ, "NO_COLOR": "1"})
    written = {}
    for name in sorted(os.listdir(out_dir)):
        with open(os.path.join(out_dir, name), "rb") as f:
            written[name] = f.read()
        os.remove(os.path.join(out_dir, name))
    return p.returncode, p.stdout, p.stderr, written


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", required=True)
    ap.add_argument("--after", default=os.path.join(ROOT, "build", "sdscprov"))
    ap.add_argument("--stderr", action="store_true", help="compare standard error too")
    ap.add_argument("-k", help="only the commands whose name holds this")
    args = ap.parse_args()
    data = generate(os.environ.get("SDSCPROV_BENCH_DIR", "/tmp/sdscprov-bench"))
    differ = 0
    with tempfile.TemporaryDirectory() as work:
        for name, argv in command_set(data, work).items():
            if args.k and args.k not in name:
                continue
            a = run(args.before, argv, "before", work)
            b = run(args.after, argv, "after", work)
            what = []
            if a[0] != b[0]:
                what.append(f"exit {a[0]} -> {b[0]}")
            if a[1] != b[1]:
                what.append("stdout")
            if a[3] != b[3]:
                what.append("files written")
            if args.stderr and a[2] != b[2]:
                what.append("stderr")
            print(f"{name}: {'same' if not what else 'DIFFERS: ' + ', '.join(what)}")
            if what:
                differ += 1
                for label, x, y in (("stdout", a[1], b[1]), ("stderr", a[2], b[2])):
                    if x != y and (label == "stdout" or args.stderr):
                        diff = difflib.unified_diff(
                            x.decode(errors="replace").splitlines(),
                            y.decode(errors="replace").splitlines(), "before", "after",
                            lineterm="", n=1)
                        print("\n".join(list(diff)[:20]))
    print(f"{differ} of the commands differ" if differ else "every command gives the same bytes")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
