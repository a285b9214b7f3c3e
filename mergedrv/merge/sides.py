"""The three versions of a file: one `Side` type (BASE, OURS, THEIRS) used
everywhere in the merge, and the one argument order (base, ours, theirs)."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator


class _Sides(type):
    def __iter__(cls) -> Iterator[Side]:
        return iter(_ALL)


class Side(int, metaclass=_Sides):
    """A version of the file; its value indexes (base, ours, theirs) tuples.
    (An int with three named values, as `enum.IntEnum` would make it: the
    enum module costs the driver's start ~1 ms.)"""

    __slots__ = ()
    BASE: Side
    OURS: Side
    THEIRS: Side

    @property
    def label(self) -> str:
        """"base", "ours" or "theirs", as messages name it."""
        return _LABELS[self]

    @property
    def name(self) -> str:
        return _LABELS[self].upper()

    @property
    def other(self) -> Side:
        """Ours for theirs and theirs for ours."""
        return _ALL[(0, 2, 1)[self]]

    def __new__(cls, value: int) -> Side:
        return _ALL[value]  # the three values only, as an enum: ``Side(1) is Side.OURS``

    def __reduce__(self) -> tuple[type[Side], tuple[int]]:
        return Side, (int(self),)  # copies and pickles are the same three values

    def __repr__(self) -> str:
        return f"<Side.{self.name}: {int(self)}>"

    __str__ = int.__repr__  # as IntEnum's: "1"
    __format__ = int.__format__


_LABELS = ("base", "ours", "theirs")
_ALL = (int.__new__(Side, 0), int.__new__(Side, 1), int.__new__(Side, 2))
Side.BASE, Side.OURS, Side.THEIRS = _ALL
SIDES = (Side.OURS, Side.THEIRS)
