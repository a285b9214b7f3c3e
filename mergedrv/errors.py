"""The one error type: a usage, configuration or git problem said in one line.

Commands raise `Error(message)`; cli.py's one handler prints
`mergedrv <command>: message` to stderr and exits 2.  The other names
(GitError, ConfigError, InstallError, ...) are aliases or subclasses of it,
kept only so that callers can catch a narrower kind.
"""

from __future__ import annotations


class Error(Exception):
    """A problem to show the user as one line (no traceback); the command exits 2."""
