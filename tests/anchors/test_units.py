"""Anchors, piece by piece: citation forms, tree-sitter definitions (checked
against Python's own ast on real code), and removal attribution in git."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from mergedrv.anchors import citations, definitions
from mergedrv.anchors.upstream import Upstream
from tests.helpers import commit
from tests.helpers import DATA, ROOT, git

# --- citation forms -------------------------------------------------------------


def found(text: str) -> list[tuple]:
    return [(written, path, symbol, lines) for _, written, path, symbol, lines in citations.find(text)]


def test_citation_forms() -> None:
    text = (
        "| `A` | `vllm/v1/core/kv_cache_utils.py::get_num_blocks`; registry.py:82-83 |\n"
        "Prose: see fused_moe/cpu_fused_moe.py::select_experts, then `pkg/m.py::Cls.method()`.\n"
        "Lines `mla_attention.py:789,1034-1040` and .agents/specs/fp8-kv-cache.md:128.\n"
        "C++: `csrc/ops.h::vt::RmsNorm` and `kernels/attn.cu:12`; escaped `a\\_b.py::f\\_g`.\n"
    )
    assert found(text) == [
        ("vllm/v1/core/kv_cache_utils.py::get_num_blocks", "vllm/v1/core/kv_cache_utils.py", "get_num_blocks", None),
        ("registry.py:82-83", "registry.py", None, (82, 83)),
        ("fused_moe/cpu_fused_moe.py::select_experts", "fused_moe/cpu_fused_moe.py", "select_experts", None),
        ("pkg/m.py::Cls.method", "pkg/m.py", "Cls.method", None),
        ("mla_attention.py:789", "mla_attention.py", None, (789, 789)),
        ("mla_attention.py:1034-1040", "mla_attention.py", None, (1034, 1040)),
        (".agents/specs/fp8-kv-cache.md:128", ".agents/specs/fp8-kv-cache.md", None, (128, 128)),
        ("csrc/ops.h::vt::RmsNorm", "csrc/ops.h", "vt::RmsNorm", None),
        ("kernels/attn.cu:12", "kernels/attn.cu", None, (12, 12)),
        ("a_b.py::f_g", "a_b.py", "f_g", None),
    ]


@pytest.mark.parametrize(
    "text",
    [
        "https://github.com/org/repo/blob/main/x.py:12",  # a URL
        "http://localhost.localdomain:8080/",
        "`vt::RmsNorm` and `TritonMLABackend::get_impl_cls()`",  # no file
        "the ratio 1.5:3 and e.g.: 12",
        "`ns::a.h::Foo`",  # a path must not follow ::
        "x.py:12abc",
    ],
)
def test_not_citations(text: str) -> None:
    assert found(text) == []


def test_real_record_rows_carry_their_citations() -> None:
    data = (DATA / "model-matrix.f887c34c.md").read_bytes()
    cites = citations.scan(".agents/model-matrix.md", data, key="ID", record="MODEL", show=("State",))
    by_text = {}
    for c in cites:
        by_text.setdefault(c.text, []).append(c)
    afmoe = by_text["registry.py:73"][0]
    assert (afmoe.key, afmoe.record, afmoe.shown, afmoe.lines) == ("MODEL-TEXT-afmoe-afmoe-for-causal-lm", "MODEL", "INVENTORIED", (73, 73))
    symbol = by_text["vllm/model_executor/models/afmoe.py::AfmoeForCausalLM"][0]
    assert symbol.key == "MODEL-TEXT-afmoe-afmoe-for-causal-lm" and symbol.line == afmoe.line
    assert len(cites) > 500
    # citations outside keyed rows are carried by file:line
    prose = [c for c in cites if c.key is None]
    assert prose and all(c.carrier == f"{c.file}:{c.line}" for c in prose)


# --- definitions ----------------------------------------------------------------

PY = b'''\
import os, a.b as c
from x import (y as z, w)
X = 1
A, B = 1, 2
C: int = 3
D = E = 4
type T = int
if True:
    def f(): pass
else:
    g = 1
try:
    import q
except ImportError:
    q = None

@dec
class K(Base):
    a = 1
    @property
    def m(self): pass
    async def am(self): pass
    class In:
        def n(self): pass

def get_num_blocks(): pass

def outer():
    def inner(): pass
'''


def test_python_definitions() -> None:
    syms = definitions.symbols("m.py", PY)
    got = {(d.qualname, d.kind) for d in syms.definitions}
    assert got == {
        ("X", "variable"), ("A", "variable"), ("B", "variable"), ("C", "variable"), ("D", "variable"), ("E", "variable"),
        ("T", "type"), ("f", "function"), ("g", "variable"), ("q", "variable"), ("K", "class"), ("K.a", "attribute"),
        ("K.m", "method"), ("K.am", "method"), ("K.In", "class"), ("K.In.n", "method"), ("get_num_blocks", "function"),
        ("outer", "function"),
    }
    assert syms.imports == {"os": 1, "c": 1, "z": 2, "w": 2, "q": 13}
    assert [d.line for d in syms.find("K.m")] == [21]
    assert syms.find("m") == []  # a method is never a free function
    assert syms.find("In.n") == []  # the whole class qualification is needed
    assert [d.qualname for d in syms.find("K.In.n")] == ["K.In.n"]
    assert syms.find("inner") == []  # nested functions are not module definitions
    assert syms.find("os") == []  # an import is not a definition


def test_a_method_is_not_the_free_function() -> None:
    src = b"class A:\n    def get_num_blocks(self): pass\nclass B:\n    def get_num_blocks(self): pass\n"
    syms = definitions.symbols("kv_cache_utils.py", src)
    assert syms.find("get_num_blocks") == []
    assert [d.describe() for d in syms.named("get_num_blocks")] == ["method of A", "method of B"]


CPP = b"""\
#pragma once
#define VT_MAX 1
#define VT_CALL(x) x
namespace vt { namespace detail {
int RmsNorm(int a);
template <typename T> T Max(T a) { return a; }
class Attn : public Base {
 public:
  void forward();
  int heads() const { return 1; }
  int n;
  struct Inner { int q; };
  enum class Kind { kA, kB };
  Attn();
  ~Attn();
  static Attn* make();
};
void Attn::forward() {}
} }
void vt::detail::Attn::extra() {}
extern "C" { void cfun(void); }
typedef struct { int x; } Pod;
using Alias = int;
enum Color { kRed, kGreen };
static const int kVal = 3;
#ifdef USE_X
void ifdef_fn() {}
#endif
const char* name_of(int x) { return 0; }
"""


def test_cpp_definitions() -> None:
    syms = definitions.symbols("ops.h", CPP)
    got = {(d.namespace, d.qualname, d.kind) for d in syms.definitions}
    for item in [
        ("", "VT_MAX", "macro"), ("", "VT_CALL", "macro"),
        ("vt.detail", "RmsNorm", "function"), ("vt.detail", "Max", "function"), ("vt.detail", "Attn", "class"),
        ("vt.detail", "Attn.forward", "method"), ("vt.detail", "Attn.heads", "method"), ("vt.detail", "Attn.n", "attribute"),
        ("vt.detail", "Attn.Inner", "class"), ("vt.detail", "Attn.Inner.q", "attribute"), ("vt.detail", "Attn.Kind.kA", "enumerator"),
        ("vt.detail", "Attn.Attn", "method"), ("vt.detail", "Attn.~Attn", "method"), ("vt.detail", "Attn.make", "method"),
        ("vt.detail", "Attn.extra", "method"), ("", "cfun", "function"), ("", "Pod", "type"), ("", "Pod.x", "attribute"),
        ("", "Alias", "type"), ("", "Color", "type"), ("", "kRed", "enumerator"), ("", "Color.kRed", "enumerator"),
        ("", "kVal", "variable"), ("", "ifdef_fn", "function"), ("", "name_of", "function"),
    ]:
        assert item in got, item
    assert ("vt.detail", "kA", "enumerator") not in got  # enum class members stay scoped
    assert [d.line for d in syms.find("vt::detail::Attn::forward")] == [9, 18]  # declaration and out-of-line body
    assert len(syms.find("Attn::forward")) == 2 and len(syms.find("detail::Attn.forward()")) == 2
    assert syms.find("forward") == [] and syms.find("heads") == []
    assert [d.line for d in syms.find("RmsNorm")] == [5] and [d.line for d in syms.find("vt::detail::RmsNorm")] == [5]


def test_c_definitions() -> None:
    src = b"#include <stdio.h>\nstruct point { int x; };\nstatic int add(int a, int b) { return a + b; }\nint counter = 0;\n"
    syms = definitions.symbols("m.c", src)
    assert {(d.qualname, d.kind) for d in syms.definitions} == {("point", "class"), ("point.x", "attribute"), ("add", "function"), ("counter", "variable")}


def _ast_definitions(source: bytes) -> set[tuple[str, str]]:
    """The oracle: what Python's ast says a module and its classes define."""
    out: set[tuple[str, str]] = set()

    def names(t) -> list[str]:
        if isinstance(t, ast.Name):
            return [t.id]
        if isinstance(t, (ast.Tuple, ast.List)):
            return [n for e in t.elts for n in names(e)]
        return []

    def block(body, owner: str) -> None:
        for n in body:
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out.add((owner + n.name, "method" if owner else "function"))
            elif isinstance(n, ast.ClassDef):
                out.add((owner + n.name, "class"))
                block(n.body, owner + n.name + ".")
            elif isinstance(n, (ast.Assign, ast.AnnAssign)):
                for t in n.targets if isinstance(n, ast.Assign) else [n.target]:
                    out.update((owner + name, "attribute" if owner else "variable") for name in names(t))
            elif isinstance(n, (ast.If, ast.Try, ast.With)):
                for f in ("body", "orelse", "finalbody"):
                    block(getattr(n, f, None) or [], owner)
                for h in getattr(n, "handlers", None) or []:
                    block(h.body, owner)

    block(ast.parse(source).body, "")
    return out


def _real_modules() -> list[Path]:
    stdlib = Path(ast.__file__).parent
    names = ["argparse.py", "dataclasses.py", "typing.py", "collections/__init__.py", "json/decoder.py", "email/message.py", "asyncio/tasks.py", "pathlib.py"]
    return [stdlib / n for n in names if (stdlib / n).exists()] + sorted((ROOT / "mergedrv").rglob("*.py"))


@pytest.mark.parametrize("path", _real_modules(), ids=lambda p: p.name)
def test_python_definitions_agree_with_ast_on_real_code(path: Path) -> None:
    data = path.read_bytes()
    got = {(d.qualname, d.kind) for d in definitions.symbols(str(path), data).definitions}
    assert got == _ast_definitions(data)


# --- removals ---------------------------------------------------------------------


BODY = "".join(f"def f{i}(x):\n    return x + {i}\n\n" for i in range(30))


def test_removals_follow_renames_and_skip_merges(repo: Path) -> None:
    pin = commit(repo, "start", {"a.py": BODY, "b.py": "B = 1\n", "c.py": "C = 1\n", "keep.py": "K = 1\n"})
    (repo / "pkg").mkdir()
    git(repo, "mv", "a.py", "pkg/a2.py")
    first = commit(repo, "Move a to pkg", {})
    git(repo, "mv", "pkg/a2.py", "pkg/a3.py")
    second = commit(repo, "Rename a2 to a3\n\nLonger body.", {})
    git(repo, "checkout", "-q", "-b", "side")
    side = commit(repo, "Drop b", {"b.py": None})
    git(repo, "checkout", "-q", "main")
    third = commit(repo, "Drop c, readd later", {"c.py": None})
    commit(repo, "Readd c", {"c.py": "C = 2\n"})
    fourth = commit(repo, "Drop c again", {"c.py": None})
    git(repo, "merge", "-q", "--no-ff", "-m", "Merge side", "side")
    up = Upstream(str(repo))
    old, new = up.revision(pin), up.revision("HEAD")
    got = up.removals(old, new, ["a.py", "b.py", "c.py", "keep.py"])
    assert set(got) == {"a.py", "b.py", "c.py"}
    a = got["a.py"]
    assert (a.commit, a.renamed_to, a.then.commit, a.then.renamed_to, a.final) == (first, "pkg/a2.py", second, "pkg/a3.py", "pkg/a3.py")
    assert a.then.subject == "Rename a2 to a3"
    assert got["b.py"].commit == side and got["b.py"].subject == "Drop b"
    assert got["c.py"].commit == fourth != third
    assert "renamed to pkg/a2.py by" in a.describe() and "then renamed to pkg/a3.py" in a.describe()


def test_resolution_by_unique_suffix(repo: Path) -> None:
    commit(repo, "files", {"x/models/registry.py": "R = 1\n", "x/attn/registry.py": "R = 2\n", "x/models/llama.py": "L = 1\n"})
    rev = Upstream(str(repo)).revision("HEAD")
    assert (rev.resolve("x/models/llama.py").how, rev.resolve("llama.py").path) == ("exact", "x/models/llama.py")
    assert rev.resolve("models/registry.py").path == "x/models/registry.py"
    assert rev.resolve("registry.py").how == "ambiguous"
    assert rev.resolve("registry.py").candidates == ["x/attn/registry.py", "x/models/registry.py"]
    assert rev.resolve("./models/llama.py").path == "x/models/llama.py"
    assert rev.resolve("odels/llama.py").how == "absent"  # suffixes end at a /


def test_classify_imports_lines_and_files_without_a_grammar(repo: Path) -> None:
    from mergedrv.anchors.check import classify

    commit(repo, "files", {"pkg/__init__.py": "from .impl import Engine\n", "pkg/impl.py": "class Engine:\n    pass\n", "src/lib.rs": "pub fn launch() {}\n"})
    up = Upstream(str(repo))
    rev = up.revision("HEAD")
    reexport = classify(up, rev, ("pkg/__init__.py", "Engine", None))
    assert reexport.state == "stale"  # an import is not a definition ...
    assert reexport.detail == "no free function, class or module-level name Engine in pkg/__init__.py; imported at line 1, defined elsewhere"
    assert classify(up, rev, ("pkg/impl.py", "Engine", None)).found[0].line == 1
    rust = classify(up, rev, ("src/lib.rs", "launch", None))
    assert (rust.state, rust.detail) == ("fresh", "found as a word (no grammar for this file type)")
    assert classify(up, rev, ("src/lib.rs", "land", None)).state == "stale"
    lines = classify(up, rev, ("pkg/impl.py", None, (1, 2)))
    assert (lines.state, lines.text) == ("fresh", ["class Engine:", "    pass"])
    assert classify(up, rev, ("pkg/impl.py", None, (2, 3))).detail == "line 3 is beyond the end of pkg/impl.py (2 lines)"
    assert classify(up, rev, ("pkg/impl.py", None, (0, 0))).state == "stale"
