"""The build of the wheel's native part: the sdscprov binary, its man page and completions, made
by the project's CMake (Release) and added to the wheel as a script (installed on PATH) and as
data (share/man, share/bash-completion, share/zsh, share/fish, share/doc/sdscprov).

SDSCPROV_BUILD_DIR: an existing Release build tree to reuse (CI passes the tree its tests ran
in); without it, build/wheel is configured and built (tests off). Nothing is downloaded: the
dependencies are found by CMake as for any build (README, "Dependencies").
"""
import os
import re
import shutil
import subprocess
import sys

from setuptools import Command, setup
from setuptools.command.build import build

try:
    from distutils.command.build_scripts import build_scripts
except ImportError:  # Python 3.12 without distutils: setuptools provides it
    from setuptools._distutils.command.build_scripts import build_scripts

ROOT = os.path.dirname(os.path.abspath(__file__))


def project_version():
    """The one version: project(sdscprov VERSION x.y.z) in CMakeLists.txt."""
    with open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8") as f:
        match = re.search(r"project\(\s*sdscprov\s+VERSION\s+([0-9]+(?:\.[0-9]+)*)", f.read())
    if not match:
        sys.exit("setup.py: no project(sdscprov VERSION ...) in CMakeLists.txt")
    return match.group(1)


VERSION = project_version()
CMAKE_BUILD = os.path.abspath(os.environ.get("SDSCPROV_BUILD_DIR") or os.path.join(ROOT, "build", "wheel"))
# setuptools' own build directory, inside the CMake one, so that a wheel build leaves nothing
# beside the sources (egg-info included).
PY_BUILD = os.path.join(CMAKE_BUILD, "python")
STAGE = os.path.join(PY_BUILD, "stage")  # the help files under the names they are installed as
os.makedirs(PY_BUILD, exist_ok=True)


def cache_value(name):
    with open(os.path.join(CMAKE_BUILD, "CMakeCache.txt"), encoding="utf-8") as f:
        for line in f:
            if line.startswith(name + ":"):
                return line.split("=", 1)[1].strip()
    return ""


class BuildNative(Command):
    description = "build the sdscprov binary, its man page and completions with CMake (Release)"
    user_options = []

    def initialize_options(self):
        pass

    def finalize_options(self):
        pass

    def run(self):
        cmake = shutil.which("cmake")
        if cmake is None:
            sys.exit("setup.py: cmake is not installed (Debian: apt-get install cmake; README)")
        if not os.path.isfile(os.path.join(CMAKE_BUILD, "CMakeCache.txt")):
            subprocess.run([cmake, "-S", ROOT, "-B", CMAKE_BUILD, "-DCMAKE_BUILD_TYPE=Release",
                            "-DSDSCPROV_BUILD_TESTS=OFF"], check=True)
        elif cache_value("CMAKE_BUILD_TYPE") != "Release" or cache_value("SDSCPROV_SANITIZE") in ("ON", "1", "TRUE"):
            sys.exit(f"setup.py: {CMAKE_BUILD} is not a plain Release build "
                     f"(CMAKE_BUILD_TYPE={cache_value('CMAKE_BUILD_TYPE')!r}, "
                     f"SDSCPROV_SANITIZE={cache_value('SDSCPROV_SANITIZE')!r}); the wheel needs one")
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        subprocess.run([cmake, "--build", CMAKE_BUILD, "-j", jobs, "--target", "sdscprov",
                        "sdscprov-help-files"], check=True)
        binary = os.path.join(CMAKE_BUILD, "sdscprov")
        version = subprocess.run([binary, "--version"], capture_output=True, text=True,
                                 check=True).stdout.strip()
        if version != f"sdscprov {VERSION}":
            sys.exit(f"setup.py: {binary} says {version!r}, the project is {VERSION}: a stale build?")
        for source, name in (("sdscprov.1", "man/sdscprov.1"),
                             ("sdscprov.bash-completion", "bash/sdscprov"),
                             ("_sdscprov", "zsh/_sdscprov"),
                             ("sdscprov.fish", "fish/sdscprov.fish")):
            target = os.path.join(STAGE, name)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copyfile(os.path.join(CMAKE_BUILD, source), target)


class Build(build):
    sub_commands = [("build_native", None)] + build.sub_commands

    def run(self):
        # The packages are copied into build_lib afresh: a module removed or renamed in python/
        # since an earlier build of this tree must not stay in the wheel.
        shutil.rmtree(self.build_lib, ignore_errors=True)
        super().run()


class BuildScripts(build_scripts):
    """The script is the native binary: copied as it is (no #! line to rewrite), mode kept."""

    def run(self):
        os.makedirs(self.build_dir, exist_ok=True)
        for script in self.scripts:
            shutil.copy2(script, os.path.join(self.build_dir, os.path.basename(script)))


commands = {"build": Build, "build_native": BuildNative, "build_scripts": BuildScripts}
try:
    from wheel.bdist_wheel import bdist_wheel

    class BdistWheel(bdist_wheel):
        """A wheel for this platform (it holds a native binary), for any Python 3."""

        def finalize_options(self):
            super().finalize_options()
            self.root_is_pure = False

        def get_tag(self):
            return ("py3", "none", super().get_tag()[2])

    commands["bdist_wheel"] = BdistWheel
except ImportError:  # no wheel package: pip install . still works through setuptools
    pass


def docs():
    return sorted(os.path.join("docs", name) for name in os.listdir(os.path.join(ROOT, "docs"))
                  if name.endswith((".md", ".json", ".png")))


setup(
    version=VERSION,
    cmdclass=commands,
    scripts=[os.path.join(CMAKE_BUILD, "sdscprov")],
    data_files=[
        ("share/man/man1", [os.path.join(STAGE, "man", "sdscprov.1")]),
        ("share/bash-completion/completions", [os.path.join(STAGE, "bash", "sdscprov")]),
        ("share/zsh/site-functions", [os.path.join(STAGE, "zsh", "_sdscprov")]),
        ("share/fish/vendor_completions.d", [os.path.join(STAGE, "fish", "sdscprov.fish")]),
        ("share/doc/sdscprov", ["README.md", "CHANGELOG.md"]),
        ("share/doc/sdscprov/docs", docs()),
    ],
    options={"build": {"build_base": PY_BUILD}, "egg_info": {"egg_base": PY_BUILD}},
)
