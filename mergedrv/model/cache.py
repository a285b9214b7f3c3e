"""`ParseCache`: what parses of versions of one file read once and share (the
first version's tree, the versions parsed lately, memos of keys, column names
and skeleton lines).  A parse takes one; nothing here is module-global."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .structure import Structure

    Edit = tuple[int, int, int, int]
    # a parsed first version: (tree, skeleton, line starts, its lines, its structure)
    Parsed = tuple[Any, list[bytes] | None, list[int] | None, list[bytes], Structure]  # (no tree, skeleton, starts: a `blocks.split` version)

UNSEEN = object()  # a memo's "no entry yet" (a key memo's values are str or None)
KeyShape = tuple[int, int, str, int]  # (column, key column, namespace, cell count) of a keyed table


class ParseCache:
    """The state parses of one file's versions share, passed to each parse.

    ``first``: the first version the last `blocks.structures` call parsed
    (`blocks.structure_after` reads one more version from it); ``recent``:
    the last four such versions (a check's parent, a range's next commit);
    ``shifts``: the edit scripts of the versions placed without a parse while
    a merge's parse records them (for `folding.stretches`); ``keys``: per
    table shape, each row line's key (the three versions share most rows);
    ``labels``, ``hits``: a key's match against a key pattern (group labels,
    detached rows); ``columns``: a header line's column names; ``line_keys``:
    a line's key as a detached row; ``skeletons``: skeleton lines, by
    whether the line is a header; ``last``: the last version parsed alone
    that the model accepted, with its lines and marker size (the next is
    split and checked only where it differs); ``headings``: an ATX heading
    line's text and level."""

    __slots__ = ("first", "recent", "shifts", "keys", "labels", "hits", "columns", "line_keys", "skeletons", "last", "headings")

    def __init__(self) -> None:
        self.first: Parsed | None = None
        self.recent: list[Parsed] = []
        self.shifts: list[tuple[list[bytes], list[bytes], list[Edit]]] = []
        self.keys: dict[KeyShape, dict[bytes, str | None]] = {}
        self.labels: dict[str, dict[str, bool | None]] = {}
        self.hits: dict[str, dict[str, bool | None]] = {}
        self.columns: dict[tuple[bytes, int], list[str]] = {}
        self.line_keys: dict[tuple[int, int, int], dict[bytes, str | None]] = {}
        self.skeletons: tuple[dict[bytes, bytes], dict[bytes, bytes]] = ({}, {})
        self.last: tuple[bytes, list[bytes], int] | None = None
        self.headings: dict[bytes, tuple[str, int]] = {}

    def remember(self, entry: Parsed) -> None:
        """Keep a parsed version for `folding.recent` (the last four)."""
        self.recent.insert(0, entry)
        del self.recent[4:]

    def key_memo(self, shape: KeyShape, lines: int) -> dict[bytes, str | None]:
        """The row line -> key memo of a table shape, emptied first when it
        holds more than one merge's versions share (``lines``: the file's)."""
        memo = self.keys.setdefault(shape, {})
        if len(memo) > max(400_000, 3 * lines):  # bounded, but never below what one merge's versions share
            memo.clear()
        return memo
