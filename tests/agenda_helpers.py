"""A generated history of a folder of meeting agendas (real git, by `git
fast-import`): one agenda file a week (`agendas/YYYY/MM-DD.md`, the host's
row first), people adding themselves to its attendee table on parallel
branches, each branch merged with `--no-ff` and the maintainer keeping both
sides' rows (ours, then theirs) where git conflicts."""

from __future__ import annotations

import datetime
import random
import subprocess
from pathlib import Path

PEOPLE = [("Lee Byron", "leebyron", "GraphQL Foundation", "San Francisco, CA, US"), ("Ann Lee", "annlee", "Acme", "Paris, FR"),
          ("Bo Chen", "bochen", "Initech", "Taipei, TW"), ("Cy Diaz", "cydiaz", "Globex", "Madrid, ES"),
          ("Di Evans", "dievans", "Umbrella", "London, UK"), ("Ed Fox", "edfox", "Hooli", "Austin, TX, US"),
          ("Flo Gray", "flogray", "Vandelay", "Berlin, DE"), ("Gus Hill", "gushill", "Stark", "Toronto, CA"),
          ("Hal Ives", "halives", "Wayne", "Sydney, AU"), ("Ivy Jones", "ivyjones", "Tyrell", "Oslo, NO"),
          ("Jo King", "joking", "Cyberdyne", "Seoul, KR"), ("Kim Lopez", "kimlopez", "Soylent", "Lima, PE")]


def agenda(date: datetime.date, people: list[int], items: list[str], old: bool = False) -> bytes:
    """An agenda's text (``old``: the template of the first meetings, without a GitHub column)."""
    rows = "".join(f"| {PEOPLE[i][0]}{' (Host)' if n == 0 else ''} |{'' if old else f' @{PEOPLE[i][1]} |'} {PEOPLE[i][2]} | {PEOPLE[i][3]} |\n"
                   for n, i in enumerate(people))
    listed = "".join(f"{n + 1}. {item}\n" for n, item in enumerate(items))
    header = "| Name | Organization | Location |\n| --- | --- | --- |\n" if old else \
        "| Name | GitHub | Organization | Location |\n| :--- | :--- | :--- | :--- |\n"
    return (f"# GraphQL WG – {date:%B %Y}\n\nThe meeting of {date:%Y-%m-%d}.\n\n## Attendees\n\n" + header + rows +
            f"\n## Agenda\n\n{listed}").encode()


TEMPLATE = (b"# GraphQL WG - <Month Year>\n\n## Attendees\n\n| Name | GitHub | Organization | Location |\n"
            b"| :--- | :--- | :--- | :--- |\n| <Your Name> | @<handle> | <Organization> | <City, Country> |\n")


class _Stream:
    """A fast-import stream: commits on main and on branches, merges."""

    def __init__(self) -> None:
        self.out: list[bytes] = []
        self.mark = 0
        self.when = 1_600_000_000

    def commit(self, ref: str, parent: int | None, who: int, msg: str, files: dict[str, bytes], merge: int | None = None) -> int:
        self.mark += 1
        self.when += 3600
        name, handle = PEOPLE[who][0], PEOPLE[who][1]
        head = (f"commit {ref}\nmark :{self.mark}\nauthor {name} <{handle}@example.com> {self.when} +0000\n"
                f"committer {name} <{handle}@example.com> {self.when} +0000\ndata {len(msg)}\n{msg}\n")
        if parent is not None:
            head += f"from :{parent}\n"
        if merge is not None:
            head += f"merge :{merge}\n"
        self.out.append(head.encode())
        for path, data in files.items():
            self.out.append(f"M 100644 inline {path}\ndata {len(data)}\n".encode() + data + b"\n")
        return self.mark


def agenda_history(repo: Path, weeks: int = 12, seed: int = 0, extra: dict[str, bytes] | None = None,
                   layout: str = "agendas/{date:%Y}/{date:%m-%d}.md", variety: bool = False) -> Path:
    """``repo`` (made) holding ``weeks`` agendas (each at ``layout`` of its
    date) and their merges; ``extra`` files are committed with the first one.
    ``variety``: the first quarter of the agendas on an older template (no
    GitHub column), a template file and a README in the folder, and one
    conflict in five resolved with the later branch's row first."""
    rng = random.Random(seed)
    s = _Stream()
    first = {"README.md": b"# WG\n\nAgendas live in agendas/.\n", **(extra or {})}
    if variety:
        first.update({"agendas/README.md": b"# Agendas\n\nAdd yourself to the attendee table of the next meeting.\n",
                      "agendas/_template.md": TEMPLATE})
    main = s.commit("refs/heads/main", None, 0, "README", first)
    start = datetime.date(2023, 1, 5)
    for w in range(weeks):
        date = start + datetime.timedelta(days=7 * w)
        path = layout.format(date=date)
        old = variety and w < weeks // 4
        people, items = [0], ["Introduction of attendees", "Determine volunteers for note taking"]
        main = s.commit("refs/heads/main", main, 0, f"agenda {date}", {path: agenda(date, people, items, old)})
        base_people, base_items = list(people), list(items)
        branches = []
        for n, who in enumerate(rng.sample(range(1, len(PEOPLE)), rng.randint(2, 5))):
            mine_items = base_items + ([f"Proposal {w}.{n} by {PEOPLE[who][1]}"] if rng.random() < 0.3 else [])
            mark = s.commit(f"refs/heads/w{w}-{n}", main, who,
                            f"add {PEOPLE[who][1]} to {date}", {path: agenda(date, base_people + [who], mine_items, old)})
            branches.append((who, mark, mine_items[len(base_items):]))
        for n, (who, mark, added) in enumerate(branches):
            if variety and n > 1 and rng.random() < 0.2:
                people.insert(len(people) - 1, who)  # the maintainer put this row above the one merged before
            else:
                people.append(who)
            items += added
            main = s.commit("refs/heads/main", main, 0, f"Merge pull request from {PEOPLE[who][1]}",
                            {path: agenda(date, people, items, old)}, merge=mark)
        if rng.random() < 0.3:  # other work between meetings
            main = s.commit("refs/heads/main", main, 0, f"notes of {date}", {"NOTES.md": f"Notes of {date}.\n".encode()})
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    subprocess.run(["git", "fast-import", "--quiet"], cwd=repo, input=b"".join(s.out), check=True)
    subprocess.run(["git", "reset", "-q", "--hard", "main"], cwd=repo, check=True)
    for k, v in (("user.name", "T"), ("user.email", "t@example.com")):
        subprocess.run(["git", "config", k, v], cwd=repo, check=True)
    return repo
