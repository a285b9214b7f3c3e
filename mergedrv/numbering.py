"""Numbered keys (`ADR-0013`): which keys are numbered, their number and
width, the next free number above sets of keys, and the whole-word rewrite a
move makes (keys, link targets, file names).  Pure values (ground floor)."""

from __future__ import annotations

from . import rx

TYPE_CHECKING = False  # `re` is not imported on the driver's path (rx compiles)
if TYPE_CHECKING:
    import re

# a key_pattern that ends in a run of digits: `[0-9]{4}$`, `\d+$`, `[0-9]+)$`
_DIGITS_END = r"(?:\[0-9\]|\\d)(?:\{\d+(?:,\d*)?\}|\+|\*)?\)*\$?\)*$"
_SPLIT = r"^(.*?)([0-9]+)$"


def pattern_is_numbered(pattern: object) -> bool:
    """``key_pattern`` (one pattern, or (column, pattern) pairs) ends in a run of digits."""
    if isinstance(pattern, str):
        return bool(rx.compile(_DIGITS_END).search(pattern))
    if isinstance(pattern, (tuple, list)):
        return any(isinstance(p, (tuple, list)) and len(p) == 2 and pattern_is_numbered(p[1]) for p in pattern)
    return False


def is_numbered(record: object) -> bool:
    """A record's keys are numbered: ``numbered = true``, or a key_pattern ending in digits."""
    return bool(getattr(record, "numbered", False)) or pattern_is_numbered(getattr(record, "key_pattern", None))


def split(key: str) -> tuple[str, int, int] | None:
    """``ADR-0013`` -> ("ADR-", 13, 4): prefix, number, width; None if it ends in no digit."""
    m = rx.compile(_SPLIT, rx.S).match(key)
    if m is None:
        return None
    return m.group(1), int(m.group(2)), len(m.group(2))


def make(prefix: str, number: int, width: int) -> str:
    """The key ``prefix`` + ``number`` zero-padded to ``width`` digits."""
    return f"{prefix}{number:0{width}d}"


def highest(keys: object, prefix: str) -> int:
    """The highest number among ``keys`` that carry ``prefix`` (0: none)."""
    top = 0
    for k in keys:  # type: ignore[attr-defined]
        parts = split(k)
        if parts is not None and parts[0] == prefix:
            top = max(top, parts[1])
    return top


def next_free(key: str, *key_sets: object) -> str | None:
    """The next free number for ``key``: above the highest of its prefix in
    every set, with the key's own width (`ADR-0014` after `ADR-0013`)."""
    parts = split(key)
    if parts is None:
        return None
    prefix, number, width = parts
    top = max([number, *(highest(s, prefix) for s in key_sets)])
    return make(prefix, top + 1, width)


def moves(keys: list[str], *key_sets: object) -> dict[str, str]:
    """Each of ``keys`` to its own next free number, in number order, each
    above the ones given before it: {old: new}."""
    out: dict[str, str] = {}
    taken: list[str] = []
    for k in sorted(keys, key=lambda x: (split(x) or ("", 0, 0))[:2]):
        new = next_free(k, *key_sets, taken)
        if new is not None:
            out[k] = new
            taken.append(new)
    return out


# --- the rewrite of a move: whole words, link targets, file names -----------------

_TARGET = r"\]\(\s*<?([^)\s>#]+)"


def word_pattern(words: object) -> re.Pattern[str]:
    """One pattern matching any of ``words`` as a whole word: not inside a
    longer key (`ADR-00130`, `XADR-0013`) nor a longer file name."""
    alts = "|".join(rx.escape(w) for w in sorted(words, key=len, reverse=True))  # type: ignore[call-overload]
    return rx.compile(rf"(?<![\w])(?:{alts})(?![\w])")


def rewrite(text: str, mapping: dict[str, str]) -> tuple[str, int]:
    """``text`` with each whole-word occurrence of a key (or file name) of
    ``mapping`` replaced by its new one, in one pass (no move feeds another):
    (new text, how many were replaced)."""
    if not mapping:
        return text, 0
    return word_pattern(mapping).subn(lambda m: mapping[m.group(0)], text)


def link_targets(row: str) -> list[str]:
    """The link targets of a row's cells (``[ADR-0013](docs/adr/0013-use-y.md)``), without anchors."""
    return [m.group(1) for m in rx.compile(_TARGET).finditer(row)]


def renamed_name(name: str, old: str, new: str) -> str | None:
    """A file name carrying key ``old`` (``ADR-0013-x.md``) or its number
    (``0013-use-y.md``, digits not inside a longer number) with ``new``'s;
    None when it carries neither."""
    whole = rx.compile(rf"(?<![\w]){rx.escape(old)}(?![0-9])")
    if whole.search(name):
        return whole.sub(lambda _: new, name, count=1)
    po, pn = split(old), split(new)
    if po is None or pn is None:
        return None
    digits = old[len(old) - po[2]:]
    fresh = new[len(new) - pn[2]:]
    run = rx.compile(rf"(?<![0-9]){digits}(?![0-9])")
    return run.sub(lambda _: fresh, name, count=1) if run.search(name) else None
