"""The names mergedrv's files and columns go by: the configuration file's
name, and a column or key name as every layer compares it.  Ground floor:
imports nothing of mergedrv but `rx`."""

from __future__ import annotations

from . import rx

CONFIG_NAME = ".mergedrv.toml"

_MARKUP = rx.compile(r"[`*_]")


_SPACES = rx.compile(r"(?:&nbsp;|&#160;|&#[xX][aA]0;|\s)+")  # (a header padded to widen its column: `Website&nbsp; &nbsp;`)


def plain_spaces(text: str) -> str:
    """``text`` with each run of spaces and non-breaking spaces (`&nbsp;`, U+00A0) one space."""
    if "&" in text or "\xa0" in text or "  " in text or "\t" in text:
        return _SPACES.sub(" ", text)
    return text


def normalize_name(text: str) -> str:
    """Header or key text without markup and surrounding space, case-folded;
    non-breaking spaces and runs of space are one space (`plain_spaces`)."""
    return _MARKUP.sub("", plain_spaces(text)).strip().casefold()
