"""The layers: a keyed merge loads no checks, history, anchors, commands, git
access or pygit2, and the ground floor and the model import nothing above them."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import loaded_by

PACKAGE = Path(__file__).resolve().parent.parent / "mergedrv"

# module (or package) -> the mergedrv modules it may import; the lower layers
GROUND = {"values", "findings", "patterns", "atomic", "errors", "captures", "rx", "bindings", "forge", "spawn", "names", "numbering"}
MODEL = GROUND | {"model"}
LAYERS = {
    **{name: GROUND for name in GROUND},
    "model": MODEL,
    "config": GROUND | {"config"},
    "derived": MODEL | {"config", "derived"},
    # pins: reading and setting them; counting the keys both sides added reads the model and git
    "pins": MODEL | {"pins", "config", "git", "revisions"},
    "mergelog": GROUND | {"mergelog"},
    # the merge: the record model, derived counts and pins as plain values below it
    "merge": MODEL | {"config", "derived", "pins", "mergelog", "merge"},
}
# the driver's own command module (and its package's face) is the entry of a
# merge; no other command may load
DRIVER = {"mergedrv.commands", "mergedrv.commands.merge"}
NEVER_LOADED = ("mergedrv.checks", "mergedrv.history", "mergedrv.anchors", "mergedrv.commands", "mergedrv.git", "pygit2")

BASE = b"# R\n\n| ID | v |\n|---|---|\n| **Group** | |\n| `a` | 1 |\n| `b` | 2 |\n"
CONFIG = '[[record]]\nname = "R"\npath = "*.md"\nkey = "ID"\nkey_pattern = "^`"\n\n[record.columns]\nv = "^[0-9]+$"\n'


def test_a_keyed_merge_with_a_key_pattern_loads_no_upper_layer(tmp_path):
    (tmp_path / ".mergedrv.toml").write_text(CONFIG)
    (tmp_path / "O.md").write_bytes(BASE)
    (tmp_path / "A.md").write_bytes(BASE.replace(b"| `a` | 1 |", b"| `a` | 10 |"))
    (tmp_path / "B.md").write_bytes(BASE + b"| `c` | 3 |\n")
    proc, loaded = loaded_by(tmp_path, ["merge", "O.md", "A.md", "B.md", "-p", "records.md"])
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert (tmp_path / "A.md").read_bytes() == BASE.replace(b"| `a` | 1 |", b"| `a` | 10 |") + b"| `c` | 3 |\n"
    assert "mergedrv.model" in loaded and "mergedrv.config" in loaded  # the keyed path itself ran
    wrong = [m for m in loaded if m not in DRIVER and any(m == n or m.startswith(n + ".") for n in NEVER_LOADED)]
    assert wrong == [], f"a keyed merge loaded {wrong}"


def _imports(path: Path, package: list[str]) -> set[str]:
    """The mergedrv modules ``path`` imports anywhere (top level or inside a
    function), as their first name below mergedrv."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out |= {a.name.split(".")[1] for a in node.names if a.name.startswith("mergedrv.")}
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                parts = (node.module or "").split(".")
                if parts[0] == "mergedrv":
                    out |= {parts[1]} if len(parts) > 1 else {a.name for a in node.names}
                continue
            base = package[: len(package) - node.level + 1]
            parts = base + (node.module.split(".") if node.module else [])
            if len(parts) > 1:
                out.add(parts[1])
            else:
                out |= {a.name for a in node.names}
    return out


def test_the_lower_layers_import_nothing_above_them():
    wrong = []
    for name, allowed in LAYERS.items():
        files = sorted((PACKAGE / name).rglob("*.py")) if (PACKAGE / name).is_dir() else [PACKAGE / f"{name}.py"]
        assert files and all(f.exists() for f in files), name
        for f in files:
            rel = f.relative_to(PACKAGE.parent).with_suffix("").parts
            package = list(rel[:-1]) if f.name != "__init__.py" else list(rel[:-1])
            for target in sorted(_imports(f, package) - allowed):
                wrong.append(f"{f.relative_to(PACKAGE.parent)} imports mergedrv.{target}")
    assert wrong == [], "imports above their layer:\n" + "\n".join(wrong)


def test_install_and_its_hooks_import_one_way():
    # install -> install_hooks -> install_files, and install -> install_files: no circle
    def imported(name: str) -> set[str]:
        tree = ast.parse((PACKAGE / "commands" / f"{name}.py").read_text())
        return {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level == 1 and n.module}

    assert "install" not in imported("install_hooks")
    assert not {"install", "install_hooks"} & imported("install_files")
    assert {"install_hooks", "install_files"} <= imported("install")


def test_the_commit_hooks_checks_load_neither_argparse_nor_subprocess(repo):
    # pre-commit's `check --staged` and commit-msg's call run on every commit:
    # argparse and subprocess cost each ~4 ms of a process
    from tests.checks_helpers import MATRIX, make_records_repo, row_line

    make_records_repo(repo)
    path = repo / MATRIX
    row = row_line(path, "MODEL-TEXT-bloom-bloom-for-causal-lm")
    path.write_text(path.read_text(encoding="utf-8").replace(row, row.replace("| unassigned |", "| someone |"), 1), encoding="utf-8")
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    (repo / "msg").write_text("a message\n")
    for argv in (["check", "--staged"], ["check", "--staged", "--message-file", "msg", "--only", "pin-claims"]):
        proc, loaded = loaded_by(repo, argv)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert not {"argparse", "subprocess", "mergedrv.cli"} & loaded, argv
        if "--message-file" in argv:  # no claim, the configuration unchanged: answered before the checks load
            assert not {"mergedrv.commands.check", "mergedrv.config", "mergedrv.checks"} & loaded


def test_the_commit_msg_quick_path_names_the_configuration_file_as_config_does():
    from mergedrv import config
    from mergedrv.commands import message

    assert message.CONFIG_NAME == config.CONFIG_NAME


def _module_of(path: Path) -> list[str]:
    """``mergedrv/a/b.py`` -> [mergedrv, a, b]; a package's ``__init__.py`` is the package."""
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return parts[:-1] if parts[-1] == "__init__" else parts


def _private_reach_ins(path: Path, modules: set[str]) -> list[str]:
    """Where ``path`` takes another mergedrv module's private name: ``from X
    import _name``, or ``X._name`` on a module it imported.  (A module bound
    under a private alias, ``from .. import config as _config``, is no reach-in.)"""
    module = _module_of(path)
    package = module if path.name == "__init__.py" else module[:-1]
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    bound: dict[str, str] = {}  # local name -> the mergedrv module it stands for
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            bound |= {a.asname: a.name for a in node.names if a.asname and a.name.split(".")[0] == "mergedrv"}
        if not isinstance(node, ast.ImportFrom):
            continue
        base = package[: len(package) - node.level + 1] if node.level else []
        source = base + (node.module.split(".") if node.module else [])
        if source[:1] != ["mergedrv"]:
            continue
        for alias in node.names:
            full = ".".join(source + [alias.name])
            if full in modules:
                bound[alias.asname or alias.name] = full
            if alias.name.startswith("_") and not alias.name.startswith("__") and source != module:
                out.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: from {'.'.join(source)} import {alias.name}")
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in bound
                and node.attr.startswith("_") and not node.attr.startswith("__") and bound[node.value.id] != ".".join(module)):
            out.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: {bound[node.value.id]}.{node.attr}")
    return out


def _all_private_reach_ins(root: Path = PACKAGE) -> list[str]:
    files = sorted(root.rglob("*.py"))
    modules = {".".join(_module_of(f)) for f in files}
    return [found for f in files for found in _private_reach_ins(f, modules)]


def test_no_module_takes_another_modules_private_name():
    # a private name another module uses is public: name it without the underscore
    found = _all_private_reach_ins()
    assert found == [], f"{len(found)} private reach-ins:\n" + "\n".join(found)


def test_the_private_reach_in_rule_sees_both_forms_and_only_across_modules(tmp_path, monkeypatch):
    # the rule itself, on a planted package: each form found once, a module's
    # own private names and a privately aliased module left alone
    pkg = tmp_path / "mergedrv"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "low.py").write_text("_hidden = 1\nshown = 2\n")
    (pkg / "sub" / "__init__.py").write_text("from ..low import _hidden\n")
    (pkg / "sub" / "own.py").write_text("_mine = 1\nfrom .own import _mine\nfrom .. import low as _low\nx = _low.shown\n")
    (pkg / "sub" / "reach.py").write_text("import mergedrv.low as low\nfrom mergedrv import low as again\ny = low._hidden + again._hidden\n")
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", pkg)
    assert _all_private_reach_ins(pkg) == [
        "mergedrv/sub/__init__.py:1: from mergedrv.low import _hidden",
        "mergedrv/sub/reach.py:3: mergedrv.low._hidden",
        "mergedrv/sub/reach.py:3: mergedrv.low._hidden",
    ]
