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
        return _OTHER[self]


SIDES = (Side.OURS, Side.THEIRS)
_OTHER = {Side.BASE: Side.BASE, Side.OURS: Side.THEIRS, Side.THEIRS: Side.OURS}
