"""Records the origins map (docs/origins-map.md) of a torch-spyre compile, for `sdscprov annotate`.

    python3 -m sdscprov_capture --out origins.json my_compile_script.py [args...]

or, inside a script, before it compiles::

    import sdscprov_capture
    sdscprov_capture.start("origins.json")

and, to annotate the cache with that map as soon as the compile ends (with the ``sdscprov``
installed beside this module, ``find_sdscprov()``)::

    python3 -m sdscprov_capture --out origins.json --annotate "$TORCHINDUCTOR_CACHE_DIR" my_compile_script.py

Read-only hooks in torch-spyre (docs/capture.md) note, for every kernel compiled in this process,
its name, its exact output directory and its OpSpecs with the FX origins of their Inductor
buffers; the map is written at exit. Standard library only; torch and torch_spyre are used only
when the compile imports them. The capture never changes what the compile produces and never
makes it fail: problems are reported on stderr, one line each.
"""
from ..binary import annotate, find_sdscprov
from .session import Session

__all__ = ["start", "stop", "find_sdscprov", "annotate"]

_session = None


def start(path="origins.json"):
    """Starts capturing into ``path`` (written at exit, or by ``stop()``). Returns False, after
    one line on stderr, when no capture is possible (torch or torch_spyre missing)."""
    global _session
    if _session is not None:
        return _session.active
    _session = Session(path)
    return _session.start()


def stop():
    """Removes the hooks and writes the map now; later compiles in this process are not captured."""
    if _session is not None:
        _session.finish()
