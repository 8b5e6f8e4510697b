"""Read the code a student wrote, without running it, for ways around the grading.

The grader runs the student's cells in the same kernel as the hidden tests, so code that
replaces a function of numpy, math or rooflinekit, overrides a built-in the tests use, reads
files, imports the course's reference, or reaches Python's internals could pass a test without
the right answer. This scan runs in the instructor's process, on every code cell that will run
as the student wrote it (answer cells and cells the student added; locked cells are restored
from the source anyway), and reports each such construct with a reason. A notebook with a
finding is graded, then held for manual grading: its parts score 0 until the instructor looks.

The answers of this course need arithmetic, functions, numpy and matplotlib; the rules are
strict for everything else:

- imports only from :data:`ALLOWED_MODULES` (no ``os``, ``sys``, ``builtins``, ``importlib``,
  ``rooflinekit``...);
- no ``eval``, ``exec``, ``compile``, ``open``, ``getattr``/``setattr``/``delattr``,
  ``globals``/``locals``/``vars``, ``__import__``, ``exit``, ``get_ipython``, 3-argument ``type``;
- no dunder or private attribute (``x.__class__``, ``np._core``), no attribute named like a way
  out (``os``, ``sys``, ``modules``, ``environ``, file reading and writing such as ``load``,
  ``savetxt``, ``tofile``), and no module reached through another (``matplotlib.os``);
- no assignment to, or deletion of, an attribute (``np.isclose = ...``), nor to an item of a
  module (``np.__dict__[...]``), except ``self.x`` in a method and ``plt.rcParams[...]``;
- no rebinding of a name the locked cells provide (``is_number``, ``np``, ``assert_function``),
  except by the same import;
- no class that subclasses a built-in or numpy type, or defines special methods beyond
  ``__init__``, ``__repr__``, ``__str__`` and ``__post_init__`` (an ``__eq__`` that is always true);
- no IPython magic or shell command except ``%matplotlib`` (``%%time`` would run code this scan
  cannot see);
- ``savefig`` only to a plain file name in the working directory.

>>> [f.reason for f in scan_source("import numpy as np\\nnp.isclose = lambda *a, **k: True")]
['assigns to np.isclose']
>>> scan_source("import math\\ndef ops(B, D, F):\\n    return 2 * B * D * F")
[]
"""

from __future__ import annotations

import ast
import importlib
import sys
import types
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from rooflinekit.autograde.structure import NotebookStructure, Plan

__all__ = ["ALLOWED_MODULES", "Finding", "Protected", "protected_names", "scan_notebook", "scan_source"]

ALLOWED_MODULES = frozenset(
    {
        "math",
        "cmath",
        "numpy",
        "matplotlib",
        "scipy",
        "fractions",
        "decimal",
        "functools",
        "itertools",
        "statistics",
        "dataclasses",
        "typing",
        "collections",
        "numbers",
        "warnings",
        "random",
        "time",
        "string",
        "re",
        "textwrap",
        "enum",
        "copy",
    }
)
"""Top-level modules an answer cell may import."""

FORBIDDEN_CALLS = frozenset(
    {
        "eval",
        "exec",
        "compile",
        "open",
        "__import__",
        "getattr",
        "setattr",
        "delattr",
        "globals",
        "locals",
        "vars",
        "breakpoint",
        "input",
        "exit",
        "quit",
        "get_ipython",
        "memoryview",
    }
)
FORBIDDEN_ATTRIBUTES = frozenset(
    {
        # ways out to the system and the interpreter
        "os",
        "sys",
        "subprocess",
        "builtins",
        "importlib",
        "ctypes",
        "ctypeslib",
        "shutil",
        "pathlib",
        "io",
        "socket",
        "gc",
        "inspect",
        "pickle",
        "f2py",
        "distutils",
        "modules",
        "environ",
        "getenv",
        "putenv",
        "system",
        "popen",
        "spawn",
        "get_ipython",
        "attrgetter",
        "methodcaller",
        # reading and writing files
        "open",
        "load",
        "loads",
        "loadtxt",
        "genfromtxt",
        "fromfile",
        "fromregex",
        "memmap",
        "open_memmap",
        "DataSource",
        "tofile",
        "dump",
        "save",
        "savez",
        "savez_compressed",
        "savetxt",
        "imread",
        "imsave",
        "read_text",
        "read_bytes",
        "write_text",
        "write_bytes",
    }
)
ALLOWED_DUNDERS = frozenset({"__name__", "__doc__", "__init__"})
ALLOWED_METHODS = frozenset({"__init__", "__repr__", "__str__", "__post_init__"})
ALLOWED_MAGICS = frozenset({"matplotlib"})
RECORD_MARKER = "rooflinekit.check"


@dataclass(frozen=True)
class Finding:
    """Something in a cell that could get around the grading."""

    cell: str
    line: int
    reason: str

    def __str__(self) -> str:
        return f"{self.cell}, line {self.line}: {self.reason}"


@dataclass(frozen=True)
class Protected:
    """Names the student's code must not rebind, and the imports that may rebind them."""

    names: frozenset[str]
    imports: Mapping[str, str]


def protected_names(locked_sources: Iterable[str], tests: Iterable[str] = ()) -> Protected:
    r"""The names the locked cells provide: what setup cells define, and what any locked cell
    imports (``np``, ``is_number``, ``assert_function``...). Names a test cell assigns for
    itself (``curve = attainable(...)``) and built-ins are not protected: rebinding them can
    only change the visible checks, never the hidden ones, which run in the grading module.

    >>> p = protected_names(["import numpy as np\ndef is_number(v):\n    return isinstance(v, float)"],
    ...                     tests=["curve = f(1)\nfrom rooflinekit.grading import assert_function"])
    >>> sorted(p.names), p.imports["assert_function"]
    (['assert_function', 'is_number', 'np'], 'rooflinekit.grading.assert_function')
    """
    names: set[str] = set()
    imports: dict[str, str] = {}
    for source, is_test in [*((s, False) for s in locked_sources), *((s, True) for s in tests)]:
        tree = _parse(source)
        if tree is None:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                for alias, target in _import_bindings(node):
                    names.add(alias)
                    imports[alias] = target
            elif is_test:
                continue
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
    return Protected(frozenset(names), imports)


def scan_notebook(nb: Any, structure: NotebookStructure, plan: Plan) -> list[Finding]:
    """Scan every code cell of ``nb`` that will run as the student wrote it."""
    code = [c for c in structure.cells if c.locked and c.cell_type == "code"]
    protected = protected_names([c.source for c in code if not c.grade], [c.source for c in code if c.grade])
    findings: list[Finding] = []
    added = 0
    for index, cell in enumerate(nb.cells):
        if not plan.runs_as_written(index, cell):
            continue
        grade_id = plan.kept.get(index)
        if grade_id is None:
            added += 1
            label = f"cell {index + 1} (not an answer cell)"
        else:
            label = f"answer cell {grade_id!r}"
        source = cell.source if isinstance(cell.source, str) else "".join(cell.source)
        findings += scan_source(source, label, protected)
    return findings


def scan_source(source: str, cell: str = "cell", protected: Protected | None = None) -> list[Finding]:
    """Findings in one cell's source (IPython syntax allowed)."""
    protected = protected or Protected(frozenset(), {})
    python, magic_findings = _without_magics(source, cell)
    tree = _parse(python)
    if tree is None:
        return magic_findings  # a syntax error: the cell fails when it runs, which costs its tests
    visitor = _Visitor(cell, protected)
    try:
        visitor.visit(tree)
    except RecursionError:
        visitor.flag(tree, "is nested too deeply to be checked")
    return magic_findings + visitor.findings


def _parse(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _import_bindings(node: ast.Import | ast.ImportFrom) -> Iterator[tuple[str, str]]:
    if isinstance(node, ast.Import):
        for alias in node.names:
            yield (
                (alias.asname or alias.name.split(".")[0]),
                (alias.name if alias.asname else alias.name.split(".")[0]),
            )
    else:
        for alias in node.names:
            yield (alias.asname or alias.name), f"{'.' * node.level}{node.module or ''}.{alias.name}"


def _without_magics(source: str, cell: str) -> tuple[str, list[Finding]]:
    """The cell as Python, with allowed magics removed and the others reported."""
    if "%" not in source and "!" not in source and "?" not in source:
        return source, []
    from IPython.core.inputtransformer2 import TransformerManager

    try:
        python = TransformerManager().transform_cell(source)
    except Exception:  # IPython cannot read it either: the cell will fail
        return source, []
    findings: list[Finding] = []
    lines = []
    for number, line in enumerate(python.splitlines(), start=1):
        stripped = line.strip()
        if "get_ipython()" not in stripped:
            lines.append(line)
            continue
        magic = _magic_name(stripped)
        if magic in ALLOWED_MAGICS:
            lines.append("")
            continue
        what = f"the IPython magic %{magic}" if magic else "an IPython shell command or magic"
        findings.append(Finding(cell, number, f"runs {what} (its code is not checked)"))
        lines.append("")
    return "\n".join(lines), findings


def _magic_name(line: str) -> str | None:
    tree = _parse(line)
    if tree is None or len(tree.body) != 1:
        return None
    node = tree.body[0]
    call = node.value if isinstance(node, ast.Expr | ast.Assign) else None
    if (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr in ("run_line_magic", "run_cell_magic")
        and call.args
        and isinstance(call.args[0], ast.Constant)
        and isinstance(call.args[0].value, str)
    ):
        return call.args[0].value
    return None


_SCOPE = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef


class _Visitor(ast.NodeVisitor):
    def __init__(self, cell: str, protected: Protected) -> None:
        self.cell = cell
        self.protected = protected
        self.findings: list[Finding] = []
        self.modules: dict[str, str] = dict(protected.imports)  # alias -> module path
        self.scopes: list[tuple[ast.AST, set[str]]] = []  # (scope node, names declared global)
        self.classes: set[str] = set()

    def flag(self, node: ast.AST, reason: str) -> None:
        self.findings.append(Finding(self.cell, getattr(node, "lineno", 0), reason))

    # --- scopes ---------------------------------------------------------------------------

    def _at_module_level(self, name: str) -> bool:
        if not self.scopes:
            return True
        scope, declared = self.scopes[-1]
        return not isinstance(scope, ast.ClassDef) and name in declared

    def _bind(self, node: ast.AST, name: str, how: str, target: str | None = None) -> None:
        if name in self.protected.names and self._at_module_level(name):
            if target is not None and self.protected.imports.get(name) == target:
                return
            self.flag(node, f"{how} {name!r}, which the tests rely on")

    def _visit_scope(self, node: _SCOPE) -> None:
        self.scopes.append((node, set()))
        self.generic_visit(node)
        self.scopes.pop()

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._bind(node, node.name, "redefines")
        for decorator in node.decorator_list:
            self.visit(decorator)
        self.scopes.append((node, set()))
        for statement in node.body:
            self.visit(statement)
        self.visit(node.args)
        self.scopes.pop()

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self._visit_scope(node)

    def visit_Global(self, node: ast.Global) -> None:
        if self.scopes:
            self.scopes[-1][1].update(node.names)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._bind(node, node.name, "redefines")
        bases = [b for b in node.bases if not (isinstance(b, ast.Name) and b.id in self.classes | {"object"})]
        if bases or node.keywords:
            shown = ", ".join(ast.unparse(b) for b in [*node.bases, *node.keywords])
            self.flag(node, f"defines class {node.name}({shown}), a subclass of something it did not define")
        for item in node.body:
            if (
                isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
                and item.name.startswith("__")
                and item.name not in ALLOWED_METHODS
            ):
                self.flag(item, f"defines the special method {node.name}.{item.name}")
            elif isinstance(item, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id.startswith("__") for t in item.targets
            ):
                self.flag(item, f"sets a special attribute of class {node.name}")
        self.classes.add(node.name)
        self._visit_scope(node)

    # --- imports --------------------------------------------------------------------------

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            top = alias.name.split(".")[0]
            if top not in ALLOWED_MODULES:
                self.flag(node, f"imports {alias.name}")
        for name, target in _import_bindings(node):
            self._bind(node, name, "rebinds", target)
            self.modules[name] = target

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        top = (node.module or "").split(".")[0]
        if node.level or top not in ALLOWED_MODULES:
            self.flag(node, f"imports from {'.' * node.level}{node.module or ''}")
        for alias in node.names:
            if alias.name == "*":
                self.flag(node, f"imports * from {node.module}")
            elif alias.name.startswith("_") or alias.name in FORBIDDEN_ATTRIBUTES:
                self.flag(node, f"imports {alias.name} from {node.module}")
        for name, target in _import_bindings(node):
            self._bind(node, name, "rebinds", target)
            if isinstance(_resolve(target), types.ModuleType):
                self.modules[name] = target

    # --- names, attributes, calls ---------------------------------------------------------

    def visit_Name(self, node: ast.Name) -> None:
        if node.id.startswith("__") and node.id not in ALLOWED_DUNDERS:
            self.flag(node, f"uses {node.id}")
        elif isinstance(node.ctx, ast.Store | ast.Del):
            self._bind(node, node.id, "deletes" if isinstance(node.ctx, ast.Del) else "rebinds")
        elif node.id in FORBIDDEN_CALLS:
            self.flag(node, f"uses {node.id}")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        name = node.attr
        if name.startswith("__") and name not in ALLOWED_DUNDERS:
            self.flag(node, f"uses the special attribute {_dotted(node)}")
        elif name.startswith("_"):
            self.flag(node, f"uses the private attribute {_dotted(node)}")
        elif name in FORBIDDEN_ATTRIBUTES:
            self.flag(node, f"uses {_dotted(node)}")
        elif isinstance(node.ctx, ast.Store | ast.Del) and not self._is_self(node):
            verb = "deletes" if isinstance(node.ctx, ast.Del) else "assigns to"
            self.flag(node, f"{verb} {_dotted(node)}")
        else:
            escaped = self._escapes_module(node)
            if escaped:
                self.flag(node, f"reaches the module {escaped} through {_dotted(node)}")
        self.generic_visit(node)

    def _is_self(self, node: ast.Attribute) -> bool:
        if not (isinstance(node.value, ast.Name) and node.value.id == "self"):
            return False
        return any(isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef) for scope, _ in self.scopes)

    def _escapes_module(self, node: ast.Attribute) -> str | None:
        """The module outside the allowed ones that ``node`` resolves to, if it does."""
        chain = []
        current: ast.expr = node
        while isinstance(current, ast.Attribute):
            chain.append(current.attr)
            current = current.value
        if not isinstance(current, ast.Name) or current.id not in self.modules:
            return None
        path = ".".join([self.modules[current.id], *reversed(chain)])
        value = _resolve(path)
        if isinstance(value, types.ModuleType):
            top = value.__name__.split(".")[0]
            if top not in ALLOWED_MODULES:
                return value.__name__
        return None

    def visit_Subscript(self, node: ast.Subscript) -> None:
        if isinstance(node.ctx, ast.Store | ast.Del):
            root = node.value
            if isinstance(root, ast.Attribute) and root.attr == "rcParams":
                pass
            else:
                while isinstance(root, ast.Attribute | ast.Subscript | ast.Call):
                    root = root.value if not isinstance(root, ast.Call) else root.func
                if isinstance(root, ast.Name) and root.id in self.modules:
                    self.flag(node, f"changes an item of {_dotted(node.value)}")
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Name) and func.id == "type" and len(node.args) == 3:
            self.flag(node, "creates a class with type(name, bases, namespace)")
        if isinstance(func, ast.Attribute) and func.attr == "savefig":
            target = node.args[0] if node.args else None
            plain = (
                isinstance(target, ast.Constant)
                and isinstance(target.value, str)
                and "/" not in target.value
                and "\\" not in target.value
                and not target.value.startswith(".")
            )
            if not plain:
                self.flag(node, "saves a figure to a path other than a plain file name")
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str) and RECORD_MARKER in node.value:
            self.flag(node, "mentions the grading records' output type")


def _dotted(node: ast.expr) -> str:
    try:
        text = ast.unparse(node)
    except Exception:  # pragma: no cover - unparse handles every expression ast.parse makes
        text = "an expression"
    return text if len(text) <= 60 else text[:57] + "..."


def _resolve(path: str) -> Any:
    """The object ``path`` names, importing only modules already loaded or allowed; None if unknown."""
    parts = path.split(".")
    if not parts[0] or parts[0] not in ALLOWED_MODULES:
        return None
    try:
        value: Any = sys.modules.get(parts[0]) or importlib.import_module(parts[0])
    except Exception:
        return None
    for depth, part in enumerate(parts[1:], start=2):
        if isinstance(value, types.ModuleType) and ".".join(parts[:depth]) in sys.modules:
            value = sys.modules[".".join(parts[:depth])]
            continue
        try:
            value = getattr(value, part)
        except Exception:
            return None
        if not isinstance(value, types.ModuleType):
            return value
    return value
