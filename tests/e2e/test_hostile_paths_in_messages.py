"""End-to-end: a path holding a newline, a terminal escape and a byte that is not UTF-8 is quoted
the same way in every message, whatever command prints it: profile's diagnostics, its unreadable
trace, its missing cache and merge's unreadable report are quoted as scan quotes a file name.

Names and texts holding a C1 control (U+009B, CSI as one character, which xterm acts on) and a
bidirectional override (U+202E, which displays the rest of its line reversed: the "Trojan Source"
trick) in a kernel directory's name, a trace event's name, a model source file's path and its
line's text reach no terminal and no page raw: every text format of scan, check, explain and
profile shows them escaped (<U+202E>), the HTML pages render them so in a real browser, the JSON
reports keep their bytes. A directory named with backticks and markup stays text in the Markdown
report and check's step summary (their code spans are read as CommonMark reads them).

The expected quoting is written out here (as git's core.quotePath has it), never taken from
sdscprov's output.
"""
import base64
import hashlib
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import BIN, SCRIPTS, TESTDATA, TempDir, copy_tree, main, run  # noqa: E402

NAME = b"odd\xff\n\x1b[31m"
ESCAPES = {0x07: b"\\a", 0x08: b"\\b", 0x09: b"\\t", 0x0a: b"\\n", 0x0b: b"\\v", 0x0c: b"\\f",
           0x0d: b"\\r", 0x22: b'\\"', 0x5c: b"\\\\"}


def quoted(path):
    """`path` between double quotes, escaped as git quotes paths (valid UTF-8 kept)."""
    out = bytearray(b'"')
    for byte in path:
        if byte in ESCAPES:
            out += ESCAPES[byte]
        elif byte < 0x20 or byte == 0x7f or byte >= 0x80:
            out += b"\\%03o" % byte
        else:
            out.append(byte)
    return bytes(out + b'"')


def run_bytes(*args):
    p = subprocess.run([os.fsencode(BIN), *args], capture_output=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def assert_quoted(err, path, what):
    assert b"\x1b" not in err and NAME not in err, (what, err)
    assert quoted(path) in err, (what, quoted(path), err)
    err.decode("utf-8")  # nothing that is not UTF-8 reaches the terminal


def test_profile_quotes_hostile_trace_and_cache_paths_like_scan():
    with TempDir() as tmp:
        base = os.path.join(os.fsencode(tmp), NAME)
        os.makedirs(base)
        cache = os.path.join(base, b"cache")
        os.makedirs(cache)
        # scan's own line about a file of that directory: the reference quoting.
        broken = os.path.join(base, b"sdsc_0.json")
        with open(broken, "wb") as f:
            f.write(b"{")
        rc, _, err = run_bytes(b"scan", broken)
        assert rc == 2, (rc, err)
        assert err.startswith(quoted(broken) + b":1:2: error: "), err
        os.unlink(broken)

        # A diagnostic of two events (unparsable-name, a warning) at the first one's line:col.
        trace = os.path.join(base, b"trace.json")
        with open(trace, "wb") as f:
            f.write(b'{"traceEvents": [\n'
                    b'{"ph": "X", "name": "spyre_kernel_x", "dur": 1},\n'
                    b'{"ph": "X", "name": "spyre_kernel_x#2", "dur": 2}\n'
                    b']}\n')
        rc, out, err = run_bytes(b"profile", trace, cache)
        assert rc == 0, (rc, err)
        assert_quoted(err, trace, "diagnostic")
        line = [x for x in err.splitlines() if b"[unparsable-name]" in x]
        assert len(line) == 1, err
        assert line[0].startswith(quoted(trace) + b":2:1: warning: event name "), line
        assert line[0].endswith(b" (2 events) [unparsable-name]"), line

        # A trace that cannot be read: one error at its position.
        with open(trace, "wb") as f:
            f.write(b'{"traceEvents": [\n{"ph": "X"')
        for extra in ([], [b"--baseline", trace]):
            rc, out, err = run_bytes(b"profile", trace, cache, *extra)
            assert rc == 2 and out == b"", (extra, rc, err)
            assert_quoted(err, trace, "unreadable trace")
            assert (quoted(trace) + b":2:11: error: ") in err, (extra, err)
            assert err.count(b"[parse-error]") == 1, (extra, err)

        # A cache that does not exist.
        missing = os.path.join(base, b"no-cache")
        rc, out, err = run_bytes(b"profile", trace, missing)
        assert rc == 2 and out == b"", (rc, err)
        assert_quoted(err, missing, "missing cache")
        assert err.startswith(quoted(missing) + b": error: cannot access: "), err
        assert err.rstrip().endswith(b" [bad-argument]"), err


def test_merge_quotes_a_hostile_report_name():
    with TempDir() as tmp:
        base = os.path.join(os.fsencode(tmp), NAME)
        os.makedirs(base)
        report = os.path.join(base, b"report.json")
        os.mkdir(report)  # not a file: not read (a FIFO would be waited on, as merge reads streams)
        rc, out, err = run_bytes(b"merge", report)
        assert rc == 2 and out == b"", (rc, err)
        assert_quoted(err, report, "merge")
        assert (b"sdscprov merge: cannot read " + quoted(report) + b": nothing merged") in err, err


def test_merge_refusal_is_one_problem_line():
    with TempDir() as tmp:
        report = os.path.join(tmp, "r.json")
        with open(report, "w") as f:
            f.write("[]")
        rc, out, err = run_bytes(b"merge", os.fsencode(report))
        assert rc == 2 and out == b"", (rc, err)
        lines = err.decode().splitlines()
        assert len(lines) == 1, lines
        assert lines[0].startswith("sdscprov merge: error: " + report + ": "), lines
        assert lines[0].endswith(" [merge-refused]"), lines



# ---- control characters and bidirectional overrides in names and texts -------------------------

C1 = "\u009b"   # CSI as one character: xterm starts an escape sequence on it
RLO = "\u202e"  # right-to-left override: the rest of the line displays reversed
HIDDEN = C1 + RLO
RAW = [HIDDEN[0].encode(), HIDDEN[1].encode()]  # b"\xc2\x9b", b"\xe2\x80\xae"
# The demo kernel with source lines, renamed as the trial named it: `sdsc_k<U+202E>exe.py_0_...`
# displays as `sdsc_kyp.exe_0_...`.
DEMO_DIR = "sdsc_fused_addmm_linear_relu_0_q7k2m_x4"
HOSTILE_DIR = "sdsc_k" + HIDDEN + "exe.py_0_q7k2m_x4"
HOSTILE_LINE = "x = self.fc1(x)  # " + HIDDEN + "[2J gnp.exe"
HOSTILE_EVENT = "fused" + HIDDEN + "add"  # the summary of the other kernel's events
BIDI = set(range(0x202a, 0x202f)) | set(range(0x2066, 0x206a)) | {0x200e, 0x200f, 0x061c}


def octal_shown(text):
    """`text` as a terminal must show it in quoted paths and messages: git's escapes for control
    characters (C1 as its two bytes in octal), <U+XXXX> for a bidi control, other text kept."""
    out = ""
    for ch in text:
        cp = ord(ch)
        if cp in BIDI:
            out += "<U+%04X>" % cp
        elif cp < 0x20 or 0x7f <= cp < 0xa0:
            out += "".join("\\%03o" % byte for byte in ch.encode())
        else:
            out += ch
    return out


def masked(text):
    """`text` as profile's and explain's lines show a text from a file: control characters '?'."""
    return "".join("<U+%04X>" % ord(ch) if ord(ch) in BIDI
                   else "?" if ord(ch) < 0x20 or 0x7f <= ord(ch) < 0xa0 else ch for ch in text)


def hostile_demo(tmp):
    """The demo cache in tmp: cache/ annotated, fresh/ as shipped, its first kernel directory
    named HOSTILE_DIR, its handles naming a model file under a directory holding HIDDEN whose line
    18 holds it too; trace.json: two events of each kernel, the second kernel's named with
    HOSTILE_EVENT (not a kernel event name sdscprov can read: shown as its label). Returns the
    model file's path."""
    model = os.path.join(tmp, "src" + HIDDEN + "yp", "simple_mlp.py")
    os.makedirs(os.path.dirname(model))
    lines = [f"# line {n}" for n in range(1, 41)]
    lines[17] = "        " + HOSTILE_LINE
    with open(model, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(TESTDATA, "demo", "origins.json")) as f:
        origins = json.load(f)
    for node in origins["nodes"].values():
        if node.get("stack_trace"):
            node["stack_trace"] = node["stack_trace"].replace("/workspace/simple_mlp.py", model)
    for k in origins["kernels"]:
        if k["dir"] == DEMO_DIR:
            k["dir"] = HOSTILE_DIR
    with open(os.path.join(tmp, "origins.json"), "w") as f:
        json.dump(origins, f)
    for copy in ("cache", "fresh"):
        spyre = os.path.join(tmp, copy, "inductor-spyre")
        copy_tree(os.path.join(TESTDATA, "demo", "inductor-spyre"), spyre)
        os.rename(os.path.join(spyre, DEMO_DIR, "execute", DEMO_DIR), os.path.join(spyre, DEMO_DIR, "execute", HOSTILE_DIR))
        os.rename(os.path.join(spyre, DEMO_DIR), os.path.join(spyre, HOSTILE_DIR))
    run("annotate", "--origins", "origins.json", "cache", cwd=tmp, check_rc=0)
    events, ts = [], 1000.0
    for d, summary in ((HOSTILE_DIR, "fused_addmm_relu"), ("sdsc_fused_addmm_1_b9d3wz0e", HOSTILE_EVENT)):
        kernel_dir = os.path.join(tmp, "cache", "inductor-spyre", d)
        ids = []
        for name in sorted((n for n in os.listdir(kernel_dir) if n.startswith("sdsc_")), key=len):
            with open(os.path.join(kernel_dir, name)) as f:
                ids.append(next(iter(json.load(f).values()))["debug_handle_"]["id"])
        key = base64.b32encode(hashlib.sha256(d.encode()).digest()[:10]).decode().lower()
        for step in (1, 2):
            events.append({"ph": "X", "cat": "kernel", "name": f"spyre_kernel_v1_{summary}_{key}#{step}",
                           "pid": 1, "tid": 0, "ts": ts, "dur": 100.5, "args": {"debug_handles": ids}})
            ts += 200
    with open(os.path.join(tmp, "trace.json"), "w", encoding="utf-8") as f:
        json.dump({"traceEvents": events}, f, ensure_ascii=False)  # the characters raw, as a trace may hold them
    return model


def run_in(tmp, *args, rc=0, env=None):
    p = subprocess.run([BIN, *args], capture_output=True, cwd=tmp, timeout=120,
                       env=dict(os.environ, **(env or {})))
    assert p.returncode == rc, (args, p.returncode, p.stderr.decode(errors="replace")[-2000:])
    return p.stdout.decode(), p.stderr.decode()


def assert_none_raw(what, *texts):
    for text in texts:
        for ch in HIDDEN:
            assert ch not in text, f"{what}: U+{ord(ch):04X} raw: {text[-3000:]}"


def test_text_formats_show_control_and_bidi_characters_escaped():
    with TempDir() as tmp:
        model = hostile_demo(tmp)
        shown_dir = octal_shown(HOSTILE_DIR)
        shown_model = masked(model) + ":18"
        shown_line = masked(HOSTILE_LINE)
        event_label = "spyre_kernel_v1_" + masked(HOSTILE_EVENT) + "_"
        kernel_label = "@" + masked(HOSTILE_DIR)
        # What each report must show: the directory, the source file and line, the event name.
        cases = {
            ("scan", "fresh"): (0, [f"  {shown_dir}\n"]),  # the kernels that need attention
            ("scan", "--all", "cache"): (0, [f'"cache/inductor-spyre/{shown_dir}"']),
            ("check", "fresh"): (1, [f'"fresh/inductor-spyre/{shown_dir}/sdsc_0.json":2:3: op ']),
            ("check", "--format", "github", "fresh"): (1, [f'file="fresh/inductor-spyre/{shown_dir}/sdsc_0.json"']),
            ("explain", os.path.join("cache", "inductor-spyre", HOSTILE_DIR)):
                (0, [f'"cache/inductor-spyre/{shown_dir}"', f"source:     {shown_model}\n", f"> {shown_line}\n"]),
            ("profile", "trace.json", "cache"):
                (0, [f"  {shown_model}\n", f"  {shown_line}\n", kernel_label + "\n", event_label]),
            ("profile", "--format", "folded", "trace.json", "cache"):
                (0, [shown_model + "+", kernel_label + " ", event_label]),
            ("profile", "trace.json", "cache", "--baseline", "trace.json"):
                (0, [f"  {octal_shown(model)}:18\n", "@" + shown_dir + "\n"]),
        }
        wrong = []  # every report that fails, not only the first
        for args, (rc, expected) in cases.items():
            out, err = run_in(tmp, *args, rc=rc)
            wrong += [(args, f"U+{ord(ch):04X} raw", out + err) for ch in HIDDEN if ch in out + err]
            wrong += [(args, f"no {e!r}", out) for e in expected if e not in out]
        assert not wrong, "\n\n".join(f"{' '.join(args)}: {why}:\n{text[-1500:]}" for args, why, text in wrong)
        # The event name's diagnostic on standard error (it always was escaped there).
        _, err = run_in(tmp, "profile", "trace.json", "cache")
        assert f"event name '{event_label}" in err, err


def test_diff_headers_quote_hidden_characters_as_git_does():
    """annotate --diff: the header names a directory holding U+009B and U+202E in git's own escapes
    (no <U+202E>: `git apply` must read the name back), and `git apply` of it writes what annotate
    writes."""
    with TempDir() as tmp:
        hostile_demo(tmp)
        out, _ = run_in(tmp, "annotate", "--diff", "--origins", "origins.json", "fresh")
        assert_none_raw("annotate --diff", out)
        git = "".join("\\%03o" % b for b in HIDDEN.encode())
        header = f'--- "a/fresh/inductor-spyre/sdsc_k{git}exe.py_0_q7k2m_x4/sdsc_0.json"\n'
        assert header in out, out[:2000]
        subprocess.run(["git", "apply", "-"], input=out.encode(), cwd=tmp, check=True, timeout=60)
        for d in (HOSTILE_DIR, "sdsc_fused_addmm_1_b9d3wz0e"):
            for name in ("sdsc_0.json",):
                with open(os.path.join(tmp, "fresh", "inductor-spyre", d, name), "rb") as f, \
                        open(os.path.join(tmp, "cache", "inductor-spyre", d, name), "rb") as g:
                    assert f.read() == g.read(), (d, name)

def test_json_reports_keep_the_bytes():
    with TempDir() as tmp:
        model = hostile_demo(tmp)
        path = os.path.join("cache", "inductor-spyre", HOSTILE_DIR)
        scan = json.loads(run_in(tmp, "scan", "--format", "json", "cache")[0])
        assert path in [k["dir"] for k in scan["kernels"]], scan["kernels"]
        explain = json.loads(run_in(tmp, "explain", "--format", "json", path)[0])
        (kernel,) = explain["kernels"]
        assert kernel["dir"] == path, kernel["dir"]
        op = kernel["ops"][0]
        assert op["debug_handle"]["source"]["file"] == model and op["source_line_text"] == "        " + HOSTILE_LINE, op
        profile = json.loads(run_in(tmp, "profile", "--format", "json", "trace.json", "cache")[0])
        assert [r["text"] for r in profile["by_line"] if r["file"] == model and r["line"] == 18] == ["        " + HOSTILE_LINE], \
            profile["by_line"]
        assert any(path in d for r in profile["by_kernel"] for d in (r.get("kernel_dirs") or [])), profile["by_kernel"]
        assert any(HOSTILE_EVENT in b["event_name"] for b in profile["bundles"]), profile["bundles"]



def code_spans(line):
    """The code spans of one line of Markdown as CommonMark reads them (a backslash escape outside
    them; a backtick string opens a span closed by the next backtick string of the same length,
    else is text; one space stripped each side when both ends have one and not all is space), and
    the text outside them."""
    spans, outside, i = [], "", 0
    run_at = lambda at: len(line[at:]) - len(line[at:].lstrip("`"))  # noqa: E731
    while i < len(line):
        if line[i] == "\\" and i + 1 < len(line) and line[i + 1] in "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~":
            outside += line[i:i + 2]
            i += 2
            continue
        if line[i] != "`":
            outside += line[i]
            i += 1
            continue
        n, j, close = run_at(i), i + run_at(i), None
        while j < len(line):
            if line[j] != "`":
                j += 1
                continue
            if run_at(j) == n:
                close = j
                break
            j += run_at(j)
        if close is None:
            outside += "`" * n
            i += n
            continue
        content = line[i + n:close]
        if len(content) >= 2 and content[0] == " " and content[-1] == " " and content.strip(" "):
            content = content[1:-1]
        spans.append(content)
        i = close + n
    return spans, outside


MARKUP_DIR = "k`a``<img src=x>` | *b* [c](d) " + HIDDEN + "_b9d3wz0e"


def test_markdown_shows_names_as_code_spans():
    """A directory named with backticks and markup: its name is the exact content of a code span in
    the scan report and check's step summary, and no markup of it is outside one."""
    with TempDir() as tmp:
        for copy in ("cache", "fresh"):
            copy_tree(os.path.join(TESTDATA, "demo", "inductor-spyre", "sdsc_fused_addmm_1_b9d3wz0e"),
                      os.path.join(tmp, copy, MARKUP_DIR))
        with open(os.path.join(tmp, "cache", MARKUP_DIR, "sdsc_1.json"), "w") as f:
            f.write("{")  # a problem of that directory: its location is a name too
        shown = '"cache/' + octal_shown(MARKUP_DIR).replace('"', '\\"') + '"'
        report, _ = run_in(tmp, "scan", "--format", "markdown", "cache", rc=2)
        summary = os.path.join(tmp, "summary.md")
        run_in(tmp, "check", "--format", "github", "fresh", rc=1, env={"GITHUB_STEP_SUMMARY": summary})
        with open(summary, encoding="utf-8") as f:
            step_summary = f.read()
        expected = {
            "scan": (report, [shown, shown[:-1] + '/sdsc_1.json":1:2']),
            "step summary": (step_summary, ['"fresh/' + shown[len('"cache/'):-1] + '/sdsc_0.json":2:3',
                                            "op '0_add' has no debug_handle_"]),
        }
        for what, (text, names) in expected.items():
            assert_none_raw(what, text)
            all_spans = []
            for line in text.splitlines():
                spans, outside = code_spans(line)
                all_spans += spans
                assert "<img" not in outside and "`" not in outside and "[c](d)" not in outside, (what, line, outside)
            for name in names:
                assert name in all_spans, (what, name, all_spans, text)
            assert sum("<img src=x>" in s for s in all_spans) >= len(names) - (what == "step summary"), (what, all_spans)



def test_html_pages_show_control_and_bidi_characters_escaped():
    """In a real browser (scripts/html_browser.py): every text of each page, each kernel's detail
    opened in turn, shows U+009B and U+202E as <U+009B> and <U+202E> and holds neither; the page's
    data keeps the bytes."""
    sys.path.insert(0, SCRIPTS)
    from html_browser import Browser  # python3-websocket and chromium, as tests/e2e/test_html.py
    with TempDir() as tmp, Browser() as b:
        model = hostile_demo(tmp)
        pages = {
            "scan": (["scan", "cache"], 0),
            "check": (["check", "fresh"], 1),
            "explain": (["explain", os.path.join("cache", "inductor-spyre", HOSTILE_DIR)], 0),
            "profile": (["profile", "trace.json", "cache"], 0),
        }
        seen_text = "sdsc_k<U+009B><U+202E>exe.py_0_q7k2m_x4"
        for page, (args, rc) in pages.items():
            p = subprocess.run([BIN, *args, "--format", "html"], capture_output=True, cwd=tmp, timeout=120)
            assert p.returncode == rc, (page, p.returncode, p.stderr)
            assert HIDDEN.encode() in p.stdout, f"{page}: the page's data lost the bytes"
            path = os.path.join(tmp, page + ".html")
            with open(path, "wb") as f:
                f.write(p.stdout)
            b.open(path)
            texts = []
            rows = b.eval("document.querySelectorAll('.kernel-row').length")
            assert rows > 0, page
            for i in range(rows):
                b.eval(f"document.querySelectorAll('.kernel-row')[{i}].click()")
                b.settle()
                texts += b.eval("[document.title, document.body.innerText, "
                                "...[...document.querySelectorAll('[title]')].map((e) => e.title), "
                                "...[...document.querySelectorAll('option')].map((e) => e.textContent)]")
            shown = "\n".join(texts)
            assert_none_raw(page, shown)
            assert seen_text in shown, (page, shown[:3000])
            if page != "check":  # a source line's text, and its file's path
                assert masked(HOSTILE_LINE).replace("?", "<U+009B>") in shown, (page, shown[:3000])
                assert model.replace(HIDDEN, "<U+009B><U+202E>") in shown, (page, shown[:3000])
            if page == "profile":
                assert "fused<U+009B><U+202E>add" in shown, shown[:3000]
            assert b.errors == [] and b.requests == [], (page, b.errors, b.requests)


if __name__ == "__main__":
    main([test_profile_quotes_hostile_trace_and_cache_paths_like_scan,
          test_merge_quotes_a_hostile_report_name, test_merge_refusal_is_one_problem_line,
          test_text_formats_show_control_and_bidi_characters_escaped,
          test_diff_headers_quote_hidden_characters_as_git_does, test_json_reports_keep_the_bytes,
          test_markdown_shows_names_as_code_spans, test_html_pages_show_control_and_bidi_characters_escaped])
