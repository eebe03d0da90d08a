"""What scan, check, explain and profile return: the parsed JSON report, its problems and
totals, its rows as tables (``sdscprov.tables``), and the HTML page of the same run."""
from __future__ import annotations

import html
from typing import Any, Callable, Dict, List, Optional, Sequence

from . import tables
from .run import PathLike, SdscprovError, read_report, run, stderr_problems


class Page:
    """The binary's HTML page (``--format html``): shown by ``IPython.display.display(page)``
    (or as the last expression of a notebook cell) in a frame of its own, so that its style and
    script touch nothing else of the notebook; ``save(path)`` writes the file to open in a
    browser; ``html`` is the text."""

    def __init__(self, text: str):
        self.html = text

    def _repr_html_(self) -> str:
        # The page is the frame's whole document (srcdoc), escaped as an attribute: nothing in
        # it can end the attribute or the frame. allow-scripts without allow-same-origin: its
        # script runs, with no access to the notebook.
        return (f'<iframe srcdoc="{html.escape(self.html, quote=True)}" sandbox="allow-scripts" '
                f'style="width: 100%; height: 720px; border: 1px solid #ccc"></iframe>')

    def save(self, path: PathLike) -> None:
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.html)

    def __repr__(self) -> str:
        return f"<sdscprov.Page: {len(self.html):,} characters of HTML>"


class Result:
    """One run of a command: ``report`` (the parsed JSON, as docs/report-json.md, profile.md and
    explain.md describe it), ``problems`` (dicts: path, line, col, severity, code, message),
    ``totals``, ``status`` (the exit status: 0, or 1 for findings), tables of its rows, and
    ``page()``. Every member of the report that is a list of objects is also a table by its
    name (``result.problems`` aside, which is always a list): ``scan(...).kernels``,
    ``profile(...).bundles``."""

    command = ""
    findings_status = False  # whether exit 1 (findings) is a result rather than an error

    def __init__(self, report: Dict[str, Any], status: int, stderr: str,
                 page_run: Callable[[], Page]):
        self.report = report
        self.status = status
        self.stderr = stderr
        self._page_run = page_run
        self._tables: Dict[str, Any] = {}

    @property
    def problems(self) -> List[Dict[str, Any]]:
        """Every problem of the report, in its order (warnings and notes too)."""
        return list(self.report.get("problems", []))

    @property
    def totals(self) -> Dict[str, Any]:
        return dict(self.report.get("totals", {}))

    def table(self, member: str) -> Any:
        """The report's list ``member`` as a table: a DataFrame when pandas can be imported,
        else the list of dicts (``sdscprov.tables``)."""
        if member not in self._tables:
            self._tables[member] = tables.table(self._rows(member))
        return self._tables[member]

    def page(self) -> Page:
        """The HTML page of the same command (the binary run again with ``--format html``)."""
        return self._page_run()

    def _rows(self, member: str) -> List[Dict[str, Any]]:
        rows = self.report.get(member)
        if not isinstance(rows, list):
            raise KeyError(f"the {self.command} report has no list {member!r}")
        return rows

    def _member(self, name: str) -> Optional[str]:
        """The report's list of objects that the attribute ``name`` stands for, or None."""
        return name if _rows(self.report.get(name)) else None

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or "report" not in self.__dict__:
            raise AttributeError(name)
        member = self._member(name)
        if member is None:
            raise AttributeError(f"{type(self).__name__} has no attribute {name!r} (the report's "
                                 f"members: {', '.join(self.report)})")
        return self.table(member)

    def __dir__(self) -> List[str]:
        extra = [name for name in self._names() if name.isidentifier()]
        return sorted(set(super().__dir__()) | set(extra))

    def _names(self) -> List[str]:
        return [m for m, v in self.report.items() if _rows(v)]

    def __repr__(self) -> str:
        lists = ", ".join(f"{name} ({len(self._rows(self._member(name)))})" for name in self._names()
                          if self._member(name))
        return f"<sdscprov.{type(self).__name__}: exit {self.status}; {lists}>"


class Scan(Result):
    """``sdscprov scan --format json``: ``kernels`` (one row per kernel directory), ``files`` (one
    row per SDSC file, with its kernel directory's ``dir`` and ``kernel``), ``totals``."""

    command = "scan"

    @property
    def files(self) -> Any:
        if "files" not in self._tables:
            self._tables["files"] = tables.table(_children(self.report, "kernels", "files"))
        return self._tables["files"]

    def _names(self) -> List[str]:
        return super()._names() + ["files"]

    def _member(self, name: str) -> Optional[str]:
        return None if name == "files" else super()._member(name)

    def __repr__(self) -> str:
        t = self.totals
        return (f"<sdscprov.Scan: {t.get('kernels')} kernel directories, {t.get('files')} SDSC "
                f"files, {t.get('handles_populated')} with a populated handle; "
                f"{len(self.problems)} problems>")


class Check(Result):
    """``sdscprov check --format json``: ``findings`` (path, line, col, rule, severity, message:
    ``error`` fails the gate, ``note`` does not), ``passed`` (exit 0), ``totals`` (files checked,
    findings that fail, notes)."""

    command = "check"
    findings_status = True

    @property
    def findings(self) -> Any:
        return self.table("findings")

    @property
    def passed(self) -> bool:
        return self.status == 0

    @property
    def totals(self) -> Dict[str, Any]:
        found = self.report.get("findings", [])
        notes = sum(1 for f in found if f.get("severity") == "note")
        return {"files": self.report.get("files"), "findings": len(found) - notes, "notes": notes}

    def __repr__(self) -> str:
        t = self.totals
        return f"<sdscprov.Check: {'passed' if self.passed else 'failed'}: {t['findings']} findings in {t['files']} SDSC files>"


class Explain(Result):
    """``sdscprov explain --format json``: ``kernels`` (one row per kernel directory), ``ops`` (one
    row per SDSC file of them, with its kernel directory's ``dir`` and ``kernel``: op, opfunc,
    handle, ``debug_handle``, ``source_line_text``, ...), ``problems`` (TARGET's and every
    file's)."""

    command = "explain"

    @property
    def ops(self) -> Any:
        if "ops" not in self._tables:
            self._tables["ops"] = tables.table(_children(self.report, "kernels", "ops"))
        return self._tables["ops"]

    @property
    def problems(self) -> List[Dict[str, Any]]:
        nested = [p for row in _children(self.report, "kernels", "ops") for p in row.get("problems", [])]
        return super().problems + nested

    @property
    def totals(self) -> Dict[str, Any]:
        return {"kernels": len(self.report.get("kernels", [])),
                "ops": len(_children(self.report, "kernels", "ops"))}

    def _names(self) -> List[str]:
        return super()._names() + ["ops"]

    def _member(self, name: str) -> Optional[str]:
        return None if name == "ops" else super()._member(name)


# The attribute names of profile's first rankings; any other `by_X` member of the report is
# `result.by_X` and `result.Xs` (a `by_span` ranking is `spans`), without a change here.
RANKING_NAMES = {"lines": "by_line", "ops": "by_aten", "kernels": "by_kernel",
                 "categories": "by_category"}


class Profile(Result):
    """``sdscprov profile --format json`` (docs/profile.md): one table per ranking of the report,
    rows in its order, times in integer nanoseconds (``device_ns``; ``base_ns``, ``new_ns`` and
    ``change_ns`` when two runs are compared): ``lines``, ``ops``, ``kernels``, ``categories``,
    and each other ``by_X`` member as ``by_X`` and ``Xs``; ``rankings`` has them all by member
    name. ``steps``: the timeline's steps (a trace with runtime launch events). ``bundles`` (a
    row's ``bundles`` are positions in it), ``problems`` (the caches' and
    sidecars' problems, then the trace's diagnostics), ``totals`` (the coverage: kernel events and
    ns, paired; when two runs are compared, each run's figures and the change), ``findings``
    (``fail_over``: the rows that grew too much, as the binary wrote them; exit 1)."""

    command = "profile"
    findings_status = True  # --fail-over

    @property
    def rankings(self) -> Dict[str, Any]:
        return {m: self.table(m) for m, v in self.report.items() if m.startswith("by_") and _rows(v)}

    @property
    def lines(self) -> Any:
        return self.table("by_line")

    @property
    def ops(self) -> Any:
        return self.table("by_aten")

    @property
    def kernels(self) -> Any:
        return self.table("by_kernel")

    @property
    def categories(self) -> Any:
        return self.table("by_category")

    @property
    def steps(self) -> Any:
        """The time between kernels, per step (the report's ``timeline.steps``): one row per
        ProfilerStep span, slowest first, or one for the whole trace; wall, kernel busy,
        transfer and idle times in ns (``idle.host_wait_ns``, ``launch.median_ns``, ...). Only a
        trace with runtime launch events has them (or ``by="idle"``): else KeyError."""
        timeline = self.report.get("timeline")
        steps = timeline.get("steps") if isinstance(timeline, dict) else None
        if not _rows(steps):
            raise KeyError("the profile report has no timeline steps: the trace has no runtime "
                           "launch event (by=\"idle\" asks for them)")
        if "timeline.steps" not in self._tables:
            self._tables["timeline.steps"] = tables.table(steps)
        return self._tables["timeline.steps"]

    @property
    def problems(self) -> List[Dict[str, Any]]:
        return super().problems + list(self.report.get("diagnostics", []))

    @property
    def totals(self) -> Dict[str, Any]:
        if "coverage" in self.report:
            return dict(self.report["coverage"])
        return {m: self.report[m] for m in ("base", "new", "change_ns", "change_percent") if m in self.report}

    @property
    def findings(self) -> List[Dict[str, Any]]:
        return [p for p in stderr_problems(self.stderr) if p["code"] == "fail-over"]

    def _member(self, name: str) -> Optional[str]:
        for member in (RANKING_NAMES.get(name), name, "by_" + name[:-1] if name.endswith("s") else None):
            if member and _rows(self.report.get(member)):
                return member
        return None

    def _names(self) -> List[str]:
        names = super()._names()
        names += [alias for alias, m in RANKING_NAMES.items() if m in self.report]
        names += [m[3:] + "s" for m in names if m.startswith("by_") and m not in RANKING_NAMES.values()]
        return names

    def __repr__(self) -> str:
        t = self.totals
        ranks = ", ".join(f"{m} ({len(v)})" for m, v in self.report.items() if m.startswith("by_") and isinstance(v, list))
        head = (f"{t.get('kernel_events')} kernel events, {t.get('kernel_ns', 0) / 1e6:.3f} ms"
                if "kernel_ns" in t else f"change {t.get('change_ns')} ns")
        return f"<sdscprov.Profile: {head}; rankings {ranks}; {len(self.problems)} problems>"


def _rows(value: Any) -> bool:
    """Whether ``value`` is a list of objects (rows of a table), empty or not."""
    return isinstance(value, list) and all(isinstance(v, dict) for v in value)


def _children(report: Dict[str, Any], parent: str, child: str) -> List[Dict[str, Any]]:
    return [{"dir": row.get("dir"), "kernel": row.get("kernel"), **item}
            for row in report.get(parent, []) for item in row.get(child, [])]


def execute(cls: type, positionals: Sequence[PathLike], options: Dict[str, Any],
            binary: Optional[PathLike]) -> Any:
    """Runs ``cls.command`` with ``--format json`` and returns its ``cls`` result; raises
    SdscprovError for an exit status other than 0 (and 1 for findings), or a report holding an
    error (the result, when a report was printed, in the exception's ``result``)."""
    options = dict(options)
    done = run(cls.command, positionals, options, "json", binary)
    try:
        report = read_report(done.stdout)
    except ValueError:  # not JSON: cut short by the failure that the status says
        report = None
    page_options = {k: v for k, v in options.items() if k != "annotate_trace"}  # written once
    result = None if report is None else cls(
        report, done.returncode, done.stderr,
        lambda: _page(cls, positionals, page_options, binary))
    ok = done.returncode == 0 or (done.returncode == 1 and cls.findings_status)
    problems = result.problems if result is not None else []
    if ok and result is not None and not any(p.get("severity") == "error" for p in problems):
        return result
    if not any(p.get("severity") == "error" for p in problems):
        problems = stderr_problems(done.stderr) or problems
    raise SdscprovError(done.returncode, problems, done.args, done.stderr, result)


def _page(cls: type, positionals: Sequence[PathLike], options: Dict[str, Any],
          binary: Optional[PathLike]) -> Page:
    done = run(cls.command, positionals, options, "html", binary)
    if done.returncode not in ((0, 1) if cls.findings_status else (0,)):
        raise SdscprovError(done.returncode, stderr_problems(done.stderr), done.args, done.stderr)
    return Page(done.stdout.decode("utf-8", "replace"))


__all__ = ["Page", "Result", "Scan", "Check", "Explain", "Profile", "execute", "RANKING_NAMES"]
