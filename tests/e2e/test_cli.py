"""End-to-end: the conventions of the command line itself: a mistyped command, help, --version,
colour and NO_COLOR."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import TESTDATA, TempDir, copy_tree, main, run  # noqa: E402

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


if __name__ == "__main__":
    main([test_a_mistyped_command_gets_a_suggestion, test_help_and_help_command,
          test_version_after_any_command, test_no_color_and_the_flag_that_overrides_it])
