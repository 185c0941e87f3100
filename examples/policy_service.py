"""A small service that runs plans from its users on a shared Spark cluster (docs/security.md).

Each tenant may read its own database and a shared lookup table, and nothing else; plans are
checked against the tenant's policy before anything is sent, results are bounded, and the
answer says which rule a refused plan broke, where. Run it with::

    SPARK_REMOTE=sc://spark.internal:15002 python examples/policy_service.py 8080
    curl -s -H 'X-Tenant: acme' --data @plan.json localhost:8080

(The tenant would come from the service's own authentication, not from a header you trust.)
"""

from __future__ import annotations

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import connect_plan
from connect_plan import PlanError, Policy, PolicyError, QueryTimeoutError, ServerError

#: what every tenant may do: the strict preset, opened to read tables, bounded for a web answer
BASE = Policy.strict().replace(max_rows=10_000, max_bytes=16 * 1024 * 1024, timeout=30.0).denying("sequence")


def tenant_policy(tenant: str) -> Policy:
    """The tenant's database (written with or without its catalog) and the shared lookup."""
    return BASE.replace(tables=(f"tenant_{tenant}.*", "spark_catalog.shared.lookup"))


def run(client: Any, tenant: str, plan_text: str) -> tuple[int, dict[str, Any]]:
    """(HTTP status, JSON answer) for one plan: 403 with every violation when the policy
    refuses it (nothing was sent), 400 when it is invalid, 504 on timeout."""
    try:
        table = client.execute(plan_text, policy=tenant_policy(tenant))
    except PolicyError as err:
        return 403, {"refused": [d.as_dict() for d in err.details]}
    except PlanError as err:
        return 400, {"invalid": [d.as_dict() for d in err.details]}
    except QueryTimeoutError:
        return 504, {"error": "the query took too long"}
    except ServerError as err:
        return 502, {"error": err.error_class or "server error"}
    return 200, {"columns": table.column_names, "rows": table.to_pylist()}


def serve(port: int) -> None:
    client = connect_plan.connect()  # one connection for every request (SPARK_REMOTE)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            tenant = self.headers.get("X-Tenant", "")
            if not tenant.isidentifier():
                self.send_error(401)
                return
            body = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode("utf-8", "replace")
            status, answer = run(client, tenant, body)
            data = json.dumps(answer, default=str).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    with client, ThreadingHTTPServer(("127.0.0.1", port), Handler) as server:
        server.serve_forever()


if __name__ == "__main__":
    serve(int(sys.argv[1]) if len(sys.argv) > 1 else 8080)
