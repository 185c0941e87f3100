"""One value coerced to its column's type, by PLAN_FORMAT.md §6.1: :func:`coerce_value`.

The slow path of the inline-data converter (:mod:`connect_plan.data`), and what fixtures and
typed literals use to read a JSON-ish value as a Spark type: ISO date and timestamp strings,
numeric strings, ``{"year","month","day"}`` objects, base64 binary, JSON strings holding
arrays and objects... A value that does not fit raises :class:`CoerceError` saying what was
expected.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import decimal
import functools
import json
import math
import re
from collections.abc import Callable
from typing import Any

from ..records import Value, frozen
from ..types import ArrayType, DataType, MapType, Primitive

__all__ = ["EPOCH", "EPOCH_DATE", "CoerceError", "Field", "coerce_value"]


EPOCH_DATE = dt.date(1970, 1, 1)
EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
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
    from ..spark_proto import variant_utils

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
