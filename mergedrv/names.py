"""The names mergedrv's files and columns go by: the configuration file's
name, and a column or key name as every layer compares it.  Ground floor:
imports nothing of mergedrv but `rx`."""

from __future__ import annotations

from . import rx

CONFIG_NAME = ".mergedrv.toml"

_MARKUP = rx.compile(r"[`*_]")


def normalize_name(text: str) -> str:
    """Header or key text without markup and surrounding space, case-folded."""
    return _MARKUP.sub("", text).strip().casefold()
