"""How much of the teaching modules is checking: the share of check lines, per module.

    python tools/check_share.py [--rev REV] [MODULE ...]

The rules (the issue "The code a student reads", as restated in the book's issue notes):

* **code lines**: non-blank lines that hold code -- not comments, not docstrings (the first
  string of a module, class or function);
* **check lines**, among them: the lines of decorators named ``explain*`` (the tables of
  other libraries' names); ``if`` statements whose test calls ``nested()`` or whose body only
  raises, warns or calls a check; ``raise`` statements; statements that call ``check_*``,
  ``_check*`` or ``warn_user`` (a plain call, or an assignment of its result).

With ``--rev`` the modules are read from that git revision instead of the working tree.
"""

from __future__ import annotations

import argparse
import ast
import io
import subprocess
import sys
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEACHING = [
    "attention",
    "masking",
    "multihead",
    "transformer",
    "seq2seq",
    "seq2seq_attention",
    "positional",
    "rotary",
    "modern_block",
    "decoder_only",
    "translation",
    "decoding",
    "recurrent_translation",
    "points_transformer",
]
WARNERS = {"warn", "warn_user"}


def _name(func: ast.expr) -> str:
    if isinstance(func, ast.Call):
        func = func.func
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def _is_check_call(node: ast.AST | None) -> bool:
    if not isinstance(node, ast.Call):
        return False
    name = _name(node.func)
    return name.startswith(("check_", "_check")) or name in WARNERS


def _check_statement(stmt: ast.stmt) -> bool:
    """A statement that is itself a check: a raise, or a call of a check or a warning."""
    if isinstance(stmt, ast.Raise):
        return True
    if isinstance(stmt, (ast.Expr, ast.Assign, ast.AnnAssign, ast.Return)):
        return _is_check_call(stmt.value)
    return False


def _calls_nested(test: ast.expr) -> bool:
    return any(isinstance(n, ast.Call) and _name(n.func) == "nested" for n in ast.walk(test))


def _lines(node: ast.AST) -> set[int]:
    return set(range(node.lineno, node.end_lineno + 1))


def code_lines(source: str) -> set[int]:
    """Lines that hold a token of code (comments, blank lines and docstrings excluded)."""
    lines: set[int] = set()
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT}
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type not in skip and tok.type != tokenize.ENDMARKER:
            lines.update(range(tok.start[0], tok.end[0] + 1))
    tree = ast.parse(source)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            lines -= _lines(body[0])
    return lines


def check_lines(source: str) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        for decorator in getattr(node, "decorator_list", []):
            if _name(decorator).startswith("explain"):
                lines |= _lines(decorator)
        if isinstance(node, ast.If) and (
            _calls_nested(node.test) or all(_check_statement(s) for s in node.body)
        ):
            lines |= _lines(node)
        elif isinstance(node, ast.stmt) and _check_statement(node):
            lines |= _lines(node)
    return lines


def read(module: str, rev: str | None) -> str:
    path = f"course_lib/{module}.py"
    if rev is None:
        return (ROOT / path).read_text(encoding="utf-8")
    return subprocess.run(
        ["git", "show", f"{rev}:{path}"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*", default=TEACHING)
    parser.add_argument("--rev", default=None, help="a git revision (default: the working tree)")
    args = parser.parse_args(argv)
    total_code = total_check = 0
    print(f"{'module':24}{'code':>6}{'checks':>8}{'share':>8}")
    for module in args.modules:
        source = read(module, args.rev)
        code = code_lines(source)
        checks = check_lines(source) & code
        total_code, total_check = total_code + len(code), total_check + len(checks)
        print(f"{module:24}{len(code):6}{len(checks):8}{len(checks) / len(code):8.1%}")
    print(f"{'all':24}{total_code:6}{total_check:8}{total_check / total_code:8.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
