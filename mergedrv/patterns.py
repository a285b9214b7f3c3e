"""Bounded matching of the patterns and globs of `.mergedrv.toml`: RE2, one size limit.

Any pull request can change the configuration, so its patterns are matched
with RE2 (linear time: no pattern can backtrack for ever) and a text longer
than ``MAX_TEXT`` characters is refused rather than matched.  Ground floor:
imports nothing of mergedrv (RE2 itself only when a pattern is compiled).
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_TEXT = 100_000  # characters of one text a pattern is matched against
MAX_PATTERN = 4_096  # characters of one pattern (every pattern of the configuration)


class PatternError(ValueError):
    """A pattern the linear-time engine refuses (syntax it lacks, too large)."""


_MADE: dict[tuple[str, bool], Any] = {}


def _compile(pattern: str, lines: bool = False) -> Any:
    """RE2's compiled pattern, made once per process (functools costs the driver ~2 ms to import)."""
    made = _MADE.get((pattern, lines))
    if made is None:
        if len(_MADE) >= 512:
            _MADE.clear()
        made = _MADE[(pattern, lines)] = _compiled(pattern, lines)
    return made


def _compiled(pattern: str, lines: bool) -> Any:
    if len(pattern) > MAX_PATTERN:
        raise PatternError(f"pattern of {len(pattern)} characters cannot be used: more than {MAX_PATTERN}")
    import re2

    opts = re2.Options()
    opts.log_errors = False
    opts.never_nl = lines
    try:
        # bytes in, bytes out (UTF-8 semantics): the str API of google-re2
        # converts offsets on every call, which is quadratic for repeated search
        return re2.compile(("(?m)" + pattern if lines else pattern).encode("utf-8"), opts)
    except re2.error as exc:
        why = exc.args[0] if exc.args else exc
        if isinstance(why, bytes):
            why = why.decode("utf-8", "replace")
        raise PatternError(f"pattern '{pattern}' cannot be used: {why} (patterns are RE2: no look-around or back-references)") from None


def compile(pattern: str) -> Any:  # noqa: A001 - mirrors re.compile
    """The compiled pattern, matching UTF-8 bytes; raises PatternError."""
    return _compile(pattern)


def check_size(text: str) -> None:
    """Raise PatternError for a text too long to match."""
    if len(text) > MAX_TEXT:
        raise PatternError(f"the text is {len(text)} characters, more than the {MAX_TEXT} a pattern is matched against")


_ASCII_SPACE = b" \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f"  # what str.strip() strips among ASCII


def stripped(cell: bytes) -> bytes:
    """``cell.decode().strip().encode()`` (Unicode spaces, U+FFFD for invalid
    bytes), without the round trip for the usual ASCII-padded cell."""
    if cell.isascii():
        return cell.strip(_ASCII_SPACE)
    return cell.decode("utf-8", "replace").strip().encode("utf-8")


def length(text: str | bytes) -> int:
    """Characters of a text; UTF-8 bytes are decoded only when not ASCII."""
    if isinstance(text, str) or text.isascii():
        return len(text)
    return len(text.decode("utf-8", "replace"))


_PLAIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_ /:=@#%&,;~<>!`'\"")


def required_prefix(pattern: str) -> str:
    """Text every match of ``pattern`` starts with ('' when that is not sure).

    Only the plain characters right after a leading ``^`` count, and none if
    the pattern has a ``|`` anywhere (``^A|B`` also matches a B anywhere) or a
    quantifier makes the last of them optional.  Used to skip, with a
    substring test, texts that cannot match.
    """
    if not pattern.startswith("^") or "|" in pattern:
        return ""
    n = 1
    while n < len(pattern) and pattern[n] in _PLAIN:
        n += 1
    if pattern[n:n + 1] in ("?", "*", "{"):
        n -= 1
    return pattern[1:n]


def search(pattern: str, text: str) -> Any:
    """``re.search`` with RE2; raises PatternError for a bad pattern or huge text."""
    check_size(text)
    return compile(pattern).search(text.encode("utf-8"))


def matching(pattern: str, texts: list[str] | list[bytes]) -> list[bool | None]:
    """For each text: does ``pattern`` occur in it (None: the text is too long)?

    One RE2 pass over all texts joined by newlines, with ``^``/``$`` at line
    boundaries and no match across a newline: the same answers as
    ``search`` on each text, without a Python call per text.  Texts may be
    UTF-8 bytes (cells as read), which are matched without decoding.  Each
    distinct text is matched once (a State column holds a handful of values).
    """
    compile(pattern)  # report a bad pattern as such
    distinct = list(dict.fromkeys(texts))
    if len(distinct) < len(texts):
        hits = dict(zip(distinct, _matching(pattern, distinct)))  # type: ignore[arg-type]
        return [hits[t] for t in texts]
    return _matching(pattern, texts)


def _matching(pattern: str, texts: list[str] | list[bytes]) -> list[bool | None]:
    out: list[bool | None] = [None if len(t) > MAX_TEXT and length(t) > MAX_TEXT else False for t in texts]
    index = [i for i, hit in enumerate(out) if hit is False] if None in out else range(len(texts))
    if not index:
        return out
    encoded = [t if isinstance(t, bytes) else t.encode("utf-8") for t in (texts[i] for i in index)]
    if "\\A" in pattern or "\\z" in pattern:
        for i, t in zip(index, encoded):
            out[i] = compile(pattern).search(t) is not None
        return out
    encoded = [t.replace(b"\n", b" ") for t in encoded]
    joined = b"\n".join(encoded)
    starts = list(accumulate((len(e) + 1 for e in encoded), initial=0))[:-1]
    rx = _compile(pattern, True)
    pos = 0
    while pos <= len(joined):
        m = rx.search(joined, pos)
        if m is None:
            break
        k = bisect_right(starts, m.start()) - 1
        out[index[k]] = True
        pos = starts[k + 1] if k + 1 < len(starts) else len(joined) + 1
    return out
