"""A double at the stub level: the real Spark Connect stub with one call's answers replaced."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any


class ReplayStub:
    """The real stub, except that ExecutePlan replays ``responses`` (for this client's
    session) and ReattachExecute streams end at once, empty."""

    def __init__(self, real: Any, responses: list[Any]) -> None:
        self.real, self.responses, self.reattaches = real, responses, 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)

    def ExecutePlan(self, request: Any, **kw: Any) -> Iterator[Any]:
        return iter(copy.deepcopy(self.responses))

    def ReattachExecute(self, request: Any, **kw: Any) -> Iterator[Any]:
        self.reattaches += 1
        return iter(())

    def ReleaseExecute(self, request: Any, **kw: Any) -> Any:
        from pyspark.sql.connect import proto as pb

        return pb.ReleaseExecuteResponse(session_id=request.session_id)
