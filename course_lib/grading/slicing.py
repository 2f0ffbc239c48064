"""Which of a submission's cells the checks need: the cells that define the functions the
checks call and, in turn, the cells that define or change what those cells use.

The experiments a submission holds (training models, drawing figures) are graded by reading
their outputs: running them again would cost most of the grading time. The slice is static.
:func:`needed_cells` keeps a cell that cannot be parsed, one that could bind *any* name, and
one that *touches* a needed name: a name the checks use, or a global a kept cell reads
anywhere (function bodies, decorators, defaults, annotations, bases, lambdas). A cell touches
a name when the code it runs -- its statements at any depth (under ``if``, ``for``,
``while``, ``with``, ``try``, ``match``), not its functions' bodies, nor what a class body or
a comprehension binds for itself --

* binds it: ``=``, ``+=``, ``del``, ``import a.b`` (``a``), ``import a.b as x`` (``x``),
  ``def``, ``class``, ``:=``, a ``for``, ``with``, ``except ... as`` or ``match`` variable;
* assigns or deletes a subscript or attribute of it (``d[k] = v``, ``o.a += 1``), or passes
  it first to ``setattr``, ``delattr``, ``shuffle`` or an in-place ``name_`` function;
* calls a method of it as a statement (``lst.append(v)``, ``model.train()``), or a changing
  one anywhere (``fit``, ``partial_fit``, ``fit_transform``, ``pop``, ``popitem``,
  ``setdefault``, ``load_state_dict``, ``shuffle``, an in-place ``name_``). Of a name only imports bind
  (a module), only statement calls of a setter count (``set*``, ``use*``, ``enable*``,
  ``disable*``, ``register*``, ``reset*``, ``add*``, ``filterwarnings``, ``simplefilter``,
  ``append``, ``insert``, ``extend``, ``update``, ``remove``, ``pop``, ``clear``,
  ``discard``): ``torch.set_default_dtype(...)``, not ``torch.save(...)`` nor seeding (the
  checks draw their cases from generators of their own);
* calls a function or class that declares ``global name``, or that calls one that does.

A cell could bind any name when it holds (function bodies included) a star import, ``exec``,
``eval``, ``globals``, ``get_ipython``, ``vars()`` or ``locals()`` without arguments,
``sys.modules`` or ``import __main__``, or calls a function that does; when it changes how
imports and files resolve (``sys.path``, ``os.chdir``, ``os.environ``, ``%cd``, ``%env``);
when it runs ``%run`` or ``%store``. IPython: ``%magic`` and ``!shell`` lines are read past,
``%time``/``%timeit``/``%prun`` lines as their statement, ``name = !ls`` as binding ``name``,
``name?`` as nothing; a cell under ``%%time``, ``%%timeit``, ``%%prun`` or ``%%capture
[name]`` as its Python (binding ``name``), under ``%%html``, ``%%markdown``,
``%%javascript``, ``%%latex`` or ``%%svg`` as nothing, under another cell magic
(``%%writefile``, ``%%bash``) as a cell that cannot be parsed.

It can miss a change made through another object (an optimizer stepping a model's
parameters, a function changing a global it reads) or a file; ``--all-cells`` runs every
cell. :func:`binds_anywhere` tells whether one cell could bind a name, for the grader to
re-grade with every cell when a check fails on a name a skipped cell could bind.
"""

from __future__ import annotations

import ast
import re
import symtable

from course_lib._foreign_names import explains_bad_calls

__all__ = ["binds_anywhere", "needed_cells"]

_ANY = "*"  # touched by a cell that could bind any name
_SETTER = re.compile(
    r"set|use|enable|disable|register|reset|add|filterwarnings|simplefilter"
    r"|(append|insert|extend|update|remove|pop|clear|discard)$"
)
_CHANGING = re.compile(r"(fit|partial_fit|fit_transform|pop|popitem|setdefault|load_state_dict)$")
_IN_PLACE = re.compile(r"\w*[^_]_$|shuffle$")  # changes the object, or a function's first argument
_ENVIRONMENT = ("sys.path", "os.environ", "os.chdir", "os.putenv", "site.addsitedir")
_PYTHON_CELL_MAGICS = {"time", "timeit", "prun", "capture"}
_DISPLAY_CELL_MAGICS = {"html", "markdown", "javascript", "js", "latex", "svg"}
_LINE_STATEMENT = re.compile(r"(\s*)%(?:time|timeit|prun)\s+(?:-\w+(?:\s+\d+)?\s+)*(.*)")
_ASSIGNED_MAGIC = re.compile(r"(\s*[\w\s,]+=)\s*[!%]")
_HELP = re.compile(r"\s*[\w.]+\?{1,2}\s*")


def _dotted(node: ast.AST) -> str:
    """``a.b.c`` for ``a.b[i].c``; ``?`` first where the chain does not start with a name."""
    parts = []
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Starred)):
        parts += [node.attr] if isinstance(node, ast.Attribute) else []
        node = node.value
    return ".".join([getattr(node, "id", "?"), *reversed(parts)])


def _root(node: ast.AST) -> str:
    return _dotted(node).split(".")[0]


def _is_dynamic(tree: ast.AST) -> bool:
    """Whether code can bind global names that no statement spells out."""
    for node in ast.walk(tree):
        no_args_call = node.func if isinstance(node, ast.Call) and not node.args else None
        if (
            getattr(node, "id", None) in ("exec", "eval", "globals", "get_ipython")
            or getattr(no_args_call, "id", None) in ("vars", "locals")
            or (isinstance(node, ast.alias) and node.name in ("*", "__main__"))
            or (isinstance(node, ast.Attribute) and _dotted(node) == "sys.modules")
        ):
            return True
    return False


class _Cell(ast.NodeVisitor):
    """What a cell binds, changes and reads: walks the code it runs (the module's docstring)."""

    def __init__(self, reads: set[str], dynamic: bool, bound: set[str]) -> None:
        self.reads = reads  # global names read anywhere in the cell
        self.dynamic = dynamic  # could bind any name
        self.imports: set[str] = set()  # names bound by an import
        self.others = bound  # names bound otherwise
        self.changes: set[str] = set()
        self.calls: list[tuple[str, str, bool]] = []  # receiver, method, result unused
        self.runs: set[str] = set()  # names read by the code that runs
        # each function or class defined: the globals it declares (or _ANY), the names it reads
        self.functions: dict[str, tuple[set[str], set[str]]] = {}
        self.in_class, self.local_target, self.unused = 0, 0, set()

    def bind(self, name: str | None, imported: bool = False) -> None:
        if name and not self.in_class:
            (self.imports if imported else self.others).add(name)

    def visit_Import(self, node: ast.Import | ast.ImportFrom) -> None:
        for alias in node.names:  # a star: _is_dynamic
            if alias.name != "*":
                from_ = alias.asname or isinstance(node, ast.ImportFrom)
                self.bind(alias.asname or alias.name if from_ else alias.name.split(".")[0], True)

    visit_ImportFrom = visit_Import

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.ClassDef) -> None:
        is_class = isinstance(node, ast.ClassDef)
        runs = [*node.bases, *node.keywords] if is_class else [node.args, node.returns]
        for part in [*node.decorator_list, *runs]:
            if part is not None:
                self.visit(part)
        if is_class:
            self.in_class += 1
            for statement in node.body:
                self.visit(statement)
            self.in_class -= 1
        if self.in_class:
            return
        self.bind(node.name)
        declared = {n for s in ast.walk(node) if isinstance(s, ast.Global) for n in s.names}
        reads = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        binds, old_reads = self.functions.get(node.name, (set(), set()))
        binds |= declared | ({_ANY} if _is_dynamic(node) else set())
        self.functions[node.name] = binds, old_reads | reads

    visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self.visit(node.args)  # its body runs when it is called

    def visit_comprehension(self, node: ast.comprehension) -> None:
        self.local_target += 1
        self.visit(node.target)
        self.local_target -= 1
        for part in [node.iter, *node.ifs]:
            self.visit(part)

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load):
            self.runs.add(node.id)
        elif not self.local_target:
            self.bind(node.id)

    def visit_ExceptHandler(self, node: ast.AST) -> None:
        self.bind(getattr(node, "name", None) or getattr(node, "rest", None))
        self.generic_visit(node)

    visit_MatchAs = visit_MatchStar = visit_MatchMapping = visit_ExceptHandler

    def visit_Attribute(self, node: ast.Attribute | ast.Subscript) -> None:
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            self.change(node)
        self.generic_visit(node)

    visit_Subscript = visit_Attribute

    def visit_Expr(self, node: ast.Expr) -> None:
        self.unused.add(id(node.value))
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        func, first = node.func, node.args[0] if node.args else None
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
        if first is not None and (name in ("setattr", "delattr") or _IN_PLACE.match(name)):
            self.change(first)
        if isinstance(func, ast.Attribute):
            self.calls.append((_root(func.value), func.attr, id(node) in self.unused))
            self.dynamic |= _dotted(func).startswith(_ENVIRONMENT)
        self.generic_visit(node)

    def change(self, target: ast.AST) -> None:
        self.changes.add(_root(target))  # "?" for ``f().x = 1``: no name
        self.dynamic |= _dotted(target).startswith(_ENVIRONMENT)


def _python(source: str) -> tuple[str, set[str], bool] | None:
    """A cell as Python, the names its magics bind, and whether they could bind any; ``None``
    for a cell magic whose effect cannot be told."""
    bound, dynamic = set(), False
    if source.lstrip().startswith("%%"):
        first, _, source = source.lstrip().partition("\n")
        magic, *args = first[2:].split() or [""]
        if magic in _DISPLAY_CELL_MAGICS:
            return "", bound, False
        if magic not in _PYTHON_CELL_MAGICS:
            return None
        if magic == "capture":
            bound = {a for a in args if not a.startswith("-")}
    lines = []
    for line in source.splitlines():
        stripped, statement = line.lstrip(), _LINE_STATEMENT.fullmatch(line)
        dynamic |= stripped.startswith(("%run", "%store", "%cd", "%env"))
        if statement:
            line = statement[1] + statement[2]
        elif stripped.startswith(("%", "!")) or _HELP.fullmatch(line):
            line = ""
        elif assigned := _ASSIGNED_MAGIC.match(line):
            line = assigned[1] + " None"
        lines.append(line)
    return "\n".join(lines), bound, dynamic


def _globals_read(table: symtable.SymbolTable) -> set[str]:
    """Names a scope and the scopes inside it read from the cell's global namespace."""
    module = table.get_type() == "module"
    symbols = [s for s in table.get_symbols() if s.is_referenced() and (module or s.is_global())]
    return {s.get_name() for s in symbols}.union(*map(_globals_read, table.get_children()))


def _analyse(source: str) -> _Cell | None:
    """What a cell binds, changes and reads, or ``None`` when that cannot be told."""
    python = _python(source)
    if python is None:
        return None
    source, bound, dynamic = python
    try:
        tree = ast.parse(source)
        reads = _globals_read(symtable.symtable(source, "<cell>", "exec"))
        cell = _Cell(reads, dynamic or _is_dynamic(tree), bound)
        cell.visit(tree)
    except (SyntaxError, ValueError, RecursionError):  # null bytes, deep nesting
        return None
    return cell


def _touched(cells: list[_Cell]) -> list[set[str]]:
    """For each cell, the names it binds or changes (``_ANY``: it could bind any)."""
    modules = set().union(*(c.imports for c in cells)) - set().union(*(c.others for c in cells))
    functions: dict[str, tuple[set[str], set[str]]] = {}
    for name, (binds, reads) in (f for c in cells for f in c.functions.items()):
        merged = functions.setdefault(name, (set(), set()))
        merged[0].update(binds)
        merged[1].update(reads)
    changed = True
    while changed:  # a function binds what the functions it calls bind
        changed = False
        for binds, reads in functions.values():
            for callee in reads & functions.keys():
                changed |= not functions[callee][0] <= binds
                binds |= functions[callee][0]
    touched = []
    for cell in cells:
        names = cell.imports | cell.others | cell.changes | ({_ANY} if cell.dynamic else set())
        for receiver, method, unused in cell.calls:
            if receiver in modules:
                changes = unused and _SETTER.match(method)
            else:
                changes = unused or _CHANGING.match(method) or _IN_PLACE.match(method)
            if changes:
                names.add(receiver)
        for name in cell.runs & functions.keys():
            names |= functions[name][0]
        touched.append(names)
    return touched


@explains_bad_calls()
def needed_cells(sources: list[str], names: set[str]) -> list[bool]:
    """For each cell (in order), whether running it can matter to ``names``.

    Args:
        sources: the code cells' sources.
        names: the names the checks are given (the students' functions).

    Returns:
        ``True`` for a cell that cannot be parsed, that could bind any name, or that touches
        a needed name (the module's docstring).
    """
    cells = [_analyse(s) for s in sources]
    parsed = [(i, c) for i, c in enumerate(cells) if c is not None]
    touched = dict(zip((i for i, _ in parsed), _touched([c for _, c in parsed]), strict=True))
    needed = set(names)
    keep = [c is None for c in cells]
    changed = True
    while changed:
        changed = False
        for i, cell in parsed:
            if not keep[i] and (_ANY in touched[i] or touched[i] & needed):
                keep[i] = changed = True
                needed |= cell.reads
    return keep


@explains_bad_calls()
def binds_anywhere(source: str, name: str) -> bool:
    """Whether running the cell ``source`` could bind the global ``name``: at any depth, by a
    ``global`` declaration in one of its functions, or as a cell that could bind any name or
    cannot be parsed (the module's docstring)."""
    cell = _analyse(source)
    if cell is None or cell.dynamic:
        return True
    binds = cell.imports | cell.others
    return name in binds or any(name in b for b, _ in cell.functions.values())
