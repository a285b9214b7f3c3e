"""`mergedrv demo`: the same concurrent record edits merged by plain git and by mergedrv.

Builds a throw-away repository from the sample records bundled in
`mergedrv/samples/`, makes two branches, merges them both ways and prints what
each merge did.  Needs git, not pygit2.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from xml.sax.saxutils import escape

from .. import model
from ..pins import pin_lines
from ..errors import Error
from ..git import Ran, run as run_git

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
FILES = {"model-matrix.md": "ID", "roadmap.md": "Block", "parity-ledger.md": None}  # file -> key (None: log)
GLM4 = "MODEL-TEXT-glm4-glm4-for-causal-lm"

# (file, old text, new text) edits of each branch, and what they mean
ALICE = [
    ("model-matrix.md", "| unassigned |\n| `MODEL-TEXT-gpt-j", f"| unassigned |\n| `{GLM4}` | `Glm4ForCausalLM` | `SPIKE` | `CLAIM-GLM-DSA` |\n| `MODEL-TEXT-gpt-j"),
    ("roadmap.md", "DSpark | `GATING` |", "DSpark | `DONE` |"),
    ("roadmap.md", "EAGLE3 | `INVENTORIED` |\n", "EAGLE3 | `INVENTORIED` |\n| 13 | `ROAD-V1-D4` | KV persistent state to disk, LMCache interoperability | `PARTIAL` |\n"),
    ("parity-ledger.md", "oracle-verified |\n", "oracle-verified |\n| 2026-07-24 `99a43c6` | New dense model: GLM-4-9B-0414 | models/glm4.py | token-exact 8/8 |\n"),
    (".mergedrv.toml", "pin = 6", "pin = 7"),
    (".mergedrv.toml", "pin = 5", "pin = 6"),
]
BOB = [
    ("model-matrix.md", "| unassigned |\n| `MODEL-TEXT-gritlm", f"| unassigned |\n| `{GLM4}` | `Glm4ForCausalLM` | `INVENTORIED` | unassigned |\n| `MODEL-TEXT-gritlm"),
    ("roadmap.md", "NVFP4/FP8/MX | `PARTIAL` |", "NVFP4/FP8/MX | `ACTIVE` |"),
    ("roadmap.md", "EAGLE3 | `INVENTORIED` |\n", "EAGLE3 | `INVENTORIED` |\n| 14 | `ROAD-V1-D5` | LoRA, local KV/weight offload, expert streaming | `PARTIAL` |\n"),
    ("parity-ledger.md", "oracle-verified |\n", "oracle-verified |\n| 2026-07-24 `9d2b8ba` | README curated into a user-facing document | — (docs) | n/a |\n"),
    (".mergedrv.toml", "pin = 5", "pin = 6"),
]
STORY = [  # file, alice, bob
    ("model-matrix.md", "adds MODEL-TEXT-glm4… (SPIKE, claimed)", "adds MODEL-TEXT-glm4… (INVENTORIED)"),
    ("roadmap.md", "adds ROAD-V1-D4; ROAD-V1-C3 -> DONE", "adds ROAD-V1-D5; ROAD-V1-C4 -> ACTIVE"),
    ("parity-ledger.md", "appends a row", "appends a row"),
    (".mergedrv.toml", "pins: MODEL 6 -> 7, ROAD 5 -> 6", "pins: ROAD 5 -> 6"),
]
_CONFLICT_LINE = re.compile(r"^([^:\n]+):(\d+): conflict: ([\w-]+): ([^:]*): ")
W = 40  # width of one column of the side-by-side report


@dataclass(slots=True)
class Outcome:
    """What one merge left in each file."""

    files: dict[str, bytes] = field(default_factory=dict)
    conflicted: set[str] = field(default_factory=set)
    stderr: str = ""


def _git(cwd: Path, *args: str, env: dict[str, str], check: bool = True) -> Ran:
    """git in the demo's own environment; a failure is an Error unless ``check`` is off."""
    ran = run_git(cwd, *args, env=env)
    if check and not ran.ok:
        raise Error(f"git {' '.join(args)}: {ran.why()}")
    return ran


def isolated_env(home: Path) -> dict[str, str]:
    """Git isolated from the user's configuration, with a fixed identity."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        HOME=str(home),
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_AUTHOR_NAME="mergedrv demo",
        GIT_AUTHOR_EMAIL="demo@example.invalid",
        GIT_COMMITTER_NAME="mergedrv demo",
        GIT_COMMITTER_EMAIL="demo@example.invalid",
    )
    return env


def _edit(repo: Path, edits: list[tuple[str, str, str]]) -> None:
    for name, old, new in edits:
        path = repo / name
        text = path.read_text(encoding="utf-8")
        if text.count(old) != 1:
            raise RuntimeError(f"sample {name} does not hold {old!r} once")
        path.write_text(text.replace(old, new, 1), encoding="utf-8")


def build(repo: Path, env: dict[str, str]) -> None:
    """The base commit on main, alice's edits on main, bob's on topic."""
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main", env=env)
    for name in FILES:
        shutil.copyfile(SAMPLES / name, repo / name)
    shutil.copyfile(SAMPLES / "mergedrv.toml", repo / ".mergedrv.toml")
    (repo / ".gitattributes").write_text("".join(f"{name} merge=keyed\n" for name in [*FILES, ".mergedrv.toml"]))
    _git(repo, "add", "-A", env=env)
    _git(repo, "commit", "-q", "-m", "base: sample records", env=env)
    _git(repo, "branch", "topic", env=env)
    _edit(repo, ALICE)
    _git(repo, "commit", "-q", "-am", "alice: GLM-4 row, roadmap D4, ledger row", env=env)
    _git(repo, "checkout", "-q", "topic", env=env)
    _edit(repo, BOB)
    _git(repo, "commit", "-q", "-am", "bob: GLM-4 row, roadmap D5, ledger row", env=env)
    _git(repo, "checkout", "-q", "main", env=env)


def merge(repo: Path, env: dict[str, str], driver: str | None) -> Outcome:
    """Merge topic into a fresh branch off main; without ``driver`` git merges as text."""
    branch = "with-mergedrv" if driver else "plain-git"
    _git(repo, "checkout", "-q", "-B", branch, "main", env=env)
    config = ["-c", "merge.keyed.name=mergedrv", "-c", f"merge.keyed.driver={driver}"] if driver else []
    proc = _git(repo, *config, "merge", "--no-edit", "-q", "topic", env=env, check=False)
    out = Outcome(stderr=proc.stderr.decode("utf-8", "replace"))
    listed = _git(repo, "diff", "--name-only", "--diff-filter=U", env=env).text().split()
    out.conflicted = set(listed)
    for name in [*FILES, ".mergedrv.toml"]:
        out.files[name] = (repo / name).read_bytes()
    if not proc.ok:
        _git(repo, "merge", "--abort", env=env, check=False)
    _git(repo, "checkout", "-q", "-f", "main", env=env)
    return out


def duplicates(data: bytes, key: str) -> dict[str, list[int]]:
    """Keys defined more than once, with their 1-based line numbers."""
    try:
        doc = model.parse(data, key=key)
    except model.Unmodelable:
        return {}
    seen: dict[str, list[int]] = {}
    for row in doc.rows():
        assert row.key is not None  # a keyed table's row carries its key
        seen.setdefault(row.key, []).append(row.line + 1)
    return {k: v for k, v in seen.items() if len(v) > 1}


def row_count(data: bytes, key: str | None) -> int | None:
    try:
        doc = model.parse(data, key=key, log=key is None)
    except model.Unmodelable:
        return None
    if key is None:
        return sum(len(t.rows) for t in doc.tables)
    return len(list(doc.rows()))


def hunks(data: bytes) -> int:
    return sum(1 for line in data.split(b"\n") if line.startswith(b"<<<<<<<"))


def _short(key: str) -> str:
    return key if len(key) <= 20 else key[:16] + "…"


def describe(name: str, out: Outcome, driver: bool, truth: dict[str, int]) -> tuple[list[str], int]:
    """Report lines for one file after one merge, and how many silent errors it holds."""
    data = out.files[name]
    silent = 0
    if name == ".mergedrv.toml":
        if name in out.conflicted:
            return [f"CONFLICT ({hunks(data)} hunk)"], 0
        pins = {k: v for k, (_, v) in pin_lines(data).items()}
        shown = f"clean: pins MODEL {pins.get('MODEL')}, ROAD {pins.get('ROAD')}"
        if pins.get("ROAD") != truth["ROAD"]:
            return [shown, f"  ! ROAD: roadmap holds {truth['ROAD']} rows"], 1
        return [shown, "  ROAD: 5 + 1 + 1, as a counter"], 0
    key = FILES[name]
    if name in out.conflicted:
        lines = [f"CONFLICT ({hunks(data)} hunk{'s' if hunks(data) > 1 else ''})"]
        if driver:
            for m in (_CONFLICT_LINE.match(line) for line in out.stderr.splitlines()):
                if m and m.group(1) == name:
                    lines.append(f"  {m.group(3)}: {_short(m.group(4))} line {m.group(2)}")
            lines.append("  both rows shown, nothing else touched")
        return lines, 0
    lines = ["clean"]
    if key is not None:
        for k, where in duplicates(data, key).items():
            silent += 1
            lines[0] = "clean, but a key is defined twice:"
            lines.append(f"  ! {_short(k)} lines {' and '.join(map(str, where))}")
    count = row_count(data, key)
    if not silent and count is not None:
        lines[0] += f": {count} rows" + (", alice's then bob's" if key is None else ", both edits kept")
    return lines, silent


def report(plain: Outcome, keyed: Outcome) -> list[str]:
    truth = {"ROAD": row_count(keyed.files["roadmap.md"], "Block") or 0}
    out = [
        "mergedrv demo: alice and bob edit the same records on two branches",
        "",
        f"  {'':17}{'alice (main)':{W}}bob (topic)",
    ]
    out += [f"  {name:17}{a:{W}}{b}" for name, a, b in STORY]
    out += ["", f"  {'git merge topic':17}{'plain git':{W}}git + mergedrv driver"]
    silent = 0
    for name, *_ in STORY:
        left, n = describe(name, plain, False, truth)
        right, _n = describe(name, keyed, True, truth)
        silent += n
        for i in range(max(len(left), len(right))):
            a = left[i] if i < len(left) else ""
            b = right[i] if i < len(right) else ""
            out.append(f"  {name if i == 0 else '':17}{a:{W}}{b}".rstrip())
    conflicts = [m.group(3) for m in map(_CONFLICT_LINE.match, keyed.stderr.splitlines()) if m]
    out += [
        "",
        f"  plain git: {len(plain.conflicted)} files conflicted, {silent} silent errors committed as if right",
        f"  mergedrv:  {len(keyed.conflicted)} file conflicted ({', '.join(conflicts) or 'none'}): the one a person must decide",
        "",
        "  mergedrv's stderr:",
        *[f"    {line}" for line in keyed.stderr.splitlines() if line.strip()],
    ]
    return out


def run() -> int:
    """`mergedrv demo`: always cleans up; exit 0 when the demo ran."""
    from .install_files import driver_command

    tmp = Path(tempfile.mkdtemp(prefix="mergedrv-demo-"))
    try:
        env = isolated_env(tmp)
        repo = tmp / "records"
        build(repo, env)
        plain = merge(repo, env, None)
        keyed = merge(repo, env, driver_command())
        print("\n".join(report(plain, keyed)))
        return 0
    except (OSError, RuntimeError) as exc:
        raise Error(str(exc)) from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# --- the README's picture (docs/demo.svg): the two merges drawn side by side as SVG;
# everything drawn comes from the merges, nothing from the machine (no temporary
# paths, hashes or dates); scripts/demo_picture.py writes it

CHAR_W, LINE_H, PAD = 7.8, 18, 16
COL = 46  # characters of one column
RED, GREEN, GREY, INK = "#c0392b", "#1e8449", "#6b7280", "#111827"


def merges() -> tuple[Outcome, Outcome]:
    """Run the demo's scenario once: plain git's merge, then mergedrv's."""
    from .install_files import driver_command

    tmp = Path(tempfile.mkdtemp(prefix="mergedrv-picture-"))
    try:
        env = isolated_env(tmp)
        repo = tmp / "records"
        build(repo, env)
        return merge(repo, env, None), merge(repo, env, driver_command())
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def hunk(data: bytes, width: int) -> list[str]:
    """The first conflict region of a merged file, without its markers' labels, each line cut to ``width``."""
    lines = data.decode("utf-8", "replace").split("\n")
    start = next((i for i, line in enumerate(lines) if line.startswith("<<<<<<<")), None)
    if start is None:
        return []
    end = next(i for i in range(start, len(lines)) if lines[i].startswith(">>>>>>>"))
    # marker labels dropped: they vary with git's version (2.44 passes %S %X %Y), the picture must not
    region = [line[:7] if line[:7] in ("<<<<<<<", "|||||||", ">>>>>>>") else line for line in lines[start : end + 1]]
    return [line if len(line) <= width else line[: width - 1] + "…" for line in region]


def _colour(text: str) -> str:
    if text.lstrip().startswith("!") or text.startswith("CONFLICT") or "defined twice" in text:
        return RED
    if text.startswith("clean"):
        return GREEN
    return INK


def rows(plain: Outcome, keyed: Outcome) -> list[tuple[str, str, str, str, str]]:
    """(file, plain text, its colour, mergedrv text, its colour) lines of the table."""
    truth = {"ROAD": row_count(keyed.files["roadmap.md"], "Block") or 0}
    out = []
    for name, *_ in STORY:
        left, wrong = describe(name, plain, False, truth)  # wrong: silent errors in a "clean" merge
        right, _ = describe(name, keyed, True, truth)
        for i in range(max(len(left), len(right))):
            a = left[i] if i < len(left) else ""
            b = right[i] if i < len(right) else ""
            out.append((name if i == 0 else "", a, RED if wrong else _colour(a), b, _colour(b)))
    return out


def summary(plain: Outcome, keyed: Outcome) -> tuple[str, str]:
    truth = {"ROAD": row_count(keyed.files["roadmap.md"], "Block") or 0}
    silent = sum(describe(name, plain, False, truth)[1] for name, *_ in STORY)
    n = len(plain.conflicted)
    left = f"{n} file{'s' if n != 1 else ''} conflicted, {silent} silent errors committed"
    k = len(keyed.conflicted)
    right = f"{k} file conflicted: the one a person must decide" if k == 1 else f"{k} files conflicted"
    return left, right


def svg(plain: Outcome, keyed: Outcome) -> str:
    """The picture: a table of both merges, the summary, and mergedrv's one hunk."""
    name_w = 18
    x0, x1, x2 = PAD, PAD + name_w * CHAR_W, PAD + (name_w + COL) * CHAR_W
    width = int(x2 + COL * CHAR_W + PAD)
    body: list[str] = []
    y = PAD + LINE_H

    def text(x: float, t: str, fill: str = INK, weight: str = "normal") -> None:
        body.append(f'<text x="{x:.1f}" y="{y}" fill="{fill}" font-weight="{weight}">{escape(t)}</text>')

    text(x0, "mergedrv demo: alice and bob edit the same records on two branches, then git merge", INK, "bold")
    y += LINE_H * 2
    text(x1, "plain git", INK, "bold")
    text(x2, "git + mergedrv driver", INK, "bold")
    for name, a, ca, b, cb in rows(plain, keyed):
        y += LINE_H
        text(x0, name, GREY)
        text(x1, a, ca)
        text(x2, b, cb)
    left, right = summary(plain, keyed)
    y += LINE_H * 2
    text(x1, left, RED, "bold")
    text(x2, right, GREEN, "bold")
    y += LINE_H * 2
    text(x0, "mergedrv's one conflict hunk in model-matrix.md (git's diff3 markers, labels left out):", INK, "bold")
    for line in hunk(keyed.files["model-matrix.md"], (width - 2 * PAD) // int(CHAR_W) - 4):
        y += LINE_H
        text(x0 + 2 * CHAR_W, line, RED if line[:1] in "<=>|" and line[:2] != "| " else INK)
    height = y + PAD
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" xml:space="preserve" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        'font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="13">\n'
        f'<rect width="{width}" height="{height}" fill="#ffffff" stroke="#d1d5db"/>\n'
    )
    return head + "\n".join(body) + "\n</svg>\n"


def picture() -> str:
    """The SVG the README embeds, from a fresh run of the demo's scenario."""
    return svg(*merges())
