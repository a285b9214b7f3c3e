"""`mergedrv merge`: git's merge-driver call read from its arguments.

The arguments git's driver line passes (%O %A %B, then -p %P -l %L -s %S
-x %X -y %Y and the options) become a `DriverArgs`; `run` (the driver's
contract: merge, write %A atomically, exit 0 clean or 1 conflicts, never a
traceback) is `mergedrv.merge.driver`'s.
"""

from __future__ import annotations

from ..merge.driver import DriverArgs, run  # noqa: F401 - the command's face: cli.py and entry.py run it

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# the options git's driver line passes, each with one value: short -> field
VALUE_FLAGS = {"-p": "path", "-l": "marker_size", "-s": "base_label", "-x": "ours_label", "-y": "theirs_label"}
LONG_FLAGS = {"--path": "path", "--marker-size": "marker_size", "--base-label": "base_label", "--ours-label": "ours_label",
              "--theirs-label": "theirs_label", "--config": "config"}
BOOL_FLAGS = {"--strict": "strict", "--no-cell-merge": "no_cell_merge"}


def fast_args(argv: list[str]) -> DriverArgs | None:
    """``merge O A B -p P -l L ...`` as git writes it, read without building
    the argument parser (the driver starts once per file per merge); None
    for anything else (help, a mistake), which the full CLI then handles."""
    if len(argv) < 4 or argv[0] != "merge":
        return None
    values: dict[str, Any] = {}
    files: list[str] = []
    i = 1
    while i < len(argv):
        arg = argv[i]
        name = VALUE_FLAGS.get(arg) or LONG_FLAGS.get(arg)
        if name is not None and i + 1 < len(argv):
            values[name] = argv[i + 1]
            i += 2
        elif arg in BOOL_FLAGS:
            values[BOOL_FLAGS[arg]] = True
            i += 1
        elif arg.startswith("-"):
            return None
        else:
            files.append(arg)
            i += 1
    if len(files) != 3:
        return None
    return DriverArgs(files[0], files[1], files[2], **values)
