"""The opfunc an OpSpec's SDSC file carries in its key ``"<N>_<opfunc>"``.

It is not always the OpSpec's ``op``. torch-spyre names a reduction's SDSC operation by whether
it reduces along the stick (the innermost, contiguous device dimension) or along another one:
``op + "nonstick"`` for the latter (``sum`` -> ``sumnonstick``), the bare ``op`` for the former.
Matmuls, top-k, pooling, convolutions and a few others keep their name, and the list changes
between torch-spyre versions. Which dimension is reduced is only known from the tensors' device
layouts, so the decision is torch-spyre's, and the capture takes it from torch-spyre:

1. ``from_compiled``: the key torch-spyre's own ``compile_op_spec`` produced for this very OpSpec
   while it wrote the bundle (hooked read-only); this is the file's key, whatever the version.
2. ``predict``, at ``create_op_spec``, for kernels whose bundle is never seen: torch-spyre's own
   ``_get_op_func(op, is_reduction, output_scales)`` when its module is already loaded, else the
   same rule written here. Both need the output's scales, which torch-spyre derives from the
   layouts; ``_stick_reduced`` derives the one fact the rule reads from them (is the input's
   stick dimension reduced away in the output?) from the OpSpec's device coordinates.

Nothing here imports torch or torch-spyre; modules are read from ``sys.modules`` only.
"""
import sys

SUPERDSC = "torch_spyre._inductor.codegen.superdsc"
CONSTANTS = "torch_spyre._inductor.constants"

NONSTICK = "nonstick"

# Operations that keep their name even as reductions, when torch-spyre's constants are not loaded.
_MATMULS = frozenset({"matmul", "batchmatmul", "batchmatmulfp8"})
_KEEP_NAME = frozenset({"topk", "keepbyindex", "quantscalepertokenfp8"})

# The scale torch-spyre gives an output dimension that is reduced along the stick.
_STICK_REDUCED_SCALE = -2


def from_compiled(result):
    """The opfunc in the key of ``compile_op_spec``'s result: the SDSC document (a dict with one
    member ``"<N>_<opfunc>"``), alone or first in a tuple. None when it has no such shape."""
    document = result[0] if isinstance(result, (tuple, list)) and result else result
    if not isinstance(document, dict) or len(document) != 1:
        return None
    key = next(iter(document))
    index, sep, opfunc = key.partition("_") if isinstance(key, str) else ("", "", "")
    return opfunc if sep and index.isdigit() and opfunc else None


def predict(op_spec, op):
    """The opfunc torch-spyre will give ``op_spec`` (whose operation is ``op``), as far as it can
    be told before the bundle is written. Never raises: at worst it returns ``op``."""
    try:
        is_reduction = bool(getattr(op_spec, "is_reduction", False))
    except Exception:  # noqa: BLE001 - an OpSpec we cannot read keeps its op
        return op
    if not is_reduction:
        scales = {}
    else:
        try:
            scales = {"stick": _STICK_REDUCED_SCALE} if _stick_reduced(op_spec) else {}
        except Exception:  # noqa: BLE001 - coordinates we cannot read: nothing known about them
            scales = {}
    own = getattr(sys.modules.get(SUPERDSC), "_get_op_func", None)
    if callable(own):
        try:
            opfunc = own(op, is_reduction, scales)
            if isinstance(opfunc, str) and opfunc:
                return opfunc
        except Exception:  # noqa: BLE001 - a signature we do not know: use the rule
            pass
    return rule(op, is_reduction, scales)


def rule(op, is_reduction, output_scales):
    """torch-spyre's naming rule, for when its own function is not loaded."""
    if not is_reduction or _STICK_REDUCED_SCALE in output_scales.values():
        return op
    if op in _MATMULS or op in _KEEP_NAME or op in _constant_set("TOPK_OPS") \
            or op in _constant_set("POOL_OPS") or op in _constant_set("CONV_OPS"):
        return op
    return op + NONSTICK


def _stick_reduced(op_spec):
    """Whether the reduction's output lost the stick dimension of its input: the output's stick
    coordinate (its last device coordinate) names no iteration symbol, the input's does, and
    that symbol appears nowhere in the output's coordinates."""
    args = list(getattr(op_spec, "args", None) or ())
    if len(args) < 2:
        return False
    source, output = args[0], args[-1]
    source_stick = _symbols(_coordinates(source)[-1:])
    output_coordinates = _coordinates(output)
    if not source_stick or not output_coordinates or _symbols(output_coordinates[-1:]):
        return False
    stick = min(source_stick, key=str)  # torch-spyre takes the first by name
    return str(stick) not in {str(s) for s in _symbols(output_coordinates)}


def _coordinates(arg):
    return list(getattr(arg, "device_coordinates", None) or ())


def _symbols(coordinates):
    out = set()
    for coordinate in coordinates:
        out.update(getattr(coordinate, "free_symbols", None) or ())
    return out


def _constant_set(name):
    value = getattr(sys.modules.get(CONSTANTS), name, None)
    try:
        return frozenset(value or ())
    except TypeError:
        return frozenset()
