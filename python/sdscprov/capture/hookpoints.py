"""Where the capture listens in torch-spyre, and the read-only wrappers it puts there.

Each hook point names the torch-spyre function it wraps; docs/capture.md says which torch-spyre
versions were read to find them. A wrapper calls the original with the same arguments and returns
its result untouched; only afterwards, and never raising, does it tell the recorder what it saw.
If the original raises, the exception goes to the compile exactly as without the capture.

Modules are hooked when the compile itself imports them (a post-import hook on ``sys.meta_path``),
never imported early: torch and torch-spyre read configuration from the environment at import
time, and a script may set that environment before its own imports.
"""
import functools
import importlib
import inspect
import sys
from dataclasses import dataclass


@dataclass(frozen=True)
class HookPoint:
    label: str          # how messages name it
    candidates: tuple   # ((module, "Class.method" or "function"), ...): first found is used
    required: bool      # without it no map can be made
    wrap: object        # (original, recorder) -> the wrapper


def _wrap_create_op_spec(original, recorder):
    @functools.wraps(original)
    def create_op_spec(self, *args, **kwargs):
        op_spec = original(self, *args, **kwargs)
        _observe(recorder, "SpyreKernel.create_op_spec", lambda: recorder.op_created(
            self, op_spec, _spec_op(op_spec, args, kwargs), lambda: self.current_node.node))
        return op_spec
    return create_op_spec


def _wrap_call_kernel(original, recorder):
    @functools.wraps(original)
    def call_kernel(self, name, *args, **kwargs):
        result = original(self, name, *args, **kwargs)
        _observe(recorder, "SpyreKernel.call_kernel",
                 lambda: recorder.kernel_named(self, name, _current_graph()))
        return result
    return call_kernel


def _reporting_after(label, report):
    """The wrap of a module function whose call is reported once it has returned:
    ``report(recorder, args, kwargs, result)``, never raising into the compile."""
    def wrap(original, recorder):
        @functools.wraps(original)
        def wrapper(*args, **kwargs):
            result = original(*args, **kwargs)
            _observe(recorder, label, lambda: report(recorder, args, kwargs, result))
            return result
        return wrapper
    return wrap


_wrap_get_output_dir = _reporting_after("get_output_dir", lambda recorder, args, kwargs, path: (
    recorder.output_dir(_arg(args, kwargs, 0, "kernel_name"), path)))

_wrap_compile_op_spec = _reporting_after("compile_op_spec", lambda recorder, args, kwargs, document: (
    recorder.op_compiled(_arg(args, kwargs, 1, "op_spec"), document)))

_wrap_commit_compile_dir = _reporting_after("commit_compile_dir", lambda recorder, args, kwargs, final: (
    recorder.dir_committed(_arg(args, kwargs, 0, "tmp_dir", "compile_dir"), final)))


def _wrap_generate_bundle(original, recorder):
    @functools.wraps(original)
    def generate_bundle(*args, **kwargs):
        try:
            result = original(*args, **kwargs)
        except BaseException:
            _observe(recorder, "generate_bundle", recorder.bundle_failed)
            raise
        _observe(recorder, "generate_bundle", lambda: recorder.bundle_generated(
            _arg(args, kwargs, 0, "kernel_name"), _arg(args, kwargs, 1, "output_dir"),
            _arg(args, kwargs, 2, "specs")))
        return result
    return generate_bundle


def _wrap_ktir(original, recorder):
    @functools.wraps(original)
    def ktir(self, *args, **kwargs):
        try:
            return original(self, *args, **kwargs)
        finally:  # compiled or failed, the kernel's directory (if any) holds no SDSC file
            _observe(recorder, "SpyreAsyncCompile.ktir",
                     lambda: recorder.ktir_compiled(_arg(args, kwargs, 0, "kernel_name")))
    return ktir


SPYRE_KERNEL = "torch_spyre._inductor.spyre_kernel"
ASYNC_COMPILE = "torch_spyre.execution.async_compile"
BUNDLE = "torch_spyre._inductor.codegen.bundle"

# generate_bundle and commit_compile_dir are looked up in async_compile's namespace, where
# SpyreAsyncCompile.sdsc finds them (it imports them by name); compile_op_spec in bundle's, where
# generate_bundle finds it (the kernel cache's key computation imports it from superdsc itself,
# and is not watched).
HOOK_POINTS = (
    HookPoint("SpyreKernel.create_op_spec", ((SPYRE_KERNEL, "SpyreKernel.create_op_spec"),),
              True, _wrap_create_op_spec),
    HookPoint("SpyreKernel.call_kernel", ((SPYRE_KERNEL, "SpyreKernel.call_kernel"),),
              True, _wrap_call_kernel),
    HookPoint("get_output_dir", ((ASYNC_COMPILE, "get_output_dir"),), True, _wrap_get_output_dir),
    HookPoint("generate_bundle", ((ASYNC_COMPILE, "generate_bundle"),), False, _wrap_generate_bundle),
    HookPoint("compile_op_spec", ((BUNDLE, "compile_op_spec"),), False, _wrap_compile_op_spec),
    HookPoint("commit_compile_dir", ((ASYNC_COMPILE, "commit_compile_dir"),), False,
              _wrap_commit_compile_dir),
    HookPoint("SpyreAsyncCompile.ktir", ((ASYNC_COMPILE, "SpyreAsyncCompile.ktir"),), False, _wrap_ktir),
)


def locate(module, attribute):
    """(owner, name) of ``attribute`` ("Class.method" or "function") in ``module``, or None when
    it is missing. A method must be a plain function (a wrapper function set on the class takes
    its place only then); a module attribute may be any callable."""
    *path, name = attribute.split(".")
    owner = module
    for part in path:
        owner = getattr(owner, part, None)
        if owner is None:
            return None
    if inspect.isclass(owner):
        value = vars(owner).get(name, getattr(owner, name, None))
        return (owner, name) if inspect.isfunction(value) else None
    return (owner, name) if callable(getattr(owner, name, None)) else None


class Hooks:
    """Installs the hook points as their modules are imported; undoes them all on ``remove``."""

    def __init__(self, recorder, on_failure):
        self._recorder = recorder
        self._on_failure = on_failure   # (one-line reason) -> None, called at most once
        self._patches = []              # (owner, name, had_own_attribute, previous value)
        self._imported = set()
        self._missing = {}              # label -> ["module has no attribute", ...]
        self._finder = None
        self.installed = {}             # label -> "module.attribute"
        self.failed = False

    def modules(self):
        return sorted({m for p in HOOK_POINTS for m, _ in p.candidates})

    def install(self):
        self._finder = _PostImportFinder(set(self.modules()), self._module_imported)
        sys.meta_path.insert(0, self._finder)
        for name in self.modules():
            if name in sys.modules:
                self._module_imported(name, sys.modules[name])

    def remove(self):
        if self._finder in sys.meta_path:
            sys.meta_path.remove(self._finder)
        for owner, name, had_own, previous in reversed(self._patches):
            if had_own:
                setattr(owner, name, previous)
            else:
                delattr(owner, name)
        self._patches.clear()

    def not_installed(self):
        """Required hook points still missing, each with why: "never imported" or what lacked it."""
        out = []
        for point in HOOK_POINTS:
            if point.required and point.label not in self.installed:
                missing = self._missing.get(point.label)
                never = [m for m, _ in point.candidates if m not in self._imported]
                why = "; ".join(missing or []) or f"{', '.join(never)} was never imported"
                out.append((point.label, why))
        return out

    def _module_imported(self, module_name, module):
        if self.failed:
            return
        try:
            self._install_from(module_name, module)
        except Exception as e:  # noqa: BLE001 - a bug here must not break the import
            self._fail(f"installing the hooks failed ({type(e).__name__}: {e})")

    def _install_from(self, module_name, module):
        self._imported.add(module_name)
        for point in HOOK_POINTS:
            if point.label in self.installed:
                continue
            for candidate_module, attribute in point.candidates:
                if candidate_module != module_name:
                    continue
                found = locate(module, attribute)
                if found is None:
                    self._missing.setdefault(point.label, []).append(
                        f"{candidate_module} has no function {attribute}")
                    continue
                self._patch(*found, point.wrap(getattr(*found), self._recorder))
                self.installed[point.label] = f"{candidate_module}.{attribute}"
                break
        for point in HOOK_POINTS:
            tried_all = all(m in self._imported for m, _ in point.candidates)
            if point.required and point.label not in self.installed and tried_all:
                found = ", ".join(self.installed) or "none"
                self._fail(f"{'; '.join(self._missing[point.label])} "
                           f"(hook points found so far: {found})")
                return

    def _fail(self, reason):
        self.failed = True
        self.remove()
        self._on_failure(reason)

    def _patch(self, owner, name, replacement):
        had_own = name in vars(owner)
        self._patches.append((owner, name, had_own, vars(owner).get(name)))
        setattr(owner, name, replacement)


class _PostImportFinder:
    """Lets the import system find a watched module as usual, then calls ``on_import(name,
    module)`` once the module's code has run. The loader is borrowed for that one call only."""

    def __init__(self, names, on_import):
        self._names = names
        self._on_import = on_import
        self._busy = set()

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in self._names or fullname in self._busy:
            return None
        self._busy.add(fullname)
        try:
            spec = None
            for finder in sys.meta_path:
                find = getattr(finder, "find_spec", None)
                if finder is not self and find is not None:
                    spec = find(fullname, path, target)
                    if spec is not None:
                        break
        finally:
            self._busy.discard(fullname)
        loader = getattr(spec, "loader", None)
        if loader is None or isinstance(loader, type) or not hasattr(loader, "exec_module"):
            return spec  # only a loader object of this one module can be borrowed
        run = loader.exec_module
        on_import = self._on_import

        def exec_module(module):
            try:
                run(module)
            finally:
                del loader.exec_module  # the loader's own method again
            try:
                on_import(fullname, module)
            except Exception:  # noqa: BLE001 - never break an import
                pass

        try:
            loader.exec_module = exec_module
        except AttributeError:  # a loader with __slots__: the module stays unhooked
            pass
        return spec

    def invalidate_caches(self):
        pass


def _observe(recorder, label, report):
    try:
        report()
    except Exception as e:  # noqa: BLE001 - a capture failure never reaches the compile
        recorder.report_error(label, e)


def _spec_op(op_spec, args, kwargs):
    """The OpSpec's operation: its ``op``, else the ``op`` argument it was made with."""
    op = getattr(op_spec, "op", None)
    return op if isinstance(op, str) else _arg(args, kwargs, 0, "op")


def _arg(args, kwargs, index, *names):
    """Argument ``index`` of a call, given by position or by any of ``names`` (torch-spyre
    renames parameters between versions). KeyError when it is neither."""
    if len(args) > index:
        return args[index]
    for name in names:
        if name in kwargs:
            return kwargs[name]
    raise KeyError(f"argument {index} ({' or '.join(names)}) not given")


def _current_graph():
    """The FX graph (GraphLowering) being compiled, if torch says; read, never imported."""
    virtualized = sys.modules.get("torch._inductor.virtualized")
    try:
        return virtualized.V.graph if virtualized is not None else None
    except Exception:  # noqa: BLE001
        return None


def check():
    """Imports torch-spyre's modules now and prints one line per hook point: where it was found,
    or why not. Returns True when every required one is there."""
    ok = True
    for point in HOOK_POINTS:
        found, notes = None, []
        for module_name, attribute in point.candidates:
            try:
                module = importlib.import_module(module_name)
            except Exception as e:  # noqa: BLE001
                notes.append(f"cannot import {module_name} ({type(e).__name__}: {e})")
                continue
            if locate(module, attribute) is not None:
                found = f"{module_name}.{attribute}"
                break
            notes.append(f"{module_name} has no function {attribute}")
        if found:
            print(f"found    {point.label}: {found}")
        else:
            print(f"{'MISSING' if point.required else 'absent '}  {point.label}: {'; '.join(notes)}")
            ok = ok and not point.required
    return ok
