"""Which of a submission's cells the checks need: the cells that define the functions the
checks call, and, in turn, the cells that define what those cells use.

A submission holds more than its functions: the experiments its exercises ask for (training
eight models, drawing figures) are graded by reading, not by running, and running them again
would cost most of the grading time. The slice is static (names bound and read at the top
level of each cell and inside its functions), so it keeps every cell that could define a
needed name and keeps a cell it cannot parse. What it can miss: a cell that changes global
state without binding a name (``torch.set_default_dtype(...)``) on which a function relies;
``--all-cells`` runs every cell instead.
"""

from __future__ import annotations

import ast
import symtable

from course_lib._foreign_names import explains_bad_calls

__all__ = ["needed_cells"]


def _strip_magics(source: str) -> str:
    """IPython's ``%magic`` and ``!shell`` lines as blank lines (so ``ast`` can parse)."""
    return "\n".join(
        "" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines()
    )


def _globals_read(table: symtable.SymbolTable) -> set[str]:
    """Names a scope and the scopes inside it read from the cell's global namespace."""
    if table.get_type() == "module":
        names = {s.get_name() for s in table.get_symbols() if s.is_referenced()}
    else:
        names = {s.get_name() for s in table.get_symbols() if s.is_referenced() and s.is_global()}
    for child in table.get_children():
        names |= _globals_read(child)
    return names


def _bound_and_read(source: str) -> tuple[set[str], set[str]] | None:
    """Names a cell binds at its top level and global names it reads anywhere (a function's
    own parameters and locals are not), or ``None`` when it cannot be parsed."""
    source = _strip_magics(source)
    try:
        tree = ast.parse(source)
        table = symtable.symtable(source, "<cell>", "exec")
    except SyntaxError:
        return None
    bound: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound |= {(a.asname or a.name).split(".")[0] for a in node.names}
        else:
            for sub in ast.walk(node):
                if isinstance(sub, ast.Name) and isinstance(sub.ctx, (ast.Store, ast.Del)):
                    bound.add(sub.id)
    return bound, _globals_read(table)


@explains_bad_calls()
def needed_cells(sources: list[str], names: set[str]) -> list[bool]:
    """For each cell (in order), whether running it can matter to ``names``.

    Args:
        sources: the code cells' sources.
        names: the names the checks are given (the students' functions).

    Returns:
        ``True`` for a cell that binds a needed name (or that cannot be parsed), where a
        name is needed when the checks use it or a needed cell reads it.
    """
    analysed = [_bound_and_read(s) for s in sources]
    needed = set(names)
    keep = [a is None for a in analysed]
    changed = True
    while changed:
        changed = False
        for i, info in enumerate(analysed):
            if keep[i] or info is None:
                continue
            bound, read = info
            if bound & needed:
                keep[i] = changed = True
                needed |= read
    return keep
