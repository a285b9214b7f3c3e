"""The one error type: a usage, configuration or git problem said in one line.

Commands raise `Error(message)`; the one handler, `reported` (used by
cli.py and by entry.py's quick hook path), prints `mergedrv <command>:
message` to stderr and exits 2.  The other names
(GitError, ConfigError, InstallError, ...) are aliases or subclasses of it,
kept only so that callers can catch a narrower kind.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable


class Error(Exception):
    """A problem to show the user as one line (no traceback); the command exits 2."""



def reported(command: str, run: Callable[[], int]) -> int:
    """``run()``'s exit code; an `Error` is one line on stderr and exit 2,
    an interrupt 130, a reader that went away (a broken pipe) 1."""
    try:
        return run()
    except Error as exc:
        print(f"mergedrv {command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 1
