"""End-to-end: the pre-commit hooks of .pre-commit-hooks.yaml, run by the real `pre-commit` on a
temporary git repository of golden kernels."""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e import BIN, ROOT, SKIP, TESTDATA, TempDir, copy_tree, main, run  # noqa: E402

DEMO = os.path.join(TESTDATA, "demo")
DEMO_MAP = os.path.join(DEMO, "origins.json")


def git(cwd, *args, check=True):
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com")
    return subprocess.run(["git", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", *args],
                          cwd=cwd, env=env, capture_output=True, text=True, check=check, timeout=300)


def hooks_repo(tmp):
    """A git repository holding this tree's .pre-commit-hooks.yaml, as pre-commit clones ours."""
    repo = os.path.join(tmp, "hooks")
    os.makedirs(repo)
    shutil.copy(os.path.join(ROOT, ".pre-commit-hooks.yaml"), repo)
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "hooks")
    return repo, git(repo, "rev-parse", "HEAD").stdout.strip()


def golden_repo(tmp, hooks, rev, hook, args=None):
    repo = os.path.join(tmp, "golden-" + hook)
    os.makedirs(repo)
    git(repo, "init", "-q")
    copy_tree(os.path.join(DEMO, "inductor-spyre"), os.path.join(repo, "kernels"))
    shutil.copy(DEMO_MAP, os.path.join(repo, "origins.json"))
    extra = f"\n        args: {args}" if args else ""
    with open(os.path.join(repo, ".pre-commit-config.yaml"), "w") as f:
        f.write(f"repos:\n-   repo: {hooks}\n    rev: {rev}\n    hooks:\n    -   id: {hook}{extra}\n")
    return repo


def commit(repo, env):
    git(repo, "add", "-A")
    return subprocess.run(["git", "-c", "commit.gpgsign=false", "commit", "-q", "-m", "golden kernels"],
                          cwd=repo, env=env, capture_output=True, text=True, timeout=600)


def precommit_env(tmp):
    return dict(os.environ, PATH=os.path.dirname(os.path.abspath(BIN)) + os.pathsep + os.environ["PATH"],
                PRE_COMMIT_HOME=os.path.join(tmp, "pre-commit-home"),
                GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com",
                GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com")


def test_check_hook_refuses_a_commit_without_handles_then_passes():
    if shutil.which("pre-commit") is None:
        return SKIP
    with TempDir() as tmp:
        hooks, rev = hooks_repo(tmp)
        repo = golden_repo(tmp, hooks, rev, "sdscprov-check")
        env = precommit_env(tmp)
        subprocess.run(["pre-commit", "install"], cwd=repo, env=env, check=True, capture_output=True)
        refused = commit(repo, env)
        out = refused.stdout + refused.stderr
        assert refused.returncode != 0, out
        assert "kernels/sdsc_fused_addmm_1_b9d3wz0e/sdsc_0.json:2:3: op '0_add' has no debug_handle_ [missing-handle]" in out, out
        assert out.count("[missing-handle]") == 5, out
        assert git(repo, "rev-parse", "HEAD", check=False).returncode != 0  # nothing committed

        run("annotate", "--origins", DEMO_MAP, os.path.join(repo, "kernels"), check_rc=0)
        accepted = commit(repo, env)
        assert accepted.returncode == 0, accepted.stdout + accepted.stderr
        assert git(repo, "log", "--oneline").stdout.count("\n") == 1


def test_annotate_hook_writes_then_the_second_commit_passes():
    if shutil.which("pre-commit") is None:
        return SKIP
    with TempDir() as tmp:
        hooks, rev = hooks_repo(tmp)
        repo = golden_repo(tmp, hooks, rev, "sdscprov-annotate", args="[--origins, origins.json]")
        env = precommit_env(tmp)
        subprocess.run(["pre-commit", "install"], cwd=repo, env=env, check=True, capture_output=True)
        first = commit(repo, env)
        out = first.stdout + first.stderr
        assert first.returncode != 0 and "files were modified by this hook" in out, out
        # The hook wrote the handles: what is now in the working tree passes.
        run("check", os.path.join(repo, "kernels"), check_rc=0)
        second = commit(repo, env)
        assert second.returncode == 0, second.stdout + second.stderr


KERNEL = os.path.join("kernels", "sdsc_fused_addmm_linear_relu_0_q7k2m_x4")  # 4 files, bundle.mlir


def annotated_golden_repo(tmp, hook, args):
    """A golden repository whose first commit holds annotated kernels (made without the hook)."""
    hooks, rev = hooks_repo(tmp)
    repo = golden_repo(tmp, hooks, rev, hook, args=args)
    run("annotate", "--origins", DEMO_MAP, os.path.join(repo, "kernels"), check_rc=0)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "annotated goldens")
    env = precommit_env(tmp)
    subprocess.run(["pre-commit", "install"], cwd=repo, env=env, check=True, capture_output=True)
    return repo, env


def stage_only(repo, env, rel):
    git(repo, "add", rel)
    staged = git(repo, "diff", "--cached", "--name-only").stdout.split()
    assert staged == [rel], staged
    return subprocess.run(["git", "-c", "commit.gpgsign=false", "commit", "-q", "-m", "one file"],
                          cwd=repo, env=env, capture_output=True, text=True, timeout=600)


def test_annotate_hook_on_one_staged_file_of_a_kernel():
    # pre-commit passes only the staged file: sdscprov joins it against its whole kernel
    # directory (bundle.mlir, the sibling files), writes it, and touches no other file.
    if shutil.which("pre-commit") is None:
        return SKIP
    with TempDir() as tmp:
        repo, env = annotated_golden_repo(tmp, "sdscprov-annotate", "[--origins, origins.json]")
        rel = os.path.join(KERNEL, "sdsc_2.json")
        path = os.path.join(repo, rel)
        annotated = open(path, "rb").read()
        run("strip", "--remove", path, check_rc=0)  # a regenerated kernel file without a handle
        stripped = open(path, "rb").read()
        assert stripped != annotated
        siblings = {f: open(os.path.join(repo, KERNEL, f), "rb").read()
                    for f in os.listdir(os.path.join(repo, KERNEL))
                    if f != "sdsc_2.json" and os.path.isfile(os.path.join(repo, KERNEL, f))}
        assert len(siblings) >= 4, siblings
        first = stage_only(repo, env, rel)
        out = first.stdout + first.stderr
        assert first.returncode != 0 and "files were modified by this hook" in out, out
        assert "join-mismatch" not in out and "error:" not in out, out
        # Files named one by one are no cache: no note of the map's other kernels.
        assert "kernel-without-dir" not in out, out
        assert open(path, "rb").read() == annotated, "the staged file gets its handle back"
        for f, data in siblings.items():
            assert open(os.path.join(repo, KERNEL, f), "rb").read() == data, f
        # The file is the committed, annotated one again: once staged, nothing is left to commit.
        git(repo, "add", rel)
        assert git(repo, "status", "--porcelain").stdout == ""


def test_check_hook_with_origins_on_one_staged_file_of_a_kernel():
    if shutil.which("pre-commit") is None:
        return SKIP
    with TempDir() as tmp:
        repo, env = annotated_golden_repo(tmp, "sdscprov-check", "[--origins, origins.json]")
        rel = os.path.join(KERNEL, "sdsc_2.json")
        path = os.path.join(repo, rel)
        # A change that keeps the right handle: the gate passes the one staged file.
        data = open(path, "rb").read()
        assert b'"numCoresUsed_": 32' in data
        open(path, "wb").write(data.replace(b'"numCoresUsed_": 32', b'"numCoresUsed_": 16', 1))
        ok = stage_only(repo, env, rel)
        assert ok.returncode == 0, ok.stdout + ok.stderr
        # A handle other than the map's, staged alone: refused at the file, not at the kernel.
        text = open(path, "rb").read().replace(b'"aten_op": "aten.relu.default"', b'"aten_op": "aten.gelu.default"', 1)
        assert text != open(path, "rb").read()
        open(path, "wb").write(text)
        refused = stage_only(repo, env, rel)
        out = refused.stdout + refused.stderr
        assert refused.returncode != 0 and f"{rel}:" in out and "[stale-handle]" in out, out
        assert "join-mismatch" not in out, out
        # The report names only the staged file: its siblings are context.
        assert out.count("[stale-handle]") == 1 and "sdsc_0.json" not in out, out


if __name__ == "__main__":
    main([test_check_hook_refuses_a_commit_without_handles_then_passes,
          test_annotate_hook_writes_then_the_second_commit_passes,
          test_annotate_hook_on_one_staged_file_of_a_kernel,
          test_check_hook_with_origins_on_one_staged_file_of_a_kernel])
