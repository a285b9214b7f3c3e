"""tree-sitter's compiled bindings, loaded for what we use of them: the
parsers, without the packages' Python faces and what their start imports."""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any


def load(package: str) -> ModuleType:
    """Load `<package>._binding` without running the package's __init__.

    tree_sitter_markdown's __init__ imports importlib.resources (~20 ms) only
    to read query files we never use; tree_sitter's imports typing.  The merge
    driver starts once per file, so those milliseconds are paid on every merge.
    """
    machinery = sys.modules["_frozen_importlib_external"]  # importlib.machinery's classes without importing importlib and warnings (~0.3 ms)

    name = f"{package}._binding"
    if name in sys.modules:
        return sys.modules[name]
    spec = machinery.PathFinder.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(f"{package} is not installed")
    folder = spec.submodule_search_locations[0]
    for fname in sorted(os.listdir(folder)):
        if fname.startswith("_binding") and fname.endswith((".so", ".pyd")):
            path = os.path.join(folder, fname)
            loader = machinery.ExtensionFileLoader(name, path)
            mod_spec = sys.modules["_frozen_importlib"].ModuleSpec(name, loader, origin=path)
            mod_spec.has_location = True
            with _stand_ins():  # the binding's init runs as its module is made
                module: ModuleType = sys.modules["_frozen_importlib"].module_from_spec(mod_spec)
                loader.exec_module(module)
            sys.modules[name] = module
            return module
    raise ImportError(f"{package} has no compiled binding in {folder}")


class _StandIn:
    """What tree_sitter's binding takes from `re` and `enum` as it loads:
    ``re.compile`` (kept for query predicates, which we never run: the real
    one is imported on a first call) and ``enum.IntEnum`` (it makes its
    `LogType`, for parser loggers, which we never set: a plain int type).
    Importing the two costs the driver's start ~4 ms, its whole keyed merge
    of a small file."""

    def __init__(self, name: str) -> None:
        self.__name__ = name

    @staticmethod
    def compile(*args: Any, **kwargs: Any) -> Any:  # noqa: A003 - re.compile's name
        import re

        return re.compile(*args, **kwargs)

    @staticmethod
    def IntEnum(name: str, members: dict[str, int]) -> type:  # noqa: N802 - enum.IntEnum's name
        return type(name, (int,), {k: v for k, v in members.items()})


class _stand_ins:  # noqa: N801 - used as a with-statement
    """The stand-ins in `sys.modules` for `re` and `enum` where those are not loaded, only while a binding loads."""

    def __enter__(self) -> None:
        self.added = [m for m in ("re", "enum") if m not in sys.modules]
        for m in self.added:
            sys.modules[m] = _StandIn(m)  # type: ignore[assignment]

    def __exit__(self, *exc: object) -> None:
        for m in self.added:
            del sys.modules[m]
