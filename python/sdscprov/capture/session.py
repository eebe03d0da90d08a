"""One capture: hooks in, recorder filling, the map written at exit, and what it says on stderr.

Everything the capture says is one line on stderr starting with ``sdscprov_capture:``: whether it
could not start (once), a capture failure during the compile (once), and the outcome at exit.
"""
import atexit
import importlib.util
import os
import sys

from .hookpoints import Hooks
from .origins_map import build, write_atomic
from .recorder import Recorder

PREFIX = "sdscprov_capture: "


def say(text):
    print(PREFIX + text, file=sys.stderr, flush=True)


class Session:
    def __init__(self, path):
        self.display_path = path
        self.path = os.path.abspath(path)
        self.active = False
        self._warned = False
        self._pid = os.getpid()
        self.recorder = Recorder(self._capture_failed)
        self.hooks = Hooks(self.recorder, self._hooks_failed)

    def start(self):
        """Installs the hooks; False (after saying why) when no capture is possible."""
        for package in ("torch", "torch_spyre"):
            problem = _not_importable(package)
            if problem:
                say(f"{problem}; capture is off, no origins map will be written")
                return False
        if not os.path.isdir(os.path.dirname(self.path)):
            say(f"cannot write {self.display_path}: its directory does not exist; capture is off")
            return False
        self.active = True
        atexit.register(self.finish)
        self.hooks.install()
        return self.active

    def finish(self):
        """Removes the hooks and writes the map (at exit, or from ``stop()``); runs once, and
        only in the process that started the capture (not in a forked child)."""
        if not self.active or os.getpid() != self._pid:
            return
        self.active = False
        self.hooks.remove()
        missing = self.hooks.not_installed()
        if missing:
            if "torch_spyre" not in sys.modules:
                say("torch_spyre was never imported, so nothing was compiled for Spyre; "
                    "no origins map written")
            else:
                say("cannot capture: " + "; ".join(f"{label}: {why}" for label, why in missing)
                    + "; no origins map written")
            return
        result = build(self.recorder.finish())
        try:
            write_atomic(self.path, result.document)
        except OSError as e:
            say(f"cannot write the origins map {self.display_path}: {e.strerror or e}")
            return
        say(self._summary(result))

    def _summary(self, result):
        text = (f"wrote {self.display_path}: {_count(result.kernels, 'kernel')}, "
                f"{_count(result.ops, 'OpSpec')}, {_count(result.nodes, 'FX node')}")
        notes = [f"{_count(n, 'kernel')} left out: {reason}"
                 for reason, n in sorted(result.left_out.items())]
        unmatched = len(self.recorder.unmatched_dirs)
        if unmatched:
            notes.append(f"{_count(unmatched, 'kernel directory', 'kernel directories')} made "
                         "without captured OpSpecs (an Inductor cache hit? "
                         "TORCHINDUCTOR_FORCE_DISABLE_CACHES=1 avoids them)")
        return text + (f" ({'; '.join(notes)})" if notes else "")

    def _capture_failed(self, where, error):
        if self._warned:
            return
        self._warned = True
        message = (str(error).splitlines() or [""])[0][:200]
        say(f"warning: capture failed in {where} ({type(error).__name__}: {message}); "
            "the compile goes on, the kernels concerned are left out of the origins map")

    def _hooks_failed(self, reason):
        self.active = False
        say(f"cannot capture: {reason}; the script runs on without capture, "
            "no origins map will be written")


def _not_importable(package):
    """Why ``package`` cannot be imported, or None; looks it up without importing it."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError) as e:
        return f"{package} cannot be imported ({e})"
    return None if spec is not None else f"{package} is not installed (not importable)"


def _count(n, singular, plural=None):
    return f"{n} {singular if n == 1 else plural or singular + 's'}"
