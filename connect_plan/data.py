"""Inline rows + schema → Arrow, column by column.

Rows arrive as JSON-ish Python values (lists in schema order, or dicts keyed by column
name). Each column is converted in one of two ways:

* **fast path** — when the Python types present in a column are exactly what Arrow
  accepts for the target type (checked with one C-level ``set(map(type, values))``), the
  whole column goes to ``pyarrow.array`` / an Arrow cast in one call;
* **slow path** — otherwise each value is coerced by the rules of PLAN_FORMAT.md §6.1
  (ISO date strings, numeric strings, ``{"year","month","day"}`` objects, base64 binary,
  JSON strings holding arrays/objects ...), and every value that does not fit becomes an
  :class:`~connect_plan.errors.ErrorDetail` naming its row and column.

Nothing here talks to a server; the result is a ``pyarrow.Table`` whose Arrow types are
what Spark reads back as the declared Spark types (see :mod:`connect_plan.types`).
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import decimal
import difflib
import functools
import json
import math
import re
import sys
import weakref
from array import array
from collections.abc import Callable, Iterator, Mapping, Sequence
from itertools import accumulate, repeat
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from .arrow_types import inline_arrow_type
from .errors import ErrorDetail
from .limits import CHEAP_WALK_NODES, MAX_ROW_ERRORS
from .records import Value, frozen
from .shapes import container_problem, plain_tree_encodable
from .types import ArrayType, DataType, MapType, Primitive, TypeParseError

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["CoerceError", "Field", "ipc_chunks", "nbytes_bound", "rows_to_arrow", "serialize_ipc"]


_EPOCH_DATE = dt.date(1970, 1, 1)
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
_INT_RANGES = {
    "tinyint": (-(2**7), 2**7 - 1),
    "smallint": (-(2**15), 2**15 - 1),
    "int": (-(2**31), 2**31 - 1),
    "bigint": (-(2**63), 2**63 - 1),
}
_NONE = type(None)
#: the accepted date strings (surrounding whitespace aside)
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}", re.ASCII)


@frozen
class Field(Value):
    """One column of an inline schema: its name, its parsed type and where it was declared."""

    name: str
    type: DataType
    loc: str


class CoerceError(Exception):
    """A value does not fit its column type; the message says what was expected."""


# ---------------------------------------------------------------------------------------
# per-value coercion (slow path): returns the Python value pyarrow accepts for the type


def _coerce_int(v: Any, t: Primitive) -> int:
    if isinstance(v, bool):
        raise CoerceError("expected an integer, got a boolean")
    if isinstance(v, int):
        out = v
    elif isinstance(v, float):
        if not math.isfinite(v) or v != int(v):
            raise CoerceError("expected an integer, got a non-integral number")
        out = int(v)
    elif isinstance(v, decimal.Decimal):
        if v != v.to_integral_value():
            raise CoerceError("expected an integer, got a non-integral number")
        out = int(v)
    elif isinstance(v, str) and re.fullmatch(r"\s*[+-]?\d+\s*", v):
        out = int(v)
    else:
        raise CoerceError("expected an integer")
    lo, hi = _INT_RANGES[t.name]
    if not lo <= out <= hi:
        raise CoerceError(f"integer out of range for {t.name} [{lo}, {hi}]")
    return out


def _coerce_float(v: Any, t: Primitive) -> float:
    if isinstance(v, bool):
        raise CoerceError("expected a number, got a boolean")
    if isinstance(v, (int, float, decimal.Decimal)):
        try:
            return float(v)
        except OverflowError:
            raise CoerceError("number too large for a floating-point column") from None
    if isinstance(v, str):
        try:
            return float(v)
        except ValueError:
            raise CoerceError("expected a number") from None
    raise CoerceError("expected a number")


def _coerce_decimal(v: Any, t: Primitive) -> decimal.Decimal:
    if isinstance(v, bool):
        raise CoerceError("expected a decimal number, got a boolean")
    try:
        if isinstance(v, float):
            if not math.isfinite(v):
                raise CoerceError("decimals cannot be NaN or infinite")
            d = decimal.Decimal(repr(v))
        elif isinstance(v, (int, decimal.Decimal)):
            d = decimal.Decimal(v)
        elif isinstance(v, str):
            d = decimal.Decimal(v.strip())
        else:
            raise CoerceError("expected a decimal number")
    except decimal.InvalidOperation:
        raise CoerceError("expected a decimal number") from None
    if not d.is_finite():
        raise CoerceError("decimals cannot be NaN or infinite")
    # Spark's cast to decimal(p,s) rounds half-up to the scale
    with decimal.localcontext() as ctx:  # the default context has only 28 digits
        ctx.prec = 80
        try:
            q = d.quantize(decimal.Decimal(1).scaleb(-t.scale), rounding=decimal.ROUND_HALF_UP)
        except decimal.InvalidOperation:
            raise CoerceError(f"value does not fit decimal({t.precision},{t.scale})") from None
    int_digits = max(q.adjusted() + 1, 0) if q != 0 else 0
    if int_digits > t.precision - t.scale:
        raise CoerceError(f"value does not fit decimal({t.precision},{t.scale})")
    return q


def _coerce_string(v: Any, t: Primitive) -> str:
    if isinstance(v, str):
        if not v.isascii():
            try:
                v.encode("utf-8")
            except UnicodeEncodeError:
                raise CoerceError("text is not valid Unicode (lone surrogates)") from None
        return v
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float, decimal.Decimal)):
        return str(v)
    if isinstance(v, (dt.datetime, dt.date)):
        return v.isoformat()
    if isinstance(v, (list, dict)):
        try:
            return json.dumps(v, ensure_ascii=False)
        except (RecursionError, ValueError):
            raise CoerceError("value nested too deeply to write as JSON text") from None
    raise CoerceError("expected a string")


def _coerce_bool(v: Any, t: Primitive) -> bool:
    if isinstance(v, bool):
        return v
    if isinstance(v, str) and v.strip().lower() in ("true", "false"):
        return v.strip().lower() == "true"
    raise CoerceError("expected true or false")


def _date_from_parts(v: dict[str, Any]) -> dt.date:
    try:
        return dt.date(int(v["year"]), int(v["month"]), int(v["day"]))
    except (KeyError, TypeError, ValueError):
        raise CoerceError('expected {"year", "month", "day"} with a valid date') from None


def _coerce_date(v: Any, t: Primitive) -> dt.date:
    if isinstance(v, dt.datetime):
        raise CoerceError("expected a date, got a datetime (cast it, or declare the column timestamp)")
    if isinstance(v, dt.date):
        return v
    if isinstance(v, str):
        s = v.strip()
        if _DATE.fullmatch(s):
            try:
                return dt.date.fromisoformat(s)
            except ValueError:
                raise CoerceError("not a valid calendar date") from None
        raise CoerceError("expected a date as 'YYYY-MM-DD'")
    if isinstance(v, dict):
        return _date_from_parts(v)
    raise CoerceError("expected a date as 'YYYY-MM-DD'")


#: the accepted timestamp strings (surrounding whitespace aside): PLAN_FORMAT.md §6.1's
#: ``YYYY-MM-DD``, ``YYYY-MM-DDTHH:MM:SS[.f]`` and ``YYYY-MM-DD HH:MM:SS``, also with minutes
#: only, fractions to nanoseconds (truncated to microseconds) and a zone ``Z``/``±HH[:]MM``
_TS = re.compile(
    r"(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?"
    r"\s*(Z|[+-]\d{2}:?\d{2})?",
    re.ASCII,
)
#: the strings the fast path casts with Arrow: a subset of _TS (resp. _DATE) on which
#: Arrow's cast and the per-value parser agree. Arrow's ISO-8601 cast also takes strings
#: _TS refuses ('2024-03-01T12'), so every string is checked against this first: whether
#: a value is valid must not depend on the other values of its column.
#: Years 0001-9999 only: Python's range, which the per-value parser has (Arrow takes 0000).
_FAST_YEAR = r"(?:[1-9]\d{3}|0[1-9]\d{2}|00[1-9]\d|000[1-9])"
_FAST_TS = rf"^{_FAST_YEAR}-\d{{2}}-\d{{2}}(?:[T ]\d{{2}}:\d{{2}}(?::\d{{2}}(?:\.\d{{1,6}})?)?)?$"
_FAST_DATE = rf"^{_FAST_YEAR}-\d{{2}}-\d{{2}}$"


def _parse_timestamp(s: str) -> dt.datetime:
    m = _TS.fullmatch(s.strip())
    if not m:
        raise CoerceError("expected a timestamp as 'YYYY-MM-DD[THH:MM[:SS[.ffffff]]][Z|±HH:MM]'")
    date_s, hh, mm, ss, frac, zone = m.groups()
    try:
        base = dt.date.fromisoformat(date_s)
        micros = int((frac or "0")[:6].ljust(6, "0"))
        out = dt.datetime(base.year, base.month, base.day, int(hh or 0), int(mm or 0), int(ss or 0), micros)
    except ValueError:
        raise CoerceError("not a valid calendar date and time") from None
    if zone:
        if zone == "Z":
            tz = dt.timezone.utc
        else:
            z = zone.replace(":", "")
            sign = 1 if z[0] == "+" else -1
            tz = dt.timezone(sign * dt.timedelta(hours=int(z[1:3]), minutes=int(z[3:5])))
        out = out.replace(tzinfo=tz)
    return out


def _coerce_timestamp(v: Any, t: Primitive) -> dt.datetime | int:
    zoned = t.name == "timestamp"
    if isinstance(v, bool):
        raise CoerceError("expected a timestamp, got a boolean")
    if isinstance(v, int):
        return v  # microseconds since the epoch, as robin-sparkless reads integers
    if isinstance(v, str):
        out = _parse_timestamp(v)
    elif isinstance(v, dt.datetime):
        out = v
    elif isinstance(v, dt.date):
        out = dt.datetime(v.year, v.month, v.day)
    elif isinstance(v, dict):
        d = _date_from_parts(v)
        try:
            out = dt.datetime(
                d.year,
                d.month,
                d.day,
                int(v.get("hour", 0)),
                int(v.get("minute", 0)),
                int(v.get("second", 0)),
                int(v.get("microsecond", 0)),
            )
        except (TypeError, ValueError):
            raise CoerceError("invalid time parts") from None
    else:
        raise CoerceError("expected a timestamp string or microseconds since the epoch")
    if out.tzinfo is not None:
        if not zoned:
            raise CoerceError("timestamp_ntz values cannot carry a time zone offset")
        return out.astimezone(dt.timezone.utc)
    # naive values of a zoned column are read as UTC (documented; pin the session zone)
    return out.replace(tzinfo=dt.timezone.utc) if zoned else out


def _coerce_binary(v: Any, t: Primitive) -> bytes:
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v)
    if isinstance(v, str):
        try:
            return base64.b64decode(v, validate=True)
        except (binascii.Error, ValueError):
            raise CoerceError("expected base64-encoded bytes") from None
    raise CoerceError("expected base64-encoded bytes")


def _coerce_void(v: Any, t: Primitive) -> None:
    raise CoerceError("a void column holds only nulls")


def _coerce_variant(v: Any, t: Primitive) -> dict[str, bytes]:
    """Any JSON value (object, array, string, number, boolean) is the variant's value, in
    Spark's binary encoding (PySpark's own encoder, as VariantVal.parseJson); the column's
    null is SQL NULL. A string is a variant string: JSON text is parsed with parse_json."""
    try:
        text = json.dumps(v, allow_nan=False, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        raise CoerceError("expected a JSON value (object, array, string, finite number or boolean)") from None
    encode = _variant_encoder()
    if encode is None:
        raise CoerceError("variant input needs PySpark 4.0 or later (its variant encoder)")
    try:
        value, metadata = encode(text)
    except Exception as exc:  # PySpark's size limit and its other refusals
        raise CoerceError(f"cannot be encoded as a variant: {exc}") from None
    return {"value": value, "metadata": metadata}


@functools.cache
def _variant_encoder() -> Callable[[str], tuple[bytes, bytes]] | None:
    from .spark_proto import variant_utils

    try:
        utils = variant_utils()
    except ImportError:
        return None
    return getattr(utils, "parse_json", None)


_PRIMITIVE_COERCERS: dict[str, Callable[[Any, Primitive], Any]] = {
    "tinyint": _coerce_int,
    "smallint": _coerce_int,
    "int": _coerce_int,
    "bigint": _coerce_int,
    "float": _coerce_float,
    "double": _coerce_float,
    "decimal": _coerce_decimal,
    "string": _coerce_string,
    "boolean": _coerce_bool,
    "date": _coerce_date,
    "timestamp": _coerce_timestamp,
    "timestamp_ntz": _coerce_timestamp,
    "binary": _coerce_binary,
    "void": _coerce_void,
    "variant": _coerce_variant,
}


def _maybe_json(v: Any, want: type) -> Any:
    if isinstance(v, str):
        try:
            parsed = json.loads(v)
        except (ValueError, RecursionError):
            return v
        if isinstance(parsed, want):
            return parsed
    return v


def coerce_value(v: Any, t: DataType, depth: int = 0) -> Any:
    """Coerce one Python value to what ``pyarrow.array`` accepts for ``t`` (or raise CoerceError)."""
    if v is None:
        return None
    if depth > 64:
        raise CoerceError("value nested too deeply")
    if isinstance(t, Primitive):
        return _PRIMITIVE_COERCERS[t.name](v, t)
    if isinstance(t, ArrayType):
        v = _maybe_json(v, list)
        if isinstance(v, dict) and all(isinstance(k, str) and k.isascii() and k.isdigit() for k in v):
            v = [v[k] for k in sorted(v, key=int)]  # {"0": a, "1": b} objects (robin HEAD)
        if not isinstance(v, (list, tuple)):
            v = [v]  # a scalar becomes a one-element array (robin HEAD)
        assert t.element is not None
        return [coerce_value(x, t.element, depth + 1) for x in v]
    if isinstance(t, MapType):
        v = _maybe_json(v, dict)
        if not isinstance(v, dict):
            raise CoerceError("expected an object for a map")
        assert t.key is not None and t.value is not None
        out = []
        for k, x in v.items():
            key = coerce_value(k, t.key, depth + 1)
            if key is None:
                raise CoerceError("map keys cannot be null")
            out.append((key, coerce_value(x, t.value, depth + 1)))
        return out
    # struct
    v = _maybe_json(v, dict)
    if isinstance(v, (list, tuple)):
        if len(v) != len(t.fields):
            raise CoerceError(f"expected {len(t.fields)} struct fields, got {len(v)}")
        return {n: coerce_value(x, ft, depth + 1) for (n, ft), x in zip(t.fields, v)}
    if not isinstance(v, dict):
        raise CoerceError("expected an object for a struct")
    unknown = set(v) - {n for n, _ in t.fields}
    if unknown:
        raise CoerceError(f"unknown struct field(s) {sorted(unknown)[:3]}")
    return {n: coerce_value(v.get(n), ft, depth + 1) for n, ft in t.fields}


# ---------------------------------------------------------------------------------------
# fast paths: which Python types may go straight to Arrow for a target type

_FAST_TYPES: dict[str, frozenset[type]] = {
    "tinyint": frozenset({int, _NONE}),
    "smallint": frozenset({int, _NONE}),
    "int": frozenset({int, _NONE}),
    "bigint": frozenset({int, _NONE}),
    "float": frozenset({int, float, _NONE}),
    "double": frozenset({int, float, _NONE}),
    "string": frozenset({str, _NONE}),
    "boolean": frozenset({bool, _NONE}),
    "date": frozenset({dt.date, _NONE}),
    "binary": frozenset({bytes, _NONE}),
    "decimal": frozenset({decimal.Decimal, _NONE}),
}


def _fast_column(values: list[Any], t: DataType, at: pa.DataType, present: set[type]) -> pa.Array | None:
    """``values`` as an Arrow array in one vectorised step when their Python types
    (``present``) allow it, else None."""
    import pyarrow as pa

    if not isinstance(t, Primitive):
        return None
    try:
        if present <= _FAST_TYPES.get(t.name, frozenset()):
            if 0 < len(values) <= (_SMALL_NUMBERS if t.name in _ARRAY_CODES else _SMALL_BUFFERS):
                built = _small_buffers(values, t.name, at, present)
            else:
                built = None if _pandas_imported() else _from_buffers(values, t.name, at, present)
            return built if built is not None else pa.array(values, type=at)
        if present <= {str, _NONE}:
            if t.name == "date":
                if len(values) <= _SMALL_DATES:
                    small = _small_dates(values, at)
                    if small is not _UNDECIDED:
                        return small
                strings = _strings(values, present)
                return strings.cast(at) if _all_match(strings, _FAST_DATE) else None
            if t.name in ("timestamp", "timestamp_ntz"):
                # naive ISO strings only; anything with a zone takes the slow path
                if len(values) <= _SMALL_TIMESTAMPS:
                    small = _small_timestamps(values, at)
                    if small is not _UNDECIDED:
                        return small
                strings = _strings(values, present)
                if not _all_match(strings, _FAST_TS):
                    return None
                naive = strings.cast(pa.timestamp("us"))
                return naive.cast(at) if t.name == "timestamp" else naive
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError, ValueError, TypeError):  # UnicodeError is a ValueError
        return None
    return None


_NUMPY_TYPES = {"tinyint": "int8", "smallint": "int16", "int": "int32", "bigint": "int64", "double": "float64"}
_ARROW_NAMES = {**_NUMPY_TYPES, "double": "double", "boolean": "bool", "string": "string"}
_EXACT_IN_DOUBLE = 2**53


def _pandas_imported() -> bool:
    """Is ``pa.array`` free of its pandas probe? pyarrow's first ``pa.array`` of a list imports
    pandas (0.3-1 s of a cold start) to ask whether the list is a pandas object, unless pandas
    is imported already (the probe then costs nothing) or pyarrow runs without NumPy (it never
    probes then; it imports NumPy with itself whenever it can, so NumPy absent from
    ``sys.modules`` means it runs without, as in the ``connect-plan`` command's process,
    where ``sys.modules["numpy"]`` is None: see ``cli._lean_pyarrow``). Where the
    probe is free ``pa.array`` is the faster path (strings: about 1.4x faster than
    :func:`_from_buffers`)."""
    return "pandas" in sys.modules or sys.modules.get("numpy") is None


def _from_buffers(values: list[Any], name: str, at: pa.DataType, present: set[type]) -> pa.Array | None:
    """An integer, double, boolean or string column built from its Arrow buffers, or None
    (then ``pa.array`` builds it): the same array as ``pa.array(values, type=at)`` without its
    pandas probe (issue 17's cold start). Raises what ``pa.array`` would raise for a value out
    of range (OverflowError), so the caller falls back alike."""
    import pyarrow as pa

    np = sys.modules.get("numpy")  # loaded by pyarrow; without it pyarrow does not probe for pandas
    if np is None:
        return None
    if str(at) != _ARROW_NAMES.get(name):
        return None
    n = len(values)
    nulls = _NONE in present
    validity = None
    if nulls:
        valid = np.fromiter((v is not None for v in values), dtype=np.bool_, count=n)
        validity = pa.py_buffer(np.packbits(valid, bitorder="little"))
    if name in _NUMPY_TYPES:
        if name == "double":
            if not present <= {float, int, _NONE}:
                return None
            if int in present and not all(-_EXACT_IN_DOUBLE <= v <= _EXACT_IN_DOUBLE for v in values if type(v) is int):
                return None  # pa.array refuses ints a double cannot hold exactly
        plain = [0 if v is None else v for v in values] if nulls else values
        numbers = np.array(plain, dtype=_NUMPY_TYPES[name])  # OverflowError out of range, like pa.array
        return pa.Array.from_buffers(at, n, [validity, pa.py_buffer(numbers)])
    if name == "boolean":
        bits = np.fromiter((v is True for v in values), dtype=np.bool_, count=n)
        return pa.Array.from_buffers(at, n, [validity, pa.py_buffer(np.packbits(bits, bitorder="little"))])
    if name == "string":
        strings = [v or "" for v in values] if nulls else values
        try:
            blob = "".join(strings).encode()
        except UnicodeEncodeError:  # a lone surrogate: pa.array's error path reports it
            return None
        lengths = np.fromiter(map(len, strings), dtype=np.int64, count=n)
        if len(blob) != int(lengths.sum()):  # not all ASCII: lengths in bytes, string by string
            lengths = np.fromiter((len(v.encode()) for v in strings), dtype=np.int64, count=n)
        offsets = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        if offsets[-1] > 2**31 - 1:
            return None
        return pa.Array.from_buffers(at, n, [validity, pa.py_buffer(offsets.astype(np.int32)), pa.py_buffer(blob)])
    return None


#: string and boolean columns of at most this many values, and integer and double columns of
#: at most _SMALL_NUMBERS, are built from buffers packed by the array module
#: (:func:`_small_buffers`): for 3 values 1.2-1.6x cheaper than ``pa.array`` (which reads an
#: environment variable on each call) and 1.2-2.7x cheaper than NumPy (a fixed cost per
#: array). Measured: as cheap as ``pa.array`` at ~30 strings or booleans, cheaper than
#: either at 128 integers or doubles
_SMALL_BUFFERS = 32
_SMALL_NUMBERS = 128
#: the array module's codes of Arrow's integer and double types
_INT32 = next(code for code in "ilh" if array(code).itemsize == 4)  # "i" wherever Python runs
_ARRAY_CODES = {"tinyint": "b", "smallint": "h", "int": _INT32, "bigint": "q", "double": "d"}


def _small_buffers(values: list[Any], name: str, at: pa.DataType, present: set[type]) -> pa.Array | None:
    """A few integers, doubles, booleans or strings (and nulls) as the array
    ``pa.array(values, type=at)`` makes of them, or None (then ``pa.array`` builds it). Raises
    OverflowError for an integer out of range, as ``pa.array`` and :func:`_from_buffers` do."""
    import pyarrow as pa

    if at.id != _plain_type_ids().get(name):  # the one Arrow type each of these names has
        return None
    n = len(values)
    validity = _validity(values) if _NONE in present else None
    code = _ARRAY_CODES.get(name)
    if code is not None:
        if name == "double":
            if not present <= {float, int, _NONE}:
                return None
            if int in present and not all(-_EXACT_IN_DOUBLE <= v <= _EXACT_IN_DOUBLE for v in values if type(v) is int):
                return None  # pa.array refuses ints a double cannot hold exactly
        plain = [0 if v is None else v for v in values] if validity is not None else values
        return pa.Array.from_buffers(at, n, [validity, pa.py_buffer(array(code, plain))])
    if name == "boolean":
        bits = 0
        for i, v in enumerate(values):
            if v is True:
                bits |= 1 << i
        return pa.Array.from_buffers(at, n, [validity, pa.py_buffer(bits.to_bytes((n + 7) // 8, "little"))])
    if name == "string":
        strings = [v or "" for v in values] if validity is not None else values
        try:
            blob = "".join(strings).encode()
        except UnicodeEncodeError:  # a lone surrogate: pa.array's error path reports it
            return None
        lengths = list(map(len, strings))
        if len(blob) != sum(lengths):  # not all ASCII: lengths in bytes, string by string
            lengths = [len(v.encode()) for v in strings]
        try:
            offsets = array(_INT32, accumulate(lengths, initial=0))
        except OverflowError:  # over 2 GiB of text: pa.array makes a chunked array
            return None
        return pa.Array.from_buffers(at, n, [validity, pa.py_buffer(offsets), pa.py_buffer(blob)])
    return None


@functools.cache
def _plain_type_ids() -> dict[str, int]:
    """The Arrow type id of each type :func:`_small_buffers` builds (types without
    parameters: equal when their ids are)."""
    import pyarrow as pa

    return {name: pa.type_for_alias(alias).id for name, alias in _ARROW_NAMES.items()}


def _validity(values: list[Any]) -> pa.Buffer:
    """The validity bitmap of ``values`` (a bit set for each value that is not None)."""
    import pyarrow as pa

    bits = 0
    for i, v in enumerate(values):
        if v is not None:
            bits |= 1 << i
    return pa.py_buffer(bits.to_bytes((len(values) + 7) // 8, "little"))


def _strings(values: list[Any], present: set[type]) -> pa.Array:
    """Strings (and nulls) as an Arrow string array, without pyarrow's pandas probe while
    pandas is not imported (see :func:`_from_buffers`)."""
    import pyarrow as pa

    built = None if _pandas_imported() else _from_buffers(values, "string", pa.string(), present)
    return built if built is not None else pa.array(values, type=pa.string())


#: a date (timestamp) column of at most this many strings is checked and converted value by
#: value (a precompiled regular expression, the datetime module: ~0.5 µs a date, ~1.3 µs a
#: timestamp) rather than in one vectorised Arrow pass, whose fixed cost (an RE2 compile per
#: call, then a cast) is 35-60 µs (measured: the two cost the same at ~90 dates, ~50 timestamps)
_SMALL_DATES = 64
_SMALL_TIMESTAMPS = 32
_FAST_DATE_RE = re.compile(_FAST_DATE, re.ASCII)
#: _FAST_TS with its parts captured: date, hours, minutes, seconds, fraction
_FAST_TS_PARTS = re.compile(
    rf"({_FAST_YEAR}-\d{{2}}-\d{{2}})(?:[T ](\d{{2}}):(\d{{2}})(?::(\d{{2}})(?:\.(\d{{1,6}}))?)?)?", re.ASCII
)
_DAY_MICROS = 86_400_000_000
_EPOCH_ORDINAL = _EPOCH_DATE.toordinal()
#: what the small-column converters return when Arrow's cast must decide (a string Python
#: refuses, which Arrow's cast may judge otherwise): the vectorised path then runs as before
_UNDECIDED: Any = object()


def _small_dates(values: list[Any], at: pa.DataType) -> pa.Array | None:
    """``values`` (ISO date strings and nulls) as the date32 array Arrow's cast makes of them;
    None when a string is not of the fast form (as :func:`_all_match` would say)."""
    days: list[int] = []
    for v in values:
        if v is None:
            days.append(0)
            continue
        if not _FAST_DATE_RE.fullmatch(v):
            return None
        try:
            days.append(dt.date.fromisoformat(v).toordinal() - _EPOCH_ORDINAL)
        except ValueError:  # not a calendar date: Arrow's cast refuses it too, and decides
            return _UNDECIDED
    return _fixed_width(at, _INT32, days, values)


def _small_timestamps(values: list[Any], at: pa.DataType) -> pa.Array | None:
    """``values`` (naive ISO timestamp strings and nulls) as the timestamp[us] array Arrow's
    cast makes of them (in ``at``'s zone: the same instants); None when a string is not of
    the fast form (as :func:`_all_match` would say)."""
    micros: list[int] = []
    for v in values:
        if v is None:
            micros.append(0)
            continue
        m = _FAST_TS_PARTS.fullmatch(v)
        if m is None:
            return None
        date, hours, minutes, seconds, fraction = m.groups()
        try:
            day = dt.date.fromisoformat(date).toordinal() - _EPOCH_ORDINAL
        except ValueError:  # not a calendar date: Arrow's cast refuses it too, and decides
            return _UNDECIDED
        if hours is None:
            micros.append(day * _DAY_MICROS)
            continue
        h, mi, sec = int(hours), int(minutes), int(seconds or 0)
        if h > 23 or mi > 59 or sec > 59:
            return _UNDECIDED
        us = int(fraction.ljust(6, "0")) if fraction else 0
        micros.append(day * _DAY_MICROS + (h * 3600 + mi * 60 + sec) * 1_000_000 + us)
    return _fixed_width(at, "q", micros, values)


def _fixed_width(at: pa.DataType, code: str, numbers: list[int], values: list[Any]) -> pa.Array:
    """An Arrow array of type ``at`` over ``numbers`` (packed as the ``array`` module's
    ``code``: :data:`_INT32` or q = int64), null where ``values`` has None."""
    import pyarrow as pa

    validity = _validity(values) if None in values else None
    return pa.Array.from_buffers(at, len(values), [validity, pa.py_buffer(array(code, numbers))])


def _all_match(strings: pa.Array, pattern: str) -> bool:
    """Every non-null string matches ``pattern`` (one vectorised RE2 pass)."""
    import pyarrow.compute as pc

    return bool(pc.all(pc.match_substring_regex(strings, pattern)).as_py() is not False)


def _column(
    values: list[Any],
    field: Field,
    at: pa.DataType,
    rows_loc: str,
    col_index: int,
    errors: list[ErrorDetail],
    present: set[type],
) -> pa.Array:
    import pyarrow as pa

    fast = _fast_column(values, field.type, at, present)
    if fast is not None:
        return fast
    out: list[Any] = []
    for i, v in enumerate(values):
        try:
            out.append(coerce_value(v, field.type))
        except CoerceError as bad:
            out.append(None)
            if len(errors) < MAX_ROW_ERRORS:
                errors.append(
                    ErrorDetail(
                        "row_value",
                        f"{rows_loc}/{i}/{col_index}",
                        f"row {i}, column {field.name!r} ({_tname(field.type)}): {bad}",
                        v,
                    )
                )
    if errors:
        return pa.nulls(len(values), type=at)
    built = _coerced_array(out, field.type, at)
    if built is not None:
        return built
    try:
        return pa.array(out, type=at)
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError, ValueError, TypeError) as exc:
        errors.append(ErrorDetail("row_value", f"{rows_loc}", f"column {field.name!r} cannot be converted: {exc}"))
        return pa.nulls(len(values), type=at)


def _coerced_array(out: list[Any], t: DataType, at: pa.DataType) -> pa.Array | None:
    """The coerced values of a column of a common type (integers, doubles, strings,
    booleans, dates, timestamps, decimals) as the array ``pa.array(out, type=at)`` makes of
    them, built from buffers: a few values at a lower cost, and any number without pyarrow's
    pandas probe while pandas is not imported (0.3 s of a cold start). None for anything
    else, or anything these builders do not take (then ``pa.array`` decides, as before)."""
    if not isinstance(t, Primitive) or not out:
        return None
    name = t.name
    present = set(map(type, out))
    try:
        if name in _ARRAY_CODES or name in ("boolean", "string"):
            if not present <= _FAST_TYPES[name]:
                return None
            if len(out) <= (_SMALL_NUMBERS if name in _ARRAY_CODES else _SMALL_BUFFERS):
                return _small_buffers(out, name, at, present)
            return None if _pandas_imported() else _from_buffers(out, name, at, present)
        if _pandas_imported() and len(out) > _SMALL_BUFFERS:
            return None  # pa.array converts these in C
        if name == "date" and present <= {dt.date, _NONE}:
            days = [0 if v is None else v.toordinal() - _EPOCH_ORDINAL for v in out]
            return _fixed_width(at, _INT32, days, out)
        if name in ("timestamp", "timestamp_ntz") and present <= {dt.datetime, int, _NONE}:
            return _timestamps(out, at, zoned=name == "timestamp")
        if name == "decimal" and present <= {decimal.Decimal, _NONE}:
            return _decimals(out, at, t)
    except (OverflowError, ValueError, TypeError, ArithmeticError):
        return None
    return None


_ONE_MICRO = dt.timedelta(microseconds=1)
_NAIVE_EPOCH = dt.datetime(1970, 1, 1)


def _timestamps(out: list[Any], at: pa.DataType, *, zoned: bool) -> pa.Array | None:
    """Coerced timestamps (datetimes in UTC for a zoned column, naive ones for a
    timestamp_ntz column, or microseconds since the epoch) as a timestamp[us] array."""
    epoch = _EPOCH if zoned else _NAIVE_EPOCH
    micros: list[int] = []
    for v in out:
        if v is None:
            micros.append(0)
        elif type(v) is int:
            if not -(2**63) <= v < 2**63:
                return None  # pa.array's error says what is wrong
            micros.append(v)
        elif (v.tzinfo is not None) is zoned and (not zoned or v.utcoffset() == dt.timedelta(0)):
            micros.append((v - epoch) // _ONE_MICRO)
        else:
            return None
    return _fixed_width(at, "q", micros, out)


def _decimals(out: list[Any], at: pa.DataType, t: Primitive) -> pa.Array | None:
    """Coerced decimals (already at the column's scale, within its precision) as a
    decimal128 array: each value's unscaled integer, 16 bytes little-endian two's complement."""
    import pyarrow as pa

    if sys.byteorder != "little" or not pa.types.is_decimal128(at):
        return None
    scale, limit = 10**t.scale, 10**t.precision
    words: list[bytes] = []
    for v in out:
        if v is None:
            words.append(bytes(16))
            continue
        numerator, denominator = v.as_integer_ratio()
        unscaled, rest = divmod(numerator * scale, denominator)
        if rest or not -limit < unscaled < limit:
            return None  # not exact at this scale, or too wide: pa.array decides
        words.append(unscaled.to_bytes(16, "little", signed=True))
    validity = _validity(out) if None in out else None
    return pa.Array.from_buffers(at, len(out), [validity, pa.py_buffer(b"".join(words))])


def _tname(t: DataType) -> str:
    from .types import type_string

    return type_string(t)


def _infer_array_column(values: list[Any], field: Field) -> tuple[DataType, pa.DataType]:
    """A bare ``array``/``list`` column: element type from the data (bigint if unknown)."""
    import pyarrow as pa

    from .arrow_types import from_arrow

    sample = [v for v in values if v is not None]
    try:
        inferred = pa.array(sample).type if sample else pa.list_(pa.int64())
    except (
        pa.ArrowInvalid,
        pa.ArrowTypeError,
        pa.ArrowNotImplementedError,
        RecursionError,
        ValueError,
        TypeError,
        OverflowError,
    ):
        inferred = pa.list_(pa.int64())
    if not pa.types.is_list(inferred) or pa.types.is_null(inferred.value_type):
        inferred = pa.list_(pa.int64())
    t = from_arrow(inferred)
    return t, inline_arrow_type(t)


def _columns(
    rows: Sequence[Any],
    names: list[str],
    rows_loc: str,
    errors: list[ErrorDetail],
    other_keys: bool = False,
    case_sensitive: bool = False,
) -> list[list[Any]]:
    """Rows → one list of values per column.

    The common shapes (every row a list/tuple of the schema's length, or every row a dict)
    are transposed column by column with C-level ``map`` calls: no Python code runs per
    value and no per-row objects are allocated (``zip(*rows)`` allocates an iterator per
    row, which also wakes the cyclic GC; it is ~4x slower at 1e6 rows). Anything else
    takes a per-row loop that reports each malformed row.
    """
    n_cols = len(names)
    row_types = set(map(type, rows))
    if row_types <= {list, tuple}:
        if set(map(len, rows)) <= {n_cols}:
            return [list(map(itemgetter(j), rows)) for j in range(n_cols)]
    elif row_types == {dict}:
        # missing keys read as null; every key must name a column (the check is one C-level
        # union of the key sets; rows with other keys take the loop below)
        if other_keys or set().union(*map(dict.keys, rows)) <= set(names):
            return [list(map(dict.get, rows, repeat(name))) for name in names]
    columns: list[list[Any]] = [[] for _ in names]
    by_name = _RowKeys(names, case_sensitive)
    for i, r in enumerate(rows):
        if isinstance(r, Mapping):
            if not other_keys:
                r = by_name.rekey(r, i, rows_loc, errors)
            for j, name in enumerate(names):
                columns[j].append(r.get(name))
        elif isinstance(r, (list, tuple)):
            if len(r) != n_cols:
                if len(errors) < MAX_ROW_ERRORS:
                    errors.append(
                        ErrorDetail(
                            "row_length",
                            f"{rows_loc}/{i}",
                            f"row {i} has {len(r)} values but the schema has {n_cols} columns",
                            r,
                        )
                    )
                continue
            for j in range(n_cols):
                columns[j].append(r[j])
        elif len(errors) < MAX_ROW_ERRORS:
            errors.append(
                ErrorDetail(
                    "row_type",
                    f"{rows_loc}/{i}",
                    f"row {i} must be a list (schema order) or an object keyed by column name",
                    r,
                )
            )
    return columns


class _RowKeys:
    """The keys a row object may have: the column names, and (as Spark resolves names
    case-insensitively unless ``spark.sql.caseSensitive``) any spelling of one that differs
    only in case, where that is unambiguous. A key naming no column is an error at the row
    and key, never dropped."""

    def __init__(self, names: Sequence[str], case_sensitive: bool = False) -> None:
        self.names = frozenset(names)
        lowered: dict[str, list[str]] = {}
        for n in names:
            lowered.setdefault(n.lower(), []).append(n)
        self.folded = {} if case_sensitive else {k: v[0] for k, v in lowered.items() if len(v) == 1}
        self.case_sensitive = case_sensitive
        self.sorted = sorted(names)

    def rekey(self, row: Mapping[Any, Any], i: int, rows_loc: str, errors: list[ErrorDetail]) -> Mapping[Any, Any]:
        if all(k in self.names for k in row):
            return row
        out: dict[Any, Any] = {}
        for k, v in row.items():
            target = k if k in self.names else self.folded.get(k.lower()) if isinstance(k, str) else None
            if target is None:
                if len(errors) < MAX_ROW_ERRORS:
                    near = difflib.get_close_matches(str(k), self.sorted, n=1, cutoff=0.6)
                    if not near and isinstance(k, str):
                        near = difflib.get_close_matches(k.lower(), [n.lower() for n in self.sorted], n=1, cutoff=0.6)
                    hint = f"; did you mean {near[0]!r}?" if near else ""
                    if self.case_sensitive and isinstance(k, str) and k.lower() in map(str.lower, self.names):
                        hint += (
                            " (the plan's conf sets spark.sql.caseSensitive, so names match only in their exact case)"
                        )
                    errors.append(
                        ErrorDetail(
                            "row_key",
                            f"{rows_loc}/{i}/{k}",
                            f"row {i} has a key {k!r} that names no column of the schema ({', '.join(self.sorted)}){hint}",
                            k,
                        )
                    )
                continue
            if target in out:
                if len(errors) < MAX_ROW_ERRORS:
                    errors.append(
                        ErrorDetail(
                            "row_key",
                            f"{rows_loc}/{i}/{k}",
                            f"row {i} gives column {target!r} twice (column names match case-insensitively)",
                            k,
                        )
                    )
                continue
            out[target] = v
        return out


def rows_to_arrow(
    rows: Sequence[Any],
    fields: Sequence[Field],
    rows_loc: str,
    errors: list[ErrorDetail],
    *,
    other_keys: bool = False,
    case_sensitive: bool = False,
) -> pa.Table:
    """Convert rows (lists in schema order or dicts by name) to an Arrow table.
    ``case_sensitive``: a row object's key must name its column in the exact case
    (``spark.sql.caseSensitive``), else any unambiguous case matches.

    Problems are appended to ``errors`` (row shape, bad values); the returned table is then
    only a placeholder of the right schema.
    """
    import pyarrow as pa

    names = [f.name for f in fields]
    start_errors = len(errors)
    if not isinstance(rows, (list, tuple)):
        errors.append(ErrorDetail("rows_type", rows_loc, "rows must be a list", rows))
        rows = []
    columns = _columns(rows, names, rows_loc, errors, other_keys, case_sensitive)
    if len(errors) > start_errors:
        return _empty_table(fields)
    present = [set(map(type, values)) for values in columns]  # one C-speed scan per column
    for j, field in enumerate(fields):
        if not _CONTAINERS.isdisjoint(present[j]):
            _check_containers(columns[j], field, rows_loc, j, errors)
    if len(errors) > start_errors:  # before any conversion, which would copy every reuse
        _locate(errors, start_errors, rows, names, rows_loc)
        return _empty_table(fields)
    arrays = []
    for j, field in enumerate(fields):
        t = field.type
        if isinstance(t, ArrayType) and t.element is None:
            t, at = _infer_array_column(columns[j], field)
            field = Field(field.name, t, field.loc)
        else:
            at = inline_arrow_type(t)
        arrays.append(_column(columns[j], field, at, rows_loc, j, errors, present[j]))
    if len(errors) > start_errors:
        _locate(errors, start_errors, rows, names, rows_loc)
        return pa.Table.from_arrays(arrays, names=names)
    # every array has its column's Arrow type ``at``: the schema is read from them (nullable
    # fields without metadata, as pa.field makes them), not built field by field
    table = pa.Table.from_arrays(arrays, names=names)
    _own_buffers(table)
    return table


#: the tables rows_to_arrow built, by id while they live. Each of their buffers was made for
#: one of their arrays (by pa.array, a cast, or packed here) and no array of theirs is a slice,
#: so the bytes their arrays reference (``nbytes``, which costs ~2 µs a column to count) are
#: at most the bytes of their distinct buffers (``get_total_buffer_size()``, 0.2 µs a table),
#: but for one thing: CPython hands out one shared ``bytes`` object for each single byte, so
#: the one-byte buffers packed here (a validity bitmap, booleans, a string column's text: at
#: most 3 a column) may be one buffer for several arrays, counted once. See :func:`nbytes_bound`.
_OWN_BUFFERS: dict[int, weakref.ref[Any]] = {}
_SHARED_BYTES_PER_COLUMN = 3


def _own_buffers(table: pa.Table) -> None:
    key = id(table)

    def forget(_: object, key: int = key) -> None:
        _OWN_BUFFERS.pop(key, None)

    _OWN_BUFFERS[key] = weakref.ref(table, forget)


def nbytes_bound(table: pa.Table) -> int | None:
    """An upper bound of ``table.nbytes`` that costs next to nothing, for a table
    :func:`rows_to_arrow` built; None for any other table (whose arrays may share buffers,
    each use of which ``nbytes`` counts)."""
    ref = _OWN_BUFFERS.get(id(table))
    built_here = ref is not None and ref() is table
    if not built_here:
        return None
    return int(table.get_total_buffer_size() + _SHARED_BYTES_PER_COLUMN * table.num_columns)


_CONTAINERS = frozenset({list, tuple, dict})


def _check_containers(
    values: list[Any], field: Field, rows_loc: str, col_index: int, errors: list[ErrorDetail]
) -> None:
    """Lists and objects among ``values`` must be trees of bounded size (see
    :func:`connect_plan.shapes.container_problem`)."""

    if plain_tree_encodable(values, CHEAP_WALK_NODES):  # the usual case: one walk, no call per value
        return
    for i, v in enumerate(values):
        if type(v) in _CONTAINERS and len(errors) < MAX_ROW_ERRORS:
            problem = container_problem(v)
            if problem is not None:
                code, message = problem
                errors.append(
                    ErrorDetail(code, f"{rows_loc}/{i}/{col_index}", f"row {i}, column {field.name!r}: {message}")
                )


def _locate(errors: list[ErrorDetail], start: int, rows: Sequence[Any], names: list[str], rows_loc: str) -> None:
    """Report bad values row by row, as a reader scans the input; a value of a row given as
    an object is located by its key, as the user wrote it."""
    errors[start:] = [_by_key(d, rows, names, rows_loc) for d in sorted(errors[start:], key=_row_col_key)]


def _by_key(d: ErrorDetail, rows: Sequence[Any], names: Sequence[str], rows_loc: str) -> ErrorDetail:
    parts = d.loc[len(rows_loc) :].split("/")  # ["", row, column] for a value
    if (
        len(parts) != 3
        or not parts[1].isdigit()
        or not parts[2].isdigit()
        or not isinstance(rows[int(parts[1])], Mapping)
    ):
        return d
    return ErrorDetail(d.code, f"{rows_loc}/{parts[1]}/{names[int(parts[2])]}", d.message, d.input)


def _row_col_key(d: ErrorDetail) -> tuple[int, ...]:
    return tuple(int(p) for p in d.loc.rsplit("/", 2)[-2:] if p.isdigit())


def _empty_table(fields: Sequence[Field]) -> pa.Table:
    import pyarrow as pa

    cols = []
    for f in fields:
        try:
            cols.append(pa.field(f.name, inline_arrow_type(f.type)))
        except TypeParseError:
            cols.append(pa.field(f.name, pa.int64()))
    return pa.schema(cols).empty_table()


def serialize_ipc(table: pa.Table) -> bytes:
    """Arrow IPC stream bytes of ``table`` (what ``LocalRelation.data`` carries)."""
    import pyarrow as pa

    sink = pa.BufferOutputStream()
    # explicit options: without them pyarrow reads two environment variables per call
    with pa.ipc.new_stream(sink, table.schema, options=_ipc_options()) as writer:
        writer.write_table(table)
    data: bytes = sink.getvalue().to_pybytes()
    return data


def fill_local_relation(local: Any, table: pa.Table, data: bytes | None = None) -> int:
    """Put ``table`` into a ``LocalRelation`` message; returns the bytes of data placed.
    ``data``: ``table``'s IPC bytes when already serialised (a table used several times).

    A table without rows also gets the relation's ``schema`` (Spark's JSON schema, as
    PySpark's createDataFrame sends): the IPC stream carries the schema too, but some
    servers (Sail) read it only from the schema field ("missing schema for local
    relation"). Spark reads the same types from either.
    """
    if data is None:
        data = serialize_ipc(table)
    local.data = data
    if table.num_rows == 0:
        from pyspark.sql.pandas.types import from_arrow_schema

        local.schema = from_arrow_schema(table.schema, prefer_timestamp_ntz=True).json()
    return len(data)


@functools.cache
def _ipc_options() -> pa.ipc.IpcWriteOptions:
    import pyarrow as pa

    return pa.ipc.IpcWriteOptions()


def ipc_chunks(table: pa.Table, max_rows: int, max_bytes: int) -> Iterator[bytes]:
    """``table`` as consecutive Arrow IPC streams of at most ``max_rows`` rows and (where a
    single row allows) ``max_bytes`` bytes of column data each: the chunks of a
    ``ChunkedCachedLocalRelation``. One chunk is in memory at a time."""
    n = table.num_rows
    if n == 0:
        yield serialize_ipc(table)
        return
    per_row = max(table.nbytes / n, 1.0)
    step = max(1, min(max_rows, int(max_bytes // per_row)))
    start = 0
    while start < n:
        rows = min(step, n - start)
        piece = table.slice(start, rows)
        # skewed rows: halve until the piece fits (or is a single row)
        while rows > 1 and piece.nbytes > max_bytes:
            rows //= 2
            piece = table.slice(start, rows)
        yield serialize_ipc(piece)
        start += rows
