from dataclasses import dataclass, field
from typing import Any, Optional


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
