"""The capture module's first name, kept for the scripts and commands that use it: ``import
sdscprov_capture`` is ``sdscprov.capture`` (the same module object, so its one session is shared)
and ``python3 -m sdscprov_capture`` runs ``python3 -m sdscprov.capture``. Its submodules are the
same objects under both names, so ``from sdscprov_capture.recorder import Recorder`` gives
``sdscprov.capture.recorder.Recorder`` (not a second copy of it); ``sdscprov_capture.binary`` is
``sdscprov.binary``.
"""
import importlib
import pkgutil
import sys

from sdscprov import binary as _binary
from sdscprov import capture as _capture

for _module in pkgutil.iter_modules(_capture.__path__):
    if _module.name != "__main__":
        sys.modules[f"{__name__}.{_module.name}"] = importlib.import_module(
            f"sdscprov.capture.{_module.name}")
sys.modules[f"{__name__}.binary"] = _binary
# Last: from here on the name is the package itself; `-m sdscprov_capture` finds its __main__
# through the package's __path__, which is sdscprov/capture/.
sys.modules[__name__] = _capture
