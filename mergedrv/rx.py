"""mergedrv's own regular expressions: Python's `re`, each compiled by
`re` when first used in a process (no cache on disk, nothing of `re`'s
internals): a process pays only for the patterns its path uses.  Ground
floor: imports nothing of mergedrv.  The patterns of `.mergedrv.toml` are
not compiled here (they are RE2's: `patterns`).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from typing import Any, AnyStr

# re's flags, as plain ints (re.I, re.M, re.S, re.A), which re.compile takes as they are
I = 2  # noqa: E741 - re's own name
M = 8
S = 16
A = 256

_SPECIAL = {i: "\\" + chr(i) for i in b"()[]{}?*+-|^$\\.&~# \t\n\r\v\f"}


def escape(text: AnyStr) -> AnyStr:
    """``re.escape``."""
    if isinstance(text, str):
        return text.translate(_SPECIAL)
    return str(text, "latin1").translate(_SPECIAL).encode("latin1")


def compile(pattern: AnyStr, flags: int = 0) -> re.Pattern[AnyStr]:  # noqa: A001 - mirrors re.compile
    """``re.compile(pattern, flags)``, made when first used (a `Lazy`)."""
    return Lazy(pattern, flags)  # type: ignore[return-value]


class Lazy:
    """A pattern compiled by ``re.compile`` on its first use; each attribute
    (``search``, ``sub``, ``groups``...) is then the compiled pattern's own,
    kept on this object, so later uses cost nothing more."""

    def __init__(self, pattern: AnyStr, flags: int = 0) -> None:
        self.__dict__["_args"] = (pattern, flags)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        compiled = self.__dict__.get("_made")
        if compiled is None:
            import re

            compiled = self.__dict__["_made"] = re.compile(*self.__dict__["_args"])
        value = getattr(compiled, name)
        self.__dict__[name] = value
        return value

    def __repr__(self) -> str:
        return f"rx.compile({self._args[0]!r}, {self._args[1]})"
