"""Whether an input is a Substrait Plan, told by its shape alone: cheap, so that every plan a
user passes can be asked it without loading the Substrait schema (:mod:`.proto`, ~50 ms)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from google.protobuf.message import Message

__all__ = ["PLAN_KEYS", "PLAN_MESSAGE_NAMES", "is_substrait", "looks_like_json"]

#: the keys only a Substrait Plan has at its top (JSON names and proto names)
PLAN_KEYS = frozenset({"relations", "extensionUris", "extension_uris", "extensionUrns", "extension_urns"})
#: full names of the Plan message in the packages producers use (substrait-protobuf; substrait <=0.26)
PLAN_MESSAGE_NAMES = frozenset({"substrait.Plan", "proto.Plan", "substrait.gen.proto.Plan"})


def is_substrait(plan: Any) -> bool:
    """Whether ``plan`` has a Substrait Plan's shape: a Plan message, binary protobuf (JSON
    text starts with a brace or bracket, a message with a field tag), or a parsed JSON object
    with a Plan's top-level keys (JSON text is parsed by the caller first, with its limits)."""
    if isinstance(plan, Message):
        return plan.DESCRIPTOR.full_name in PLAN_MESSAGE_NAMES
    if isinstance(plan, (bytes, bytearray, memoryview)):
        return bool(plan) and not looks_like_json(bytes(plan))
    if isinstance(plan, Mapping):
        return "plan" not in plan and bool(PLAN_KEYS & set(plan))
    return False


def looks_like_json(raw: bytes) -> bool:
    """JSON text starts with a brace, bracket or quote after optional whitespace; a binary Plan
    starts with a field tag, and 0x0a (field 1) is also a newline: then the text must also end
    like JSON."""
    head = raw[:64].lstrip()
    if head[:1] not in (b"{", b"[", b'"'):
        return False
    return raw[:1] != b"\n" or raw.rstrip()[-1:] in (b"}", b"]", b'"')
