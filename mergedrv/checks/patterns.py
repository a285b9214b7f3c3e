"""Bounded matching of patterns that come from `.mergedrv.toml`.

Any pull request can change the configuration, so its patterns are matched
with RE2 (linear time: no pattern can backtrack for ever) and a text longer
than ``MAX_TEXT`` characters is refused rather than matched.
"""

from __future__ import annotations

from functools import lru_cache

MAX_TEXT = 100_000  # characters of one cell a pattern is matched against


class PatternError(ValueError):
    """A pattern the linear-time engine refuses (syntax it lacks, too large)."""


@lru_cache(maxsize=512)
def _compile(pattern: str):
    import re2

    opts = re2.Options()
    opts.log_errors = False
    try:
        return re2.compile(pattern, opts)
    except re2.error as exc:
        why = exc.args[0] if exc.args else exc
        if isinstance(why, bytes):
            why = why.decode("utf-8", "replace")
        raise PatternError(f"pattern {pattern!r} cannot be used: {why} (patterns are RE2: no look-around or back-references)") from None


def compile(pattern: str):  # noqa: A001 - mirrors re.compile
    """The compiled pattern; raises PatternError."""
    return _compile(pattern)


def check_size(text: str) -> None:
    """Raise PatternError for a text too long to match."""
    if len(text) > MAX_TEXT:
        raise PatternError(f"the text is {len(text)} characters, more than the {MAX_TEXT} a pattern is matched against")


def search(pattern: str, text: str):
    """``re.search`` with RE2; raises PatternError for a bad pattern or huge text."""
    check_size(text)
    return compile(pattern).search(text)


def groups(pattern: str) -> int:
    return compile(pattern).groups
