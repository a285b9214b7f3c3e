"""Value objects without dataclasses: the driver and the hooks start once per
file or commit, and dataclasses costs ~20 ms to import and build.

A subclass lists its fields in ``__slots__`` and writes its ``__init__``; it
gets equality, ordering by fields, a repr, ``replace(**changes)`` and
``as_dict()``.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeVar

    _V = TypeVar("_V", bound="Value")


class Value:
    __slots__: tuple[str, ...] = ()

    def _fields(self) -> tuple:
        return tuple(getattr(self, k) for k in self.__slots__)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={getattr(self, k)!r}' for k in self.__slots__)})"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self._fields() == other._fields()  # type: ignore[attr-defined]

    def __lt__(self, other: Value) -> bool:
        return self._fields() < other._fields()

    __hash__ = None  # type: ignore[assignment]

    def replace(self: _V, **changes: Any) -> _V:
        """A copy with some fields changed."""
        new = object.__new__(type(self))
        for k in self.__slots__:
            setattr(new, k, changes.pop(k) if k in changes else getattr(self, k))
        if changes:
            raise TypeError(f"{type(self).__name__} has no field {next(iter(changes))!r}")
        return new

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__slots__}


# The annotations of a record's key columns and key patterns, as the record
# model and the config read them:
KeySpec = str | tuple[str, ...] | None  # one key column, several (the first a table holds keys it), or none
PatternSpec = str | tuple[tuple[str, str], ...] | None  # one key pattern for every column, or (column, pattern) pairs
