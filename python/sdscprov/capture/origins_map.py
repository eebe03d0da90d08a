"""Builds the origins map v1 (docs/origins-map.md) from captured kernels and writes it atomically.

One map holds every compile of a process. Its ``nodes`` are one namespace, while FX node names
are only unique within one graph: a node name that comes back with the same ATen op and stack
trace is the same node for annotate; one that comes back with others cannot be written without
giving some kernel wrong handles, so the later kernel that needs it is left out (and counted).
"""
import contextlib
import json
import os
import tempfile
from collections import Counter
from dataclasses import dataclass

from .provenance import HANDLE_FIELDS
from .recorder import NO_DIRECTORY

FORMAT_VERSION = 1

NODE_CLASH = "an FX node name means another node in an earlier compile"
DIRECTORY_TAKEN = "its directory is already another captured kernel's"


@dataclass
class OriginsMap:
    document: dict      # the JSON document
    ops: int
    left_out: Counter   # reason -> number of kernels

    @property
    def kernels(self):
        return len(self.document["kernels"])

    @property
    def nodes(self):
        return len(self.document["nodes"])


def build(kernels):
    """The map of ``kernels`` (recorder.CapturedKernel, in capture order): kernels with a problem
    or without a directory are left out, and so is any that would change an earlier one's nodes."""
    nodes, entries, dirs = {}, [], set()
    left_out = Counter()
    ops = 0
    for k in kernels:
        if k.problem or not k.dir:
            left_out[k.problem or NO_DIRECTORY] += 1
            continue
        if any(name in nodes and _handle_fields(nodes[name]) != _handle_fields(entry)
               for name, entry in k.nodes.items()):
            left_out[NODE_CLASH] += 1
            continue
        directory = os.path.basename(os.path.normpath(k.dir))
        if directory in dirs:
            left_out[DIRECTORY_TAKEN] += 1
            continue
        dirs.add(directory)
        for name, entry in k.nodes.items():
            nodes.setdefault(name, entry)
        entries.append({"name": k.name, "dir": directory, "ops": [op.to_json() for op in k.ops]})
        ops += len(k.ops)
    document = {"sdscprov_origins": FORMAT_VERSION, "nodes": nodes, "kernels": entries}
    return OriginsMap(document, ops, left_out)


def write_atomic(path, document):
    """Writes ``document`` to ``path`` through a temporary file in the same directory and
    ``os.replace``: readers see the old file or the whole new one, never a part."""
    text = json.dumps(document, indent=2) + "\n"
    path = os.path.abspath(path)
    directory = os.path.dirname(path)
    mode = _mode_for(path)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(path)}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    with contextlib.suppress(OSError):  # make the rename durable where the file system allows
        dir_fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


def _handle_fields(entry):
    return tuple(entry.get(f) for f in HANDLE_FIELDS)


def _mode_for(path):
    """The mode the file has now, else what a plain open() would give it (0666 minus umask)."""
    with contextlib.suppress(OSError):
        return os.stat(path).st_mode & 0o777
    umask = 0o022
    # Read, not set: os.umask() would change it for every thread of the compile for a moment.
    with contextlib.suppress(OSError, ValueError):
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Umask:"):
                    umask = int(line.split()[1], 8)
    return 0o666 & ~umask
