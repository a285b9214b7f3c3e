"""The one pattern engine of the configuration: RE2 (linear time), one size
limit.  Every pattern and glob of `.mergedrv.toml` is compiled here; kept
apart from ``checks`` so that loading a configuration imports no checks."""

from __future__ import annotations

from functools import lru_cache

MAX_TEXT = 100_000  # characters of one text a pattern is matched against
MAX_PATTERN = 4_096  # characters of one pattern (every pattern of the configuration)


class PatternError(ValueError):
    """A pattern the linear-time engine refuses (syntax it lacks, too large)."""


@lru_cache(maxsize=512)
def _compile(pattern: str, lines: bool = False):
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


def compile(pattern: str):  # noqa: A001 - mirrors re.compile
    """The compiled pattern, matching UTF-8 bytes; raises PatternError."""
    return _compile(pattern)


