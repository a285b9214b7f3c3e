"""mergedrv init on tables written without their outer pipes (`Name | Website | Region`, GitHub's
table too): history reads their lines as rows."""

from __future__ import annotations

from mergedrv import config
from mergedrv.propose import history as inithistory

from tests.helpers import git
from tests.install_helpers import mergedrv

LANGS = [f"Lang{chr(65 + i // 26)}{chr(97 + i % 26)}" for i in range(200)]


def _author(who: str) -> dict:
    return {"GIT_AUTHOR_NAME": who, "GIT_AUTHOR_EMAIL": f"{who}@example.com", "GIT_COMMITTER_NAME": who, "GIT_COMMITTER_EMAIL": f"{who}@example.com"}


def _as(repo, who: str, message: str, files: dict[str, str]) -> None:
    for name, text in files.items():
        (repo / name).write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", message, env=_author(who))


def proposed(repo):
    proc = mergedrv(repo, "init")
    assert proc.returncode == 0, proc.stderr
    return config.load(repo / ".mergedrv.toml"), (repo / ".mergedrv.toml").read_text()


def test_a_table_whose_rows_have_no_leading_pipe_is_read_growing(repo):
    """A README list of companies written as GitHub's table without outer pipes
    (`Name | Website | Region`), that merges of contributors' additions grow:
    history reads its lines as rows (they were no rows to it: `rows were never
    added`), and init proposes the record a maintainer would declare."""
    head = "# Companies\n\nName | Website | Region\n------------ | ------- | -------\n"
    render = lambda rows: head + "".join(r + "\n" for r in rows) + "\n## More\n\nSee the profiles.\n"
    rows = [f"[{lang}](/profiles/{lang.lower()}.md) | https://{lang.lower()}.example/ | Worldwide" for lang in LANGS[:40]]
    _as(repo, "a", "start", {"README.md": render(rows)})
    for i in range(3):  # a contributor's branch and main each add a row, far apart; a merge joins them
        added = lambda at, n: rows[:at] + [f"[{LANGS[100 + n]}](/p/{n}.md) | https://x{n}.example/ | USA"] + rows[at:]
        git(repo, "checkout", "-q", "-b", f"topic-{i}")
        _as(repo, f"t{i}", f"topic {i}", {"README.md": render(added(30, 2 * i))})
        git(repo, "checkout", "-q", "main")
        _as(repo, f"m{i}", f"main {i}", {"README.md": render(added(3, 2 * i + 1))})
        git(repo, "merge", "-q", "--no-ff", "--no-edit", f"topic-{i}", env=_author("m"))
        rows = [ln for ln in (repo / "README.md").read_text().splitlines() if ln.startswith("[")]
    assert len(rows) == 46
    cfg, text = proposed(repo)
    rec = cfg.record_for("README.md")
    assert rec is not None, text
    assert rec.key == "Name"
    assert inithistory.row_line(b"[A](/a.md) | https://a.example/ | USA")
    assert not inithistory.row_line(b"- a list item | with | pipes") and not inithistory.row_line(b"$ cat a | grep b | wc -l")


def test_a_two_column_table_without_outer_pipes_is_read_growing(repo):
    """Hack-with-Github/Awesome-Hacking: `Repository | Description`, one pipe a
    row, rows added by contributor after contributor."""
    head = "# Awesome Hacking\n\nRepository | Description\n---- | ----\n"
    render = lambda rows: head + "".join(r + "\n" for r in rows) + "\n## License\n\nCC0.\n"
    rows = [f"[{lang}](https://github.com/x/{lang.lower()}) | Resources about {lang}" for lang in LANGS[:30]]
    _as(repo, "a", "start", {"README.md": render(rows)})
    for i in range(4):
        rows = rows[:10 * i] + [f"[{LANGS[100 + i]}](https://github.com/y/{i}) | A list of {i}"] + rows[10 * i:]
        _as(repo, f"c{i}", f"add {i}", {"README.md": render(rows)})
    cfg, text = proposed(repo)
    rec = cfg.record_for("README.md")
    assert rec is not None and rec.key == "Repository", text
    assert inithistory.row_line(b"[A](https://a) | Resources") and not inithistory.row_line(b"Name|x")
    assert not inithistory.row_line(b"- [A](https://a) | Resources") and not inithistory.row_line(b"`a | b`")
    assert not inithistory.row_line(b"Count lines: ls | wc -l") and not inithistory.row_line(b"see a | b")  # prose, code: no link first
