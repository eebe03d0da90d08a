"""Rows of a report as a table: a pandas DataFrame when pandas can be imported, else the list of
the report's own dicts.

A DataFrame has one row per JSON object, in the report's order (its index is the position: a
profile row's ``bundles`` are positions in the ``bundles`` table), and one column per leaf
member: nested objects are flattened with ``.`` (``utilization.lost_ns``,
``stages.DMI.ticks``), lists stay whole in their cell (``kernels``, ``rank_ns``). Integer
members stay integers (``device_ns`` is int64; a column with nulls, such as ``line``, is pandas'
nullable ``Int64``), so nanoseconds are never turned into floats. A row that lacks a member, or
holds null there, has a missing value.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional

_INT64_MAX = 2**63 - 1
_pandas: Any = None  # the module once imported; False when it cannot be


def pandas_module() -> Optional[Any]:
    """pandas, or None when it cannot be imported (imported on first use: it takes a while)."""
    global _pandas
    if _pandas is None:
        try:
            import pandas
            _pandas = pandas
        except ImportError:
            _pandas = False
    return _pandas or None


def table(rows: List[Dict[str, Any]]) -> Any:
    """``rows`` as a DataFrame (above) when pandas can be imported, else ``rows`` themselves."""
    pd = pandas_module()
    if pd is None:
        return rows
    columns = flatten(rows)
    return pd.DataFrame({name: _series(pd, values) for name, values in columns.items()},
                        index=pd.RangeIndex(len(rows)))


def flatten(rows: List[Optional[Dict[str, Any]]]) -> Dict[str, List[Any]]:
    """Column name -> one value per row. A member that is an object in any row is flattened in
    every row (null and absent give None in each of its columns), so a column holds one kind of
    value; a member that is sometimes an object and sometimes a value of another kind is kept
    whole."""
    names: Dict[str, None] = {}
    for row in rows:
        for name in row or ():
            names.setdefault(name)
    columns: Dict[str, List[Any]] = {}
    for name in names:
        values = [row.get(name) if row else None for row in rows]
        kinds = {isinstance(v, dict) for v in values if v is not None}
        if kinds == {True}:
            for sub, column in flatten(values).items():
                columns[f"{name}.{sub}"] = column
        else:
            columns[name] = values
    return columns


def _series(pd: Any, values: List[Any]) -> Any:
    present = [v for v in values if v is not None]
    if present and all(isinstance(v, int) and not isinstance(v, bool) for v in present) \
            and all(-_INT64_MAX - 1 <= v <= _INT64_MAX for v in present):
        return pd.array(values, dtype="Int64" if len(present) < len(values) else "int64")
    if present and all(isinstance(v, bool) for v in present) and len(present) < len(values):
        return pd.array(values, dtype="boolean")
    return pd.Series(values, dtype=None if present else object)
