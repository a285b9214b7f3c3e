"""Shared fixtures: real git repositories in temporary folders."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import git


@pytest.fixture(autouse=True)
def _git_identity(monkeypatch, tmp_path_factory):
    """Isolate tests from the user's git config and give commits an author."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Test")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "test@example.com")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "Test")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "test@example.com")
    monkeypatch.setenv("GIT_TERMINAL_PROMPT", "0")
    (home / ".gitconfig").write_text("[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n")


@pytest.fixture
def repo(tmp_path) -> Path:
    """An empty git repository on branch main."""
    path = tmp_path / "repo"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    return path
