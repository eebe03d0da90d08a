"""sdscprov from Python: the installed ``sdscprov`` binary run for you, its JSON report read
back, its rankings as pandas DataFrames (lists of dicts when pandas is not installed).

    import sdscprov
    run = sdscprov.profile("trace.json", "/path/to/torchinductor-cache")
    run.lines.head(10)                 # device time by model source line, worst first
    run.kernels[["label", "device_ns", "events"]]
    run.totals["kernel_ns"], run.problems
    run.page()                         # the HTML page, shown in the notebook

``profile``, ``scan``, ``check`` and ``explain`` take the command's paths as positional
arguments and its options as keyword arguments (``origins=``, ``baseline=``, ``core_mhz=``, ...:
``sdscprov.run.OPTIONS``); they return a result object (``sdscprov.results``) and raise
``SdscprovError``, which carries the problems and the exit status, when the binary reports bad
input or fails. ``check``'s findings (exit 1) are a result: ``check(...).passed`` is False.
The binary is ``$SDSCPROV_BIN``, else the one installed with this package, else ``sdscprov`` on
``PATH`` (``find_sdscprov()``); ``binary=`` names another.

``sdscprov.capture`` is the capture of an origins map during a torch-spyre compile
(``python3 -m sdscprov.capture``, also importable as ``sdscprov_capture``: docs/capture.md).
"""
from __future__ import annotations

from typing import Any, Optional, Sequence, Union

from .binary import annotate, find_sdscprov
from .results import Check, Explain, Page, Profile, Result, Scan, execute
from .run import OPTIONS, PathLike, SdscprovError

__all__ = ["profile", "scan", "check", "explain", "SdscprovError", "Profile", "Scan", "Check",
           "Explain", "Result", "Page", "OPTIONS", "find_sdscprov", "annotate"]

Paths = Union[PathLike, Sequence[PathLike], None]


def profile(trace: PathLike, *caches: PathLike, origins: Paths = None,
            baseline: Optional[PathLike] = None, core_mhz: Optional[int] = None,
            baseline_origins: Paths = None, baseline_cache: Paths = None,
            fail_over: Optional[float] = None, fail_min_share: Optional[float] = None,
            jobs: Optional[int] = None, binary: Optional[PathLike] = None,
            **options: Any) -> Profile:
    """Device time of a profiler trace by model source line, ATen op, kernel and kernel category
    (``sdscprov profile TRACE CACHES... --format json``: docs/profile.md).

    ``caches``: kernel caches or kernel directories (default, as for the command,
    ``$TORCHINDUCTOR_CACHE_DIR``); more traces may be given among them (the ranks of a run).
    ``origins``: torch-spyre's ``spyre_provenance.json`` (a path, or a list of them).
    ``baseline``: the base run's trace, to compare two runs (the rankings then hold ``base_ns``,
    ``new_ns`` and ``change_ns``); ``baseline_origins``, ``baseline_cache``: its own sidecars and
    caches; ``fail_over``: the gate (exit 1 is a result: ``findings`` lists the rows).
    ``core_mhz``: the clock that turns ideal cycles into time (default 1100). Other options of
    the command by their name (``sdscprov.run.OPTIONS``).

    Returns a ``Profile``: ``lines``, ``ops``, ``kernels``, ``categories`` (and any other ranking
    of the report), ``bundles``, ``totals``, ``problems``, ``report``, ``page()``. Raises
    SdscprovError when the trace, a cache or a sidecar cannot be read (exit 2)."""
    return execute(Profile, (trace, *caches), dict(
        origins=origins, baseline=baseline, core_mhz=core_mhz, baseline_origins=baseline_origins,
        baseline_cache=baseline_cache, fail_over=fail_over, fail_min_share=fail_min_share,
        jobs=jobs, **options), binary)


def scan(*paths: PathLike, jobs: Optional[int] = None, shard: Optional[str] = None,
         include_incomplete: bool = False, follow_symlinks: bool = False,
         max_file_size: Optional[int] = None, binary: Optional[PathLike] = None,
         **options: Any) -> Scan:
    """The provenance coverage of kernel caches, directories or SDSC files (``sdscprov scan
    --format json``: docs/report-json.md; default ``$TORCHINDUCTOR_CACHE_DIR``).

    ``shard``: ``"I/N"``, this run's part of the kernel directories. Returns a ``Scan``:
    ``kernels`` (one row per kernel directory), ``files`` (one per SDSC file), ``totals``,
    ``problems``, ``superdsc_json`` via ``report``. Raises SdscprovError when a file cannot be
    read or parsed, or is not an SDSC document (exit 2; the scan of the others is the
    exception's ``result``)."""
    return execute(Scan, paths, dict(
        jobs=jobs, shard=shard, include_incomplete=include_incomplete,
        follow_symlinks=follow_symlinks, max_file_size=max_file_size, **options), binary)


def check(*paths: PathLike, origins: Paths = None, jobs: Optional[int] = None,
          shard: Optional[str] = None, include_incomplete: bool = False,
          follow_symlinks: bool = False, max_file_size: Optional[int] = None,
          binary: Optional[PathLike] = None, **options: Any) -> Check:
    """The gate for golden kernels (``sdscprov check --format json``: docs/usage.md): every SDSC
    file needs a populated ``debug_handle_`` (with ``origins``, the map's).

    Returns a ``Check`` whether or not there are findings: ``findings`` (path, line, col, rule,
    message), ``passed``, ``totals``. Raises SdscprovError for bad input (exit 2): a file that
    cannot be read or parsed, a path that does not exist, a directory without SDSC files."""
    return execute(Check, paths, dict(
        origins=origins, jobs=jobs, shard=shard, include_incomplete=include_incomplete,
        follow_symlinks=follow_symlinks, max_file_size=max_file_size, **options), binary)


def explain(target: PathLike, *caches: PathLike, origins: Paths = None, mappings: Paths = None,
            binary: Optional[PathLike] = None, **options: Any) -> Explain:
    """One kernel's provenance op by op (``sdscprov explain TARGET CACHES... --format json``:
    docs/explain.md). ``target``: a kernel name, a profile kernel row's label, a kernel
    directory or an SDSC file; ``caches``: where to look for a name (default
    ``$TORCHINDUCTOR_CACHE_DIR``). ``mappings``: PyTorch's provenance mappings files.

    Returns an ``Explain``: ``kernels``, ``ops`` (one row per SDSC file: op, handle,
    ``debug_handle``, ``source_line_text``, ...), ``problems``. Raises SdscprovError when TARGET
    names nothing or a file cannot be read or parsed (exit 2)."""
    return execute(Explain, (target, *caches), dict(origins=origins, mappings=mappings,
                                                    **options), binary)
