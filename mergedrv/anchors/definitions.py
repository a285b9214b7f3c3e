"""Definitions in a source file, found with tree-sitter: Python, C and C++.

`symbols(path, data)` lists what a citation `path::Name` can name: free
functions, classes, methods qualified by their class, module-level and class
attributes, C/C++ types, enumerators and macros.  A method is recorded as
`Class.method` only, so it is never taken for a free function of its name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .. import bindings
from ..model import blocks

PYTHON = (".py", ".pyi")
C = (".c",)
CPP = (".h", ".hh", ".hpp", ".hxx", ".h++", ".cc", ".cpp", ".cxx", ".c++", ".cu", ".cuh", ".inl", ".ipp", ".tpp", ".inc")

_PARSERS: dict[str, object] = {}
_GRAMMARS = {"python": "tree_sitter_python", "c": "tree_sitter_c", "cpp": "tree_sitter_cpp"}
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True, slots=True)
class Definition:
    """One definition: ``qualname`` is dotted by class (``Class.method``),
    ``namespace`` dotted by C++ namespace; ``line`` is 1-based."""

    qualname: str
    kind: str  # function, class, method, variable, attribute, type, enumerator, macro
    line: int
    namespace: str = ""

    @property
    def name(self) -> str:
        return self.qualname.rsplit(".", 1)[-1]

    @property
    def is_member(self) -> bool:
        return "." in self.qualname

    def describe(self) -> str:
        """``method of Foo``, ``free function``, ``class`` ..."""
        if self.is_member:
            owner = self.qualname.rsplit(".", 1)[0]
            what = {"class": "nested class", "function": "method"}.get(self.kind, self.kind)
            return f"{what} of {owner}"
        return {"function": "free function", "variable": "module-level name"}.get(self.kind, self.kind)

    def matches(self, parts: list[str]) -> bool:
        """Does a citation ``a.b.c`` (parts) name this definition?

        The citation must cover the whole class qualification; leading
        namespaces may be left out.
        """
        qual = self.qualname.split(".")
        full = (self.namespace.split(".") if self.namespace else []) + qual
        return len(qual) <= len(parts) <= len(full) and full[-len(parts) :] == parts


@dataclass(slots=True)
class Symbols:
    """Every definition of one file, and the names it imports."""

    language: str | None
    definitions: list[Definition] = field(default_factory=list)
    imports: dict[str, int] = field(default_factory=dict)  # name -> line (Python)
    words: frozenset[str] | None = None  # identifiers, for files without a grammar

    def find(self, symbol: str) -> list[Definition]:
        """The definitions a citation's symbol names (``Class.method``, ``ns::f``)."""
        parts = split_symbol(symbol)
        return [d for d in self.definitions if d.name == parts[-1] and d.matches(parts)]

    def named(self, name: str) -> list[Definition]:
        """Every definition whose last component is ``name``."""
        return [d for d in self.definitions if d.name == name]


def split_symbol(symbol: str) -> list[str]:
    """``Class.method`` / ``ns::Class::method()`` -> its components."""
    symbol = symbol.strip().removesuffix("()")
    return [p for p in re.split(r"::|\.", symbol) if p]


def language(path: str) -> str | None:
    lower = path.lower()
    if lower.endswith(PYTHON):
        return "python"
    if lower.endswith(C):
        return "c"
    if lower.endswith(CPP):
        return "cpp"
    return None


def parser(lang: str):
    """The tree-sitter parser for ``lang`` (made once per process)."""
    if lang not in _PARSERS:
        ts = bindings.load("tree_sitter")
        grammar = bindings.load(_GRAMMARS[lang])
        _PARSERS[lang] = ts.Parser(ts.Language(grammar.language()))
    return _PARSERS[lang]


def symbols(path: str, data: bytes) -> Symbols:
    """The definitions of a file, by the grammar its extension names."""
    lang = language(path)
    if lang is None:
        return Symbols(None, words=frozenset(_WORD.findall(data.decode("utf-8", "replace"))))
    root = parser(lang).parse(data).root_node
    out = Symbols(lang)
    if lang == "python":
        _python_block(root, "", out, module=True)
    else:
        namespaces = {_text(n) for n in _descendants(root, "namespace_definition", "name")}
        _c_block(root, "", "", out, namespaces)
    return out


def _text(node) -> str:
    return node.text.decode("utf-8", "replace") if node is not None else ""


def _line(node) -> int:
    return node.start_point[0] + 1


def _descendants(root, node_type: str, field_name: str):
    """The ``field_name`` child of every ``node_type`` node under root."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == node_type:
            child = node.child_by_field_name(field_name)
            if child is not None:
                yield child
        if node.type in ("translation_unit", "namespace_definition", "declaration_list", "linkage_specification") or node.type.startswith("preproc_"):
            stack.extend(node.named_children)


# --- Python -------------------------------------------------------------------

_PY_NESTED = ("if_statement", "try_statement", "with_statement", "elif_clause", "else_clause", "except_clause", "finally_clause", "block", "except_group_clause")


def _python_block(node, owner: str, out: Symbols, module: bool) -> None:
    """Definitions directly in a module or class body (through if/try/with)."""
    for child in node.named_children:
        kind = child.type
        if kind == "decorated_definition":
            child = child.child_by_field_name("definition") or child
            kind = child.type
        if kind == "function_definition":
            name = _text(child.child_by_field_name("name"))
            out.definitions.append(Definition(owner + name, "method" if owner else "function", _line(child)))
        elif kind == "class_definition":
            name = _text(child.child_by_field_name("name"))
            out.definitions.append(Definition(owner + name, "class", _line(child)))
            body = child.child_by_field_name("body")
            if body is not None:
                _python_block(body, owner + name + ".", out, module=False)
        elif kind == "expression_statement":
            for sub in child.named_children:
                while sub is not None and sub.type == "assignment":
                    for name in _python_targets(sub.child_by_field_name("left")):
                        out.definitions.append(Definition(owner + name, "attribute" if owner else "variable", _line(sub)))
                    sub = sub.child_by_field_name("right")
        elif kind == "type_alias_statement":
            left = child.child_by_field_name("left")
            if left is not None:
                out.definitions.append(Definition(owner + _text(left).split("[")[0].strip(), "type", _line(child)))
        elif module and kind in ("import_statement", "import_from_statement"):
            for name in _python_imports(child):
                out.imports.setdefault(name, _line(child))
        elif kind in _PY_NESTED:
            _python_block(child, owner, out, module)


def _python_targets(node) -> list[str]:
    if node is None:
        return []
    if node.type == "identifier":
        return [_text(node)]
    if node.type in ("pattern_list", "tuple_pattern", "list_pattern"):
        return [name for child in node.named_children for name in _python_targets(child)]
    return []


def _python_imports(node) -> list[str]:
    names = []
    for i, child in enumerate(node.children):
        if node.field_name_for_child(i) != "name":
            continue
        if child.type == "aliased_import":
            names.append(_text(child.child_by_field_name("alias")))
        elif node.type == "import_statement":
            names.append(_text(child).split(".")[0])
        else:
            names.append(_text(child).rsplit(".", 1)[-1])
    return names


# --- C and C++ ----------------------------------------------------------------

_C_TRANSPARENT = ("declaration_list", "linkage_specification", "preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "preproc_elifdef", "template_declaration", "export_declaration")
_C_RECORDS = ("class_specifier", "struct_specifier", "union_specifier")


def _c_block(node, ns: str, owner: str, out: Symbols, namespaces: set[str]) -> None:
    """Definitions in a translation unit, namespace or class body."""
    for child in node.named_children:
        kind = child.type
        if kind == "namespace_definition":
            name = _text(child.child_by_field_name("name")).replace("::", ".")
            body = child.child_by_field_name("body")
            if body is not None:
                _c_block(body, f"{ns}.{name}".strip(".") if name else ns, owner, out, namespaces)
        elif kind in _C_TRANSPARENT:
            body = child.child_by_field_name("body") if kind == "linkage_specification" else child
            if body is not None:
                _c_block(body, ns, owner, out, namespaces)
        elif kind == "function_definition":
            _c_function(child, ns, owner, out, namespaces, declaration=False)
        elif kind in ("declaration", "field_declaration"):
            _c_declaration(child, ns, owner, out, namespaces)
        elif kind in _C_RECORDS or kind == "enum_specifier":
            _c_record(child, ns, owner, out, namespaces)
        elif kind == "type_definition":
            names = [n for n in (_declarator_name(d) for d in _children_by_field(child, "declarator")) if n]
            for name in names:
                out.definitions.append(Definition(owner + name, "type", _line(child), ns))
            _c_record(child.child_by_field_name("type"), ns, owner, out, namespaces, alias=names[0] if names else "")
        elif kind == "alias_declaration":
            out.definitions.append(Definition(owner + _text(child.child_by_field_name("name")), "type", _line(child), ns))
        elif kind in ("preproc_def", "preproc_function_def") and not owner:
            out.definitions.append(Definition(_text(child.child_by_field_name("name")), "macro", _line(child)))


def _children_by_field(node, name: str):
    return [child for i, child in enumerate(node.children) if node.field_name_for_child(i) == name]


def _c_record(node, ns: str, owner: str, out: Symbols, namespaces: set[str], alias: str = "") -> None:
    """A class/struct/union/enum with a body: the type and its members
    (an anonymous one's members belong to the typedef ``alias`` naming it)."""
    if node is None or node.type not in (*_C_RECORDS, "enum_specifier"):
        return
    name_node = node.child_by_field_name("name")
    body = node.child_by_field_name("body")
    if body is None:
        return  # a forward declaration or a use of the type
    name = _text(name_node).replace("::", ".") if name_node is not None else ""
    if name:
        kind = "type" if node.type == "enum_specifier" else "class"
        out.definitions.append(Definition(owner + name, kind, _line(node), ns))
    elif not alias:
        return  # anonymous and unnamed: its members are not addressable by a citation
    inner = owner + (name or alias) + "."
    if node.type == "enum_specifier":
        for enumerator in body.named_children:
            if enumerator.type == "enumerator":
                ename = _text(enumerator.child_by_field_name("name"))
                out.definitions.append(Definition(inner + ename, "enumerator", _line(enumerator), ns))
                if name and not re.search(rb"\benum\s+(class|struct)\b", node.text[: node.text.find(b"{")]):
                    out.definitions.append(Definition(owner + ename, "enumerator", _line(enumerator), ns))
        return
    _c_block(body, ns, inner, out, namespaces)


def _c_declaration(node, ns: str, owner: str, out: Symbols, namespaces: set[str]) -> None:
    _c_record(node.child_by_field_name("type"), ns, owner, out, namespaces)
    for decl in _children_by_field(node, "declarator"):
        if _find_function_declarator(decl) is not None:
            _c_function(node, ns, owner, out, namespaces, declaration=True, declarator=decl)
        else:
            name = _declarator_name(decl)
            if name:
                out.definitions.append(Definition(owner + name, "attribute" if owner else "variable", _line(node), ns))


def _c_function(node, ns: str, owner: str, out: Symbols, namespaces: set[str], declaration: bool, declarator=None) -> None:
    func = _find_function_declarator(declarator if declarator is not None else node.child_by_field_name("declarator"))
    if func is None:
        return
    target = func.child_by_field_name("declarator")
    if target is None:
        return
    text = _text(target)
    if target.type == "template_function":
        text = _text(target.child_by_field_name("name"))
    parts = [p.split("<")[0].strip() for p in text.split("::") if p.strip()]
    if not parts:
        return
    while len(parts) > 1 and parts[0] in namespaces:  # `vt::detail::f` in a file that opens vt
        ns = f"{ns}.{parts.pop(0)}".strip(".")
    qual = owner + ".".join(parts)
    kind = "method" if "." in qual else "function"
    out.definitions.append(Definition(qual, kind, _line(node), ns))


def _find_function_declarator(node):
    while node is not None:
        if node.type == "function_declarator":
            return node
        if node.type not in ("pointer_declarator", "reference_declarator", "init_declarator", "attributed_declarator", "parenthesized_declarator"):
            return None
        nxt = node.child_by_field_name("declarator")
        if nxt is None:
            nxt = next((c for c in node.named_children if c.type.endswith("declarator")), None)
        node = nxt
    return None


def _declarator_name(node) -> str:
    while node is not None:
        if node.type in ("identifier", "field_identifier", "type_identifier"):
            return _text(node)
        if node.type in ("array_declarator", "pointer_declarator", "reference_declarator", "init_declarator", "attributed_declarator", "parenthesized_declarator", "bitfield_clause"):
            nxt = node.child_by_field_name("declarator")
            node = nxt if nxt is not None else next((c for c in node.named_children if c.type.endswith(("declarator", "identifier"))), None)
            continue
        return ""
    return ""
