"""`mergedrv doctor`: is mergedrv really in effect in this clone?

A merge driver that is named but not registered, a record without its
`merge=keyed` line, a hook pointing at a moved virtual environment, a
`core.hooksPath` that bypasses the installed hooks: git says nothing and
merges line by line. doctor asks git what is in effect and prints each
problem with its fix. `--ci` checks only what is committed (the
configuration, the attributes) and writes nothing.

Exit 0: all in effect; 1: problems (each with its fix); 2: not a repository
(an errors.Error, printed by cli.py's one handler).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

from ..git import run as run_git
from ..values import Value

_HOOK_EXE = re.compile(r'MERGEDRV=\$\{MERGEDRV:-\\?"((?:[^"\\]|\\.)*?)\\?"\}')


class Report:
    def __init__(self) -> None:
        self.problems: list[str] = []
        self.fine: list[str] = []

    def bad(self, what: str, fix: str) -> None:
        self.problems.append(f"{what}; fix: {fix}")

    def ok(self, what: str) -> None:
        self.fine.append(what)


def _out(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def _runnable(command: list[str]) -> str | None:
    """None if ``command --version`` runs as mergedrv, else why not."""
    exe = command[0]
    if os.sep in exe:
        if not os.path.exists(exe):
            return f"{exe} does not exist (a moved or deleted virtual environment?)"
        if not os.access(exe, os.X_OK):
            return f"{exe} is not executable"
    else:
        import shutil

        if shutil.which(exe) is None:
            return f"{exe} is not on PATH"
    try:
        proc = subprocess.run([*command, "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{shlex.join(command)} cannot run: {exc}"
    if proc.returncode != 0 or "mergedrv" not in proc.stdout:
        why = (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[-1]
        return f"{shlex.join(command)} --version failed: {why}"
    return None


def _paths(root: Path, cfg) -> list[str]:
    """Every path whose attributes matter: records, logs (globs: their tracked files) and the config."""
    from ..config import CONFIG_NAME, glob_match, is_glob

    listed = None
    out: list[str] = []
    for pattern in [r.path for r in cfg.records] + [log.path for log in cfg.logs]:
        if is_glob(pattern):
            if listed is None:
                listed = _out(run_git(root, "ls-files", "-z").stdout).split("\0")
            out += [p for p in listed if p and glob_match(pattern, p)]
        else:
            out.append(pattern)
    out.append(CONFIG_NAME)
    return list(dict.fromkeys(out))


def check_files(root: Path, cfg, committed: bool, report: Report) -> None:
    """Each record's and log's path names a tracked file (a glob: at least one);
    a path that matches nothing is checked and merged by nobody, silently."""
    from ..config import CONFIG_NAME, glob_match, is_glob

    listing = ("ls-tree", "-r", "-z", "--name-only", "HEAD") if committed else ("ls-files", "-z")
    tracked = set(_out(run_git(root, *listing).stdout).split("\0"))
    for entry, kind in [(r, "record") for r in cfg.records] + [(log, "log") for log in cfg.logs]:
        pattern = entry.path
        if (any(glob_match(pattern, p) for p in tracked if p) if is_glob(pattern) else pattern in tracked):
            continue
        name = f" {entry.name}" if getattr(entry, "name", None) else ""
        report.bad(f"{CONFIG_NAME}:{getattr(entry, 'line', 0) or 1}: [{kind}]{name}: path {pattern!r} matches no tracked file",
                   "correct the path (it is relative to the repository's top folder), or remove the entry")


def check_attributes(root: Path, cfg, committed: bool, report: Report) -> None:
    from .install_files import DRIVER

    paths = _paths(root, cfg)
    ran = run_git(root, "check-attr", "-z", *(["--cached"] if committed else []), "merge", "--", *paths)
    if not ran.ok:
        report.bad(f"git check-attr failed: {_out(ran.stderr).strip()}", "run doctor inside the repository")
        return
    parts = _out(ran.stdout).split("\0")
    missing = []
    for i in range(0, len(parts) - 2, 3):
        path, value = parts[i], parts[i + 2]
        if value != DRIVER:
            missing.append((path, value))
    for path, value in missing:
        shown = "no merge attribute" if value == "unspecified" else f"merge={value}" if value not in ("set", "unset") else f"merge {value}"
        report.bad(
            f"{path}: {shown} in effect, not merge={DRIVER}: git merges it line by line, silently (the record's attribute line is missing)",
            "mergedrv install (writes the .gitattributes block from .mergedrv.toml), then commit .gitattributes",
        )
    if not missing:
        report.ok(f"merge={DRIVER} in effect for all {len(paths)} record, log and config paths ({'committed' if committed else 'working tree'} .gitattributes)")


def check_block(root: Path, cfg, report: Report) -> None:
    """The committed `.gitattributes` block lists exactly the configuration's paths."""
    from .install_files import attribute_lines
    from .install_files import InstallError, find_block

    ran = run_git(root, "show", "HEAD:.gitattributes")
    if not ran.ok:
        report.bad(".gitattributes is not committed: a fresh clone merges the records line by line", "mergedrv install, then git add .gitattributes && git commit")
        return
    lines = _out(ran.stdout).splitlines(keepends=True)
    try:
        span = find_block(lines)
    except InstallError as exc:
        report.bad(f".gitattributes:{exc}", "remove the broken block, then mergedrv install")
        return
    if span is None:
        report.ok(".gitattributes has no mergedrv block (attributes written by hand)")
        return
    have = [line.strip() for line in lines[span[0] + 1 : span[1] - 1] if line.strip() and not line.lstrip().startswith("#")]
    want = [line.strip() for line in attribute_lines(cfg, counted=False)]
    counted = [line.strip() for line in attribute_lines(cfg) if line.strip() not in want]  # (optional: an older install's block lacks them)
    absent = [w for w in want if w not in have]
    extra = [h for h in have if h not in want and h not in counted]
    if absent or extra:
        what = "; ".join(
            ([f"lacks {', '.join(repr(a) for a in absent)}"] if absent else []) + ([f"still has {', '.join(repr(e) for e in extra)}"] if extra else [])
        )
        report.bad(
            f".gitattributes:{span[0] + 1}: the committed mergedrv block does not match .mergedrv.toml: it {what}",
            "mergedrv install, then git add .gitattributes && git commit",
        )
    elif any(c not in have for c in counted):
        report.ok(f".gitattributes:{span[0] + 1}: the committed mergedrv block matches .mergedrv.toml; the files its counts "
                  "name merge as text (`mergedrv install` adds them: their numbers then merge as counters)")
    else:
        report.ok(f".gitattributes:{span[0] + 1}: the committed mergedrv block matches .mergedrv.toml")


def check_driver(root: Path, report: Report) -> None:
    from .install_files import DRIVER

    ran = run_git(root, "config", "--get", f"merge.{DRIVER}.driver")
    if not ran.ok:
        report.bad(f"merge.{DRIVER}.driver is not set in this clone: git falls back to its line merge without a word", "mergedrv install")
        return
    value = _out(ran.stdout).strip()
    try:
        words = shlex.split(value)
    except ValueError:
        report.bad(f"merge.{DRIVER}.driver = {value}: not a command line", "mergedrv install")
        return
    if "then" in words:  # install's line: `if test -x EXE; then EXE merge ...; fi; git merge-file ...`
        words = words[words.index("then") + 1 :]
    command = words[: words.index("merge")] if "merge" in words else words[:1]
    if "%A" not in words or "%O" not in words or "%B" not in words:
        report.bad(f"merge.{DRIVER}.driver = {value}: lacks %O %A %B", "mergedrv install")
        return
    why = _runnable(command)
    if why is not None:
        report.bad(f"merge.{DRIVER}.driver: {why}", "mergedrv install (from where mergedrv is installed now)")
    else:
        report.ok(f"merge.{DRIVER}.driver runs {shlex.join(command)}")


def _hook_exe(text: str) -> list[str] | None:
    m = _HOOK_EXE.search(text)
    if m is None:
        return None
    return [re.sub(r"\\(.)", r"\1", m.group(1))]


def check_hooks(root: Path, report: Report) -> None:
    from .install_files import FRAMEWORK_STAGES, HOOK_MARK, STAGES, locate

    where = locate(root)
    from .install_hooks import configured_elsewhere

    framework_text = (root / ".pre-commit-config.yaml").read_text(errors="replace") if (root / ".pre-commit-config.yaml").is_file() else ""
    framework = "mergedrv-staged" in framework_text or "id: mergedrv" in framework_text or configured_elsewhere(framework_text, None)
    default = where.common / "hooks"
    stages = list(STAGES)
    exes: set[str] = set()
    missing = []
    for stage in stages:
        path = where.hooks / stage
        try:
            text = path.read_text(errors="replace")
        except OSError:
            text = None
        if framework and stage in FRAMEWORK_STAGES:
            if text is None or "pre-commit" not in text:
                missing.append(stage)
            continue
        if text is None or HOOK_MARK not in text:
            missing.append(stage)
            continue
        if not os.access(path, os.X_OK):
            report.bad(f"{path}: not executable: git skips it", f"chmod +x {path}")
        exe = _hook_exe(text)
        if exe:
            exes.add(exe[0])
    if framework:
        exe = _hook_exe((root / ".pre-commit-config.yaml").read_text(errors="replace"))
        if exe:
            exes.add(exe[0])
    shown = os.path.relpath(where.hooks, root)
    if missing:
        bypass = ""
        if where.hooks_path_set and where.hooks.resolve() != default.resolve() and any(
            HOOK_MARK in (default / s).read_text(errors="replace") for s in missing if (default / s).is_file()
        ):
            bypass = f" (core.hooksPath = {shown} bypasses the mergedrv hooks installed in {os.path.relpath(default, root)})"
        report.bad(
            f"hooks {', '.join(missing)} of mergedrv are not in {shown}{bypass}: the record checks do not run at commit and merge",
            "mergedrv install (installs into the hooks folder git uses, core.hooksPath included)" + (", or git config --unset core.hooksPath" if bypass else ""),
        )
    broken = {exe: _runnable([exe]) for exe in sorted(exes)}
    for exe, why in broken.items():
        if why is not None:
            report.bad(f"the hooks run {exe}: {why}; they skip every check (they never block git when mergedrv is missing)", "mergedrv install (from where mergedrv is installed now)")
    if not missing and not any(broken.values()):
        report.ok(f"hooks {', '.join(stages)} in {shown} run mergedrv" + (f" ({', '.join(sorted(exes))})" if exes else ""))


def doctor(root: Path, ci: bool, report: Report) -> None:
    from .. import config as cfgmod

    if ci:
        ran = run_git(root, "show", f"HEAD:{cfgmod.CONFIG_NAME}")
        if not ran.ok:
            report.bad(f"{cfgmod.CONFIG_NAME} is not committed", f"mergedrv init, then commit {cfgmod.CONFIG_NAME}")
            return
        cfg = cfgmod.load_bytes(ran.stdout, cfgmod.CONFIG_NAME, f"HEAD:{cfgmod.CONFIG_NAME}")
    else:
        path = root / cfgmod.CONFIG_NAME
        if not path.is_file():
            report.bad(f"no {cfgmod.CONFIG_NAME}: no file merges by key", "mergedrv init, review it, then mergedrv install")
            return
        cfg = cfgmod.load(path)
    report.ok(f"{cfgmod.CONFIG_NAME}: {len(cfg.records)} record(s), {len(cfg.logs)} log(s)")
    check_files(root, cfg, ci, report)
    check_attributes(root, cfg, ci, report)
    check_block(root, cfg, report)
    if not ci:
        check_driver(root, report)
        check_hooks(root, report)


class Request(Value):
    """`mergedrv doctor [--ci] [--repo DIR]` (built once, in cli.py)."""

    __slots__ = ("repo", "ci", "fmt")

    def __init__(self, repo: str = ".", ci: bool = False, fmt: str = "text") -> None:
        self.fmt = fmt
        self.repo = repo
        self.ci = ci


def run(req: Request) -> int:
    """0 all in effect, 1 problems (an Error - not a repository, a broken configuration: 2, from the CLI)."""
    from ..git import toplevel

    root = Path(toplevel(req.repo))
    report = Report()
    doctor(root, req.ci, report)
    n = len(report.problems)
    if req.fmt == "json":
        import json

        print(json.dumps({"in_effect": not n, "ci": req.ci, "ok": report.fine, "problems": report.problems}, indent=1))
        return 1 if n else 0
    for line in report.fine:
        print(f"ok: {line}")
    for line in report.problems:
        print(f"problem: {line}")
    print(f"mergedrv doctor{' --ci' if req.ci else ''}: {'all in effect' if not n else f'{n} problem(s)'}", file=sys.stderr)
    return 1 if n else 0
