"""Substrait ``Plan`` input (binary, JSON text, dict, message object) → a message of the superset schema.

The superset schema (:mod:`.descriptors`, generated) lives in a *private* descriptor pool, so it
coexists with PySpark's protos and with any ``substrait``/``substrait-protobuf`` package the caller
imported (their classes live in the default pool; a message of theirs is re-read through its bytes).
A field this schema does not know is an error, never dropped: binary unknown fields are found by
walking the parsed message; JSON is parsed strictly.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from functools import cache
from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, json_format, message_factory
from google.protobuf.message import DecodeError, Message

from ...errors import ErrorDetail, PlanError
from . import descriptors
from .shape import PLAN_KEYS, PLAN_MESSAGE_NAMES, is_substrait, looks_like_json

__all__ = ["PLAN_KEYS", "PLAN_MESSAGE_NAMES", "is_substrait", "message_class", "parse_substrait", "pool"]


@cache
def pool() -> descriptor_pool.DescriptorPool:
    fds = descriptor_pb2.FileDescriptorSet.FromString(base64.b64decode("".join(descriptors.FILE_DESCRIPTOR_SET_B64)))
    p = descriptor_pool.DescriptorPool()
    for fd in fds.file:
        p.Add(fd)
    return p


@cache
def message_class(full_name: str) -> type[Message]:
    cls: type[Message] = message_factory.GetMessageClass(pool().FindMessageTypeByName(full_name))
    return cls


def parse_substrait(plan: Any) -> Message:
    """The plan as a superset ``substrait.Plan`` message; :class:`PlanError` if it cannot be read
    whole (bad bytes, bad JSON, a field no known spec version has)."""
    cls = message_class("substrait.Plan")
    if isinstance(plan, Message):
        plan = plan.SerializeToString()
    if isinstance(plan, (bytes, bytearray, memoryview)):
        raw = bytes(plan)
        if looks_like_json(raw):
            plan = raw.decode("utf-8", errors="replace")
        else:
            msg = cls()
            try:
                msg.ParseFromString(raw)
            except DecodeError as e:
                raise PlanError.single(
                    "substrait_invalid", "", f"not a Substrait Plan in binary protobuf form: {e}"
                ) from None
            unknown = list(unknown_fields(msg))
            if unknown:
                raise PlanError(
                    [
                        ErrorDetail(
                            "substrait_unknown_field",
                            path,
                            f"field number {number} is in no Substrait spec version connect_plan knows "
                            f"(superset of substrait-protobuf {descriptors.NEW_VERSION} and {descriptors.OLD_VERSION}); "
                            "it is refused rather than ignored",
                        )
                        for path, number in unknown
                    ]
                )
            return msg
    if isinstance(plan, Mapping):
        plan = json.dumps(plan)
    if not isinstance(plan, str):
        raise PlanError.single("substrait_invalid", "", f"not a Substrait Plan: {type(plan).__name__}")
    msg = cls()
    try:
        json_format.Parse(plan, msg, descriptor_pool=pool())
    except json_format.ParseError as e:
        raise PlanError.single(
            "substrait_invalid", _json_error_path(str(e)), f"not a Substrait Plan in JSON form: {e}"
        ) from None
    return msg


def _json_error_path(text: str) -> str:
    """json_format names the failing field as ``... at 'Plan.relations[0].root...'``: a pointer."""
    import re

    m = re.search(r"at '([^']*)'", text)
    if m is None:
        return ""
    parts = m.group(1).split(".")[1:]
    out = []
    for part in parts:
        name, _, rest = part.partition("[")
        out.append(name)
        if rest:
            out.append(rest.rstrip("]"))
    return "/" + "/".join(out) if out else ""


def unknown_fields(msg: Message, path: str = "") -> list[tuple[str, int]]:
    """(JSON pointer, field number) of every unknown field in ``msg``, iteratively."""
    from google.protobuf import unknown_fields as uf

    out: list[tuple[str, int]] = []
    stack: list[tuple[Message, str]] = [(msg, path)]
    while stack:
        m, p = stack.pop()
        for f in uf.UnknownFieldSet(m):
            out.append((p, f.field_number))
        for fd, value in m.ListFields():
            if fd.message_type is None:
                continue
            name = f"{p}/{fd.json_name}"
            if fd.message_type.GetOptions().map_entry:
                for k, v in value.items():
                    if isinstance(v, Message):
                        stack.append((v, f"{name}/{k}"))
            elif fd.is_repeated:
                stack.extend((v, f"{name}/{i}") for i, v in enumerate(value))
            else:
                stack.append((value, name))
    return sorted(out)
