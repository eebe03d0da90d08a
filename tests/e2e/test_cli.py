"""End-to-end: the conventions of the command line itself: a mistyped command, help, --version,
colour and NO_COLOR, a missing argument, the man page and the shell completions."""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import ROOT, TESTDATA, TempDir, copy_tree, main, run, snapshot  # noqa: E402

DEMO = os.path.join(TESTDATA, "demo")
COMMANDS = ["scan", "annotate", "strip", "explain", "check", "merge", "completion"]


def test_a_mistyped_command_gets_a_suggestion():
    for typo, meant in (("scna", "scan"), ("anotate", "annotate"), ("chekc", "check"), ("exlpain", "explain")):
        rc, out, err = run(typo, DEMO)
        assert rc == 2 and out == "", (typo, rc, out)
        assert err.startswith(f"sdscprov: unknown command '{typo}'; did you mean '{meant}'?\n"), err
    rc, out, err = run("frobnicate", DEMO)
    assert rc == 2 and err.startswith("sdscprov: unknown command 'frobnicate'\n"), err


def test_help_and_help_command():
    rc, out, err = run("help", check_rc=0)
    for command in COMMANDS:
        assert f"\n  {command} " in out, (command, out)
    for command in COMMANDS:
        rc, out, err = run("help", command, check_rc=0)
        rc2, out2, _ = run(command, "--help", check_rc=0)
        assert out == out2 and "Usage:" in out, command
    rc, out, err = run("help", "scna")
    assert rc == 2 and "did you mean 'scan'?" in err, err


def test_version_after_any_command():
    rc, version, _ = run("--version", check_rc=0)
    assert version.startswith("sdscprov "), version
    for command in COMMANDS:
        rc, out, err = run(command, "--version", check_rc=0)
        assert out == version, (command, out)
    # After `--` it is an argument like any other.
    rc, out, err = run("scan", "--", "--version")
    assert rc == 2 and out != version, (rc, out)


def test_no_color_and_the_flag_that_overrides_it():
    with TempDir() as tmp:
        cache = os.path.join(tmp, "demo")
        copy_tree(DEMO, cache)
        for command in (["scan", cache], ["check", cache]):
            rc, out, _ = run(*command, "--color", "always", env={"NO_COLOR": "1"})
            assert "\x1b[" in out, (command, out)  # the flag wins over NO_COLOR (no-color.org)
            rc, out, _ = run(*command, env={"NO_COLOR": "1"})
            assert "\x1b[" not in out, (command, out)
            rc, out, _ = run(*command, "--color", "never")
            assert "\x1b[" not in out, (command, out)
        # check's findings: the location bold, the rule coloured.
        rc, out, _ = run("check", "--color", "always", cache, check_rc=1)
        assert "\x1b[1m" + cache in out and "\x1b[33m[missing-handle]\x1b[0m" in out, out


def test_a_missing_argument_says_what_and_how_to_run_it():
    cases = [
        (["scan"], "sdscprov scan: PATH is missing: kernel cache directories", "sdscprov scan [OPTIONS] PATH..."),
        (["scan", "--format", "json"], "sdscprov scan: PATH is missing", "sdscprov scan [OPTIONS] PATH..."),
        (["check"], "sdscprov check: PATH is missing", "sdscprov check [OPTIONS] PATH..."),
        (["explain"], "sdscprov explain: TARGET is missing: a kernel name", "sdscprov explain [OPTIONS] TARGET [CACHE...]"),
        (["annotate", DEMO], "sdscprov annotate: --origins SIDECAR is missing: the compile's sidecar",
         "sdscprov annotate --origins SIDECAR [OPTIONS] PATH..."),
        (["profile"], "sdscprov profile: TRACE is missing", "sdscprov profile [OPTIONS] TRACE [CACHE...]"),
        (["completion"], "sdscprov completion: SHELL is missing", "sdscprov completion [OPTIONS] SHELL"),
    ]
    for args, first, usage in cases:
        rc, out, err = run(*args)
        assert rc == 2 and out == "", (args, rc, out)
        assert err.startswith(first), (args, err)
        assert f"\nUsage: {usage}\n" in err, (args, err)
        assert f"Run 'sdscprov help {args[0]}' for its options." in err, (args, err)
        assert "is required" not in err, (args, err)
    rc, out, err = run("scan")
    assert "\nFor example: sdscprov scan " in err, err  # the command's own first example
    rc, out, err = run()
    assert rc == 2 and err.startswith("sdscprov: a command is missing: one of scan, annotate"), err
    assert "Run 'sdscprov help' for what each does." in err, err


def man_sections(page):
    """The .SH titles of a roff page, in order, and each section's text."""
    titles, texts = [], {}
    for line in page.splitlines():
        if line.startswith(".SH "):
            titles.append(line[4:].strip('"'))
            texts[titles[-1]] = ""
        elif titles:
            texts[titles[-1]] += line + "\n"
    return titles, texts


def test_the_man_page_is_laid_out_as_git_s_and_ripgrep_s():
    rc, page, _ = run("help", "--man", check_rc=0)
    titles, texts = man_sections(page)
    expected = (["NAME", "SYNOPSIS", "DESCRIPTION"] + [f"SDSCPROV {c.upper()}" for c in COMMANDS + ["profile"]
                                                        if c != "completion"]
                + ["SDSCPROV COMPLETION", "EXIT STATUS", "ENVIRONMENT", "FILES", "EXAMPLES", "SEE ALSO"])
    assert sorted(titles[3:-6]) == sorted(expected[3:-6]) and titles[:3] == expected[:3] \
        and titles[-6:] == expected[-6:], titles
    # Named values, never CLI11's types.
    for generic in ("TEXT", "UINT", "INT", "FLOAT", "NUMBER", "VALUE"):
        assert f"\\fI{generic}\\fR" not in page, generic
    for named in ("\\fB\\-\\-format\\fR \\fIFORMAT\\fR", "\\fB\\-\\-jobs\\fR \\fIN\\fR",
                  "\\fB\\-\\-color\\fR \\fIWHEN\\fR", "\\fB\\-\\-origins\\fR \\fISIDECAR\\fR",
                  "\\fB\\-\\-shard\\fR \\fII/N\\fR"):
        assert named in page, named
    scan = texts["SDSCPROV SCAN"]
    assert scan.startswith(".B sdscprov scan [OPTIONS] PATH...\n"), scan[:80]
    assert "FORMAT is one of text, json, markdown, html, csv (default: text)" in scan, scan
    for code in "0123":
        assert f".TP\n\\fB{code}\\fR\n" in texts["EXIT STATUS"], code
    # Every variable the code reads is described.
    read = set()
    for dirpath, _, files in os.walk(os.path.join(ROOT, "src")):
        for name in files:
            with open(os.path.join(dirpath, name), encoding="utf-8") as f:
                read |= set(re.findall(r'getenv\("([A-Z_0-9]+)"\)', f.read()))
    assert {"NO_COLOR", "COLUMNS", "SDSCPROV_IO_URING"} <= read, read
    for variable in read:
        assert f".TP\n\\fB{variable.replace('_', '_')}\\fR\n" in texts["ENVIRONMENT"], variable
    assert "share/doc/sdscprov" in texts["FILES"] and "/usr/share/doc/sdscprov" in texts["FILES"]
    assert "sdscprov_capture" in texts["SEE ALSO"]
    if shutil.which("man"):
        with TempDir() as tmp:
            path = os.path.join(tmp, "sdscprov.1")
            with open(path, "w") as f:
                f.write(page)
            rendered = subprocess.run(["man", "-l", path], capture_output=True, text=True,
                                      env=dict(os.environ, MANWIDTH="100"), timeout=60)
            assert rendered.returncode == 0 and "SDSCPROV SCAN" in rendered.stdout, rendered.stderr
            assert "warning" not in rendered.stderr, rendered.stderr


# zsh's completion functions, replaced by ones that print what they are given: the script's
# _arguments specs and _describe lists are then checked as zsh would receive them.
ZSH_STUBS = r"""
_arguments() { print -rl -- "ARGS" "$@"; }
_describe() { local -a list; list=("${(@P)${@[-1]}}"); print -rl -- "DESCRIBE $2" "${list[@]}"; }
compadd() { print -rl -- "COMPADD" "$@"; }
compdef() { print -r -- "COMPDEF $*"; }
"""


def zsh_complete(script, *words):
    """What the zsh completion gives to zsh's completion functions for `words` (the last is the
    word being completed)."""
    program = ZSH_STUBS + f"source {script}\nwords=({' '.join(repr(w) for w in words)}); " \
              f"CURRENT={len(words)}\n_sdscprov\n"
    result = subprocess.run(["zsh", "-f", "-c", program], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and result.stderr == "", result.stderr
    return result.stdout


def test_zsh_and_fish_completions_beside_bash():
    for shell in ("zsh", "fish"):
        assert shutil.which(shell), f"{shell} is not installed (scripts/setup.sh installs it)"
    with TempDir() as tmp:
        rc, out, _ = run("completion", "zsh", check_rc=0)
        zsh_script = os.path.join(tmp, "_sdscprov")
        with open(zsh_script, "w") as f:
            f.write(out)
        assert out.startswith("#compdef sdscprov\n"), out[:40]
        check = subprocess.run(["zsh", "-n", zsh_script], capture_output=True, text=True)
        assert check.returncode == 0, check.stderr
        listing = zsh_complete(zsh_script, "sdscprov", "sc")
        assert "COMPDEF _sdscprov sdscprov" in listing  # sourced, not autoloaded: it registers
        commands = listing.split("DESCRIBE commands\n", 1)[1].splitlines()
        assert [c.split(":")[0] for c in commands] == COMMANDS[:6] + ["profile", "completion"], commands
        assert "annotate:Write debug_handle_ into SuperDSC files from the compile's origins map" in commands
        specs = zsh_complete(zsh_script, "sdscprov", "check", "--format", "s").split("ARGS\n", 1)[1].splitlines()
        assert "--format[Report format]:FORMAT:(text json sarif github junit html csv)" in specs, specs
        assert "*:paths:_files" in specs, specs
        for name in ("-j", "--jobs"):  # {-j,--jobs}: one spec each, each excluding the other
            assert f"(-j --jobs){name}[Worker threads (default: all cores)]:N: " in specs, specs
        assert any(s.startswith("*--origins[") and s.endswith(":SIDECAR:_files") for s in specs), specs
        specs = zsh_complete(zsh_script, "sdscprov", "completion", "").split("ARGS\n", 1)[1].splitlines()
        assert "1:shell:(bash zsh fish)" in specs, specs

        # And in a real interactive zsh, through compinit: TAB completes a value and an option.
        script = (f"zmodload zsh/zpty\nzpty z 'zsh -f -i'\n"
                  f"zpty -w z 'PS1=\"> \"; fpath=({tmp} $fpath); autoload -Uz compinit; "
                  f"compinit -u -D; sdscprov() {{ }}'\n")
        for typed, completed in (("sdscprov check --format s", "sdscprov check --format sarif"),
                                 ("sdscprov annotate --dr", "sdscprov annotate --dry-run")):
            script += (f"zpty -w -n z $'\\C-u{typed}\\t'\n"
                       f"zpty -r z out '*{completed}*' && print -r -- 'completed: {completed}'\n")
        real = subprocess.run(["zsh", "-f", "-c", script + "zpty -d z\n"], capture_output=True,
                              text=True, timeout=60)
        assert real.stdout.splitlines() == ["completed: sdscprov check --format sarif",
                                            "completed: sdscprov annotate --dry-run"], (real.stdout, real.stderr)

        rc, out, _ = run("completion", "fish", check_rc=0)
        fish_script = os.path.join(tmp, "sdscprov.fish")
        with open(fish_script, "w") as f:
            f.write(out)

        def fish_complete(line):
            result = subprocess.run(["fish", "--no-config", "-c", f"source {fish_script}; complete -C'{line}'"],
                                    capture_output=True, text=True, timeout=60, cwd=tmp)
            assert result.returncode == 0, result.stderr
            return [row.split("\t")[0] for row in result.stdout.splitlines()]

        assert fish_complete("sdscprov sc") == ["scan"], fish_complete("sdscprov sc")
        assert fish_complete("sdscprov check --format s") == ["sarif"]
        assert fish_complete("sdscprov annotate --dr") == ["--dry-run"]
        assert sorted(fish_complete("sdscprov completion ")) == ["bash", "fish", "zsh"]
        assert fish_complete("sdscprov help ex") == ["explain"]
        assert "_sdscprov" in fish_complete("sdscprov scan _sd")  # paths: files
        assert fish_complete("sdscprov scan --jobs _sd") == []  # a number: no files


# Every numeric option of every command: the command line before it, the option, a value it
# takes, and values out of its range. The values a numeric option is named by in the help.
NUMERIC_VALUE_NAMES = ("N", "SIZE", "MHZ", "PCT", "I/N")


def numeric_cases(cache, origins, trace):
    common = [(["scan", cache], "scan"), (["annotate", "--origins", origins, cache], "annotate"),
              (["strip", cache], "strip"), (["check", cache], "check")]
    cases = []
    for args, _ in common:
        cases += [(args, "-j", "2", ["0", "1025"]), (args, "--jobs", "1024", ["0"]),
                  (args, "--max-file-size", "100000", ["9223372036854775808"]),
                  (args, "--shard", "1/1", ["4/3", "1/0"])]
    cases.append((["check", cache], "--fail-under", "50", ["100.5"]))
    cases.append((["explain", cache + "/inductor-spyre/sdsc_fused_addmm_1_b9d3wz0e"],
                  "--max-file-size", "100000", ["9223372036854775808"]))
    profile = ["profile", trace, cache]
    cases += [(profile, "--top", "3", ["18446744073709551616"]),
              (profile, "--core-mhz", "1000", ["0", "1000001"]),
              (profile, "-j", "1", ["0", "1025"]),
              (profile, "--max-file-size", "100000", ["9223372036854775808"]),
              (profile + ["--baseline", trace], "--fail-over", "2.5", []),
              (profile + ["--baseline", trace], "--fail-min-share", "0.5", ["100.5"])]
    return cases


def test_every_numeric_option_takes_a_plain_decimal_number_only():
    """`--fail-over nan` acted as 0 and `-j 0x10` as 16, `--top -1` as all rows: every numeric
    option takes a plain decimal number in its range, else exit 2 naming the option and the value
    (escaped), nothing written or printed; a valid value still works."""
    with TempDir() as tmp:
        cache = os.path.join(tmp, "demo")
        copy_tree(DEMO, cache)
        trace = os.path.join(tmp, "trace.json")
        shutil.copy(os.path.join(DEMO, "trace.json"), trace)
        origins = os.path.join(DEMO, "origins.json")
        cases = numeric_cases(cache, origins, trace)
        # Every option the help names by a number is here (a new one must be added).
        tested = {(args[0], "--jobs" if option == "-j" else option) for args, option, _, _ in cases}
        for command in ("scan", "annotate", "strip", "check", "explain", "profile", "merge"):
            _, out, _ = run("help", command, check_rc=0)
            for option, value in re.findall(r"^ +(?:-\w,)?(--[\w-]+) (\S+?)(?:=\S*)? ", out, re.M):
                if value in NUMERIC_VALUE_NAMES:
                    assert (command, option) in tested, (command, option)
        before = snapshot(tmp)
        for args, option, valid, out_of_range in cases:
            shown = "--jobs" if option == "-j" else option
            for bad in ["nan", "NaN", "-nan", " 5", "0x10", "1e3", "", "-1", "+5", "inf", "\x1b[31m",
                        *out_of_range]:
                rc, out, err = run(*args, option, bad)
                escaped = bad.replace("\x1b", "\\033")
                assert rc == 2 and out == "", (args, option, bad, rc, out)
                assert err.startswith(f"{shown}: '{escaped}': "), (args, option, bad, err)
                assert "\x1b" not in err, err
            assert snapshot(tmp) == before, (args, option)  # nothing written
            extra = ["--dry-run"] if args[0] in ("annotate", "strip") else []
            rc_plain, _, _ = run(*args, *extra)
            rc, out, err = run(*args, *extra, option, valid)
            assert rc == rc_plain and f"{shown}:" not in err, (args, option, valid, rc, err)
        # The value is in effect, not only taken.
        _, out, _ = run("profile", trace, cache, "--top", "1", "--by", "kernel", check_rc=0)
        assert "--top 0 shows all" in out, out


def test_an_empty_annotate_trace_is_refused():
    """`--annotate-trace ''` used to read as not given: the report and exit 0, no copy. It is
    refused before the trace is read, nothing written."""
    with TempDir() as tmp:
        trace = os.path.join(tmp, "trace.json")
        shutil.copy(os.path.join(DEMO, "trace.json"), trace)
        before = snapshot(tmp)
        for args in (["--annotate-trace", ""], ["--annotate-trace="]):
            rc, out, err = run("profile", trace, DEMO, *args, cwd=tmp)
            assert rc == 2 and out == "", (args, rc, out)
            if args[-1] == "":
                assert err.startswith("--annotate-trace: '': no file has an empty name: the "
                                      "annotated trace is not written\n"), err
            else:  # no value at all: CLI11's own refusal
                assert err.startswith("--annotate-trace: 1 required TEXT missing\n"), err
            assert snapshot(tmp) == before
        out_path = os.path.join(tmp, "annotated.json")
        run("profile", trace, DEMO, "--annotate-trace", out_path, cwd=tmp, check_rc=0)
        assert os.path.getsize(out_path) > 0


if __name__ == "__main__":
    main([test_a_mistyped_command_gets_a_suggestion, test_help_and_help_command,
          test_version_after_any_command, test_no_color_and_the_flag_that_overrides_it,
          test_a_missing_argument_says_what_and_how_to_run_it,
          test_the_man_page_is_laid_out_as_git_s_and_ripgrep_s,
          test_every_numeric_option_takes_a_plain_decimal_number_only,
          test_an_empty_annotate_trace_is_refused,
          test_zsh_and_fish_completions_beside_bash])
