"""`mergedrv anchors` end to end: an upstream built with git in the test, records
citing it, and the states, removals, moves and line moves the report gives."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.helpers import commit
from tests.helpers import MERGEDRV, git


KV_UTILS_V1 = """\
import os

LIMIT = 3


def get_num_blocks(config):
    return config.num_blocks


class KVCacheManager:
    def allocate(self, n):
        return n
"""

KV_UTILS_V2 = """\
import os

LIMIT = 3


class KVCacheManager:
    def allocate(self, n):
        return n
"""

COORDINATOR = """\
class Coordinator:
    def get_num_blocks(self):
        return 0
"""

REGISTRY_V1 = "\n".join(
    ['"""Model registry."""', "", "_MODELS = {"]
    + [f'    "Model{i}ForCausalLM": ("model{i}", "Model{i}ForCausalLM"),' for i in range(20)]
    + ["}", ""]
)

REGISTRY_V2 = "\n".join(
    ['"""Model registry."""', "", "# new models", "# are listed", "# below", "_MODELS = {"]
    + [f'    "Model{i}ForCausalLM": ("model{i}", "Model{i}ForCausalLM"),' for i in range(20)]
    + ["}", ""]
)

OPS_H_V1 = """\
#pragma once
namespace vt {
void RmsNorm(float* x, int n);
class Attn {
 public:
  void forward(float* q);
  int heads;
};
}  // namespace vt
#define VT_MAX_HEADS 128
"""

OPS_H_V2 = """\
#pragma once
namespace vt {
class Attn {
 public:
  void forward(float* q);
  int heads;
};
}  // namespace vt
#define VT_MAX_HEADS 128
"""

OPS_CPP = """\
#include "ops.h"
namespace vt {
void Attn::forward(float* q) { (void)q; }
}
"""

NORM_H = """\
#pragma once
namespace vt {
void RmsNorm(float* x, int n);
}
"""


@pytest.fixture(scope="module")
def upstream(tmp_path_factory) -> dict:
    """An upstream with a pin, a side branch merged back, and a newer revision."""
    root = tmp_path_factory.mktemp("upstream")
    env_git = ["-c", "user.name=Up", "-c", "user.email=up@example.com"]
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "config", "user.name", "Up"], check=True)
    subprocess.run(["git", "-C", str(root), "config", "user.email", "up@example.com"], check=True)
    del env_git
    ids = {}
    ids["pin"] = commit(
        root,
        "Initial upstream",
        {
            "pkg/core/kv_cache_utils.py": KV_UTILS_V1,
            "pkg/core/coordinator.py": COORDINATOR,
            "pkg/models/arctic.py": "class ArcticForCausalLM:\n    pass\n",
            "pkg/models/mpt.py": "class MPTForCausalLM:\n    pass\n",
            "pkg/models/kimi_linear.py": "class KimiLinearForCausalLM:\n    def forward(self):\n        pass\n",
            "pkg/models/olmo3.py": "import torch\n\n\nclass Olmo3ForCausalLM:\n    def forward(self, x):\n        return torch.relu(x) * 2 + 1\n\n    def load(self):\n        return None\n",
            "pkg/models/glm.py": "class GlmForCausalLM:\n    pass\n",
            "pkg/models/phi.py": "class PhiModel:\n    def forward(self):\n        pass\n",
            "pkg/models/registry.py": REGISTRY_V1,
            "pkg/layers/fused_moe/cpu_fused_moe.py": "def select_experts(x):\n    return x\n\n\ndef other():\n    pass\n",
            "pkg/a/utils.py": "A = 1\n",
            "pkg/b/utils.py": "B = 1\n",
            "csrc/ops.h": OPS_H_V1,
            "csrc/ops.cpp": OPS_CPP,
            "README.md": "# upstream\n",
        },
    )
    ids["remove"] = commit(root, "Remove ten deprecated model architectures (#53608)", {"pkg/models/arctic.py": None})
    git(root, "mv", "pkg/models/olmo3.py", "pkg/models/legacy_olmo3.py")
    ids["rename"] = commit(root, "Migrate Olmo3 to the legacy module")
    ids["kimi"] = commit(
        root,
        "[New model] Kimi K3 (#50000)",
        {
            "pkg/models/kimi_linear.py": None,
            "pkg/models/kimi_k3/model.py": "class KimiK3Model:\n    pass\n\n\nclass KimiLinearForCausalLM(KimiK3Model):\n    def forward(self):\n        pass\n",
        },
    )
    git(root, "checkout", "-q", "-b", "side")
    ids["side"] = commit(root, "Drop MPT", {"pkg/models/mpt.py": None})
    git(root, "checkout", "-q", "main")
    ids["refactor"] = commit(
        root,
        "Refactor kv cache and routing",
        {
            "pkg/core/kv_cache_utils.py": KV_UTILS_V2,
            "pkg/layers/fused_moe/cpu_fused_moe.py": None,
            "pkg/layers/fused_moe/router.py": "class Router:\n    pass\n\n\ndef select_experts(x):\n    return x\n",
            "pkg/models/registry.py": REGISTRY_V2,
            "pkg/models/glm.py": "class GlmForCausalLM:\n    pass\n\n\nclass GlmMoeDsaForCausalLM:\n    pass\n",
            "pkg/models/phi.py": "class Phi3Model:\n    def forward(self):\n        pass\n",
            "csrc/ops.h": OPS_H_V2,
            "csrc/norm.h": NORM_H,
            "pkg/c/utils.py": "C = 1\n",
        },
    )
    git(root, "merge", "-q", "--no-ff", "-m", "Merge branch 'side'", "side")
    ids["to"] = git(root, "rev-parse", "HEAD").stdout.strip()
    git(root, "tag", "v1", ids["pin"])
    git(root, "tag", "v2", ids["to"])
    return {"root": root, **ids}


MATRIX = """\
# Model matrix

Pinned at upstream `v1`.

| ID | Upstream | State |
|---|---|---|
| `M-kv` | `pkg/core/kv_cache_utils.py::get_num_blocks` | ✅ |
| `M-kvm` | `pkg/core/kv_cache_utils.py::KVCacheManager.allocate` | ✅ |
| `M-arctic` | `pkg/models/arctic.py::ArcticForCausalLM` | INVENTORIED |
| `M-mpt` | `pkg/models/mpt.py::MPTForCausalLM` | INVENTORIED |
| `M-kimi` | `pkg/models/kimi_linear.py::KimiLinearForCausalLM` | 🚧 |
| `M-olmo3` | `pkg/models/olmo3.py::Olmo3ForCausalLM.forward`; `pkg/models/olmo3.py:5` | ✅ |
| `M-glm` | `pkg/models/glm.py::GlmMoeDsaForCausalLM` | INVENTORIED |
| `M-phi` | `pkg/models/phi.py::PhiModel` | ✅ |
| `M-reg` | `registry.py:4`; `pkg/models/registry.py:10-11` | ✅ |
| `M-moe` | `fused_moe/cpu_fused_moe.py::select_experts` | ✅ |
| `M-amb` | `utils.py:1` | ✅ |
| `M-end` | `pkg/models/glm.py:99` | ✅ |
| `M-free` | `pkg/core/coordinator.py::get_num_blocks` | ✅ |
| `M-norm` | `csrc/ops.h::vt::RmsNorm`, `ops.h::Attn::forward`, `csrc/ops.cpp::Attn.forward()` | ✅ |
| `M-cfree` | `csrc/ops.h::forward` and `csrc/ops.h::VT_MAX_HEADS` | ✅ |
| `M-gone` | `pkg/nowhere.py::Thing` | ✅ |

Prose cites `pkg/core/kv_cache_utils.py::LIMIT` too.
"""

CONFIG = """\
[[record]]
name = "MODEL"
path = ".agents/model-matrix.md"
key = "ID"

[anchors]
upstream = "{upstream}"
show = ["State"]
"""


@pytest.fixture
def records(repo: Path, upstream: dict) -> Path:
    (repo / ".agents").mkdir()
    (repo / ".agents/model-matrix.md").write_text(MATRIX)
    (repo / ".mergedrv.toml").write_text(CONFIG.format(upstream=upstream["root"]))
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "records")
    return repo


def anchors(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*MERGEDRV, "anchors", *args], cwd=cwd, capture_output=True, text=True)


def by_text(doc: dict) -> dict[str, dict]:
    return {c["text"]: c for c in doc["citations"]}


def test_states_at_the_pin(records: Path) -> None:
    proc = anchors(records, "--pin", "v1", "--format", "json")
    assert proc.returncode == 1, proc.stderr
    doc = json.loads(proc.stdout)
    cites = by_text(doc)
    state = {t: c["pin"]["state"] for t, c in cites.items()}
    assert state == {
        "pkg/core/kv_cache_utils.py::get_num_blocks": "fresh",
        "pkg/core/kv_cache_utils.py::KVCacheManager.allocate": "fresh",
        "pkg/models/arctic.py::ArcticForCausalLM": "fresh",
        "pkg/models/mpt.py::MPTForCausalLM": "fresh",
        "pkg/models/kimi_linear.py::KimiLinearForCausalLM": "fresh",
        "pkg/models/olmo3.py::Olmo3ForCausalLM.forward": "fresh",
        "pkg/models/olmo3.py:5": "fresh",
        "pkg/models/glm.py::GlmMoeDsaForCausalLM": "stale",
        "pkg/models/phi.py::PhiModel": "fresh",
        "registry.py:4": "fresh",
        "pkg/models/registry.py:10-11": "fresh",
        "fused_moe/cpu_fused_moe.py::select_experts": "fresh",
        "utils.py:1": "ambiguous",
        "pkg/models/glm.py:99": "stale",
        "pkg/core/coordinator.py::get_num_blocks": "stale",  # only a method of that name
        "csrc/ops.h::vt::RmsNorm": "fresh",
        "ops.h::Attn::forward": "fresh",
        "csrc/ops.cpp::Attn.forward": "fresh",
        "csrc/ops.h::forward": "stale",  # a method is never a free function
        "csrc/ops.h::VT_MAX_HEADS": "fresh",
        "pkg/nowhere.py::Thing": "file-absent",
        "pkg/core/kv_cache_utils.py::LIMIT": "fresh",
    }
    assert doc["pin"]["counts"] == {"fresh": 16, "stale": 4, "file-absent": 1, "ambiguous": 1}
    assert doc["to"] is None and doc["delta"] is None
    # carriers: the row key and the shown column, or file:line for prose
    assert cites["pkg/models/arctic.py::ArcticForCausalLM"]["key"] == "M-arctic"
    assert cites["pkg/models/arctic.py::ArcticForCausalLM"]["shown"] == "INVENTORIED"
    assert cites["pkg/core/kv_cache_utils.py::LIMIT"]["key"] is None
    assert cites["pkg/core/kv_cache_utils.py::LIMIT"]["line"] == 24
    # resolution by a unique file name is said; an ambiguous one lists the candidates
    assert cites["registry.py:4"]["pin"]["how"] == "by-name"
    assert cites["registry.py:4"]["pin"]["resolved"] == "pkg/models/registry.py"
    assert cites["fused_moe/cpu_fused_moe.py::select_experts"]["pin"]["resolved"] == "pkg/layers/fused_moe/cpu_fused_moe.py"
    assert cites["utils.py:1"]["pin"]["candidates"] == ["pkg/a/utils.py", "pkg/b/utils.py"]
    # the free-function citation names the methods that exist instead
    same = cites["pkg/core/coordinator.py::get_num_blocks"]["pin"]["same_name"]
    assert [(d["qualname"], d["method"]) for d in same] == [("Coordinator.get_num_blocks", True)]


def test_text_report_at_the_pin(records: Path) -> None:
    proc = anchors(records, "--pin", "v1")
    assert proc.returncode == 1
    out = proc.stdout
    assert "pin v1 (" in out and "checked 22 (fresh 16, stale 4, file absent 1, ambiguous 1)" in out
    assert ".agents/model-matrix.md:13: anchor-stale: M-glm [INVENTORIED]: `pkg/models/glm.py::GlmMoeDsaForCausalLM`" in out
    assert ".agents/model-matrix.md:17: anchor-ambiguous: M-amb [✅]: `utils.py:1`: 2 files match utils.py" in out
    assert "anchor-file-absent: M-gone [✅]: `pkg/nowhere.py::Thing`" in out
    assert "line 99 is beyond the end of pkg/models/glm.py (2 lines)" in out
    assert "registry.py -> pkg/models/registry.py" in out
    assert "MODEL" in out.splitlines()[4:6] or "  MODEL" in out


def test_delta_to_a_newer_revision(records: Path, upstream: dict) -> None:
    proc = anchors(records, "--pin", "v1", "--to", "v2", "--format", "json")
    assert proc.returncode == 1, proc.stderr
    doc = json.loads(proc.stdout)
    cites = by_text(doc)
    after = {t: c["to"]["state"] for t, c in cites.items()}
    assert after["pkg/models/arctic.py::ArcticForCausalLM"] == "file-absent"
    assert after["pkg/models/mpt.py::MPTForCausalLM"] == "file-absent"
    assert after["pkg/models/kimi_linear.py::KimiLinearForCausalLM"] == "file-absent"
    assert after["pkg/models/olmo3.py::Olmo3ForCausalLM.forward"] == "file-absent"
    assert after["pkg/core/kv_cache_utils.py::get_num_blocks"] == "stale"
    assert after["pkg/core/kv_cache_utils.py::KVCacheManager.allocate"] == "fresh"
    assert after["pkg/models/glm.py::GlmMoeDsaForCausalLM"] == "fresh"
    assert after["pkg/models/phi.py::PhiModel"] == "stale"
    assert after["fused_moe/cpu_fused_moe.py::select_experts"] == "file-absent"
    assert after["utils.py:1"] == "ambiguous"
    assert after["csrc/ops.h::vt::RmsNorm"] == "stale"
    assert after["ops.h::Attn::forward"] == "fresh"
    assert doc["to"]["counts"] == {"fresh": 8, "stale": 6, "file-absent": 7, "ambiguous": 1}
    assert doc["delta"] == {"newly-stale": 9, "repaired": 1, "unchanged": 12}
    change = {t: c["change"] for t, c in cites.items()}
    assert change["pkg/models/glm.py::GlmMoeDsaForCausalLM"] == "repaired"
    assert change["pkg/core/kv_cache_utils.py::get_num_blocks"] == "newly-stale"
    assert change["pkg/nowhere.py::Thing"] == "unchanged"

    # each removed file is attributed to the commit that removed it, with its subject
    def removal(text: str) -> dict:
        return cites[text]["removal"]

    assert removal("pkg/models/arctic.py::ArcticForCausalLM")["commit"] == upstream["remove"]
    assert removal("pkg/models/arctic.py::ArcticForCausalLM")["subject"] == "Remove ten deprecated model architectures (#53608)"
    assert removal("pkg/models/arctic.py::ArcticForCausalLM")["renamed_to"] is None
    assert removal("pkg/models/mpt.py::MPTForCausalLM")["commit"] == upstream["side"]  # not the merge
    assert removal("pkg/models/kimi_linear.py::KimiLinearForCausalLM")["commit"] == upstream["kimi"]
    olmo = removal("pkg/models/olmo3.py::Olmo3ForCausalLM.forward")
    assert olmo["commit"] == upstream["rename"] and olmo["renamed_to"] == "pkg/models/legacy_olmo3.py"
    assert removal("fused_moe/cpu_fused_moe.py::select_experts")["commit"] == upstream["refactor"]
    assert removal("pkg/core/kv_cache_utils.py::get_num_blocks") is None
    by_commit = {g["commit"]: g for g in doc["removals"]}
    assert by_commit[upstream["kimi"]]["files"] == [
        {"path": "pkg/models/kimi_linear.py", "renamed_to": "pkg/models/kimi_k3/model.py", "now_at": "pkg/models/kimi_k3/model.py", "cited_by": ["M-kimi"]}
    ]
    assert by_commit[upstream["remove"]]["subject"] == "Remove ten deprecated model architectures (#53608)"
    assert len(by_commit) == 5

    # where the symbol is now: a move is told from a deletion
    def where(text: str) -> dict:
        return cites[text]["defined_at"]

    assert where("pkg/models/arctic.py::ArcticForCausalLM") == {"moved": False, "total": 0, "places": [], "added_in_file": []}
    kimi = where("pkg/models/kimi_linear.py::KimiLinearForCausalLM")
    assert kimi["moved"] is True
    assert [(p["path"], p["line"], p["kind"]) for p in kimi["places"]] == [("pkg/models/kimi_k3/model.py", 5, "class")]
    assert where("pkg/models/olmo3.py::Olmo3ForCausalLM.forward")["places"][0]["path"] == "pkg/models/legacy_olmo3.py"
    moe = where("fused_moe/cpu_fused_moe.py::select_experts")
    assert moe["moved"] is True and moe["places"][0]["path"] == "pkg/layers/fused_moe/router.py"
    assert moe["places"][0]["describe"] == "free function"
    norm = where("csrc/ops.h::vt::RmsNorm")
    assert norm["moved"] is True and [(p["path"], p["namespace"]) for p in norm["places"]] == [("csrc/norm.h", "vt")]
    # function turned into a method: not a move; every method of that name is listed
    kv = where("pkg/core/kv_cache_utils.py::get_num_blocks")
    assert kv["moved"] is False
    assert [(p["path"], p["qualname"], p["method"]) for p in kv["places"]] == [("pkg/core/coordinator.py", "Coordinator.get_num_blocks", True)]
    # class renamed: the new class in the same file is named
    phi = where("pkg/models/phi.py::PhiModel")
    assert phi["moved"] is False and [d["qualname"] for d in phi["added_in_file"]] == ["Phi3Model"]


def test_line_citations_follow_their_text(records: Path) -> None:
    doc = json.loads(anchors(records, "--pin", "v1", "--to", "v2", "--format", "json").stdout)
    cites = by_text(doc)
    # lines shifted down by three: still in range, but the text moved
    assert cites["pkg/models/registry.py:10-11"]["to"]["state"] == "fresh"
    assert cites["pkg/models/registry.py:10-11"]["line_move"] == {"status": "moved", "from": 10, "to": 13, "path": None}
    assert cites["registry.py:4"]["line_move"]["to"] == 7
    # the file was renamed: the text is found in the new file
    olmo = cites["pkg/models/olmo3.py:5"]
    assert olmo["to"]["state"] == "file-absent"
    assert olmo["line_move"] == {"status": "moved", "from": 5, "to": 5, "path": "pkg/models/legacy_olmo3.py"}


def test_text_report_of_the_delta(records: Path, upstream: dict) -> None:
    proc = anchors(records, "--pin", "v1", "--to", "v2")
    out = proc.stdout
    assert "checked 22 (fresh 16, stale 4, file absent 1, ambiguous 1)" in out
    assert "checked 22 (fresh 8, stale 6, file absent 7, ambiguous 1)" in out
    assert "delta: 9 newly stale, 1 repaired, 12 unchanged" in out
    short = upstream["remove"][:7]
    assert f'M-arctic [INVENTORIED]: `pkg/models/arctic.py::ArcticForCausalLM`: pkg/models/arctic.py deleted by {short} "Remove ten deprecated model architectures (#53608)"' in out
    assert "moved: now at pkg/models/kimi_k3/model.py:5 (class)" in out
    assert "not moved: the name is defined only as pkg/core/coordinator.py:2 (method of Coordinator)" in out
    assert "cited text moved registry.py:10 -> :13" in out
    assert "anchor-repaired: M-glm [INVENTORIED]" in out
    sections = [line for line in out.splitlines() if line and not line.startswith(" ")]
    assert sections[1:6] == ["newly stale (9)", "removed files by commit (5 files, 5 commits)", "repaired (1)", "stale at both (5)", "moved lines (3)"]
    assert f'  {upstream["side"][:7]} "Drop MPT"\n    deleted pkg/models/mpt.py: cited by M-mpt\n' in out
    assert "    renamed pkg/models/olmo3.py -> pkg/models/legacy_olmo3.py: cited by M-olmo3\n" in out
    assert "M-moe [✅]: `fused_moe/cpu_fused_moe.py::select_experts`: pkg/layers/fused_moe/cpu_fused_moe.py renamed to" in out


def test_exit_zero_when_everything_is_fresh(repo: Path, upstream: dict) -> None:
    (repo / "notes.md").write_text("See `pkg/models/glm.py::GlmForCausalLM` and `pkg/models/registry.py:3`.\n")
    proc = anchors(repo, "--upstream", str(upstream["root"]), "--pin", "v1", "notes.md")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "checked 2 (fresh 2, stale 0, file absent 0)" in proc.stdout
    # the exit status is about the pin: a later revision does not change it
    proc = anchors(repo, "--upstream", str(upstream["root"]), "--pin", "v1", "--to", "v2", "notes.md")
    assert proc.returncode == 0
    assert "moved lines (1)" in proc.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["--pin", "v1"], "no upstream"),
        (["--upstream", "{up}"], "no pin"),
        (["--upstream", "{up}", "--pin", "nosuchrev"], "unknown revision 'nosuchrev'"),
        (["--upstream", "{up}", "--pin", "v1", "--to", "nosuchrev"], "unknown revision 'nosuchrev'"),
        (["--upstream", "{nowhere}", "--pin", "v1"], "not a git repository"),
        (["--upstream", "{up}", "--pin", "v1", "missing.md"], "missing.md: no such file"),
        (["--upstream", "{up}", "--pin", "v1"], "no markdown files to scan"),
    ],
)
def test_usage_errors_exit_2(repo: Path, upstream: dict, tmp_path: Path, args: list[str], message: str) -> None:
    args = [a.format(up=upstream["root"], nowhere=tmp_path / "nowhere") for a in args]
    (repo / "notes.md").write_text("`pkg/models/glm.py::GlmForCausalLM`\n")
    if "no markdown" not in message and not any(a.endswith(".md") for a in args):
        args.append("notes.md")
    proc = anchors(repo, *args)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith("mergedrv anchors: ")


def test_bad_option_and_config_errors_exit_2(records: Path) -> None:
    proc = anchors(records, "--format", "xml")
    assert proc.returncode == 2 and "invalid choice" in proc.stderr
    (records / ".mergedrv.toml").write_text('[anchors]\nupstream = "x"\nbogus = 1\n')
    proc = anchors(records, "--pin", "v1")
    assert proc.returncode == 2
    assert ".mergedrv.toml:3: [anchors] has no option 'bogus'" in proc.stderr


def test_pin_read_from_a_record_file(records: Path, upstream: dict) -> None:
    cfg = CONFIG.format(upstream=upstream["root"]) + 'pin_file = ".agents/model-matrix.md"\npin_pattern = \'Pinned at upstream `([^`]+)`\'\n'
    (records / ".mergedrv.toml").write_text(cfg)
    doc = json.loads(anchors(records, "--format", "json").stdout)
    assert doc["pin"]["rev"] == "v1" and doc["pin"]["commit"] == upstream["pin"]
    # --pin still wins
    doc = json.loads(anchors(records, "--format", "json", "--pin", "v2").stdout)
    assert doc["pin"]["rev"] == "v2"
    (records / ".mergedrv.toml").write_text(cfg.replace("Pinned at", "Frozen at"))
    proc = anchors(records)
    assert proc.returncode == 2 and "no line matches pin_pattern" in proc.stderr


def test_extra_files_and_excluded_paths(records: Path, upstream: dict) -> None:
    (records / "docs").mkdir()
    (records / "docs/spec.md").write_text("Cites `pkg/models/phi.py::PhiModel` and our own `src/engine.cpp:12`.\n")
    cfg = CONFIG.format(upstream=upstream["root"]) + 'files = ["docs/*.md"]\nexclude = ["src/**"]\n'
    (records / ".mergedrv.toml").write_text(cfg)
    doc = json.loads(anchors(records, "--pin", "v1", "--format", "json").stdout)
    texts = [c["text"] for c in doc["citations"] if c["file"] == "docs/spec.md"]
    assert texts == ["pkg/models/phi.py::PhiModel"]
    doc = json.loads(anchors(records, "--pin", "v1", "--format", "json", "--exclude", "pkg/models/**").stdout)
    assert not any(c["path"].startswith("pkg/models/") for c in doc["citations"])
