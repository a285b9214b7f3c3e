"""`mergedrv completion bash|zsh`: a shell completion script, generated from the parser by shtab."""

from __future__ import annotations

import sys

SHELLS = ("bash", "zsh")


def run(parser, shell: str) -> int:
    """Print the completion script of ``parser`` (the whole command line's) for ``shell``: 0 printed."""
    import shtab

    sys.stdout.write(shtab.complete(parser, shell=shell))
    return 0
