"""Pairs what the hooks see into kernels: OpSpecs -> kernel name -> output directory.

The compile reaches the three facts at three different moments, and only in order:

1. code generation: ``SpyreKernel.create_op_spec`` builds each OpSpec while its ComputedBuffer is
   current (``op_created``). Since late 2026 this happens for every kernel of a graph up front
   (``prepare_kernel``, before HBM pooling), and a prepared kernel can be thrown away and
   prepared again: a kernel object that is never named simply never reaches the map, and the
   recorder holds it only weakly, so it is freed as torch-spyre drops it;
2. the kernel gets its name: ``SpyreKernel.call_kernel(name)`` (``kernel_named``);
3. loading the generated module: ``async_compile.sdsc(name, specs)`` asks ``get_output_dir(name)``
   for a fresh directory and ``generate_bundle`` writes the SDSC files there (``output_dir``,
   ``bundle_generated``; ``op_compiled`` sees the SDSC key of each file as it is made); with the
   persistent kernel cache the directory is renamed when it is committed (``dir_committed``).
   ``async_compile.ktir`` (``ktir_compiled``) compiles a kernel to KTIR instead: its directory
   gets no SDSC file at all.

The OpSpecs that reach step 3 are rebuilt from the generated source, so they are not the objects
of step 1: the pairing goes by kernel name, in order, per FX graph. Kernel names restart in every
graph (``sdsc_fused_add_0`` can be made by each compile of a process), so a name waits for its
directory only until the next graph makes a kernel of that name.

This module does not import torch; it is driven by the hooks (``hookpoints``) and by tests.
"""
import collections
import threading
import weakref
from dataclasses import dataclass, field
from typing import Callable, Optional

from . import opfunc
from .provenance import CapturedOp, OriginNameClash, read_op

# Why a kernel is left out of the map: reason code -> the words the summary uses.
NO_DIRECTORY = "no output directory seen (compiled from a cache, or never compiled)"
CAPTURE_ERROR = "capture error"
SPECS_DIFFER = "the OpSpecs compiled differ from those captured"
KTIR = "compiled to KTIR, which writes no SDSC files"
ORIGIN_NAME_CLASH = "two different FX origins of one buffer share a name"

# torch-spyre names a kernel "<method>_<fused name>_<n>"; the KTIR emitter's method is "ktir".
KTIR_NAME_PREFIX = "ktir_"


@dataclass
class CapturedKernel:
    """One kernel of one compile: its name, its exact directory and its OpSpecs in bundle order."""
    name: str
    ops: list
    nodes: dict                   # FX node name -> map entry, for the nodes its ops name
    dir: Optional[str] = None     # absolute path of the output directory, once known
    problem: Optional[str] = None  # set when the kernel must be left out of the map


@dataclass
class _KernelInProgress:
    kernel: Callable              # () -> the SpyreKernel, or None once it is gone (a weak reference)
    ops: list = field(default_factory=list)    # (OpSpec object, CapturedOp)
    nodes: dict = field(default_factory=dict)
    problem: Optional[str] = None


@dataclass
class _Named:
    captured: CapturedKernel
    graph: Optional[weakref.ref]  # the FX graph (GraphLowering) being compiled, when known

    def same_graph(self, graph):
        if self.graph is None or graph is None:
            return True  # unknown: the common case is Inductor reusing a kernel within one graph
        return self.graph() is graph


class Recorder:
    """Collects the captured kernels. Every method is safe to call from the compile: none raises
    (errors go to ``on_error``, once per process is the caller's business)."""

    def __init__(self, on_error):
        self._lock = threading.Lock()
        self._on_error = on_error
        self._in_progress = {}     # id(SpyreKernel) -> _KernelInProgress
        self._gone = collections.deque()  # (id, weak reference) of kernels freed since
        self._compiled = {}        # thread -> {id(OpSpec): (OpSpec, opfunc)}, during generate_bundle
        self._awaiting_dir = {}    # kernel name -> _Named
        self.kernels = []          # CapturedKernel, in the order their directories appeared
        self.never_compiled = []   # CapturedKernel named but never given a directory
        self.shared_kernels = 0    # call_kernel of a name already waiting in the same graph
        self.unmatched_dirs = []   # (kernel name, directory) with no captured OpSpecs

    def report_error(self, label, error):
        self._on_error(label, error)

    # -- 1. code generation -------------------------------------------------------------------
    def op_created(self, kernel, op_spec, op, current_buffer):
        """``create_op_spec`` of ``kernel`` returned ``op_spec`` for operation ``op``;
        ``current_buffer`` is a callable returning the ComputedBuffer (reading it may fail)."""
        with self._lock:
            self._forget_gone_kernels()
            progress = self._progress(kernel, create=True)
            if progress.problem:
                return
            try:
                captured, nodes = read_op(current_buffer(), opfunc.predict(op_spec, op))
            except OriginNameClash:
                progress.problem = ORIGIN_NAME_CLASH
                return
            except Exception as e:  # noqa: BLE001 - a capture failure never reaches the compile
                progress.problem = CAPTURE_ERROR
                self._on_error("SpyreKernel.create_op_spec", e)
                return
            captured.spec_op = str(op)
            progress.ops.append((op_spec, captured))
            progress.nodes.update(nodes)

    def _progress(self, kernel, create=False):
        """The kernel's entry, if it is this very object's: an entry whose kernel is gone (its id
        now another object's) is never handed out."""
        key = id(kernel)
        progress = self._in_progress.get(key)
        if progress is not None and progress.kernel() is kernel:
            return progress
        if not create:
            return None
        progress = _KernelInProgress(self._reference(key, kernel))
        self._in_progress[key] = progress
        return progress

    def _reference(self, key, kernel):
        gone = self._gone
        try:
            return weakref.ref(kernel, lambda ref: gone.append((key, ref)))
        except TypeError:  # not weakly referenceable: kept alive until named, so its id stays its own
            return lambda: kernel

    def _forget_gone_kernels(self):
        """Drops the entries of kernels freed without a name (a prepared kernel torch-spyre threw
        away). Called under the lock; the weak references' callbacks only append to a deque."""
        while self._gone:
            key, ref = self._gone.popleft()
            progress = self._in_progress.get(key)
            if progress is not None and progress.kernel is ref:
                del self._in_progress[key]

    # -- 2. the kernel's name -----------------------------------------------------------------
    def kernel_named(self, kernel, name, graph=None):
        with self._lock:
            try:
                self._kernel_named(kernel, str(name), graph)
            except Exception as e:  # noqa: BLE001
                self._on_error("SpyreKernel.call_kernel", e)

    def _kernel_named(self, kernel, name, graph):
        self._forget_gone_kernels()
        progress = self._progress(kernel)
        if progress is None:
            return  # no OpSpec was built by this kernel object (or it was named before)
        del self._in_progress[id(kernel)]
        ops = _bundle_order(kernel, progress.ops)
        if not ops:
            return
        problem = progress.problem or (KTIR if name.startswith(KTIR_NAME_PREFIX) else None)
        captured = CapturedKernel(name, ops, progress.nodes, problem=problem)
        waiting = self._awaiting_dir.get(name)
        if waiting is not None:
            if waiting.same_graph(graph):
                # Inductor gave identical source the same kernel: one directory, made from the
                # first, whose handles torch-spyre would take too.
                self.shared_kernels += 1
                return
            # The earlier graph's generated module was never loaded (its compile failed).
            self.never_compiled.append(waiting.captured)
        self._awaiting_dir[name] = _Named(captured, _weak(graph))

    # -- 3. loading the generated module ------------------------------------------------------
    def output_dir(self, name, path):
        """``get_output_dir(name)`` returned ``path``."""
        with self._lock:
            self._take_dir(str(name), str(path))

    def op_compiled(self, op_spec, result):
        """``compile_op_spec`` made ``result`` (the SDSC document) for ``op_spec`` inside
        ``generate_bundle``: its key names the opfunc of the file."""
        with self._lock:
            compiled = opfunc.from_compiled(result)
            if compiled is not None:
                self._compiled.setdefault(threading.get_ident(), {})[id(op_spec)] = (op_spec, compiled)

    def bundle_generated(self, name, path, specs):
        """``generate_bundle(name, path, specs)`` wrote a bundle: checks it against the capture,
        and takes each file's opfunc from what ``compile_op_spec`` made for it."""
        with self._lock:
            compiled_opfuncs = self._compiled.pop(threading.get_ident(), {})
            try:
                path = str(path)
                captured = next((k for k in self.kernels if k.dir == path), None)
                if captured is None:
                    captured = self._take_dir(str(name), path)
                if captured is not None and captured.problem is None:
                    compiled = list(_iter_op_specs(specs))
                    if [str(getattr(s, "op", "")) for s in compiled] != [op.spec_op for op in captured.ops]:
                        captured.problem = SPECS_DIFFER
                        return
                    for spec, op in zip(compiled, captured.ops):
                        seen = compiled_opfuncs.get(id(spec))
                        if seen is not None and seen[0] is spec:
                            op.opfunc = seen[1]
            except Exception as e:  # noqa: BLE001
                self._on_error("generate_bundle", e)

    def bundle_failed(self):
        """``generate_bundle`` raised: what ``compile_op_spec`` made for it is of no use."""
        with self._lock:
            self._compiled.pop(threading.get_ident(), None)

    def ktir_compiled(self, name):
        """``async_compile.ktir(name, ...)`` ran: that kernel's directory holds no SDSC file."""
        with self._lock:
            name = str(name)
            named = self._awaiting_dir.get(name)  # still there if ktir failed before its directory
            kernel = named.captured if named else next(
                (k for k in reversed(self.kernels) if k.name == name), None)
            if kernel is not None:
                kernel.problem = kernel.problem or KTIR

    def dir_committed(self, old, new):
        """The persistent kernel cache renamed a finished compile directory."""
        with self._lock:
            for k in self.kernels:
                if k.dir == str(old):
                    k.dir = str(new)

    def _take_dir(self, name, path):
        named = self._awaiting_dir.pop(name, None)
        if named is None:
            if not any(k.dir == path for k in self.kernels):
                self.unmatched_dirs.append((name, path))
            return None
        named.captured.dir = path
        self.kernels.append(named.captured)
        return named.captured

    def finish(self):
        """All kernels, each with its directory or the reason it has none."""
        with self._lock:
            left = self.never_compiled + [n.captured for n in self._awaiting_dir.values()]
            for k in left:
                k.problem = k.problem or NO_DIRECTORY
            return self.kernels + left


def _bundle_order(kernel, created):
    """The kernel's OpSpecs in bundle order (depth first through LoopSpecs, as ``bundle.mlir``
    runs them), each with its ``spec_path``. OpSpecs that were not built by ``create_op_spec``
    get no origins; OpSpecs that were built but dropped since are left out. Without the kernel's
    ``op_specs`` list the creation order stands."""
    tree = getattr(kernel, "op_specs", None)
    if not isinstance(tree, list):
        return [op for _, op in created]
    by_object = {id(spec): op for spec, op in created}
    ordered = []

    def walk(items, path):
        for i, item in enumerate(items):
            body = getattr(item, "body", None)
            if isinstance(body, list):
                walk(body, path + [i])
            elif id(item) in by_object:
                op = by_object[id(item)]
                op.spec_path = path + [i]
                ordered.append(op)
            elif hasattr(item, "is_reduction"):  # an OpSpec made some other way
                op = str(getattr(item, "op", ""))
                ordered.append(CapturedOp(opfunc.predict(item, op), "", [], spec_path=path + [i],
                                          spec_op=op))
            # anything else (UnimplementedOp) writes no file
    walk(tree, [])
    return ordered


def _iter_op_specs(specs):
    for item in specs or ():
        body = getattr(item, "body", None)
        if isinstance(body, list):
            yield from _iter_op_specs(body)
        elif hasattr(item, "is_reduction"):
            yield item


def _weak(graph):
    if graph is None:
        return None
    try:
        return weakref.ref(graph)
    except TypeError:
        return None
