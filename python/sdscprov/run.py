"""Running the installed binary for the API: the keyword arguments as its options, its JSON
report read back, and its problems as an exception when it failed."""
from __future__ import annotations

import base64
import json
import os
import re
import subprocess
from typing import Any, Dict, Iterable, List, Optional, Sequence, Union

from .binary import ENV_VARIABLE, find_sdscprov

PathLike = Union[str, "os.PathLike[str]"]

# Every keyword argument the API's functions name, and the option of the binary it becomes. A
# value is written by its type: True gives the option alone (a flag), False and None nothing,
# a list or tuple the option once per item, anything else the option and its text (a path as
# os.fspath gives it). A keyword not in this table is spelled the way the binary spells its
# options (`--` and the name with `-` for `_`), so an option the binary gains is reached from
# here without a change: sdscprov.profile(trace, top=5) runs `sdscprov profile --top 5`.
OPTIONS = {
    "origins": "--origins",                # each: spyre_provenance.json, origins maps
    "mappings": "--mappings",              # explain: PyTorch's provenance mappings
    "baseline": "--baseline",              # profile: the base run's trace
    "baseline_origins": "--baseline-origins",
    "baseline_cache": "--baseline-cache",
    "core_mhz": "--core-mhz",
    "fail_over": "--fail-over",
    "fail_min_share": "--fail-min-share",
    "shard": "--shard",                    # "I/N"
    "jobs": "--jobs",
    "max_file_size": "--max-file-size",
    "include_incomplete": "--include-incomplete",
    "follow_symlinks": "--follow-symlinks",
}

# Keywords that would take the report's place or change what the API reads: the API chooses
# the format, and -q leaves out the report.
REFUSED = {
    "format": "the API reads --format json (page() gives the HTML)",
    "quiet": "-q leaves out the report the API reads",
}

PROBLEM = re.compile(r"(?P<path>.+?)(?::(?P<line>\d+)(?::(?P<col>\d+))?)?: "
                     r"(?P<severity>error|warning|note): (?P<message>.*?)(?: \[(?P<code>[a-z0-9-]+)\])?")
_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}


class SdscprovError(Exception):
    """The binary failed: bad input or a usage error (``status`` 2), an internal error (3), or a
    report whose problems include an error.

    ``problems``: dicts with ``path``, ``line``, ``col`` (None without a position),
    ``severity``, ``code`` (None for a usage error, which has none) and ``message``; the
    report's when it printed one, else read from the lines it wrote on standard error.
    ``result``: the result object when a report was printed (bad files are reported, the
    others still scanned), else None. ``argv`` is the command that ran, ``stderr`` what it
    wrote there."""

    def __init__(self, status: int, problems: List[Dict[str, Any]], argv: Sequence[str],
                 stderr: str, result: Any = None):
        self.status = status
        self.problems = problems
        self.argv = list(argv)
        self.stderr = stderr
        self.result = result
        errors = [p for p in problems if p.get("severity") == "error"] or problems
        first = _problem_line(errors[0]) if errors else stderr.strip() or "no message"
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        super().__init__(f"sdscprov {argv[1] if len(argv) > 1 else ''} exited {status}: "
                         f"{first}{more}")


def arguments(options: Dict[str, Any]) -> List[str]:
    """The binary's options for the keyword arguments ``options`` (the table above)."""
    out: List[str] = []
    for keyword, value in options.items():
        if keyword in REFUSED:
            raise TypeError(f"{keyword}=: {REFUSED[keyword]}")
        if value is None or value is False:
            continue
        option = OPTIONS.get(keyword) or "--" + keyword.replace("_", "-")
        if value is True:
            out.append(option)
        elif isinstance(value, (list, tuple)):
            for item in value:
                out += [option, _text(item)]
        else:
            out += [option, _text(value)]
    return out


def run(command: str, positionals: Iterable[PathLike], options: Dict[str, Any],
        report_format: str, binary: Optional[PathLike] = None) -> subprocess.CompletedProcess:
    """Runs ``sdscprov COMMAND --format FORMAT OPTIONS -- POSITIONALS`` (the positionals after
    ``--``: a path may start with ``-``) and returns the finished process, whatever its exit
    status: stdout as bytes, stderr as text, ``args`` the command."""
    argv = [_binary(binary), command, "--format", report_format, *arguments(options), "--",
            *(_text(p) for p in positionals)]
    done = subprocess.run(argv, capture_output=True, stdin=subprocess.DEVNULL)
    done.stderr = done.stderr.decode("utf-8", "replace")
    return done


def read_report(stdout: bytes) -> Optional[Dict[str, Any]]:
    """The JSON report printed, or None (nothing printed: the run stopped before its report).
    A path that is not UTF-8, ``{"bytes": BASE64}`` in the JSON, becomes the str that
    os.fsdecode gives for its bytes (as os.listdir names such a file)."""
    if not stdout.strip():
        return None
    return json.loads(stdout, object_hook=_path_object)


def stderr_problems(stderr: str) -> List[Dict[str, Any]]:
    """The ``path:line:col: severity: message [code]`` lines of standard error as problems; a
    run that wrote none (a usage error) gives one problem holding its first line."""
    out = []
    for line in stderr.splitlines():
        m = PROBLEM.fullmatch(line)
        if m:
            out.append({"path": _unquote(m["path"]),
                        "line": int(m["line"]) if m["line"] else None,
                        "col": int(m["col"]) if m["col"] else None,
                        "severity": m["severity"], "code": m["code"], "message": m["message"]})
    if not out and stderr.strip():
        out.append({"path": None, "line": None, "col": None, "severity": "error", "code": None,
                    "message": stderr.strip().splitlines()[0]})
    return out


def _binary(binary: Optional[PathLike]) -> str:
    found = os.fspath(binary) if binary is not None else find_sdscprov()
    if found is None:
        raise FileNotFoundError("sdscprov is not installed: pip install it, or set "
                                f"{ENV_VARIABLE} to the binary")
    return found


def _text(value: Any) -> str:
    if isinstance(value, bytes):
        return os.fsdecode(value)
    return os.fspath(value) if isinstance(value, (str, os.PathLike)) else str(value)


def _path_object(obj: Dict[str, Any]) -> Any:
    if len(obj) == 1 and isinstance(obj.get("bytes"), str):
        try:
            return os.fsdecode(base64.b64decode(obj["bytes"], validate=True))
        except ValueError:
            return obj
    return obj


def _unquote(path: str) -> str:
    """A path as the binary prints one that is not plain text (as git quotes file names:
    ``"cache/odd\\377\\n"``), back to the str os.fsdecode gives for its bytes."""
    if len(path) < 2 or path[0] != '"' or path[-1] != '"':
        return path
    out = bytearray()
    body, i = path[1:-1], 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            if re.fullmatch(r"[0-7]{3}", body[i + 1:i + 4]):
                out.append(int(body[i + 1:i + 4], 8) & 0xFF)
                i += 4
                continue
            if body[i + 1] in _ESCAPES:
                out.append(_ESCAPES[body[i + 1]])
                i += 2
                continue
        out += c.encode("utf-8", "surrogateescape")
        i += 1
    return os.fsdecode(bytes(out))


def _problem_line(problem: Dict[str, Any]) -> str:
    where = ":".join(str(problem[k]) for k in ("path", "line", "col") if problem.get(k) is not None)
    code = f" [{problem['code']}]" if problem.get("code") else ""
    return f"{where + ': ' if where else ''}{problem.get('severity', 'error')}: {problem.get('message')}{code}"
