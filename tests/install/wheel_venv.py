"""What the wheel's tests share: the wheel built from the checkout as a user builds it offline
(`pip wheel --no-build-isolation`, Debian's setuptools and wheel, reusing the tests' build tree),
a fresh virtual environment it is installed into, and the environment a user's shell has there
(its bin/ first on PATH, no build tree, no SDSCPROV_* variable)."""
import glob
import os
import re
import subprocess
import sys

SKIP = 77


def fail(message):
    print(f"{os.path.basename(sys.argv[0])}: {message}", file=sys.stderr)
    sys.exit(1)


def run(args, ok=(0,), **kw):
    p = subprocess.run(args, capture_output=True, text=True, timeout=600, **kw)
    if p.returncode not in ok:
        fail(f"{' '.join(args)} exited {p.returncode}:\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}")
    return p


def cache_value(build, name):
    with open(os.path.join(build, "CMakeCache.txt")) as f:
        for line in f:
            if line.startswith(name + ":"):
                return line.split("=", 1)[1].strip()
    return ""


def plain_release(build):
    """Whether the build tree can give a wheel: a plain Release one (not the sanitizer suite's)."""
    return cache_value(build, "CMAKE_BUILD_TYPE") == "Release" and cache_value(build, "SDSCPROV_SANITIZE") != "ON"


def project_version(root):
    with open(os.path.join(root, "CMakeLists.txt")) as f:
        return re.search(r"project\(sdscprov VERSION ([0-9.]+)", f.read()).group(1)


def builder_python():
    """A Python with setuptools, wheel, venv and ensurepip: Debian's (python3-setuptools,
    python3-wheel, python3-venv), else this one."""
    probe = "import setuptools, wheel, venv, ensurepip"
    for candidate in ("/usr/bin/python3", sys.executable):
        if os.path.exists(candidate) and subprocess.run([candidate, "-c", probe],
                                                        capture_output=True).returncode == 0:
            return candidate
    fail("no Python with setuptools, wheel and venv (Debian: python3-setuptools python3-wheel "
         "python3-venv; scripts/setup.sh installs them)")


def pip_env(build):
    """pip offline, building with the tests' build tree."""
    env = dict(os.environ, SDSCPROV_BUILD_DIR=build, PIP_NO_INDEX="1", PIP_NO_CACHE_DIR="1")
    env.pop("PIP_FIND_LINKS", None)
    return env


def build_wheel(python, build, root, dist):
    """Builds the checkout's wheel into dist/; returns its path (one sdscprov-VERSION-py3-none-*)."""
    run([python, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "-w", dist, root],
        env=pip_env(build))
    wheels = glob.glob(os.path.join(dist, "*.whl"))
    expected = f"sdscprov-{project_version(root)}-py3-none-"
    if len(wheels) != 1 or not os.path.basename(wheels[0]).startswith(expected):
        fail(f"expected one {expected}*.whl, got {wheels}")
    return wheels[0]


def make_venv(python, venv, system_site_packages=False):
    """A fresh virtual environment; with system_site_packages it sees the Debian Python's
    packages (python3-pandas), without it only its own."""
    run([python, "-m", "venv", *(["--system-site-packages"] if system_site_packages else []), venv])
    return os.path.join(venv, "bin", "python")


def install(vpython, build, wheel):
    run([vpython, "-m", "pip", "install", "--no-index", "--no-deps", wheel], env=pip_env(build))


def user_env(venv):
    """The environment as a user's shell has it in the activated environment."""
    path = os.pathsep.join([os.path.join(venv, "bin"), "/usr/local/bin", "/usr/bin", "/bin"])
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SDSCPROV_", "PYTHON", "PIP_", "VIRTUAL_ENV"))}
    env.update(PATH=path, VIRTUAL_ENV=venv, PYTHONDONTWRITEBYTECODE="1")
    return env
