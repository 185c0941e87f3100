"""Structure of the JSON-plan front-end: function facts live in the catalog, and every key
the parser reads is in its spelling table.

Both tests read the source (``ast``), not behaviour: they fail when a change adds a second
owner for a special form, or a key that ``spellings.KEY_ALIASES`` does not list.
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

from connect_plan.formats.json_plan.spellings import KEY_ALIASES

ROOT = Path(__file__).resolve().parents[2]
PARSER = ROOT / "connect_plan" / "formats" / "json_plan"
TRANSLATOR = ROOT / "connect_plan" / "translator"

#: catalog functions whose special handling has one owner: a catalog flag (``counts_rows``
#: for count), a desugaring in ``specials.py`` (the row's ``desugar``) or a builder in
#: ``translator/expressions.py`` (the row's ``builder``). Spelled as a string elsewhere in
#: the parser or the translator, they would be a second owner.
SPECIAL_NAMES = (
    "!=",
    "count",
    "count_distinct",
    "when",
    "otherwise",
    "cast",
    "try_cast",
    "get",
    "log",
    "call_function",
    "call_udf",
)

#: the modules that own the special forms (and the format's words, which may equal them)
OWNERS = {
    "connect_plan/formats/json_plan/spellings.py",  # the JSON words ("!=" is an op word)
    "connect_plan/formats/json_plan/specials.py",  # desugarings
    "connect_plan/translator/expressions.py",  # builders
}

#: the occurrences outside the owners, and why each is not a second owner
ALLOWED = {
    ("connect_plan/translator/outputs.py", "count"): 1,  # a write's row-count metric, sent as count(1)
    ("connect_plan/translator/naming.py", "count"): 1,  # AGG_NAMES: Spark's default column name of count(x)
}


def _modules() -> list[Path]:
    return sorted(PARSER.glob("*.py")) + sorted(TRANSLATOR.glob("*.py"))


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _strings(tree: ast.AST) -> tuple[list[ast.Constant], set[int], set[int]]:
    """Every string constant but docstrings; the ids of those read as mapping keys
    (``d["k"]``, ``"k" in d``, ``d.get("k")``, ``key(d, kind, "k")``); the ids of a dict
    literal's keys."""
    docstrings: set[int] = set()
    reads: set[int] = set()
    dict_keys: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docstrings.add(id(body[0].value))
        elif isinstance(node, ast.Subscript):
            reads.add(id(node.slice))
        elif isinstance(node, ast.Compare) and isinstance(node.ops[0], (ast.In, ast.NotIn)):
            reads.add(id(node.left))
        elif isinstance(node, ast.Dict):
            dict_keys.update(id(k) for k in node.keys if k is not None)
        elif isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name == "get" and node.args:
                reads.add(id(node.args[0]))
            elif name in ("key", "first"):
                reads.update(id(a) for a in node.args)
    strings = [n for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    return [s for s in strings if id(s) not in docstrings], reads, dict_keys


def test_special_function_names_have_one_owner() -> None:
    found: Counter[tuple[str, str]] = Counter()
    where: dict[tuple[str, str], list[int]] = {}
    for path in _modules():
        rel = _rel(path)
        if rel in OWNERS:
            continue
        strings, reads, dict_keys = _strings(ast.parse(path.read_text()))
        for s in strings:
            if s.value in SPECIAL_NAMES and id(s) not in reads and id(s) not in dict_keys:
                found[(rel, s.value)] += 1
                where.setdefault((rel, s.value), []).append(s.lineno)
    extra = {k: where[k] for k, n in found.items() if n > ALLOWED.get(k, 0)}
    assert not extra, (
        f"catalog special names spelled outside their owner (use the catalog row's desugar/builder/flags): {extra}"
    )
    stale = {k for k in ALLOWED if found[k] < ALLOWED[k]}
    assert not stale, f"ALLOWED lists occurrences that are gone; remove them: {sorted(stale)}"


def test_every_key_the_parser_reads_is_in_the_spelling_table() -> None:
    known = set(KEY_ALIASES) | {n for kind in KEY_ALIASES.values() for n in kind}
    known |= {s for kind in KEY_ALIASES.values() for spellings in kind.values() for s in spellings}
    unknown: dict[str, list[str]] = {}
    for path in sorted(PARSER.glob("*.py")):
        if path.name == "spellings.py":
            continue
        strings, reads, _ = _strings(ast.parse(path.read_text()))
        for s in strings:
            # identifiers only: ``"(" in text`` is a substring test, not a key
            if id(s) in reads and s.value.isidentifier() and s.value not in known:
                unknown.setdefault(_rel(path), []).append(f"{s.value!r} (line {s.lineno})")
    assert not unknown, f"keys read but not listed in spellings.KEY_ALIASES: {unknown}"


def test_the_catalog_flags_decide_what_the_parser_does() -> None:
    """count(*) and a column-less count are count(1); != is not(==) by both spellings."""
    from connect_plan import ir
    from connect_plan.formats.json_plan import Parser, parse_expr

    p = Parser()
    star = parse_expr(p, {"fn": "count", "args": ["*"]}, "/e")
    ne_fn = parse_expr(p, {"fn": "!=", "args": ["a", 1]}, "/e")
    ne_op = parse_expr(p, {"op": "ne", "left": "a", "right": 1}, "/e")
    assert not p.errors
    assert star == ir.Call("count", (ir.Lit(1, "/e/args/0"),), "/e")
    assert isinstance(ne_fn, ir.Call) and isinstance(ne_op, ir.Call) and ne_fn.fn == ne_op.fn == "not"
