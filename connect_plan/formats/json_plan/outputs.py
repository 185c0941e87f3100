"""Outputs: the ``write`` step (or a document's ``output``) to files or a table, and the
temp-view steps. Either must be the plan's last step (see :func:`.documents.finish`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ... import ir
from .core import MAP, Parser, RawStep, column_name, key, options, step
from .spellings import VIEW_OPS, WRITE_METHODS, WRITE_MODES, WRITE_TARGETS

__all__ = ["output"]


@step("write")
def parse_write(p: Parser, s: RawStep) -> ir.Step | None:
    return output(p, s.payload, s.ploc, s.index, s.op, step_loc=s.loc)


def output(p: Parser, raw: Any, loc: str, index: int, op: str, step_loc: str | None = None) -> ir.Write | None:
    """A write: ``{"path", "format"?, "mode"?, "partition_by"?, "options"?}`` or a table
    ``{"table" | "saveAsTable" | "insertInto": name, ...}``."""
    if not isinstance(raw, Mapping):
        p.err("payload_type", loc, 'a write needs {"path", "format", "mode"?} or {"table", "mode"?}', raw)
        return None
    ok = True
    targets = [k for k in WRITE_TARGETS if k in raw]
    if len(targets) != 1:
        p.err(
            "write_target",
            loc,
            "a write needs exactly one of 'path' (files), 'table'/'saveAsTable' or 'insertInto'",
            raw,
        )
        return None
    tkey = targets[0]
    target = raw[tkey]
    if not isinstance(target, str) or not target.strip():
        p.err("write_target", f"{loc}/{tkey}", f"{tkey!r} must be a non-empty string", target)
        return None
    method = WRITE_TARGETS[tkey]
    mkey = raw.get("method")
    if mkey is not None:
        m = WRITE_METHODS.get(str(mkey).lower())
        if m is None or tkey == "path":
            p.err(
                "write_method", f"{loc}/method", "'method' is 'saveAsTable' or 'insertInto' and needs a 'table'", mkey
            )
            ok = False
        else:
            method = m
    mode_raw = raw.get("mode", "error")
    mode = WRITE_MODES.get(mode_raw.lower()) if isinstance(mode_raw, str) else None
    if raw.get("overwrite") is True and method == "insert_into":
        mode = "overwrite" if "mode" not in raw else mode
    if mode is None:
        p.err(
            "write_mode",
            f"{loc}/mode",
            "'mode' must be one of error, errorifexists, append, overwrite, ignore",
            mode_raw,
        )
        ok = False
    elif method == "insert_into" and mode not in ("append", "overwrite", "error"):
        p.err(
            "write_mode", f"{loc}/mode", "insertInto appends or overwrites; use mode 'append' or 'overwrite'", mode_raw
        )
        ok = False
    if method == "insert_into" and "mode" not in raw and raw.get("overwrite") is not True:
        mode = "append"
    fmt = raw.get("format")
    if fmt is not None and (not isinstance(fmt, str) or not fmt):
        p.err("format", f"{loc}/format", "'format' must be a data source name such as 'parquet'", fmt)
        ok = False
    if tkey == "path" and fmt is None:
        p.err("missing_key", f"{loc}/format", "a file write needs a 'format' (parquet, csv, json, orc, text ...)")
        ok = False
    pkey, parts = key(raw, "write", "partition_by")
    cols: list[str] = []
    if pkey is not None and parts is not None:
        if isinstance(parts, str):
            parts = [parts]
        if not isinstance(parts, (list, tuple)):
            p.err("payload_type", f"{loc}/{pkey}", "'partition_by' must be a list of column names", parts)
            ok = False
        else:
            for i, part in enumerate(parts):
                name = column_name(p, part, f"{loc}/{pkey}/{i}")
                if name is None:
                    ok = False
                else:
                    cols.append(name)
        if method == "insert_into" and cols:
            p.err(
                "not_applicable", f"{loc}/{pkey}", "insertInto uses the table's own partitioning; drop 'partition_by'"
            )
            ok = False
    opts = options(p, raw.get("options"), f"{loc}/options")
    if not ok or opts is None or mode is None:
        return None
    return ir.Write(
        index,
        op,
        step_loc or loc,
        fmt,
        target if tkey == "path" else None,
        None if tkey == "path" else target,
        method,
        mode,
        tuple(cols),
        opts,
    )


@step(*VIEW_OPS)
def parse_temp_view(p: Parser, s: RawStep) -> ir.Step | None:
    """``createOrReplaceTempView`` and friends: the view name, or ``{"name": ...}``."""
    ploc, name = s.ploc, s.payload
    if isinstance(s.payload, MAP):
        k, name = s.key("name")
        ploc = f"{ploc}/{k or 'name'}"
    if not isinstance(name, str) or not name.strip():
        p.err("view_name", ploc, f"{s.op} needs a view 'name'", name)
        return None
    replace_, is_global = VIEW_OPS[s.op]
    return ir.TempView(s.index, s.op, s.loc, name, replace_, is_global)
