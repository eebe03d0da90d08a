from dataclasses import dataclass, field
from typing import Any, Optional


@dataclass(frozen=True)
class Coordinate:
    """Stands in for one sympy expression of a TensorArg's device coordinates: only the names of
    the iteration symbols it uses (sympy's ``free_symbols``) matter here."""
    free_symbols: frozenset = frozenset()


@dataclass
class TensorArg:
    is_input: bool
    device_coordinates: list  # outermost first; the last one is the position inside the stick


@dataclass
class OpSpec:
    op: str
    is_reduction: bool
    iteration_space: dict
    args: list
    op_info: dict = field(default_factory=dict)


@dataclass
class LoopSpec:
    count: Any
    body: list


@dataclass
class UnimplementedOp:
    op: str


@dataclass(frozen=True)
class ProvenanceTransform:
    kind: str
    pass_name: str
    reason: Optional[str] = None
