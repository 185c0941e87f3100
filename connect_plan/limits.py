"""Every bound connect_plan puts on what it accepts, in one place (base layer: imports nothing).

Front-ends, the data converter and the translator read their limits from here, so that a
bound is changed once and the layers below the parser never import it.
"""

from __future__ import annotations

__all__ = [
    "CHEAP_CELL_NODES",
    "CHEAP_WALK_NODES",
    "MAX_EXPANDED_STEPS",
    "MAX_EXPR_DEPTH",
    "MAX_JSON_CHARS",
    "MAX_PLAN_NESTING",
    "MAX_RELATION_DEPTH",
    "MAX_ROW_ERRORS",
    "MAX_SHARED_EXPANSION",
    "MAX_STEPS",
]

#: deepest expression nesting accepted (Spark Connect servers reject protos nested
#: ~1024 messages deep; each expression level costs two)
MAX_EXPR_DEPTH = 100
#: most steps one plan may have (after merging, the translator also bounds relation depth)
MAX_STEPS = 5_000
#: most characters of plan JSON text accepted by load_json
MAX_JSON_CHARS = 512 * 1024 * 1024
#: a plan given as Python objects may reuse a dict or list in several places; each use is
#: parsed and emitted again, so reuse may add at most this many values to the plan
MAX_SHARED_EXPANSION = 1_000_000
#: nesting of plan documents inside plan documents (right sides, definitions)
MAX_PLAN_NESTING = 50
#: Spark Connect servers reject protos nested ~1024 messages deep (two per relation)
MAX_RELATION_DEPTH = 400
#: most steps a plan may have with every use of a shared sub-plan counted (each is copied)
MAX_EXPANDED_STEPS = 100_000
#: stop reporting bad values after this many (the rest of a broken column adds nothing)
MAX_ROW_ERRORS = 20

#: nodes the cheap walk visits before it hands over to the counting walk of
#: :mod:`connect_plan.shapes` (a plan that contains itself never ends, and shared objects
#: can expand without bound)
CHEAP_WALK_NODES = 8_000_000
#: the same for one row value, walked once per value that is a list or object
CHEAP_CELL_NODES = 100_000
