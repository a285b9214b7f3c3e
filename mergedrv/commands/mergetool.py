"""`mergedrv mergetool BASE LEFT RIGHT OUTPUT`: the keyed merge as a merge tool.

For `git mergetool --tool=mergedrv` (registered by `mergedrv install
--mergetool`) and for jj (`jj resolve --tool mergedrv`, which passes $base
$left $right $output and the file's $path). The three inputs are read,
merged exactly as the merge driver merges them (the record or log of
`.mergedrv.toml` for PATH), and the result is written to OUTPUT atomically.
Exit 0: clean; 1: conflicts (marked in OUTPUT, one stderr line each);
2: usage error.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile


def _repo_path(output: str, config: str | None) -> str:
    """OUTPUT relative to the folder holding .mergedrv.toml (git mergetool's $MERGED)."""
    if config is None:
        return output
    return os.path.relpath(os.path.abspath(output), os.path.dirname(config))


def run(ns) -> int:
    from .. import config as cfgmod
    from ..atomic import atomic_write
    from .merge import DriverArgs, run as run_driver

    for name in (ns.base, ns.left, ns.right):
        if not os.path.isfile(name):
            print(f"mergedrv mergetool: {name}: no such file", file=sys.stderr)
            return 2
    config = ns.config or cfgmod.find_path(".")
    path = ns.path or _repo_path(ns.output, config)
    with tempfile.TemporaryDirectory(prefix="mergedrv-tool-") as tmp:
        ours = os.path.join(tmp, "left")
        shutil.copyfile(ns.left, ours)
        code = run_driver(DriverArgs(ns.base, ours, ns.right, path, ns.marker_size, "base", "left" if ns.jj_labels else "ours",
                                     "right" if ns.jj_labels else "theirs", config))
        with open(ours, "rb") as fh:
            data = fh.read()
    try:
        atomic_write(ns.output, data)
    except OSError as exc:
        print(f"mergedrv mergetool: {ns.output}: cannot write the result: {exc.strerror}", file=sys.stderr)
        return 2
    return code
