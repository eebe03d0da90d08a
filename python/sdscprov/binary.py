"""Finds the installed ``sdscprov`` binary: for the API (``sdscprov.profile`` and the others run
it), and so that a compile script (or ``python3 -m sdscprov_capture --annotate CACHE``) can
annotate the cache with the map it just wrote."""
import os
import shutil
import subprocess

ENV_VARIABLE = "SDSCPROV_BIN"


def _scripts_directories():
    """Where pip puts the wheel's binary for this Python: the environment's scripts directory
    (a virtual environment's bin/), then the user scheme's (``pip install --user``)."""
    import sysconfig

    out = []
    schemes = [None]
    user_scheme = f"{os.name}_user"
    if user_scheme in sysconfig.get_scheme_names():
        schemes.append(user_scheme)
    for scheme in schemes:
        try:
            path = sysconfig.get_path("scripts", scheme) if scheme else sysconfig.get_path("scripts")
        except KeyError:
            continue
        if path and path not in out:
            out.append(path)
    return out


def _executable(path):
    return bool(path) and os.path.isfile(path) and os.access(path, os.X_OK)


def find_sdscprov():
    """The path of the sdscprov binary, or None: ``$SDSCPROV_BIN`` when set, else the one
    installed with this module (the scripts directory of this Python's environment), else the
    first on ``PATH``."""
    explicit = os.environ.get(ENV_VARIABLE)
    if explicit:
        return explicit if _executable(explicit) else None
    for directory in _scripts_directories():
        candidate = os.path.join(directory, "sdscprov")
        if _executable(candidate):
            return candidate
    return shutil.which("sdscprov")


def annotate(origins, caches, binary=None):
    """Runs ``sdscprov annotate --origins ORIGINS CACHE...``; returns its exit status (0 done,
    2 bad input; docs/usage.md). Raises FileNotFoundError when no sdscprov is found."""
    binary = binary or find_sdscprov()
    if binary is None:
        raise FileNotFoundError("sdscprov is not installed: pip install it, or set "
                                f"{ENV_VARIABLE} to the binary")
    return subprocess.run([binary, "annotate", "--origins", origins, "--", *caches]).returncode
