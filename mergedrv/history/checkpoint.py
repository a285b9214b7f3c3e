"""The `checkpoint` rule: a change to a `when` path needs its `require` documents.
"""

from __future__ import annotations

from .. import config as _config
from ..findings import Finding
from .changes import anchored, required


CHECKPOINT = "checkpoint"
_NAMES_SHOWN = 10  # triggering paths named in one checkpoint message


def checkpoint(cfg: _config.Config, paths: set[str], commit: str | None = None) -> list[Finding]:
    """One finding per `[[checkpoint]]` that ``paths`` trigger without every required document."""
    out = []
    for rule in cfg.checkpoints:
        triggered = sorted(p for p in paths if any(anchored(w, p) for w in rule.when))
        if not triggered:
            continue
        missing = [r for r in rule.require if not required(r, paths)]
        if not missing:
            continue
        shown = ", ".join(triggered[:_NAMES_SHOWN])
        if len(triggered) > _NAMES_SHOWN:
            shown += f" and {len(triggered) - _NAMES_SHOWN} more"
        out.append(
            Finding(
                cfg.path,
                rule.line,
                CHECKPOINT,
                f"changes {shown} but not {', '.join(missing)}; "
                "a change to a `when` path must update every `require` document in the same commit",
                commit,
            )
        )
    return out
