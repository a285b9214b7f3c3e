"""mergedrv: a git merge driver and hooks for keyed records."""

__version__ = "0.1.0"
