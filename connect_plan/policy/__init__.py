"""What a caller may ask of the server: a :class:`Policy`, checked on the IR before anything is sent.

A service that runs plans written by its own users (people it does not trust with the shared
Spark cluster) passes ``policy=Policy.strict()`` — or a policy of its own, in Python or as JSON
(:meth:`Policy.from_json`) — to ``translate``, ``validate``, ``execute_plan``, ``Client`` (per
client or per call) or the CLI (``--policy strict|FILE.json``). The check runs on the IR
(:mod:`connect_plan.ir`), after parsing and before translation, so it covers every front-end
(JSON plans in all their spellings, the Sparkless shapes, Substrait plans) and every place a
plan can hide a source: the input, ``with`` definitions, join and union right sides, nested
documents. A plan that breaks any rule raises :class:`~connect_plan.errors.PolicyError`
listing every :class:`~connect_plan.errors.Violation` (location, code, rule); nothing is sent.

The default policy (:meth:`Policy.trusted`, also ``Policy()``) allows everything connect_plan
does; :meth:`Policy.strict` is the preset for untrusted input (:data:`STRICT` lists its values).

Names are compared as Spark resolves them (:func:`table_key`): parts case-insensitively,
backticks removed, ``t`` = ``default.t`` = ``spark_catalog.default.t``; a name in any other
form (whitespace or comments between parts, which Spark's parser accepts, non-ASCII) is
refused, not guessed. Paths are compared after normalisation (:func:`parse_path`): the scheme
and host case-insensitively, ``//`` and ``.`` segments collapsed; ``..`` segments, percent
escapes, brace globs, backslashes and commas are refused. What the server's file systems
make of a path (symlinks, mounts) is out of reach: docs/security.md says what that means.

A policy layer module: it reads the IR and the function catalog, never a front-end.

Modules, in import order:

``vocabulary``  the functions, hints, options and source names the rules speak of
``paths``       paths normalised as Hadoop resolves them
``check``       the walk of a plan's IR (failing closed on unreviewed IR classes)
``rules``       :class:`Policy`: its rules, the strict preset, JSON in and out

Spark names (:func:`~connect_plan.names.parse_table_name`, :func:`~connect_plan.names.table_key`)
are :mod:`connect_plan.names`'; they are re-exported here, where they were first.
"""

from __future__ import annotations

from ..names import parse_table_name, table_key
from .check import REVIEWED_EXPRS, REVIEWED_SOURCES, REVIEWED_STEPS
from .paths import PathLocation, parse_path
from .rules import STRICT, Policy
from .vocabulary import DENIED_FUNCTIONS, FILE_SOURCE_NAMES, JOIN_HINTS, SAFE_OPTIONS

__all__ = [
    "DENIED_FUNCTIONS",
    "FILE_SOURCE_NAMES",
    "JOIN_HINTS",
    "REVIEWED_EXPRS",
    "REVIEWED_SOURCES",
    "REVIEWED_STEPS",
    "SAFE_OPTIONS",
    "STRICT",
    "PathLocation",
    "Policy",
    "parse_path",
    "parse_table_name",
    "table_key",
]
