"""`mergedrv mergetool BASE LEFT RIGHT OUTPUT`: the keyed merge as a merge tool.

For `git mergetool --tool=mergedrv` (registered by `mergedrv install
--mergetool`) and for jj (`jj resolve --tool mergedrv`, which passes $base
$left $right $output and the file's $path). The three inputs are read,
merged exactly as the merge driver merges them (the record or log of
`.mergedrv.toml` for PATH), and the result is written to OUTPUT atomically.
When conflicts remain and a follow-up tool is named (--tool, else git's
`merge.tool` unless it is mergedrv itself or jj runs it), the remaining hunks go to that
tool as `git mergetool` runs it: git's own mergetool library, `$BASE $LOCAL
$REMOTE $MERGED`, where LOCAL and REMOTE are the keyed result with each
conflict taken from one side (so only the remaining hunks differ) and MERGED
is OUTPUT, holding the markers; the tool's verdict is the exit code.
Exit 0: clean (or the tool resolved it); 1: conflicts (marked in OUTPUT, one
stderr line each); 2: usage error (an errors.Error, printed by cli.py's one handler).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile

from ..errors import Error
from ..values import Value


def _repo_path(output: str, config: str | None) -> str:
    """OUTPUT relative to the folder holding .mergedrv.toml (git mergetool's $MERGED)."""
    if config is None:
        return output
    return os.path.relpath(os.path.abspath(output), os.path.dirname(config))


class Request(Value):
    """`mergedrv mergetool BASE LEFT RIGHT OUTPUT [--path P] [--marker-size N] [--jj-labels] [--config F]` (built once, in cli.py)."""

    __slots__ = ("base", "left", "right", "output", "path", "marker_size", "jj_labels", "config", "tool")

    def __init__(self, base: str, left: str, right: str, output: str, path: str | None = None,
                 marker_size: str | None = None, jj_labels: bool = False, config: str | None = None,
                 tool: str | None = None) -> None:
        self.base = base
        self.left = left
        self.right = right
        self.output = output
        self.path = path
        self.marker_size = marker_size
        self.jj_labels = jj_labels
        self.config = config
        self.tool = tool  # None: git's merge.tool; "": none


def run(req: Request) -> int:
    """0 clean, 1 conflicts (marked in OUTPUT); an Error (2, from the CLI) for a missing input or an unwritable OUTPUT."""
    from .. import config as cfgmod
    from ..atomic import atomic_write
    from ..merge.driver import DriverArgs, run as run_driver

    for name in (req.base, req.left, req.right):
        if not os.path.isfile(name):
            raise Error(f"{name}: no such file")
    config = req.config or cfgmod.find_path(".")
    path = req.path or _repo_path(req.output, config)
    with tempfile.TemporaryDirectory(prefix="mergedrv-tool-") as tmp:
        ours = os.path.join(tmp, "left")
        shutil.copyfile(req.left, ours)
        code = run_driver(DriverArgs(req.base, ours, req.right, path, req.marker_size, "base", "left" if req.jj_labels else "ours",
                                     "right" if req.jj_labels else "theirs", config))
        with open(ours, "rb") as fh:
            data = fh.read()
    try:
        atomic_write(req.output, data)
    except OSError as exc:
        raise Error(f"{req.output}: cannot write the result: {exc.strerror}") from None
    tool = follow_up_tool(req.tool or "" if req.jj_labels else req.tool)  # jj has its own tools, not git's merge.tool
    if code != 1 or not tool:
        return code
    sides = split_conflicts(data, marker_size(req.marker_size))
    if sides is None:
        sides = (_read(req.base), _read(req.left), _read(req.right))
    return hand_to_tool(tool, req.output, sides)


def _read(name: str) -> bytes:
    with open(name, "rb") as fh:
        return fh.read()


def marker_size(text: str | None) -> int:
    try:
        return max(int(text or 7), 1)
    except ValueError:
        return 7


def follow_up_tool(named: str | None) -> str:
    """The tool that gets the remaining hunks: --tool, else `merge.tool` (never mergedrv itself)."""
    if named is None:
        proc = subprocess.run(["git", "config", "--get", "merge.tool"], capture_output=True, text=True)
        named = proc.stdout.strip() if proc.returncode == 0 else ""
    return "" if named == "mergedrv" else named


def split_conflicts(data: bytes, size: int) -> tuple[bytes, bytes, bytes] | None:
    """(base, local, remote): ``data`` with each diff3 conflict replaced by one of its sections
    (local and remote agree everywhere else); None if the markers do not nest as git writes them."""
    marks = {b"<" * size: "open", b"|" * size: "base", b"=" * size: "theirs", b">" * size: "close"}
    out: dict[str, list[bytes]] = {"base": [], "ours": [], "theirs": []}
    state = None
    for line in data.splitlines(keepends=True):
        mark = marks.get(line[:size]) if line[size:size + 1] in (b"", b" ", b"\n", b"\r") else None
        step = {(None, "open"): "ours", ("ours", "base"): "base", ("ours", "theirs"): "theirs",
                ("base", "theirs"): "theirs", ("theirs", "close"): None}
        if mark is not None and (state, mark) in step:
            state = step[(state, mark)]
            continue
        if mark is not None:
            return None
        for side in ((state,) if state else out):
            out[side].append(line)
    if state is not None:
        return None
    return b"".join(out["base"]), b"".join(out["ours"]), b"".join(out["theirs"])


def hand_to_tool(tool: str, merged: str, sides: tuple[bytes, bytes, bytes]) -> int:
    """Run ``tool`` as `git mergetool` would on MERGED; 0 if it reports the merge done, else 1."""
    proc = subprocess.run(["git", "--exec-path"], capture_output=True, text=True)
    if proc.returncode != 0:
        raise Error(f"git --exec-path: {proc.stderr.strip() or 'failed'}")
    lib = os.path.join(proc.stdout.strip(), "git-mergetool--lib")
    stem, ext = os.path.splitext(os.path.basename(merged))
    with tempfile.TemporaryDirectory(prefix="mergedrv-tool-") as tmp:
        env = dict(os.environ, TOOL_MODE="merge", MERGED=merged)
        for name, data in zip(("BASE", "LOCAL", "REMOTE", "BACKUP"), (*sides, _read(merged))):
            env[name] = os.path.join(tmp, f"{stem}_{name}_{os.getpid()}{ext}")
            with open(env[name], "wb") as fh:
                fh.write(data)
        script = '. "$0" && initialize_merge_tool "$1" && run_merge_tool "$1" true'
        done = subprocess.run(["sh", "-c", script, lib, tool], env=env).returncode == 0
    return 0 if done else 1
