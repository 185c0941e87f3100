"""What a command reads: the FILE (a plan document or fixture, or a plan a front-end reads
as it is), checked before any server work; its ``${tmp}``/``setup`` staged around a run;
the server to use; the policy and client options of the command line."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import LocalServerError, PlanError, PolicyError
from .exits import CliError

if TYPE_CHECKING:
    from .. import ir
    from ..client import Client
    from ..policy import Policy

__all__ = ["checked", "client_options", "plan_only", "policy_of", "read_document", "ready", "remote_url", "validated"]


def read_document(path: str) -> Any:
    """A plan document or fixture (JSON), or a plan a front-end reads as it is (a binary
    Substrait plan, kept as bytes)."""
    from ..formats.registry import decoded

    if path == "-":
        data = sys.stdin.buffer.read()
    else:
        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            raise CliError(f"cannot read {path}: {exc.strerror}") from None
    return decoded(data)


def tables_of(args: argparse.Namespace) -> dict[str, Any] | None:
    return dict(args.table) if getattr(args, "table", None) else None


def plan_only(doc: Any) -> Any:
    """A fixture file also carries 'expected' (and maybe 'setup'/'then'); the plan document
    is the rest: input, plan and the document extensions (with, conf, output)."""
    if isinstance(doc, dict) and "plan" in doc:
        from ..fixtures import plan_document

        return plan_document(doc)
    return doc


#: what ``${tmp}``/``${run}`` stand for while a document is only checked (nothing runs): values
#: of the kind a run fills in (a fresh directory under the system's temporary directory, a hex
#: token), so the plan and a policy judge what will run; what they report says ``${tmp}`` and
#: ``${run}`` again (:func:`_as_written`), the plan as the user wrote it
_CHECK_VALUES = {"tmp": f"{tempfile.gettempdir()}/connect-plan-run-0c0c0c0c0c", "run": "0c0c0c0c0c"}


def _as_written(exc: PlanError) -> PlanError:
    """``exc`` with the check's stand-ins shown as the placeholders they replaced."""

    def back(value: Any) -> Any:
        if not isinstance(value, str):
            return value
        for name, stand_in in _CHECK_VALUES.items():
            value = value.replace(stand_in, "${" + name + "}")
        return value

    details = [dataclasses.replace(d, message=back(d.message), input=back(d.input)) for d in exc.details]
    if details == list(exc.details) or type(exc) not in (PlanError, PolicyError):
        return exc
    return type(exc)(details)


def validated(doc: Any, tables: dict[str, Any] | None = None) -> ir.Plan:
    """The document's plan, after every problem of it (an unfilled placeholder, the plan,
    the ``setup`` documents run before it) is reported at once, before any server work.
    Only a staged format's document (a JSON plan's) has placeholders or setup; ``tables`` are a
    Substrait plan's --table mappings."""
    from ..fixtures import placeholder_problems, substitute
    from ..formats import front_end_of, load_plan

    if not front_end_of(doc).staged:
        return load_plan(doc, tables=tables)
    problems = list(placeholder_problems(doc))
    filled = substitute(doc, _CHECK_VALUES)
    plan = None
    try:
        plan = load_plan(plan_only(filled), tables=tables)
    except PlanError as exc:
        problems += exc.details
    setups = filled.get("setup") if isinstance(filled, dict) else None
    for i, setup in enumerate(setups if isinstance(setups, list) else []):
        try:
            load_plan(setup)
        except PlanError as exc:
            problems += [dataclasses.replace(d, loc=f"/setup/{i}{d.loc}") for d in exc.details]
    if problems or plan is None:
        raise PlanError(problems)
    return plan


@contextlib.contextmanager
def ready(client: Client, doc: Any, plan: ir.Plan, tmp_dir: str | None) -> Iterator[ir.Plan]:
    """``plan`` ready to run: a document with ``${tmp}``/``${run}`` or a ``setup`` (an example
    that makes its own files and tables) runs its setup first and drops its ``cleanup`` after."""
    from ..fixtures import staged, uses_placeholders
    from ..formats import front_end_of, load_plan

    if not front_end_of(doc).staged or not uses_placeholders(doc):
        yield plan
        return
    with staged(client, doc, tmp_dir) as (filled, values):
        if "${tmp}" in json.dumps(doc):
            kept = "kept" if tmp_dir else "removed afterwards; --tmp-dir DIR keeps it"
            print(f"connect-plan: ${{tmp}} is {values['tmp']} ({kept})", file=sys.stderr)
        yield load_plan(plan_only(filled))


def remote_url(args: argparse.Namespace, *, start: bool) -> str:
    """--remote, else SPARK_REMOTE, else the local server (started if ``start``)."""
    if getattr(args, "remote", None) or os.environ.get("SPARK_REMOTE"):
        from ..client import resolve_remote

        return resolve_remote(getattr(args, "remote", None))  # also maps 'sail' to an in-process server
    from ..server import LocalServer

    server = LocalServer()
    info = server.info()
    if info is None:
        if not start:
            raise LocalServerError("no server: pass --remote, set SPARK_REMOTE, or run `connect-plan server start`")
        print("connect-plan: starting a local Spark Connect server (about 20 s)...", file=sys.stderr)
        info = server.start()
        print(f"connect-plan: server ready at {info.url} (stop it with `connect-plan server stop`)", file=sys.stderr)
    return info.url


def policy_of(args: argparse.Namespace) -> Policy | None:
    """``--policy strict|trusted|FILE.json`` (None when not given: trusted)."""
    spec = getattr(args, "policy", None)
    if spec is None:
        return None
    from ..policy import Policy

    if spec == "strict":
        return Policy.strict()
    if spec == "trusted":
        return Policy.trusted()
    return Policy.from_file(spec)


def checked(args: argparse.Namespace) -> tuple[ir.Plan, Policy | None, Any]:
    """The FILE's plan, parsed and checked against ``--policy``, and the document it came
    from: an invalid or refused plan (an unfilled placeholder, a bad setup document too)
    fails here, before any server work."""
    policy = policy_of(args)
    doc = read_document(args.file)
    try:
        plan = validated(doc, tables_of(args))
        if policy is not None:
            policy.check(plan)
    except PlanError as exc:
        written = _as_written(exc)
        if written is exc:
            raise
        raise written from None
    return plan, policy, doc


def client_options(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "timeout": getattr(args, "timeout", None),
        "allow_insecure_token": getattr(args, "allow_insecure_token", False),
        "compression": getattr(args, "compression", None) or "auto",
        "policy": policy_of(args),
    }
