"""End-to-end: the README and --help say only what is true, and cite nothing a user does not have.

- Every line of the README's tour runs as written, in order, in a copy of the demo cache.
- Every other `sdscprov` command the README shows runs as written there too, with the files it
  names made from the test data (a sidecar, a git repository with a staged file).
- Every example line in each command's --help runs (exit 0 or 1: findings are not failures).
- No output of the tool, no --help, no man page, no file under docs/ and no README names the
  documents sdscprov is built from but a user never has."""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import BIN, ROOT, TESTDATA, TempDir, copy_tree, main, run  # noqa: E402

README = os.path.join(ROOT, "README.md")
FORBIDDEN = re.compile(r"FORMATS|[Tt]he audit|\.\./shared|audit's")
COMMANDS = ["scan", "annotate", "strip", "explain", "check", "merge", "completion"]


def sh_blocks(text):
    return re.findall(r"```sh\n(.*?)```", text, re.S)


def demo_copy(tmp):
    """The README's /tmp/demo, with the files the other examples name."""
    demo = os.path.join(tmp, "demo")
    copy_tree(os.path.join(TESTDATA, "demo"), demo)
    shutil.copy(os.path.join(TESTDATA, "spyre", "spyre_provenance.json"), demo)
    return demo


def bash(line, cwd, env):
    return subprocess.run(["bash", "-c", line], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def environment(demo):
    # The binary and the Python package as installed: the build tree's sdscprov first on PATH,
    # the checkout's python/ importable (`import sdscprov` runs $SDSCPROV_BIN).
    env = dict(os.environ, PATH=os.path.dirname(os.path.abspath(BIN)) + os.pathsep + os.environ["PATH"],
               TORCHINDUCTOR_CACHE_DIR=demo, PYTHONPATH=os.path.join(ROOT, "python"))
    env.pop("NO_COLOR", None)
    return env


def test_the_tour_runs_as_written():
    text = open(README).read()
    tour = re.search(r"<!-- tour:[^>]*-->\n```sh\n(.*?)```\n<!-- /tour -->", text, re.S)
    assert tour, "the README has no tour block"
    lines = [l for l in tour.group(1).splitlines() if l.strip()]
    assert len(lines) >= 8, lines
    with TempDir() as tmp:
        demo = demo_copy(tmp)
        env = environment(demo)
        printed = {}
        for line in lines:
            p = bash(line.split("  #")[0], demo, env)
            # `| head` may end the writer by SIGPIPE: only the head's status counts there.
            assert p.returncode == 0, (line, p.returncode, p.stdout[-1500:], p.stderr[-1500:])
            printed[line] = p.stdout
        # What the tour says happened did happen.
        assert os.path.getsize(os.path.join(demo, "stripped.diff")) > 0
        assert '"version": "2.1.0"' in open(os.path.join(demo, "check.sarif")).read()
        assert "sdscprov profile" in open(os.path.join(demo, "profile.html")).read()
        python = [line for line in lines if line.startswith("python3 ")]  # the API's ranking
        assert python and all("/workspace/simple_mlp.py:18" in printed[line] for line in python), python
        rc, out, _ = run("scan", "--format", "json", demo, check_rc=0)
        assert '"handles_populated": 5' in out, out[-800:]  # strip --diff only previewed


def test_every_other_readme_command_runs():
    text = open(README).read()
    tour = re.search(r"<!-- tour:.*?<!-- /tour -->", text, re.S).group(0)
    others = []
    for block in sh_blocks(text.replace(tour, "")):
        for line in block.splitlines():
            command = line.split("  #")[0].strip()
            if "sdscprov " in command and not command.startswith("./scripts/"):
                others.append(command)
    assert others, "no command outside the tour"
    with TempDir() as tmp:
        demo = demo_copy(tmp)
        env = environment(demo)
        # The pre-commit example needs a repository with a staged kernel file.
        subprocess.run(["git", "init", "-q"], cwd=demo, check=True)
        run("annotate", "--origins", os.path.join(demo, "origins.json"), demo, check_rc=0)
        subprocess.run(["git", "add", "inductor-spyre"], cwd=demo, check=True)
        # The profile example: a trace of a compile whose cache is $TORCHINDUCTOR_CACHE_DIR.
        traced = os.path.join(tmp, "traced")
        subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen_trace.py"), traced, "--files", "40"],
                       check=True, capture_output=True, timeout=300)
        shutil.copy(os.path.join(traced, "trace.json"), os.path.join(demo, "spyre_trace.json"))
        for command in others:
            p = bash(command, demo, dict(env, TORCHINDUCTOR_CACHE_DIR=os.path.join(traced, "cache"))
                     if command.startswith("sdscprov profile") else env)
            assert p.returncode in (0, 1), (command, p.returncode, p.stdout[-1500:], p.stderr[-1500:])


def test_help_examples_run():
    """Each command's --help examples, run as written in a directory holding what they name."""
    with TempDir() as tmp:
        work = os.path.join(tmp, "work")
        os.makedirs(work)
        demo = os.path.join(TESTDATA, "demo")
        copy_tree(demo, os.path.join(work, "cache"))
        shutil.copy(os.path.join(demo, "origins.json"), work)
        shutil.copy(os.path.join(TESTDATA, "spyre", "spyre_provenance.json"), work)
        with open(os.path.join(work, "inductor_provenance_tracking_node_mappings.json"), "w") as f:
            f.write('{"preToPost": {}, "postToPre": {}, "cppCodeToPost": {"sdsc_fused_addmm_1:1": []}, '
                    '"postToCppCode": {}, "version": 2.0}')
        for name in ("golden", "kernels-to-share"):
            copy_tree(os.path.join(demo, "inductor-spyre"), os.path.join(work, name, "kernels"))
            run("annotate", "--origins", os.path.join(demo, "origins.json"), os.path.join(work, name), check_rc=0)
        subprocess.run(["git", "init", "-q"], cwd=work, check=True)
        subprocess.run(["git", "add", "golden"], cwd=work, check=True)
        env = environment(os.path.join(work, "cache"))
        env["HOME"] = tmp
        ran = 0
        for command in COMMANDS:
            rc, out, _ = run("help", command, check_rc=0)
            if "Example:\n" not in out:
                continue
            for line in out.split("Example:\n", 1)[1].splitlines():
                if not line.startswith("  "):
                    break
                example = line.strip().split("   #")[0]
                assert not FORBIDDEN.search(example), example
                p = bash(example, work, env)
                assert p.returncode in (0, 1), (command, example, p.returncode, p.stderr[-1500:])
                assert "error:" not in p.stderr, (example, p.stderr[-1500:])
                ran += 1
        assert ran >= 12, ran
        assert os.path.getsize(os.path.join(tmp, ".local", "share", "bash-completion", "completions", "sdscprov")) > 0


def test_nothing_cites_documents_users_do_not_have():
    texts = {"README.md": open(README).read()}
    for name in os.listdir(os.path.join(ROOT, "docs")):
        path = os.path.join(ROOT, "docs", name)
        if os.path.isfile(path) and not name.endswith(".png"):  # images (the README's screenshot)
            texts["docs/" + name] = open(path, encoding="utf-8").read()
    texts["--help"] = run("--help", check_rc=0)[1]
    for command in COMMANDS:
        texts[f"help {command}"] = run("help", command, check_rc=0)[1]
    texts["man page"] = run("help", "--man", check_rc=0)[1]
    # Outputs of every report format on the demo, annotated and not.
    with TempDir() as tmp:
        demo = demo_copy(tmp)
        for fmt in ("text", "json", "markdown"):
            texts[f"scan {fmt}"] = "".join(run("scan", "--format", fmt, demo)[1:])
            texts[f"annotate {fmt}"] = "".join(run("annotate", "--dry-run", "--format", fmt, "--origins",
                                                   os.path.join(demo, "origins.json"), demo)[1:])
        for fmt in ("text", "json", "sarif", "github", "junit"):
            texts[f"check {fmt}"] = "".join(run("check", "--format", fmt, demo)[1:])
        texts["explain"] = "".join(run("explain", "sdsc_fused_addmm_1", demo)[1:])
        open(os.path.join(demo, "inductor-spyre", "sdsc_fused_addmm_1_b9d3wz0e", "sdsc_0.json"), "w").write(
            '{"0_add": {"debug_handle_": {"id": 1}}}')
        texts["malformed"] = "".join(run("check", demo)[1:]) + "".join(run("explain", "sdsc_fused_addmm_1", demo)[1:])
    found = [(where, m.group(0)) for where, text in texts.items() for m in [FORBIDDEN.search(text)] if m]
    assert not found, found


if __name__ == "__main__":
    main([test_the_tour_runs_as_written, test_every_other_readme_command_runs, test_help_examples_run,
          test_nothing_cites_documents_users_do_not_have])
