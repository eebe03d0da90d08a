"""What one OpSpec's Inductor buffer says about where it came from.

Reads, never writes: the ComputedBuffer given to ``create_op_spec`` (its ``origins``,
``origin_node``, ``get_name()`` and torch-spyre's transformation history) and the FX nodes it
names (their ``name``, ``target`` and ``meta``). Everything is turned into plain JSON values at
once, so nothing the compile owns is kept alive or touched later.
"""
import math
from dataclasses import dataclass, field
from typing import Any, Optional

# torch-spyre keeps a buffer's lower-IR rewrites (restickify insertion, fusion, ...) on this
# attribute since the provenance work of mid-2026; older versions have no history at all.
HISTORY_ATTR = "_spyre_prov_history"

# The node fields a handle is made of; the others are kept for reports.
HANDLE_FIELDS = ("original_aten", "stack_trace")

# FX node meta kept in the map for reports; none of it is hashed into a handle.
EXTRA_META = ("nn_module_stack", "source_fn_stack", "from_node")


@dataclass
class CapturedOp:
    """One OpSpec: what the origins map records for it (docs/origins-map.md, kernels[].ops[])."""
    opfunc: str
    buffer: str
    origins: list            # FX node names, sorted as torch-spyre sorts them
    origin_node: Optional[str] = None
    transform_history: list = field(default_factory=list)
    spec_path: Optional[list] = None
    spec_op: Optional[str] = None  # the OpSpec's own op, to check the bundle against; not written

    def to_json(self):
        out = {"opfunc": self.opfunc, "buffer": self.buffer, "origins": list(self.origins),
               "origin_node": self.origin_node}
        if self.transform_history:
            out["transform_history"] = [dict(t) for t in self.transform_history]
        if self.spec_path is not None:
            out["spec_path"] = list(self.spec_path)
        return out


class OriginNameClash(ValueError):
    """Two different FX nodes among one buffer's origins have one name: the map, which names
    nodes by name, cannot tell them apart, so it cannot carry this OpSpec's origins."""


def read_op(buffer, opfunc):
    """Returns (CapturedOp, {node name: node entry}) for the buffer an OpSpec was made from."""
    origins = list(getattr(buffer, "origins", None) or ())
    nodes, by_name = {}, {}
    primary = getattr(buffer, "origin_node", None)
    for node in origins + ([] if primary is None else [primary]):
        name, entry = node_name(node), node_entry(node)
        if name in by_name and by_name[name] is not node and not _same_for_handles(nodes[name], entry):
            raise OriginNameClash(f"two FX origins named {name!r} differ")
        by_name.setdefault(name, node)
        nodes.setdefault(name, entry)
    get_name = getattr(buffer, "get_name", None)
    op = CapturedOp(
        opfunc=str(opfunc),
        buffer=str(get_name()) if callable(get_name) else "",
        origins=[node_name(n) for n in sorted(origins, key=origin_sort_key)],
        origin_node=None if primary is None else node_name(primary),
        transform_history=[transform_entry(t) for t in getattr(buffer, HISTORY_ATTR, None) or ()],
    )
    return op, nodes


def origin_sort_key(node):
    """The order torch-spyre's build_debug_handle puts origins in: by name, then by the text of
    ``meta["original_aten"]``, where an absent one counts as "" and a present None as "None"."""
    meta = getattr(node, "meta", None) or {}
    return node_name(node), str(meta.get("original_aten", ""))


def _same_for_handles(a, b):
    return all(a.get(k) == b.get(k) for k in HANDLE_FIELDS)


def node_name(node):
    name = getattr(node, "name", None)
    if not isinstance(name, str):
        raise TypeError(f"FX node without a string name: {type(node).__name__}")
    return name


def node_entry(node):
    """The map's entry for one FX node: ATen op and stack trace, plus the other provenance meta."""
    meta = getattr(node, "meta", None) or {}
    entry = {"original_aten": _text_or_none(meta.get("original_aten")),
             "stack_trace": _text_or_none(meta.get("stack_trace"))}
    target = getattr(node, "target", None)
    if target is not None:
        entry["target"] = str(target)
    for key in EXTRA_META:
        if meta.get(key) is not None:
            entry[key] = json_value(meta[key])
    return entry


def transform_entry(record):
    """One ProvenanceTransform (kind, pass_name, reason) as the map writes it."""
    def get(key):
        return record.get(key) if isinstance(record, dict) else getattr(record, key)
    reason = get("reason")
    return {"kind": str(get("kind")), "pass_name": str(get("pass_name")),
            "reason": None if reason is None else str(reason)}


def json_value(value, depth=0):
    """A JSON rendering of FX meta: tuples become lists, classes their qualified names, objects
    with a ``to_dict()`` (torch.fx NodeSource) that dict, anything else its ``str()``."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if depth >= 16:
        return str(value)
    if isinstance(value, dict):
        return {str(k): json_value(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_value(v, depth + 1) for v in value]
    if isinstance(value, type):
        return f"{value.__module__}.{value.__qualname__}"
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return json_value(to_dict(), depth + 1)
    return str(value)


def _text_or_none(value: Any):
    return None if value is None else str(value)
