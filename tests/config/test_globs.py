"""config/globs: git-style globs (`*` within a segment, `**` across, no slash:
any depth) and hostile globs refused or collapsed."""

from __future__ import annotations

import pytest

from mergedrv import config


@pytest.mark.parametrize(
    "pattern, path, hit",
    [
        ("src/**", "src/a/b.c", True),
        ("src/**", "src", False),
        ("**/*.md", "a/b/c.md", True),
        ("**/*.md", "c.md", True),
        ("docs/*.md", "docs/a/b.md", False),
        ("*.md", "deep/down/x.md", True),  # no slash: any depth, as in .gitattributes
        ("include/", "include/x.h", True),
        ("a?c.md", "abc.md", True),
        ("[ab].md", "c.md", False),
        (".agents/model-matrix.md", ".agents/model-matrix.md", True),
    ],
)
def test_git_style_globs(pattern, path, hit):
    assert config.glob_match(pattern, path) is hit


def test_hostile_globs_are_refused_or_collapsed():
    text = '[[checkpoint]]\nwhen = ["src/*a*a*a*a*a*b"]\nrequire = ["README.md"]\n'
    with pytest.raises(config.ConfigError, match=r":2: \[checkpoint\] when .* more than 4 '\*'"):
        config.loads(text, ".mergedrv.toml")
    deep = "/".join(["**"] * 40) + "/x"
    assert config.glob_match(deep, "a/" * 200 + "y") is False  # returns at once
    assert config.glob_match(deep, "a/b/x") is True
