"""A minimal OTLP/HTTP logs receiver on 127.0.0.1 for the ``--otlp`` tests.

It decodes each request body as the protobuf ``ExportLogsServiceRequest`` (with
``opentelemetry-proto``, the wire format's own generated code) and flattens it into plain
log records, so tests compare values with the ledger's without trusting the sender's
encoder. ``statuses`` lets a test refuse requests: the n-th request gets the n-th status,
200 once the list runs out.
"""

from __future__ import annotations

import gzip
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import attrs
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
    ExportLogsServiceRequest,
    ExportLogsServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue


def value(v: AnyValue) -> Any:
    kind = v.WhichOneof("value")
    if kind == "array_value":
        return tuple(value(x) for x in v.array_value.values)
    return getattr(v, kind) if kind else None


@attrs.frozen
class Received:
    """One log record as a collector would store it, with its resource's attributes."""

    resource: dict[str, Any]
    scope: str
    time_unix_nano: int
    observed_time_unix_nano: int
    severity_number: int
    severity_text: str
    body: Any
    attributes: dict[str, Any]


@attrs.define
class Receiver:
    url: str
    statuses: list[int] = attrs.Factory(list)
    logs: list[Received] = attrs.Factory(list)
    requests: list[dict[str, str]] = attrs.Factory(list)  # headers and path of each
    lock: threading.Lock = attrs.Factory(threading.Lock)

    def accept(self, path: str, headers: dict[str, str], body: bytes) -> int:
        with self.lock:
            self.requests.append({"path": path, **headers})
            status = self.statuses.pop(0) if self.statuses else 200
            if status != 200:
                return status
            if headers.get("content-encoding") == "gzip":
                body = gzip.decompress(body)
            request = ExportLogsServiceRequest.FromString(body)
            for rl in request.resource_logs:
                resource = {a.key: value(a.value) for a in rl.resource.attributes}
                for sl in rl.scope_logs:
                    for lr in sl.log_records:
                        self.logs.append(
                            Received(
                                resource,
                                sl.scope.name,
                                lr.time_unix_nano,
                                lr.observed_time_unix_nano,
                                lr.severity_number,
                                lr.severity_text,
                                value(lr.body),
                                {a.key: value(a.value) for a in lr.attributes},
                            )
                        )
            return 200


@contextmanager
def receiver() -> Iterator[Receiver]:
    state = Receiver("")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length", "0")))
            headers = {k.lower(): v for k, v in self.headers.items()}
            status = state.accept(self.path, headers, body)
            payload = ExportLogsServiceResponse().SerializeToString() if status == 200 else b""
            self.send_response(status)
            self.send_header("content-type", "application/x-protobuf")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
