"""Producers' Substrait plans recorded into the repository (``tests/data/substrait/``), read back
with no producer and no server. Layout (tests/data/substrait/README.md says how each suite was
recorded)::

    tests/data/substrait/<suite>/queries/<id>.sql        the SQL text (Spark SQL's oracle text)
    tests/data/substrait/<suite>/<producer>/<id>.json    the producer's plan as Substrait JSON
    tests/data/substrait/<suite>/<producer>/<id>.sql     (ibis) the producer's own SQL for its plan
    tests/data/substrait/<suite>/<producer>/errors.json  {id: the producer's error} for what it cannot plan

A plan is stored as :func:`plan_json` writes it: the JSON form of connect_plan's superset
``substrait.Plan`` (every field of every spec version a producer writes), so the file is the
canonical text of the message and reading it back gives the same message (the recorder checks
that against the producer's own bytes; ``tests/unit/test_golden.py`` checks it again).
Recorders: ``scripts/record_substrait.py`` (TPC-H); a recorder of other suites writes through
:func:`write_producer` into the same layout.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent / "data" / "substrait"


@dataclass(frozen=True)
class Recorded:
    """One recorded plan: ``<suite>/<producer>/<id>.json``."""

    suite: str
    producer: str
    id: str
    path: Path

    @property
    def key(self) -> str:
        return f"{self.suite}/{self.producer}/{self.id}"


def recorded_plans(root: Path = ROOT) -> list[Recorded]:
    """Every recorded plan of every suite, in a stable order."""
    out = []
    for path in sorted(root.glob("*/*/*.json")):
        if path.name == "errors.json" or path.parent.name == "queries":
            continue
        out.append(Recorded(path.parent.parent.name, path.parent.name, path.stem, path))
    return out


def plan_json(msg: Any) -> str:
    """A superset ``substrait.Plan`` message as the recorded text: proto3 JSON (camelCase field
    names, enums by name, fields at their defaults left out), keys in field order, on one line.
    One line because the recordings are machine-written and large (TPC-DS: 8 MB on one line
    against 26 MB indented); ``python -m json.tool FILE`` shows one indented."""
    from google.protobuf import json_format

    from connect_plan.formats.substrait.proto import pool

    value = json_format.MessageToDict(msg, descriptor_pool=pool())
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")) + "\n"


#: the messages that name a table: ReadRel.named_table, WriteRel.named_table, DdlRel.named_object
_NAMED = frozenset({"NamedTable", "NamedObjectWrite"})


def table_names(msg: Any) -> list[str]:
    """The names of every table a plan reads or writes (``ReadRel``/``WriteRel``/``DdlRel``
    named tables, joined with dots), sorted, each once."""
    from google.protobuf.message import Message

    found: set[str] = set()
    stack: list[Message] = [msg]
    while stack:
        m = stack.pop()
        for fd, value in m.ListFields():
            if fd.message_type is None:
                continue
            if fd.message_type.name in _NAMED:
                found.add(".".join(value.names))
            if fd.message_type.GetOptions().map_entry:
                stack.extend(v for v in value.values() if isinstance(v, Message))
            elif fd.is_repeated:
                stack.extend(value)
            else:
                stack.append(value)
    return sorted(found)


def tables_for(msg: Any, suite: str) -> dict[str, Any]:
    """``tables=`` for a recorded plan with no data at hand: each table it names → a parquet
    file at a fixed, made-up path (``/data/<suite>/<table>.parquet``, lower case). Translation
    needs no file to exist."""
    return {
        name: {"files": [f"/data/{suite}/{name.lower()}.parquet"], "format": "parquet"} for name in table_names(msg)
    }


def write_producer(
    suite: str,
    producer: str,
    plans: Mapping[str, Any],
    errors: Mapping[str, str],
    sqls: Mapping[str, str] | None = None,
    root: Path = ROOT,
) -> Path:
    """Replace ``<suite>/<producer>/`` with ``plans`` (id → superset ``substrait.Plan`` message),
    ``errors`` (id → the producer's own error; ``errors.json`` is written only when there is
    one) and ``sqls`` (id → the producer's own SQL for its plan, as ibis writes)."""
    folder = root / suite / producer
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.iterdir():
        if old.suffix in (".json", ".sql"):
            old.unlink()
    for id_, msg in sorted(plans.items()):
        (folder / f"{id_}.json").write_text(plan_json(msg))
    for id_, sql in sorted((sqls or {}).items()):
        (folder / f"{id_}.sql").write_text(sql.rstrip() + "\n")
    if errors:
        (folder / "errors.json").write_text(json.dumps(dict(sorted(errors.items())), indent=1) + "\n")
    return folder


def write_queries(suite: str, queries: Mapping[str, str], root: Path = ROOT) -> Path:
    """Replace ``<suite>/queries/`` with the SQL texts (id → text)."""
    folder = root / suite / "queries"
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.sql"):
        old.unlink()
    for id_, sql in sorted(queries.items()):
        (folder / f"{id_}.sql").write_text(sql.strip() + "\n")
    return folder


def iter_suites(root: Path = ROOT) -> Iterator[str]:
    yield from sorted(p.name for p in root.iterdir() if p.is_dir())
