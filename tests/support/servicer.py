"""A double at the gRPC servicer level: an in-process server that plays Spark Connect's
failures (:class:`FakeSparkConnect`), with the builders of what it answers (a
``google.rpc.Status`` with ``ErrorInfo`` or ``RetryInfo`` details, a
``FetchErrorDetailsResponse``), read by PySpark's client (the tests' reference transport)
and by the raw stub, as the production transport reads it."""

from __future__ import annotations

import dataclasses
import uuid
from concurrent import futures
from typing import Any

import grpc
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

from connect_plan.call_failures import RpcFailure
from connect_plan.server_errors import STACKTRACE_CONFS, rpc_failure, stacktrace_shown
from connect_plan.spark_proto import pb


def error_info(metadata: dict[str, str], reason: str = "org.apache.spark.sql.AnalysisException") -> Any:
    info = error_details_pb2.ErrorInfo(reason=reason, domain="org.apache.spark")
    info.metadata.update(metadata)
    return info


def status(code: grpc.StatusCode, message: str, *details: Any) -> Any:
    st = status_pb2.Status(code=code.value[0], message=message)
    for d in details:
        packed = any_pb2.Any()
        packed.Pack(d)
        st.details.append(packed)
    return st


def details_answer(root: int | None, *errors: dict[str, Any]) -> Any:
    """A FetchErrorDetailsResponse: ``errors`` as dicts of the Error message's fields."""
    resp = pb.FetchErrorDetailsResponse()
    if root is not None:
        resp.root_error_idx = root
    for e in errors:
        err = resp.errors.add(
            error_type_hierarchy=e.get("classes", ["org.apache.spark.sql.AnalysisException"]),
            message=e.get("message", ""),
        )
        for cls, method in e.get("frames", []):
            err.stack_trace.add(declaring_class=cls, method_name=method, file_name="F.scala", line_number=7)
        if "cause" in e:
            err.cause_idx = e["cause"]
        if "error_class" in e:
            err.spark_throwable.error_class = e["error_class"]
        err.spark_throwable.message_parameters.update(e.get("parameters", {}))
    return resp


@dataclasses.dataclass
class Script:
    """What the fake server answers."""

    failure: Any = None  # a google.rpc.Status, or (code, message) for a status without details
    details: Any = None  # the FetchErrorDetailsResponse, or a grpc.StatusCode to fail with
    confs: dict[str, str] = dataclasses.field(default_factory=lambda: {k: "false" for k in STACKTRACE_CONFS})
    fetches: int = 0
    config_reads: int = 0


class FakeSparkConnect:
    def __init__(self) -> None:
        from pyspark.sql.connect.proto import base_pb2_grpc

        self.script = Script()
        script = self

        class Servicer(base_pb2_grpc.SparkConnectServiceServicer):  # type: ignore[misc]
            def AnalyzePlan(self, request: Any, context: Any) -> Any:
                f = script.script.failure
                if isinstance(f, tuple):
                    context.abort(*f)
                context.abort_with_status(rpc_status.to_status(f))

            def FetchErrorDetails(self, request: Any, context: Any) -> Any:
                script.script.fetches += 1
                d = script.script.details
                if isinstance(d, grpc.StatusCode):
                    context.abort(d, "no details today")
                return d if d is not None else pb.FetchErrorDetailsResponse()

            def Config(self, request: Any, context: Any) -> Any:
                script.script.config_reads += 1
                resp = pb.ConfigResponse(session_id=request.session_id)
                op = request.operation
                keys = list(op.get.keys) or list(op.get_option.keys)
                for k in keys:
                    pair = resp.pairs.add(key=k)
                    if k in script.script.confs:
                        pair.value = script.script.confs[k]
                return resp

        self.server = grpc.server(futures.ThreadPoolExecutor(4))
        base_pb2_grpc.add_SparkConnectServiceServicer_to_server(Servicer(), self.server)
        self.port = self.server.add_insecure_port("127.0.0.1:0")
        self.server.start()
        self.url = f"sc://127.0.0.1:{self.port}"
        self.channel = grpc.insecure_channel(f"127.0.0.1:{self.port}")
        self.stub = base_pb2_grpc.SparkConnectServiceStub(self.channel)

    def close(self) -> None:
        self.channel.close()
        self.server.stop(None)

    # the raw side ------------------------------------------------------------

    def raw_error(self) -> grpc.RpcError:
        req = pb.AnalyzePlanRequest(session_id=str(uuid.uuid4()))
        req.spark_version.SetInParent()
        try:
            self.stub.AnalyzePlan(req, timeout=10)
        except grpc.RpcError as e:
            return e
        raise AssertionError("the fake server did not fail")

    def fetch(self, error_id: str) -> Any:
        try:
            return self.stub.FetchErrorDetails(pb.FetchErrorDetailsRequest(error_id=error_id), timeout=10)
        except grpc.RpcError:
            return None

    def shown(self) -> bool:
        op = pb.ConfigRequest.Operation()
        op.get_option.keys.extend(STACKTRACE_CONFS)
        resp = self.stub.Config(pb.ConfigRequest(operation=op), timeout=10)
        return stacktrace_shown((p.key, p.value if p.HasField("value") else None) for p in resp.pairs)

    def ours(self) -> RpcFailure:
        return rpc_failure(self.raw_error(), self.fetch, show_stacktrace=self.shown)

    # PySpark's side ----------------------------------------------------------

    def theirs(self) -> RpcFailure:
        from connect_plan.call_failures import CallFailure
        from tests.support.reference_transport import reference_connector

        transport = reference_connector(self.url, retry_policy={"max_retries": 0}).open(lambda: True)
        try:
            transport.spark_version()
        except CallFailure as exc:  # typed from PySpark's error by pyspark_failure
            return exc.record
        finally:
            transport.close(wait=False)
        raise AssertionError("PySpark's client did not fail")
