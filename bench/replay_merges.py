#!/usr/bin/env python3
"""Replay a repository's real merges of markdown files with mergedrv and with
plain git, and compare both with what the maintainer kept.

For every merge commit with two parents (newest first, up to --limit) and
every markdown file both parents changed since their merge base, the three
blobs (base, ours = first parent, theirs = second parent) are merged by
`git merge-file -p` and by mergedrv's driver entry (`merge_bytes`, what the
driver runs; --process starts the driver as `mergedrv install` has git start
it, in a temporary git repository), and each result is compared with the
merge commit's blob.  The configuration is `mergedrv init --print`'s
unedited proposal made at the merge's first parent (cached per first parent;
--init-at-head makes one proposal at HEAD), or --config FILE, or
--config committed (the `.mergedrv.toml` the first parent holds).

Each file merge is put in one class (git's outcome / mergedrv's):

    same          mergedrv's result is git's, byte for byte (clean or not)
    WIN           git conflicted; mergedrv clean and what the maintainer kept
    WORSE         git clean and kept; mergedrv conflicted
    WRONG         git clean and kept; mergedrv clean and something else (silently wrong)
    better        git clean but not kept; mergedrv clean and kept
    review-clean  git conflicted; mergedrv clean but not what was kept
    review-both   git clean, not kept; mergedrv clean, neither git's nor kept
    review-confl  git clean, not kept; mergedrv conflicted
    other-confl   both conflicted, mergedrv's text not git's (git's is read
                  with --diff3, the style of mergedrv's text merge; a clean
                  result is the same in every style)

"Kept" compares after normalising trailing whitespace: CRLF read as LF,
trailing blanks and tabs of each line dropped, blank lines at the end of the
file dropped.  A maintainer's editor does that to a file they resolve by hand,
and no merge can know it; no cell, row or line order changes under it.  The
table says how many "kept" results were also byte-exact.

Merges whose parents have more than one merge base (criss-cross) are
skipped (git would merge a virtual ancestor), as are files added, deleted
or renamed on a side, and files both sides changed to the same blob.
Every WORSE, WRONG and review case is listed with its merge and path.

    .venv/bin/python bench/replay_merges.py CLONE [--limit 300] [--config FILE|committed]
        [--init-at-head] [--process] [--show N] [--json]

CLONE is an ordinary (non-bare) clone; a detached worktree of it, holding
only its markdown, is made in a temporary directory for init and removed.
Exit status 0, or 1 when any merge is WORSE or WRONG.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from mergedrv import config as cfgmod  # noqa: E402
from mergedrv.merge.driver import merge_bytes  # noqa: E402
from mergedrv.merge.values import Markers  # noqa: E402

MD = ("*.md", "*.markdown", "*.MD")
CLASSES = ("same", "WIN", "WORSE", "WRONG", "better", "review-clean", "review-both", "review-confl", "other-confl")
FAILING = ("WORSE", "WRONG")
MARKERS = Markers(7, "base", "ours", "theirs")


def git(repo: str | Path, *args: str, check: bool = True) -> str:
    out = subprocess.run(["git", "-C", str(repo), *args], capture_output=True)
    if check and out.returncode != 0:
        raise SystemExit(f"replay_merges: git {' '.join(args)}: {out.stderr.decode(errors='replace').strip()}")
    return out.stdout.decode("utf-8", "surrogateescape")


def norm(data: bytes) -> bytes:
    """Trailing whitespace normalised (see the module docstring)."""
    lines = data.replace(b"\r\n", b"\n").split(b"\n")
    return b"\n".join(line.rstrip(b" \t\r") for line in lines).rstrip(b"\n")


def classify(git_clean: bool, git_out: bytes, md_clean: bool, md_out: bytes, kept: bytes) -> str:
    """One file merge's class (see the module docstring)."""
    if md_clean == git_clean and md_out == git_out:
        return "same"
    g_kept = git_clean and norm(git_out) == norm(kept)
    m_kept = md_clean and norm(md_out) == norm(kept)
    if git_clean and md_clean and norm(git_out) == norm(md_out):
        return "same"  # only trailing whitespace apart
    if not git_clean:
        if not md_clean:
            return "other-confl"
        return "WIN" if m_kept else "review-clean"
    if g_kept:
        if not md_clean:
            return "WORSE"
        return "same" if m_kept else "WRONG"
    if not md_clean:
        return "review-confl"
    return "better" if m_kept else "review-both"


class Blobs:
    """One `git cat-file --batch` for every blob read."""

    def __init__(self, repo: str | Path) -> None:
        self.proc = subprocess.Popen(["git", "-C", str(repo), "cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def get(self, rev: str, path: str) -> bytes | None:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(f"{rev}:{path}\n".encode("utf-8", "surrogateescape"))
        self.proc.stdin.flush()
        header = self.proc.stdout.readline().split()
        if len(header) < 3 or header[1] != b"blob":
            return None
        data = self.proc.stdout.read(int(header[2]))
        self.proc.stdout.read(1)
        return data

    def close(self) -> None:
        assert self.proc.stdin
        self.proc.stdin.close()
        self.proc.wait()


def merges(repo: str | Path, limit: int, rev: str) -> list[tuple[str, str, str]]:
    out = []
    for line in git(repo, "rev-list", "--merges", "--parents", rev).splitlines():
        ids = line.split()
        if len(ids) == 3:
            out.append((ids[0], ids[1], ids[2]))
        if len(out) >= limit:
            break
    return out


def changed(repo: str | Path, a: str, b: str) -> dict[str, str]:
    """Markdown paths changed from a to b, with their status (M only kept by the caller)."""
    raw = git(repo, "diff", "--no-renames", "--name-status", "-z", a, b, "--", *MD)
    parts = raw.split("\0")
    return {parts[i + 1]: parts[i] for i in range(0, len(parts) - 1, 2)}


def git_merge(tmp: Path, base: bytes, ours: bytes, theirs: bytes) -> tuple[bool, bytes]:
    names = []
    for name, data in (("o", ours), ("b", base), ("t", theirs)):
        (tmp / name).write_bytes(data)
        names.append(str(tmp / name))
    res = subprocess.run(["git", "merge-file", "-p", "--diff3", "-L", "ours", "-L", "base", "-L", "theirs", *names], capture_output=True)
    if res.returncode < 0 or res.returncode > 127:
        raise SystemExit(f"replay_merges: git merge-file failed: {res.stderr.decode(errors='replace')}")
    return res.returncode == 0, res.stdout


def driver_process(tmp: Path, path: str, base: bytes, ours: bytes, theirs: bytes, cfg_path: str) -> tuple[bool, bytes]:
    """The driver started as git starts it, in the temporary repository ``tmp``."""
    from mergedrv.commands.install_files import driver_start, executable

    files = []
    for name, data in (("O", base), ("A", ours), ("B", theirs)):
        (tmp / name).write_bytes(data)
        files.append(str(tmp / name))
    argv = [*driver_start(executable()), "merge", *files, "-p", path, "-l", "7", "-s", "base", "-x", "ours", "-y", "theirs",
            "--config", cfg_path]
    res = subprocess.run(argv, cwd=tmp, capture_output=True)
    if res.returncode not in (0, 1):
        raise SystemExit(f"replay_merges: the driver exited {res.returncode}: {res.stderr.decode(errors='replace')}")
    return res.returncode == 0, (tmp / "A").read_bytes()


class Configs:
    """The configuration each merge runs with: init's proposal at a commit (cached), or one given."""

    def __init__(self, repo: Path, tmp: Path, given: str | None, at_head: bool) -> None:
        self.repo, self.tmp, self.given, self.at_head = repo, tmp, given, at_head
        self.cache: dict[str, str | None] = {}
        self.tree: Path | None = None
        self.seconds = 0.0

    def _worktree(self) -> Path:
        if self.tree is None:
            self.tree = self.tmp / "tree"
            git(self.repo, "worktree", "add", "-q", "--detach", "--no-checkout", str(self.tree), "HEAD")
            git(self.tree, "sparse-checkout", "set", "--no-cone", *MD, "/.mergedrv.toml", "/.gitattributes")
        return self.tree

    def for_commit(self, commit: str, blobs: Blobs) -> str | None:
        """The path of the configuration file for a merge whose first parent is ``commit`` (None: no proposal)."""
        if self.given and self.given != "committed":
            return self.given
        key = "HEAD" if self.at_head else commit
        if key not in self.cache:
            self.cache[key] = self._make(key, blobs)
        return self.cache[key]

    def _make(self, commit: str, blobs: Blobs) -> str | None:
        out = self.tmp / f"cfg-{len(self.cache)}.toml"
        if self.given == "committed":
            data = blobs.get(commit, ".mergedrv.toml")
            if data is None:
                return None
            out.write_bytes(data)
            return str(out)
        tree = self._worktree()
        git(tree, "checkout", "-q", "--detach", "--force", commit, check=False)
        t0 = time.perf_counter()
        # this checkout's mergedrv, as the merges use (the run's directory is not on the import path)
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (str(HERE.parent), os.environ.get("PYTHONPATH"))))}
        res = subprocess.run([sys.executable, "-m", "mergedrv", "init", "--print", "--force", "--repo", str(tree)], capture_output=True, env=env)
        self.seconds += time.perf_counter() - t0
        if res.returncode != 0 or not res.stdout.strip():
            return None
        out.write_bytes(res.stdout)
        return str(out)

    def close(self) -> None:
        if self.tree is not None:
            git(self.repo, "worktree", "remove", "--force", str(self.tree), check=False)


def declared(cfg_path: str | None, path: str) -> bool:
    if cfg_path is None:
        return False
    try:
        cfg = cfgmod.load(cfg_path)
    except cfgmod.ConfigError:
        return False
    return cfg.record_for(path) is not None or cfg.log_for(path) is not None


def replay(repo: Path, limit: int = 300, rev: str = "HEAD", config: str | None = None, at_head: bool = False,
           process: bool = False) -> dict:
    """Every file merge replayed: {'rows': [...], 'counts': {...}, ...}."""
    with tempfile.TemporaryDirectory(prefix="replay-") as tmpdir:
        tmp = Path(tmpdir)
        work = tmp / "work"
        work.mkdir()
        subprocess.run(["git", "init", "-q", str(work)], check=True)
        blobs = Blobs(repo)
        configs = Configs(repo, tmp, config, at_head)
        rows: list[dict] = []
        skipped = {"criss-cross": 0, "added/deleted": 0, "same change": 0}
        cwd = os.getcwd()
        os.chdir(work)  # what the driver writes beside a merge (the pins it could not count) stays here
        try:
            todo = merges(repo, limit, rev)
            for m, p1, p2 in todo:
                bases = git(repo, "merge-base", "--all", p1, p2, check=False).split()
                if len(bases) != 1:
                    skipped["criss-cross"] += 1
                    continue
                base = bases[0]
                ours_ch, theirs_ch = changed(repo, base, p1), changed(repo, base, p2)
                for path in sorted(set(ours_ch) & set(theirs_ch)):
                    if ours_ch[path] != "M" or theirs_ch[path] != "M":
                        skipped["added/deleted"] += 1
                        continue
                    b, o, t, k = (blobs.get(c, path) for c in (base, p1, p2, m))
                    if b is None or o is None or t is None or k is None:
                        skipped["added/deleted"] += 1
                        continue
                    if o == t:
                        skipped["same change"] += 1
                        continue
                    rows.append(one(work, m, p1, path, b, o, t, k, configs.for_commit(p1, blobs), process))
        finally:
            os.chdir(cwd)
            blobs.close()
            configs.close()
        counts = {c: sum(1 for r in rows if r["class"] == c) for c in CLASSES}
        return {"merges": len(todo), "file_merges": len(rows), "skipped": skipped, "counts": counts, "rows": rows,
                "declared": sum(1 for r in rows if r["declared"]), "init_seconds": round(configs.seconds, 2),
                "proposals": len(configs.cache)}


def one(work: Path, m: str, p1: str, path: str, b: bytes, o: bytes, t: bytes, k: bytes, cfg_path: str | None,
        process: bool) -> dict:
    g_clean, g_out = git_merge(work, b, o, t)
    if cfg_path is None:
        d_clean, d_out = g_clean, g_out  # no configuration: the driver merges as plain text, git's merge
    elif process:
        d_clean, d_out = driver_process(work, path, b, o, t, cfg_path)
    else:
        result = merge_bytes(path, b, o, t, cfg_path, MARKERS, lambda _msg: None)
        d_clean, d_out = not result.conflicts, result.data
    cls = classify(g_clean, g_out, d_clean, d_out, k)
    exact = (d_clean and d_out == k) if cls in ("WIN", "better") else None
    return {"merge": m[:12], "first_parent": p1[:12], "path": path, "class": cls, "declared": declared(cfg_path, path),
            "git_clean": g_clean, "driver_clean": d_clean, "git_kept": g_clean and norm(g_out) == norm(k),
            "driver_kept": d_clean and norm(d_out) == norm(k), "exact": exact}


def print_table(name: str, report: dict, show: int) -> None:
    c = report["counts"]
    print(f"{name}: {report['merges']} merges, {report['file_merges']} file merges "
          f"({report['declared']} declared by the configuration; {report['proposals']} proposals, "
          f"{report['init_seconds']} s in init); skipped: " + ", ".join(f"{k} {v}" for k, v in report["skipped"].items()))
    conflicted = sum(1 for r in report["rows"] if not r["git_clean"])
    still = sum(1 for r in report["rows"] if not r["driver_clean"])
    print(f"git conflicted in {conflicted} file merges, mergedrv in {still}")
    print("| " + " | ".join(CLASSES) + " |")
    print("|" + "---|" * len(CLASSES))
    print("| " + " | ".join(str(c[k]) for k in CLASSES) + " |")
    exact = [r for r in report["rows"] if r["class"] in ("WIN", "better")]
    if exact:
        print(f"kept byte for byte: {sum(1 for r in exact if r['exact'])} of {len(exact)} WIN/better")
    listed = [r for r in report["rows"] if r["class"] in FAILING or r["class"].startswith("review") or r["class"] == "other-confl"]
    for r in listed[: show if show >= 0 else None]:
        print(f"  {r['class']:<13} {r['merge']} {r['path']}")
    if show >= 0 and len(listed) > show:
        print(f"  ... {len(listed) - show} more")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("repo", help="a non-bare clone of the repository")
    ap.add_argument("--limit", type=int, default=300, help="the newest N two-parent merges (default 300)")
    ap.add_argument("--rev", default="HEAD", help="walk merges reachable from this revision")
    ap.add_argument("--config", help="a .mergedrv.toml to use for every merge, or 'committed' (the first parent's)")
    ap.add_argument("--init-at-head", action="store_true", help="one init proposal, made at HEAD")
    ap.add_argument("--process", action="store_true", help="start the driver as git does, one process a file merge")
    ap.add_argument("--show", type=int, default=-1, help="list at most N cases (default: all)")
    ap.add_argument("--json", action="store_true", help="print the whole report as JSON")
    args = ap.parse_args(argv)
    repo = Path(args.repo).resolve()
    if not (repo / ".git").exists():
        print(f"replay_merges: {repo} is not a non-bare clone (no .git)", file=sys.stderr)
        return 2
    if args.config and args.config != "committed":
        args.config = str(Path(args.config).resolve())
        try:
            cfgmod.load(args.config)
        except (cfgmod.ConfigError, OSError) as exc:
            print(f"replay_merges: {args.config}: {exc}", file=sys.stderr)
            return 2
    t0 = time.perf_counter()
    report = replay(repo, args.limit, args.rev, args.config, args.init_at_head, args.process)
    report["seconds"] = round(time.perf_counter() - t0, 1)
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print_table(repo.name, report, args.show)
        print(f"{report['seconds']} s")
    return 1 if any(report["counts"][k] for k in FAILING) else 0


if __name__ == "__main__":
    sys.exit(main())
