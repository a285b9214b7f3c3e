"""`mergedrv init` on a folder of same-template files (one agenda a meeting,
each with its attendee table): one glob record, keys unique per file, and
the driver merging a file made after init by key."""

from __future__ import annotations

import datetime
import subprocess

from mergedrv import config
from mergedrv.commands import init
from tests.agenda_helpers import PEOPLE, agenda, agenda_history
from mergedrv.commands.install_files import attribute_lines
from tests.helpers import MERGEDRV, driver_command, git
from tests.install_helpers import mergedrv


def _records(repo):
    proc = mergedrv(repo, "init", "--print")
    assert proc.returncode in (0, 1), proc.stderr
    return config.loads(proc.stdout).records if proc.returncode == 0 else [], proc.stdout


def test_a_folder_of_dated_agendas_is_one_glob_record_with_keys_per_file(tmp_path) -> None:
    repo = agenda_history(tmp_path / "repo", weeks=8)
    records, text = _records(repo)
    assert [(r.name, r.path, r.key, r.key_scope, r.pin, r.key_pattern) for r in records] == [
        ("AGENDAS", "agendas/**/*.md", "Name", "file", None, None)]
    assert "# agendas/**/*.md: 8 files of one template keyed by 'Name', unique per file (rows added in" in text.replace("\n#   ", " ")
    assert "agendas/2023/" not in text.split("[[record]]")[1]  # no record (or left-out line) of an agenda of its own
    (repo / ".mergedrv.toml").write_text(text)
    proc = mergedrv(repo, "check", "--only", ",".join(init.CHECKED))
    assert proc.returncode == 0 and not proc.stdout, proc.stdout + proc.stderr  # the same people in every agenda: no finding


def test_agendas_directly_in_one_folder_get_the_narrowest_glob(tmp_path) -> None:
    repo = agenda_history(tmp_path / "repo", weeks=6, layout="meetings/{date:%Y-%m-%d}.md")
    records, _ = _records(repo)
    assert [(r.path, r.key_scope) for r in records] == [("meetings/*.md", "file")]


def _folder(repo, files: dict[str, list[int]], adds: int = 3, commits_apart: bool = True) -> None:
    """``files`` (path -> people) committed, then ``adds`` commits (by people
    in turn) each adding one more person to one file."""
    git(repo, "init", "-q", "-b", "main")
    date = datetime.date(2024, 1, 4)
    state = {p: list(v) for p, v in files.items()}
    for path, people in state.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_bytes(agenda(date, people, ["Intro"]))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "agendas")
    for n in range(adds):
        path = sorted(state)[n % len(state)]
        who = next(i for i in range(1, len(PEOPLE)) if i not in state[path])
        state[path].append(who)
        (repo / path).write_bytes(agenda(date, state[path], ["Intro"]))
        git(repo, "add", "-A")
        env = {"GIT_AUTHOR_NAME": PEOPLE[who][0], "GIT_AUTHOR_EMAIL": f"{PEOPLE[who][1]}@example.com"}
        git(repo, "commit", "-qm", f"add {who}", env=env)


def test_no_glob_for_two_files_names_repeated_within_files_or_no_rows_added(tmp_path) -> None:
    two = tmp_path / "two"
    two.mkdir()
    _folder(two, {"agendas/a.md": [0, 1, 2, 3], "agendas/b.md": [0, 2, 3, 4]}, adds=4)
    assert all(r.key_scope == "record" for r in _records(two)[0])
    twice = tmp_path / "twice"
    twice.mkdir()
    _folder(twice, {f"agendas/{n}.md": [0, 1, 2, 1] for n in range(4)}, adds=4)
    records, text = _records(twice)
    assert records == []
    _, skipped = init.propose(twice)  # the comment says why the folder is no glob record
    assert any(s.startswith("folder agendas/: ") and "twice" in s for s in skipped), skipped
    assert not any("agendas/: agendas/: " in s for s in skipped), skipped  # the folder named once
    still = tmp_path / "still"
    still.mkdir()
    _folder(still, {f"agendas/{n}.md": [0, 1, 2, 3] for n in range(4)}, adds=0)
    assert all(r.key_scope == "record" for r in _records(still)[0])  # (one commit: init proposes each file, as before)
    archived = tmp_path / "archived"
    archived.mkdir()
    _folder(archived, {f"archive/agendas/{n}.md": [0, 1, 2, 3] for n in range(4)}, adds=6)
    assert _records(archived)[0] == []
    grown = tmp_path / "grown"
    grown.mkdir()
    _folder(grown, {f"agendas/{n}.md": [0, 1, 2, 3] for n in range(4)}, adds=6)
    assert [(r.path, r.key) for r in _records(grown)[0]] == [("agendas/*.md", "Name")]  # the same folder, rows added


def test_an_agenda_made_after_init_is_merged_by_key_under_the_attributes_install_writes(tmp_path) -> None:
    repo = agenda_history(tmp_path / "repo", weeks=4)
    assert subprocess.run([*MERGEDRV, "init"], cwd=repo, capture_output=True).returncode == 0
    # the attribute lines `mergedrv install` writes; the driver registered as this interpreter runs it
    (repo / ".gitattributes").write_text("".join(attribute_lines(config.load(repo / ".mergedrv.toml"))))
    assert (repo / ".gitattributes").read_text().startswith("agendas/**/*.md merge=keyed\n")
    git(repo, "config", "merge.keyed.driver", driver_command())
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "mergedrv")
    date = datetime.date(2024, 6, 6)
    path = f"agendas/{date:%Y}/{date:%m-%d}.md"  # a year the tree has no folder of yet
    (repo / path).parent.mkdir(parents=True)
    (repo / path).write_bytes(agenda(date, [0], ["Intro"]))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "next agenda")
    git(repo, "switch", "-q", "-c", "ann")
    (repo / path).write_bytes(agenda(date, [0, 1], ["Intro"]))
    git(repo, "commit", "-qam", "add Ann")
    git(repo, "switch", "-q", "main")
    (repo / path).write_bytes(agenda(date, [0, 2], ["Intro"]))
    git(repo, "commit", "-qam", "add Bo")
    proc = git(repo, "merge", "--no-edit", "ann", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr  # git's text merge conflicts here: both appended a row
    assert (repo / path).read_bytes() == agenda(date, [0, 2, 1], ["Intro"])  # ours' row, then theirs'


def test_one_agenda_in_ten_that_breaks_the_key_is_a_finding_not_a_veto(tmp_path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    files = {f"agendas/{n:02}.md": [0, 1, 2, 3] for n in range(10)}
    files["agendas/04.md"] = [0, 1, 2, 1]
    _folder(repo, files, adds=6)
    records, text = _records(repo)
    assert [(r.path, r.key_scope) for r in records] == [("agendas/*.md", "file")]
    assert "# An exception: agendas/04.md: column 'Name' holds 'Ann Lee' twice, which keys-unique reports." in text.replace("\n#   ", " ")
    assert "keys-unique: AGENDAS: key Ann Lee is defined twice" in text  # among the tree's findings init lists
    files["agendas/07.md"] = [0, 2, 2, 3]  # two of ten: not one template's key any more
    again = tmp_path / "again"
    again.mkdir()
    _folder(again, files, adds=6)
    assert all(r.key_scope == "record" for r in _records(again)[0])


def test_a_folder_whose_name_reads_as_wildcards_gets_no_glob(tmp_path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    _folder(repo, {f"meet[1]/{n}.md": [0, 1, 2, 3] for n in range(4)}, adds=6)
    assert all(r.key_scope == "record" for r in _records(repo)[0])


def test_a_legend_every_agenda_copies_is_not_the_folder_key(tmp_path, monkeypatch) -> None:
    """A table each file copies from the template unchanged (a legend keyed
    by `Key`, a column named more like a key than `Name`) is not what rows
    are added to: the attendee table keys the folder."""
    import tests.agenda_helpers as helpers

    plain = helpers.agenda
    legend = "| Key | Meaning |\n| --- | --- |\n| 🔒 | constrained |\n| ⌛ | late addition |\n\n"

    def with_legend(*args, **kwargs) -> bytes:
        return plain(*args, **kwargs).replace(b"## Attendees", legend.encode() + b"## Attendees", 1)

    monkeypatch.setattr(helpers, "agenda", with_legend)
    repo = agenda_history(tmp_path / "repo", weeks=8)
    assert "| Key | Meaning |" in next((repo / "agendas").rglob("*.md")).read_text()
    records, _ = _records(repo)
    assert [(r.path, r.key, r.key_scope) for r in records] == [("agendas/**/*.md", "Name", "file")]


def test_a_folder_of_unlike_tables_says_why_naming_the_folder_once(tmp_path) -> None:
    repo = tmp_path / "repo"
    (repo / "notes").mkdir(parents=True)
    git(repo, "init", "-q")
    for change in range(4):  # four files with a Name column, each under another header, rows added by four people
        for n in range(4):
            extra = "".join(f" C{n}{i} |" for i in range(n + 1))
            rows = "".join(f"| person{n}{k} |{' x |' * (n + 1)}\n" for k in range(3 + change))
            (repo / f"notes/{n}.md").write_text(f"# N{n}\n\n| Name |{extra}\n|---|{'---|' * (n + 1)}\n{rows}")
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", f"change {change}", env={"GIT_AUTHOR_NAME": f"a{change}", "GIT_AUTHOR_EMAIL": f"a{change}@example.com"})
    _, skipped = init.propose(repo)
    said = [s for s in skipped if s.startswith("folder notes/: ")]
    assert said == ["folder notes/: the 4 tables with column 'name' differ in their headers (no two alike)"], skipped


def test_a_folder_whose_files_repeat_a_name_across_their_tables_gets_no_per_file_glob(tmp_path) -> None:
    """Each file holds two tables (messages each way) that share a name: unique
    per file they are not, so no `key_scope = "file"` glob with day-one
    findings and double-definition conflicts where git merges."""
    def doc(a: list[str], b: list[str]) -> str:
        table = lambda keys, who: "| Name | Meaning |\n|---|---|\n" + "".join(f"| {k} | sent by {who} |\n" for k in keys)
        return "# Messages\n\n## Client to relay\n\n" + table(a, "client") + "\n## Relay to client\n\n" + table(b, "relay")

    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    files = {f"msgs/p{i}.md": ([f"A{i}", f"B{i}"], [f"A{i}", f"C{i}"]) for i in range(4)}
    for n, (path, who) in enumerate([(None, "alice")] + [(f"msgs/p{i % 4}.md", f"w{i}") for i in range(5)]):
        if path is not None:
            a, b = files[path]
            files[path] = (a + [f"N{n}"], b + [f"M{n}"])
        for p, (a, b) in files.items():
            (repo / p).parent.mkdir(exist_ok=True)
            (repo / p).write_text(doc(a, b))
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", f"change {n}", env={"GIT_AUTHOR_NAME": who, "GIT_AUTHOR_EMAIL": f"{who}@x", "GIT_COMMITTER_NAME": who, "GIT_COMMITTER_EMAIL": f"{who}@x"})
    records, text = _records(repo)
    assert not any(r.key_scope == "file" for r in records), text
