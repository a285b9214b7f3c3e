"""`mergedrv review [PATH]`: what the driver decided in the last merges, key by key.

Exit 0 from a merge driver is not evidence. The driver logs each keyed merge
(the size and CRC-32 of base, ours, theirs and result, in `<git dir>/mergedrv/log`);
review finds those versions among the blobs git has of the path and says, for every key
that changed: taken from ours, taken from theirs, cells merged (which columns
from which side), moved (to another table), kept once (the same change on
both sides), conflict. Then the diff between git's own line merge of the same
three versions and mergedrv's result.

Exit 0: shown; 1: no logged merge of PATH; 2: usage or repository error.
"""

from __future__ import annotations

import difflib
import os
import sys
from pathlib import Path

from ..git import git_or_none, run as run_git
from ..values import Value


def _blob(root: Path, oid: str) -> bytes | None:
    return git_or_none(root, "cat-file", "blob", oid)


_HEADS = ("MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD", "REBASE_HEAD", "ORIG_HEAD")


def _by_size(listing: bytes) -> dict[int, list[str]]:
    """size -> blob ids, from `git cat-file --batch-check` lines (``<id> <type> <size>``)."""
    out: dict[int, list[str]] = {}
    for line in listing.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] == b"blob":
            out.setdefault(int(parts[2]), []).append(parts[0].decode())
    return out


def _candidates(root: Path, git_dir: str, path: str) -> dict[int, list[str]]:
    """size -> the blobs git has of ``path``: the index's stages (a merge
    still conflicted), then every version in the history of every ref, every
    reflog and the heads of a merge, rebase or cherry-pick in progress."""
    ids = [line.split()[1].decode() for line in run_git(root, "ls-files", "-s", "--", path).stdout.splitlines() if line.count(b" ") >= 2]
    heads = [h for h in _HEADS if os.path.isfile(os.path.join(git_dir, h))]
    raw = run_git(root, "log", "--all", "--reflog", *heads, "-m", "--format=", "--raw", "--no-abbrev", "-n", "5000", "--", path).stdout
    for line in raw.splitlines():
        fields = line.split(b"\t", 1)[0].split()
        if line.startswith(b":") and len(fields) >= 5:
            ids += [oid.decode() for oid in fields[2:4] if oid.strip(b"0")]
    return _by_size(run_git(root, "cat-file", "--batch-check", input="".join(i + "\n" for i in dict.fromkeys(ids)).encode()).stdout)


def _every_blob(root: Path) -> dict[int, list[str]]:
    """size -> every blob in the repository's object store (a renamed path,
    a pull aborted, an old version past the history searched)."""
    return _by_size(run_git(root, "cat-file", "--batch-all-objects", "--batch-check").stdout)


def _versions(root: Path, git_dir: str, path: str, entry: dict) -> dict[str, bytes | None]:
    """The four logged versions of a merge: a size and CRC-32 (what the
    driver logs) found among the blobs git has of ``path``, else among every
    blob of the object store; a blob id (the logs of earlier versions) read
    as it is; None where git has no such blob."""
    import zlib

    named = {name: str(entry.get(name) or "") for name in ("base", "ours", "theirs", "result")}
    out: dict[str, bytes | None] = {name: _blob(root, ref) for name, ref in named.items() if ":" not in ref}
    wanted = {name: ref.split(":", 1) for name, ref in named.items() if ":" in ref}
    out.update(dict.fromkeys(wanted))
    read: dict[str, bytes | None] = {}
    for where in (lambda: _candidates(root, git_dir, path), lambda: _every_blob(root)):
        missing = [name for name in wanted if out[name] is None]
        if not missing:
            break
        sizes = where()
        for name in missing:
            size, crc = wanted[name]
            for oid in sizes.get(int(size) if size.isdigit() else -1, []):
                if oid not in read:
                    read[oid] = _blob(root, oid)
                data = read[oid]
                if data is not None and f"{zlib.crc32(data):08x}" == crc:
                    out[name] = data
                    break
    return out


def _rows(doc) -> dict[str, tuple]:
    """key -> (row, table) for every keyed row (the first, if a key is defined twice)."""
    out: dict[str, tuple] = {}
    for table in doc.keyed_tables():
        for row in table.rows:
            if row.key is not None and row.key not in out:
                out[row.key] = (row, table)
    return out


def _changed_columns(base, side, table) -> list[str]:
    if base is None or side is None:
        return []
    a, b = base[0].cells().cells, side[0].cells().cells
    from ..model.cells import split_cells

    names = [c.decode("utf-8", "replace").strip() for c in split_cells(table.header, table.column).cells]
    out = []
    for i in range(max(len(a), len(b))):
        if (a[i] if i < len(a) else None) != (b[i] if i < len(b) else None):
            out.append(names[i] if i < len(names) and names[i] else f"column {i + 1}")
    return out


def _what(b, x) -> str:
    if b is None:
        return "added"
    if x is None:
        return "deleted"
    return "changed"


def decisions(base: bytes, ours: bytes, theirs: bytes, result: bytes, record, conflicts: list) -> list[tuple[str, str]]:
    """(key, decision) for every key some side touched, in the result's order then the rest."""
    from ..model import Unmodelable, parse

    try:
        docs = [parse(v, record.key, key_pattern=record.key_pattern) for v in (base, ours, theirs)]
    except Unmodelable as exc:
        return [("-", f"the inputs cannot be modelled ({exc}); the driver merged the file as text")]
    try:
        rdoc = parse(result, record.key, key_pattern=record.key_pattern)
        r = _rows(rdoc)
        readable = True
    except Unmodelable:  # conflict markers: judge by the sides alone
        r, readable = {}, False
    b, o, t = (_rows(d) for d in docs)
    conflicted = {c[2]: c for c in conflicts if len(c) >= 4 and c[2] != "-"}
    keys = list(dict.fromkeys([*r, *o, *t, *b]))
    text = lambda m, k: m[k][0].text if k in m else None  # noqa: E731
    out = []
    for k in keys:
        B, O, T, R = text(b, k), text(o, k), text(t, k), text(r, k)
        if k in conflicted:
            c = conflicted[k]
            out.append((k, f"conflict: {c[1]}: {c[3]} (line {c[0]})"))
            continue
        if O == B and T == B and (R == B or not readable):
            continue
        if O == T:
            what = {"added": "added identically on both sides", "deleted": "deleted on both sides", "changed": "changed identically on both sides"}[_what(B, O)]
            decision = f"kept once: {what}" if O is not None else what
            expect = O
        elif O == B:
            decision, expect = f"taken from theirs ({_what(B, T)} by theirs)", T
        elif T == B:
            decision, expect = f"taken from ours ({_what(B, O)} by ours)", O
        else:
            table = next(m[k] for m in (b, o, t) if m.get(k))[1]  # the first version that has the row
            mine, yours = _changed_columns(b.get(k), o.get(k), table), _changed_columns(b.get(k), t.get(k), table)
            decision = f"cells merged: ours changed {', '.join(mine) or 'the row'}, theirs changed {', '.join(yours) or 'the row'}"
            expect = R
        if readable and R != expect:
            decision += "; the result holds another text (a rollup or count recomputed)"
        where = r if readable else {}
        if k in b and k not in where:  # where the side that moved it put it
            moved = [m for m in (o, t) if k in m and m[k][1].heading != b[k][1].heading]
            where = moved[0] if moved else where
        if k in b and k in where and b[k][1].heading != where[k][1].heading:
            decision += f"; moved from {b[k][1].heading or 'the top'!r} to {where[k][1].heading or 'the top'!r}"
        out.append((k, decision))
    return out


def _log_rows(base: bytes, ours: bytes, theirs: bytes) -> str:
    from ..model import split_lines

    n = len(split_lines(base))
    return f"log: ours appended {max(len(split_lines(ours)) - n, 0)} line(s), theirs {max(len(split_lines(theirs)) - n, 0)}; base rows kept, then ours', then theirs'"


def line_merge_diff(base: bytes, ours: bytes, theirs: bytes, result: bytes, labels: list[str]) -> list[str]:
    """The unified diff from git's line merge (`git merge-file --diff3`) to mergedrv's result."""
    from ..merge.fallback import git_merge_file
    from ..merge.values import Markers

    b, o, t = (labels + ["base", "ours", "theirs"])[:3] if len(labels) >= 3 else ("base", "ours", "theirs")
    plain = git_merge_file(base, ours, theirs, Markers(7, b, o, t))
    dec = lambda data: data.decode("utf-8", "replace").splitlines(keepends=True)  # noqa: E731
    lines = list(difflib.unified_diff(dec(plain.data), dec(result), "git merge-file (line merge)", "mergedrv (keyed merge)", n=1))
    return [line if line.endswith("\n") else line + "\n" for line in lines]


def review(root: Path, path: str | None, count: int, say, fmt: str = "text") -> int:
    from .. import config as cfgmod
    from ..mergelog import read

    git_dir = run_git(root, "rev-parse", "--absolute-git-dir").stdout.decode("utf-8", "surrogateescape").strip()
    entries = read(git_dir)
    if path is not None:
        entries = [e for e in entries if e.get("path") == path]
    if not entries:
        if fmt == "json":
            say("[]")
        say_err = say if fmt != "json" else (lambda msg: print(msg, file=sys.stderr))
        say_err(f"mergedrv review: no logged merge{f' of {path}' if path else ''} (the driver logs each keyed merge it makes in this clone)")
        return 1
    cfg_path = root / cfgmod.CONFIG_NAME
    cfg = cfgmod.load(cfg_path) if cfg_path.is_file() else None
    views = [entry_view(root, git_dir, cfg, cfg_path, entry) for entry in entries[-max(count, 1):]]
    if fmt == "json":
        import json

        say(json.dumps(views, indent=1))
        return 0
    for view in views:
        say_view(view, say)
    return 0


def entry_view(root: Path, git_dir: str, cfg, cfg_path: Path, entry: dict) -> dict:
    """One logged merge, as review shows it: what the log says, and per key what the merge did."""
    p = entry["path"]
    labels = entry.get("labels") or []
    view = {"path": p, "time": entry.get("time"), "labels": labels,
            "conflicts": [dict(zip(("line", "kind", "key", "why"), c)) for c in entry.get("conflicts") or []],
            "fallback": entry.get("fallback"), "notes": entry.get("notes") or [], "versions": False, "remerged": False,
            "decisions": None, "log_rows": None, "line_merge_diff": []}
    versions = _versions(root, git_dir, p, entry)
    if any(versions[name] is None for name in ("base", "ours", "theirs")):
        return view
    view["versions"] = True
    base, ours, theirs = versions["base"], versions["ours"], versions["theirs"]
    assert base is not None and ours is not None and theirs is not None  # (all three found, above)
    result = versions["result"]
    if result is None:  # conflicted: git did not store the result; merge again
        import contextlib
        import io

        from ..merge.values import Markers
        from ..merge.driver import driver_merge

        lab = (labels + ["base", "ours", "theirs"])[:3] if len(labels) >= 3 else ["base", "ours", "theirs"]
        with contextlib.redirect_stderr(io.StringIO()):
            result, _ = driver_merge(p, base, ours, theirs, cfg_path, Markers(7, lab[0], lab[1], lab[2]))
        view["remerged"] = True
    record = cfg.record_for(p) if cfg is not None else None
    if record is not None:
        view["decisions"] = [{"key": k, "decision": d} for k, d in decisions(base, ours, theirs, result, record, entry.get("conflicts") or [])]
    elif cfg is not None and cfg.log_for(p) is not None:
        view["log_rows"] = _log_rows(base, ours, theirs)
    view["line_merge_diff"] = [line.rstrip("\n") for line in line_merge_diff(base, ours, theirs, result, labels)]
    return view


def say_view(view: dict, say) -> None:
    """entry_view as text: a line for the merge, then each key's decision and git's line merge beside it."""
    p, n = view["path"], len(view["conflicts"])
    say(f"{p}: merge of {view['time'] or '?'} ({', '.join(view['labels'])}): {'clean' if not n else f'{n} conflict(s)'}")
    if view["fallback"]:
        say(f"  merged as plain text: {view['fallback']}")
    if not view["versions"]:
        say("  the three versions are not in this repository (not a git merge, or pruned); nothing more to show")
        return
    if view["remerged"]:
        say("  (the result was not committed: merged again to show it)")
    if view["decisions"] is not None:
        width = max((len(d["key"]) for d in view["decisions"]), default=0)
        for d in view["decisions"]:
            say(f"  {d['key'].ljust(width)}  {d['decision']}")
        if not view["decisions"]:
            say("  no key changed on either side")
    elif view["log_rows"] is not None:
        say("  " + view["log_rows"])
    for note in view["notes"]:
        say(f"  {p}:{note}")
    if view["line_merge_diff"]:
        say("  git's line merge -> mergedrv's result:")
        for line in view["line_merge_diff"]:
            say("    " + line)
    else:
        say("  git's line merge gives the same result")


class Request(Value):
    """`mergedrv review [PATH] [-n N] [--repo DIR]` (built once, in cli.py)."""

    __slots__ = ("path", "count", "repo", "fmt")

    def __init__(self, path: str | None = None, count: int = 1, repo: str = ".", fmt: str = "text") -> None:
        self.fmt = fmt
        self.path = path
        self.count = count
        self.repo = repo


def run(req: Request) -> int:
    """0 shown, 1 no logged merge (an Error - not a repository, a broken configuration: 2, from the CLI)."""
    from ..git import toplevel

    say = lambda msg: print(msg)  # noqa: E731
    root = Path(toplevel(req.repo))
    path = None
    if req.path:
        path = os.path.relpath(os.path.abspath(req.path), root) if not req.path.startswith(":") else req.path[1:]
    return review(root, path, req.count, say, req.fmt)
