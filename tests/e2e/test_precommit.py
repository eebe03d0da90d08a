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


if __name__ == "__main__":
    main([test_check_hook_refuses_a_commit_without_handles_then_passes,
          test_annotate_hook_writes_then_the_second_commit_passes])
