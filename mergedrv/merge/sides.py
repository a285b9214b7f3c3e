"""The three versions of a file: one `Side` enum (BASE, OURS, THEIRS) used
everywhere in the merge, and the one argument order (base, ours, theirs)."""

from __future__ import annotations

from enum import IntEnum


class Side(IntEnum):
    """A version of the file; its value indexes (base, ours, theirs) tuples."""

    BASE = 0
    OURS = 1
    THEIRS = 2

    @property
    def label(self) -> str:
        """"base", "ours" or "theirs", as messages name it."""
        return self.name.lower()

    @property
    def other(self) -> Side:
        """Ours for theirs and theirs for ours."""
        return Side(3 - self) if self else Side.BASE


SIDES = (Side.OURS, Side.THEIRS)
