"""Building upstream histories for the anchors tests with the git CLI."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import git


def commit(root: Path, message: str, files: dict[str, str | None] | None = None) -> str:
    """Write (text) or delete (None) files, stage them, commit; the new commit id."""
    for path, text in (files or {}).items():
        if text is None:
            git(root, "rm", "-q", path)
        else:
            p = root / path
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
            git(root, "add", path)
    git(root, "commit", "-q", "--allow-empty", "-m", message)
    return git(root, "rev-parse", "HEAD").stdout.strip()
