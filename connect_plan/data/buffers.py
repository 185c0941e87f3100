"""Columns built straight from Arrow buffers: the inline-data converter's fast paths.

When the Python types present in a column are exactly what Arrow accepts for the target
type (checked with one C-level ``set(map(type, values))``), the whole column goes to Arrow
in one step (:func:`fast_column`): ``pyarrow.array`` or a cast of the strings, or, for a few
values or while pyarrow's pandas probe would cost a cold start, an array built from buffers
(:func:`_small_buffers`, :func:`_from_buffers`, :func:`coerced_array` for values the slow
path already coerced). Every builder answers exactly what ``pa.array(values, type=at)``
would, or declines (None) and lets it decide; tests/unit/test_rows_buffers.py and
test_small_inputs.py compare them.
"""

from __future__ import annotations

import datetime as dt
import decimal
import functools
import re
import sys
from array import array
from itertools import accumulate
from typing import TYPE_CHECKING, Any

from ..types import DataType, Primitive
from .coerce import EPOCH, EPOCH_DATE

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["coerced_array", "fast_column"]

_NONE = type(None)
#: the strings the fast path casts with Arrow: a subset of _TS (resp. _DATE) on which
#: Arrow's cast and the per-value parser agree. Arrow's ISO-8601 cast also takes strings
#: _TS refuses ('2024-03-01T12'), so every string is checked against this first: whether
#: a value is valid must not depend on the other values of its column.
#: Years 0001-9999 only: Python's range, which the per-value parser has (Arrow takes 0000).
_FAST_YEAR = r"(?:[1-9]\d{3}|0[1-9]\d{2}|00[1-9]\d|000[1-9])"
_FAST_TS = rf"^{_FAST_YEAR}-\d{{2}}-\d{{2}}(?:[T ]\d{{2}}:\d{{2}}(?::\d{{2}}(?:\.\d{{1,6}})?)?)?$"
_FAST_DATE = rf"^{_FAST_YEAR}-\d{{2}}-\d{{2}}$"

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


def fast_column(values: list[Any], t: DataType, at: pa.DataType, present: set[type]) -> pa.Array | None:
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
_EPOCH_ORDINAL = EPOCH_DATE.toordinal()
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


def coerced_array(out: list[Any], t: DataType, at: pa.DataType) -> pa.Array | None:
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
    epoch = EPOCH if zoned else _NAIVE_EPOCH
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
