"""``intent-ls export --otlp [URL]``: the verified ledger's records not delivered yet, as
OpenTelemetry log records over OTLP/HTTP, for organisations whose observability pipeline
already routes logs somewhere (``docs/scale.md``).

The OpenTelemetry SDK is an optional extra (``pip install 'intent-ls[otlp]'``) and is
imported only here, only when asked. Its OTLP exporter is driven directly, one request at
a time, instead of through a batch processor: each request's acknowledgement is known, so
the delivery state (:mod:`~intent_ls.export.otlp_state`) names exactly the records a
collector accepted, and a run that fails half-way resumes where it stopped.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import attrs

from intent_ls import __version__
from intent_ls.export import ExportError
from intent_ls.export.otlp_records import LogFields, log_fields
from intent_ls.export.otlp_state import SendState, digest_key, locked_state
from intent_ls.export.source import Snapshot, open_ledger

INSTALL = "pip install 'intent-ls[otlp]'"
DEFAULT_ENDPOINT = "http://localhost:4318/v1/logs"
_LOGS_PATH = "/v1/logs"
#: Records per request: the SDK batch processor's default size.
BATCH = 512
#: Fewer records when their lines add up to this: well below what a collector takes in one
#: request (the Collector's gRPC receiver: 4 MiB; the SDK refuses over 64 MiB).
_BATCH_BYTES = 2 * 1024 * 1024
_ATTEMPTS = 3
_READ = 8 * 1024 * 1024


class DeliveryFailed(ExportError):
    """The collector did not acknowledge a request; what it had acknowledged is kept."""


@attrs.frozen
class OtlpResult:
    endpoint: str
    records: int
    log_records: int
    verified_lines: int | None  # None: the whole ledger was verified


def resolve_endpoint(given: str | None, environ: Mapping[str, str]) -> str:
    """The logs URL, as OpenTelemetry's exporters resolve it: ``--otlp URL`` first (a URL
    with no path gets ``/v1/logs``), then ``OTEL_EXPORTER_OTLP_LOGS_ENDPOINT`` as is, then
    ``OTEL_EXPORTER_OTLP_ENDPOINT`` + ``/v1/logs``, then the collector's default port on
    localhost. Headers, timeout, compression and certificates are the SDK's to read from
    the same ``OTEL_EXPORTER_OTLP_*`` variables."""
    protocol = environ.get("OTEL_EXPORTER_OTLP_LOGS_PROTOCOL") or environ.get(
        "OTEL_EXPORTER_OTLP_PROTOCOL"
    )
    if protocol and protocol.strip() != "http/protobuf":
        raise ExportError(
            f"OTLP protocol {protocol.strip()!r} is not supported: intent-ls sends "
            "http/protobuf (unset OTEL_EXPORTER_OTLP_PROTOCOL or set it to http/protobuf)"
        )
    if given:
        where, url = "--otlp", given
        if urlsplit(given).path in ("", "/"):
            url = given.rstrip("/") + _LOGS_PATH
    elif environ.get("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT"):
        where = "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT"
        url = environ["OTEL_EXPORTER_OTLP_LOGS_ENDPOINT"]
    elif environ.get("OTEL_EXPORTER_OTLP_ENDPOINT"):
        where = "OTEL_EXPORTER_OTLP_ENDPOINT"
        url = environ["OTEL_EXPORTER_OTLP_ENDPOINT"].rstrip("/") + _LOGS_PATH
    else:
        return DEFAULT_ENDPOINT
    try:
        parts = urlsplit(url)
        host = parts.hostname
        parts.port  # noqa: B018 - raises on a port that is not a number
    except ValueError as exc:
        raise ExportError(f"{where}: {url!r} is not a URL ({exc})") from None
    if parts.scheme not in ("http", "https") or not host or any(c.isspace() for c in url):
        raise ExportError(f"{where}: {url!r} is not an http:// or https:// URL with a host")
    return url


def shown(url: str) -> str:
    """``url`` without any credentials in it: for messages and for the state's key."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = host if parts.port is None else f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, ""))


def send_ledger(
    root: Path,
    ledger: Path,
    repo: str,
    endpoint: str,
    repo_url: str | None,
    *,
    batch: int = BATCH,
) -> OtlpResult:
    """Sends the records of ``ledger`` not yet acknowledged by ``endpoint`` for ``repo``.
    Raises :class:`~intent_ls.export.source.TamperedLedger` (nothing sent) when the ledger
    does not verify, :class:`DeliveryFailed` when the collector refuses or cannot be
    reached."""
    resource = {"service.name": "intent-ls", "vcs.repository.name": repo}
    if repo_url:
        resource["vcs.repository.url.full"] = repo_url
    # Set up before anything is read: a configuration the SDK refuses costs no verification.
    exporter = _Exporter(_Sdk.load(), endpoint, resource)
    try:
        with locked_state(root, shown(endpoint), repo) as state:
            for _ in range(_ATTEMPTS):
                with open_ledger(ledger, state.checkpoint, []) as snap:
                    lines, verified = _verified(snap)
                    if lines is None:
                        continue
                    records, logs = _deliver(lines, state, exporter, batch, shown(endpoint))
                    if snap.size:
                        state.save_checkpoint(snap.checkpoint(()))
                    return OtlpResult(shown(endpoint), records, logs, verified)
    finally:
        exporter.close()
    raise ExportError(
        f"{ledger} kept changing while it was read ({_ATTEMPTS} attempts); run the export again"
    )


def _verified(snap: Snapshot) -> tuple[Iterator[bytes] | None, int | None]:
    """The ledger's lines, only once verified: the appended lines alone when the ledger
    still starts with the checkpoint's bytes, else every line (None: the ledger changed
    while it was verified; start over). And how many appended lines were verified."""
    if snap.size == 0:
        return iter(()), 0
    if snap.tail is not None and snap.prefix_intact():
        return iter(snap.tail.split(b"\n")[:-1]), snap.tail.count(b"\n")
    snap.verify()
    if not snap.unchanged():
        return None, None
    return _lines(snap.fd, snap.size), None


def _lines(fd: int, size: int) -> Iterator[bytes]:
    """The lines of the first ``size`` bytes of ``fd`` (which end in a newline), without
    their newlines, read in large pieces."""
    at = 0
    rest = b""
    while at < size:
        data = os.pread(fd, min(_READ, size - at), at)
        if not data:
            raise OSError(f"the ledger ended at byte {at} while it was read")
        at += len(data)
        *whole, rest = (rest + data).split(b"\n")
        yield from whole


def _deliver(
    lines: Iterator[bytes], state: SendState, exporter: _Exporter, batch: int, where: str
) -> tuple[int, int]:
    keys: list[bytes] = []
    logs: list[LogFields] = []
    size = records = sent_logs = 0
    for line in lines:
        fields = log_fields(line)
        key = digest_key(str(fields[0].attributes["intent_ls.digest"]))
        if key in state.sent:
            continue
        keys.append(key)
        logs.extend(fields)
        size += len(line) * len(fields)
        if len(keys) >= batch or size >= _BATCH_BYTES:
            _request(exporter, logs, where, records)
            state.record_sent(keys)
            records, sent_logs = records + len(keys), sent_logs + len(logs)
            keys, logs, size = [], [], 0
    if keys:
        _request(exporter, logs, where, records)
        state.record_sent(keys)
        records, sent_logs = records + len(keys), sent_logs + len(logs)
    return records, sent_logs


def _request(exporter: _Exporter, logs: list[LogFields], where: str, delivered: int) -> None:
    problem = exporter.send(logs)
    if problem is not None:
        raise DeliveryFailed(
            f"{where} did not accept the log records: {problem}. {delivered} record(s) "
            "delivered before that are remembered; run again to send the rest"
        )


class _Exporter:
    """The SDK's OTLP/HTTP exporter with a fixed resource and scope; its own log
    messages (retries, HTTP errors) are kept to explain a failure, not printed."""

    def __init__(self, sdk: _Sdk, endpoint: str, resource: dict[str, str]) -> None:
        self._sdk = sdk
        try:
            self._exporter = sdk.OTLPLogExporter(endpoint=endpoint)
            self._resource = sdk.Resource.create(resource)
        except Exception as exc:  # the SDK reads OTEL_* variables, and raises on some
            raise ExportError(f"OpenTelemetry's OTLP exporter cannot be set up: {exc}") from None
        self._scope = sdk.InstrumentationScope("intent-ls", __version__)
        self._messages = _Collected()
        self._logger = logging.getLogger("opentelemetry")
        self._saved = (self._logger.propagate, self._logger.level)
        self._logger.addHandler(self._messages)
        self._logger.propagate = False
        self._logger.setLevel(logging.WARNING)

    def send(self, logs: list[LogFields]) -> str | None:
        """None when the collector acknowledged the request, else why not."""
        observed = time.time_ns()
        batch = [
            self._sdk.ReadableLogRecord(
                log_record=self._sdk.LogRecord(
                    timestamp=f.timestamp_ns,
                    observed_timestamp=observed,
                    severity_number=self._sdk.SeverityNumber(f.severity_number),
                    severity_text=f.severity_text,
                    body=f.body,
                    attributes=dict(f.attributes),
                ),
                resource=self._resource,
                instrumentation_scope=self._scope,
            )
            for f in logs
        ]
        self._messages.lines.clear()
        try:
            result = self._exporter.export(batch)
        except Exception as exc:  # older SDKs let a connection error through
            return f"{type(exc).__name__}: {exc}"
        if result == self._sdk.SUCCESS:
            return None
        said = [line.rstrip(".") for line in self._messages.lines]
        if not said:
            return "the export failed"
        # The first message has the cause (refused, 4xx), the last how the SDK gave up.
        return said[0] if len(said) == 1 else f"{said[0]}; then: {said[-1]}"

    def close(self) -> None:
        self._exporter.shutdown()
        self._logger.removeHandler(self._messages)
        self._logger.propagate, level = self._saved
        self._logger.setLevel(level)


class _Collected(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


@attrs.frozen
class _Sdk:
    """The OpenTelemetry classes the sender uses, imported on first use."""

    OTLPLogExporter: Any
    Resource: Any
    InstrumentationScope: Any
    ReadableLogRecord: Any
    LogRecord: Any
    SeverityNumber: Any
    SUCCESS: Any

    @classmethod
    def load(cls) -> _Sdk:
        try:
            from opentelemetry._logs import LogRecord, SeverityNumber
            from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
            from opentelemetry.sdk._logs import ReadableLogRecord
            from opentelemetry.sdk._logs.export import LogRecordExportResult
            from opentelemetry.sdk.resources import Resource
            from opentelemetry.sdk.util.instrumentation import InstrumentationScope
        except ImportError as exc:
            raise ExportError(
                f"--otlp needs the OpenTelemetry SDK, which the optional 'otlp' extra "
                f"installs: {INSTALL} (cannot import {exc.name or exc})"
            ) from None
        return cls(
            OTLPLogExporter,
            Resource,
            InstrumentationScope,
            ReadableLogRecord,
            LogRecord,
            SeverityNumber,
            LogRecordExportResult.SUCCESS,
        )
