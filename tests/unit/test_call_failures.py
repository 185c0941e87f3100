"""The typed failures a transport raises (connect_plan.call_failures): each kind of failed call
is one type, with its gRPC status and its record, so that the client (and a network front
door) maps it by type and fields, never by its text; the client's mapping reads no text."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from connect_plan.call_failures import (
    CallFailure,
    CredentialsRefused,
    NeverReached,
    RpcFailure,
    ServerFailure,
    ServerUnavailable,
    SessionLost,
    StatusFailure,
    classify,
)
from connect_plan.client.failures import server_error
from connect_plan.errors import ServerError, ServerUnavailableError

ROOT = Path(__file__).resolve().parents[2]
URL = "sc://spark.example:443"


@pytest.mark.parametrize(
    ("record", "kind", "status"),
    [
        (
            RpcFailure("status", "failed to connect to all addresses; connection refused", status="UNAVAILABLE"),
            NeverReached,
            "UNAVAILABLE",
        ),
        (
            RpcFailure("status", "DNS resolution failed for spark.example", status="UNAVAILABLE"),
            NeverReached,
            "UNAVAILABLE",
        ),
        (RpcFailure("status", "Socket closed", status="UNAVAILABLE"), ServerUnavailable, "UNAVAILABLE"),
        (RpcFailure("status", "bad token", status="UNAUTHENTICATED"), CredentialsRefused, "UNAUTHENTICATED"),
        (RpcFailure("status", "no such method", status="UNIMPLEMENTED"), StatusFailure, "UNIMPLEMENTED"),
        (RpcFailure("status", "Deadline Exceeded", status="DEADLINE_EXCEEDED"), StatusFailure, "DEADLINE_EXCEEDED"),
        (
            RpcFailure("server", "[X] boom", status="INTERNAL", error_class="X", sqlstate="42000", message="[X] boom"),
            ServerFailure,
            "INTERNAL",
        ),
        (RpcFailure("other", "ValueError: nope"), CallFailure, None),
    ],
)
def test_each_kind_of_failure_is_a_type_with_its_status(record: RpcFailure, kind: type, status: str | None) -> None:
    failure = classify(record)
    assert type(failure) is kind and failure.status == status and failure.record is record


def test_a_lost_session_is_typed_and_keeps_what_the_server_said() -> None:
    said = RpcFailure(
        "server",
        "[INVALID_HANDLE.SESSION_NOT_FOUND] gone",
        status="INTERNAL",
        error_class="INVALID_HANDLE.SESSION_NOT_FOUND",
        sqlstate="HY000",
        message="[INVALID_HANDLE.SESSION_NOT_FOUND] gone",
    )
    failure = classify(said)
    assert isinstance(failure, SessionLost) and isinstance(failure.failure, ServerFailure)
    assert failure.status == "INTERNAL" and failure.record.error_class == "INVALID_HANDLE.SESSION_NOT_FOUND"
    err = server_error(failure, URL)
    assert err.session_lost and err.error_class == "INVALID_HANDLE.SESSION_NOT_FOUND"
    # a bare status naming a lost session is one too; a refused connection never is
    assert isinstance(
        classify(RpcFailure("status", "INVALID_HANDLE.SESSION_CHANGED x", status="INTERNAL")), SessionLost
    )
    never = classify(RpcFailure("status", "connection refused NO_ACTIVE_SESSION", status="UNAVAILABLE"))
    assert isinstance(never, NeverReached)


def test_the_client_maps_types_to_the_exception_tree() -> None:
    unavailable = server_error(classify(RpcFailure("status", "Socket closed", status="UNAVAILABLE")), URL)
    assert type(unavailable) is ServerUnavailableError and unavailable.grpc_status == "UNAVAILABLE"
    assert not unavailable.session_lost
    refused = server_error(classify(RpcFailure("status", "bad token", status="UNAUTHENTICATED")), URL)
    assert type(refused) is ServerError and refused.grpc_status == "UNAUTHENTICATED"
    record = RpcFailure("server", "m", error_class="E", sqlstate="42000", message="m", message_parameters={"a": "1"})
    server = server_error(classify(record), URL)
    assert (server.error_class, server.sqlstate, server.message_parameters) == ("E", "42000", {"a": "1"})


def test_no_failure_text_is_read_in_the_client() -> None:
    """The failure's words are read once, in connect_plan/call_failures.py; client/ keeps
    substring tests for URLs and paths only (the words they look for are listed here)."""
    allowed = {'":" in userinfo', '"path" in msg.options'}
    found = []
    for path in sorted((ROOT / "connect_plan" / "client").glob("*.py")):
        for line in path.read_text().splitlines():
            for m in re.finditer(r'"[^"]*" in [\w.]+', line):
                if m.group(0) not in allowed:
                    found.append(f"{path.name}: {line.strip()}")
            if re.search(r"re\.(search|match|findall)\(|\.find\(", line):
                found.append(f"{path.name}: {line.strip()}")
    assert found == [], found
