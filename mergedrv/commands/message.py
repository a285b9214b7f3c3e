"""A commit message as git records it, and the commit-msg hook's quick answer.

The commit-msg hook runs on every commit; when the message claims no pin move
and the staged `.mergedrv.toml` is HEAD's, pin-claims has nothing to judge,
which one `git rev-parse` tells before the checks (or the configuration) load.
"""

from __future__ import annotations

from ..names import CONFIG_NAME  # noqa: F401 - without loading the configuration package
from ..pins import ARROWS


def commit_message(text: str) -> str:
    """A message as git would record it: comment lines and the scissors cut dropped."""
    out = []
    for line in text.split("\n"):
        if line.startswith("# ------------------------ >8 ------------------------"):
            break
        out.append("" if line.startswith("#") else line)
    return "\n".join(out)


def claims_nothing(message_file: str) -> bool:
    """The message in ``message_file`` claims no move and the index's
    `.mergedrv.toml` is HEAD's (False when unsure: the full check decides)."""
    try:
        with open(message_file, "rb") as f:
            message = commit_message(f.read().decode("utf-8", "replace"))
    except OSError:
        return False
    if any(a in message for a in ARROWS):
        return False
    from ..spawn import captured

    try:  # `:path` and `HEAD:path` name paths from the top of the work tree, wherever git runs
        status, out, _ = captured(".", ["git", "rev-parse", f":{CONFIG_NAME}", f"HEAD:{CONFIG_NAME}"])
    except OSError:
        return False
    ids = out.decode("utf-8", "surrogateescape").split() if status == 0 else []
    return len(ids) == 2 and ids[0] == ids[1]
