"""The size limit left of the redesign's (issue #11), read from the source
with ast: no function over 60 lines.  Modules and classes have no line limit:
a file split only to stay short shares private names, which the layer test's
private reach-in rule (tests/test_layers.py) forbids instead."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "mergedrv"
FUNCTION = 60


def _too_long() -> list[str]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(PACKAGE.parent)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > FUNCTION:
                    out.append(f"{name}:{node.lineno}: {node.name}: {length} lines (limit {FUNCTION})")
    return out


def test_no_function_over_its_limit():
    assert _too_long() == []


def test_the_limit_is_measured(tmp_path):
    # the measure itself: a 61-line function is one over
    body = "\n".join(f"    x{i} = {i}" for i in range(60))
    tree = ast.parse(f"def f():\n{body}\n")
    node = tree.body[0]
    assert node.end_lineno - node.lineno + 1 == 61 > FUNCTION
