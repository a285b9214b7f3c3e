"""`mergedrv mergetool BASE LEFT RIGHT OUTPUT`: the keyed merge as a merge tool.

For `git mergetool --tool=mergedrv` (registered by `mergedrv install
--mergetool`) and for jj (`jj resolve --tool mergedrv`, which passes $base
$left $right $output and the file's $path). The three inputs are read,
merged exactly as the merge driver merges them (the record or log of
`.mergedrv.toml` for PATH), and the result is written to OUTPUT atomically.
Exit 0: clean; 1: conflicts (marked in OUTPUT, one stderr line each);
2: usage error (an errors.Error, printed by cli.py's one handler).
"""

from __future__ import annotations

import os
import shutil
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

    __slots__ = ("base", "left", "right", "output", "path", "marker_size", "jj_labels", "config")

    def __init__(self, base: str, left: str, right: str, output: str, path: str | None = None,
                 marker_size: str | None = None, jj_labels: bool = False, config: str | None = None) -> None:
        self.base = base
        self.left = left
        self.right = right
        self.output = output
        self.path = path
        self.marker_size = marker_size
        self.jj_labels = jj_labels
        self.config = config


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
    return code
