"""The columns a relation outputs, as far as the translator knows them statically.

Names are tracked through every step so that the translator can (a) tell a column
literally named ``a.b`` from struct access ``a`` → ``b``, (b) rename right-hand join
columns that would duplicate a left-hand name (``name_right``), (c) report a ``drop`` or
``withColumnRenamed`` of a missing column before any network call. Where a name cannot be
known without Spark (an unnamed computed column), the entry is ``None``; where nothing is
known (a table read), ``names`` is ``None``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from ..names import attribute_part, attribute_parts, quote

if TYPE_CHECKING:
    from ..types import DataType

__all__ = ["Scope", "attribute_parts"]


#: the shared empty mappings of a scope without renames or known types (never changed)
_NO_RENAMES: Mapping[str, str] = MappingProxyType({})
_NO_TYPES: Mapping[str, DataType] = MappingProxyType({})


class Scope:
    """The columns of one intermediate result. Never changed once made (the ``with_*``
    methods make new ones). A plain slotted class: one is made per step, so it is built
    without dataclass machinery."""

    __slots__ = ("_positions_cache", "case_sensitive", "names", "plan_id", "renames", "sides", "types")

    def __init__(
        self,
        names: tuple[str | None, ...] | None,
        case_sensitive: bool = False,
        plan_id: int | None = None,
        renames: Mapping[str, str] = _NO_RENAMES,
        sides: Mapping[str, Scope] | None = None,
        types: Mapping[str, DataType] = _NO_TYPES,
    ) -> None:
        self.names = names
        self.case_sensitive = case_sensitive
        self.plan_id = plan_id
        #: for a join's right input: original name (normalised) → name after renaming
        self.renames = renames
        #: inside a join condition: the scopes of the two inputs
        self.sides = sides
        #: the Spark types known statically (normalised name → type): an inline input's
        #: columns, carried through the steps that keep them; any other column is unknown
        self.types = types
        self._positions_cache: dict[str, int] | None = None

    def __repr__(self) -> str:
        return f"Scope({self.names!r}, case_sensitive={self.case_sensitive}, plan_id={self.plan_id})"

    def norm(self, name: str) -> str:
        return name if self.case_sensitive else name.lower()

    @property
    def complete(self) -> bool:
        return self.names is not None and None not in self.names

    @property
    def _positions(self) -> dict[str, int]:
        """Normalised name → first position (built once per scope, on first lookup)."""
        out = self._positions_cache
        if out is None:
            names = self.names or ()
            keys = names if self.case_sensitive else [n and n.lower() for n in names]
            # built from the end so that the first position of a repeated name wins
            found: dict[Any, int] = dict(zip(reversed(keys), range(len(keys) - 1, -1, -1)))
            found.pop(None, None)  # unnamed columns (named by Spark) are not looked up
            out = self._positions_cache = found
        return out

    def known(self) -> list[str]:
        return [n for n in self.names or () if n is not None]

    def has(self, name: str) -> bool | None:
        """True/False if the column ``name`` exists; None if that cannot be known."""
        if self.names is not None and (name if self.case_sensitive else name.lower()) in self._positions:
            return True
        return False if self.complete else None

    def has_root(self, name: str) -> bool | None:
        """Like :meth:`has`, also true when ``name`` starts with a column (struct access)."""
        found = self.has(name)
        if found or "." not in name:
            return found
        root = self.has(name.split(".", 1)[0])
        return root if root is not None else found

    def identifier(self, name: str) -> str:
        """The ``unparsed_identifier`` for a reference to ``name`` in this scope.

        Plain names go as they are. A name containing a dot or backtick that is a known
        column is quoted whole (a column literally named ``a.b``). Otherwise the name means
        what it means to PySpark (``a.b`` is field ``b`` of ``a``, user-written backticks
        quote: ``df.select("a.b")``), and each part is re-quoted so that nothing in it can
        break out of its identifier; text Spark would refuse (a stray backtick: ``x`y``)
        is taken literally, its dots still separating parts.
        """
        if "." not in name and "`" not in name:
            return name
        if self.has(name):
            return quote(name)
        parts = attribute_parts(name)
        if parts is None:
            parts = name.split(".")
        return ".".join(attribute_part(p) for p in parts)

    def output_name(self, name: str) -> str:
        return self.renames.get(self.norm(name), name)

    def side_of(self, name: str, prefer: str | None) -> str | None:
        """Which join input a bare column reference in a condition belongs to."""
        assert self.sides is not None
        left, right = self.sides["left"].has_root(name), self.sides["right"].has_root(name)
        if left and not right:
            return "left"
        if right and not left:
            return "right"
        if left and right:
            return prefer or "left"
        return prefer

    def with_names(self, names: Iterable[str | None] | None, types: Mapping[str, DataType] | None = None) -> Scope:
        """A scope of other columns. ``types`` (normalised names) are kept for the names
        that remain; without it nothing is known of the new columns' types."""
        out = Scope(None if names is None else tuple(names), self.case_sensitive)
        if types and out.names is not None:
            positions = out._positions
            kept = {k: t for k, t in types.items() if k in positions}
            if kept:
                out.types = kept
        return out

    def with_column(self, name: str, type: DataType | None) -> Scope:
        """This scope (its names known) with column ``name`` replacing the column of that
        name, or added after the others (``withColumn``); ``type``: its static type, if known.
        The lookup table and the types are the parent's, copied and amended: one step
        costs the same however many steps came before."""
        assert self.names is not None
        key = self.norm(name)
        positions = self._positions
        idx = positions.get(key)
        names = list(self.names)
        if idx is None:
            positions = {**positions, key: len(names)}
            names.append(name)
        else:
            names[idx] = name  # the same name but for its case: the positions stay
        types = dict(self.types)
        types.pop(key, None)
        if type is not None:
            types[key] = type
        out = Scope(tuple(names), self.case_sensitive, types=types or _NO_TYPES)
        out._positions_cache = positions
        return out

    def type_of(self, name: str) -> DataType | None:
        """The statically known type of column ``name`` (a column, not a struct path)."""
        return self.types.get(self.norm(name)) if self.types else None

    def index_of(self, name: str) -> int | None:
        if self.names is None:
            return None
        return self._positions.get(self.norm(name))
