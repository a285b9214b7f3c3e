"""Shared fixtures: real git repositories in temporary folders; the
hypothesis profiles ("quick" by default, "ci" with HYPOTHESIS_PROFILE=ci)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

from tests.helpers import git

# max_examples is the scale tests.helpers.examples(n) reads: "quick" runs a
# quarter of each test's count, "ci" all of it (the counts the tests name)
settings.register_profile("quick", max_examples=25, deadline=None)
settings.register_profile("ci", max_examples=100, deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "quick"))


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
