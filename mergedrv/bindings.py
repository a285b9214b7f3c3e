"""tree-sitter's compiled bindings, loaded when a parse first needs them:
the extension module itself, by the standard import machinery."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType


LOADED: dict[str, ModuleType] = {}  # the bindings this process loaded, by module name


def load(package: str) -> ModuleType:
    """`<package>._binding`, loaded by ``importlib.machinery`` as ``import``
    loads any extension module, but without running the package's
    ``__init__``: tree_sitter_markdown's imports importlib.resources (~20 ms)
    only to read query files we never use, tree_sitter's imports typing
    (~5 ms), and the merge driver starts once per file.  The binding's own
    init runs as it is (it imports `re` and `enum` itself).  The module is
    kept here, never put in ``sys.modules``: a later ``import <package>``
    loads its binding as usual.
    """
    name = f"{package}._binding"
    loaded = LOADED.get(name)
    if loaded is not None:
        return loaded
    from importlib.machinery import EXTENSION_SUFFIXES, ExtensionFileLoader, ModuleSpec, PathFinder
    import os

    spec = PathFinder.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(f"{package} is not installed")
    for folder in spec.submodule_search_locations:
        for suffix in EXTENSION_SUFFIXES:
            path = os.path.join(folder, "_binding" + suffix)
            if os.path.isfile(path):
                loader = ExtensionFileLoader(name, path)
                module = loader.create_module(ModuleSpec(name, loader, origin=path))
                loader.exec_module(module)
                LOADED[name] = module
                return module
    raise ImportError(f"{package} has no compiled binding in {spec.submodule_search_locations[0]}")
