"""``intent-ls export --otlp``: every record of a verified ledger reaches a real OTLP/HTTP
receiver on 127.0.0.1 once, with the ledger's values, through the OpenTelemetry SDK."""

from __future__ import annotations

import calendar
import json
import os
import subprocess
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

import attrs
import pytest
from export_helpers import Workspace
from otlp_receiver import Received, receiver

from intent_ls.export import ExportError, otlp
from intent_ls.export.layout import repo_url
from intent_ls.export.otlp import DeliveryFailed, resolve_endpoint, send_ledger, shown
from intent_ls.export.otlp_records import log_fields

REPO = "acme/shop"


def records(ws: Workspace) -> list[tuple[bytes, dict[str, Any]]]:
    return [(line, json.loads(line)) for line in ws.lines()]


def send(ws: Workspace, url: str, *extra: str, env: dict[str, str] | None = None) -> Any:
    return subprocess.run(
        [sys.executable, "-m", "intent_ls", "export", "--otlp", url, "--repo", REPO, *extra],
        cwd=ws.root,
        capture_output=True,
        text=True,
        env={**_clean_env(), **(env or {})},
    )


def _clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}


def nanos(timestamp: str) -> int:
    when = datetime.strptime(timestamp, "%Y-%m-%dT%H:%M:%S.%fZ")
    return calendar.timegm(when.utctimetuple()) * 10**9 + when.microsecond * 1000


def expected_attributes(record: dict[str, Any]) -> dict[str, Any]:
    """The attributes ``docs/scale.md`` lists, read from the record by hand."""
    meta = record["metadata"]["intent_ls"]
    (file,) = record["files"]
    contributor = file["conversations"][0]["contributor"]
    want: dict[str, Any] = {
        "intent_ls.digest": meta["digest"],
        "intent_ls.id": record["id"],
        "intent_ls.intent_id": meta["intent_id"],
        "intent_ls.kind": meta["kind"],
        "intent_ls.session_id": meta["session_id"],
        "code.file.path": file["path"],
        "intent_ls.contributor.type": contributor["type"],
    }
    if meta["mutation_class"] is not None:
        want["intent_ls.mutation_class"] = meta["mutation_class"]
    if contributor["type"] == "ai":
        want["gen_ai.request.model"] = contributor["model_id"]
    if meta["verdicts"]:
        want["intent_ls.verdict_codes"] = tuple(v["code"] for v in meta["verdicts"])
    return want


def by_digest(logs: list[Received]) -> dict[str, Received]:
    found = {log.attributes["intent_ls.digest"]: log for log in logs}
    assert len(found) == len(logs), "a record was sent twice"
    return found


def test_every_record_arrives_once_with_the_ledgers_values(recorded: Workspace) -> None:
    with receiver() as rx:
        done = send(recorded, rx.url)
        assert done.returncode == 0, done.stderr
    lines = records(recorded)
    assert f"sent {len(lines)} record(s) as {len(lines)} log record(s)" in done.stdout
    assert rx.requests[0]["path"] == "/v1/logs"
    got = by_digest(rx.logs)
    assert set(got) == {r["metadata"]["intent_ls"]["digest"] for _, r in lines}
    kinds = set()
    for line, record in lines:
        log = got[record["metadata"]["intent_ls"]["digest"]]
        assert log.body == line.decode()
        assert log.attributes == expected_attributes(record)
        assert log.time_unix_nano == nanos(record["timestamp"])
        assert log.observed_time_unix_nano >= log.time_unix_nano
        warn = bool(record["metadata"]["intent_ls"]["verdicts"])
        assert (log.severity_number, log.severity_text) == ((13, "WARN") if warn else (9, "INFO"))
        assert log.resource["service.name"] == "intent-ls"
        assert log.resource["vcs.repository.name"] == REPO
        assert "vcs.repository.url.full" not in log.resource  # no origin remote here
        assert log.scope == "intent-ls"
        kinds.add(record["metadata"]["intent_ls"]["kind"])
    assert kinds == {"mutation", "approval"}


def test_a_rerun_sends_nothing_and_then_only_what_was_appended(recorded: Workspace) -> None:
    with receiver() as rx:
        assert send(recorded, rx.url).returncode == 0
        first = len(rx.logs)
        again = send(recorded, rx.url)
        assert again.returncode == 0
        assert "nothing new to send" in again.stdout
        assert len(rx.logs) == first
        recorded.save("src/billing/tax.py", "RATE = 1\n")
        recorded.save("src/billing/tax.py", "RATE = 2\n")
        third = send(recorded, rx.url)
        assert third.returncode == 0, third.stderr
        assert "sent 2 record(s)" in third.stdout
        assert "2 appended line(s) verified" in third.stdout
        got = by_digest(rx.logs)
    assert set(got) == {r["metadata"]["intent_ls"]["digest"] for _, r in records(recorded)}


def test_another_collector_gets_everything(recorded: Workspace) -> None:
    with receiver() as one, receiver() as two:
        assert send(recorded, one.url).returncode == 0
        assert send(recorded, two.url).returncode == 0
        assert len(one.logs) == len(two.logs) == len(recorded.lines())


def test_a_tampered_ledger_exits_1_and_sends_nothing(recorded: Workspace) -> None:
    ledger = recorded.ledger.path
    ledger.write_bytes(ledger.read_bytes().replace(b'"INT-002"', b'"INT-003"', 1))
    with receiver() as rx:
        done = send(recorded, rx.url)
    assert done.returncode == 1
    assert "agent_trace.jsonl:" in done.stderr and "nothing was sent" in done.stderr
    assert "Traceback" not in done.stderr
    assert rx.requests == []


def test_tampering_after_a_send_is_caught_by_the_next_run(recorded: Workspace) -> None:
    with receiver() as rx:
        assert send(recorded, rx.url).returncode == 0
        sent = len(rx.requests)
        recorded.save("src/billing/tax.py", "RATE = 1\n")
        ledger = recorded.ledger.path
        ledger.write_bytes(ledger.read_bytes().replace(b'"sess-1"', b'"sess-2"', 1))
        done = send(recorded, rx.url)
        assert done.returncode == 1, done.stdout
        assert ":1: record digest mismatch" in done.stderr
        assert len(rx.requests) == sent


def test_a_refused_request_keeps_what_was_acknowledged_and_the_rerun_sends_the_rest(
    recorded: Workspace,
) -> None:
    ledger = recorded.ledger.path
    everything = {r["metadata"]["intent_ls"]["digest"] for _, r in records(recorded)}
    with receiver() as rx:
        rx.statuses = [200, 400]
        with pytest.raises(DeliveryFailed, match="400") as failed:
            send_ledger(recorded.root, ledger, REPO, rx.url + "/v1/logs", None, batch=2)
        assert "2 record(s) delivered before that are remembered" in str(failed.value)
        assert len(by_digest(rx.logs)) == 2
        result = send_ledger(recorded.root, ledger, REPO, rx.url + "/v1/logs", None, batch=2)
        assert result.records == len(everything) - 2
        assert set(by_digest(rx.logs)) == everything


def test_an_unreachable_collector_is_one_line_and_exit_2(recorded: Workspace) -> None:
    with receiver() as rx:
        url = rx.url  # the port is closed once the receiver stops
    done = send(recorded, url, env={"OTEL_EXPORTER_OTLP_TIMEOUT": "1"})
    assert done.returncode == 2
    assert f"{url}/v1/logs did not accept the log records" in done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


def test_the_standard_environment_variables_are_read(recorded: Workspace) -> None:
    with receiver() as rx:
        done = send(
            recorded,
            "",
            env={
                "OTEL_EXPORTER_OTLP_ENDPOINT": rx.url,
                "OTEL_EXPORTER_OTLP_HEADERS": "authorization=Bearer%20t0ken",
                "OTEL_EXPORTER_OTLP_COMPRESSION": "gzip",
                "OTEL_RESOURCE_ATTRIBUTES": "deployment.environment.name=ci",
            },
        )
        assert done.returncode == 0, done.stderr
    assert rx.requests[0]["path"] == "/v1/logs"
    assert rx.requests[0]["authorization"] == "Bearer t0ken"
    assert rx.requests[0]["content-encoding"] == "gzip"
    assert len(rx.logs) == len(recorded.lines())
    assert rx.logs[0].resource["deployment.environment.name"] == "ci"
    assert rx.logs[0].resource["service.name"] == "intent-ls"


def test_the_repository_url_goes_without_credentials(recorded: Workspace) -> None:
    subprocess.run(["git", "init", "-q", str(recorded.root)], check=True)
    remote = "https://bot:s3cret@git.example.com/acme/shop.git"
    subprocess.run(["git", "-C", str(recorded.root), "remote", "add", "origin", remote], check=True)
    with receiver() as rx:
        assert send(recorded, rx.url).returncode == 0
    assert rx.logs[0].resource["vcs.repository.url.full"] == "https://git.example.com/acme/shop.git"


@pytest.mark.parametrize(
    ("url", "want"),
    [
        (
            "https://bot:pw@git.example.com:8443/acme/shop.git",
            "https://git.example.com:8443/acme/shop.git",
        ),
        ("git@github.com:acme/shop.git", "ssh://github.com/acme/shop.git"),
        ("ssh://git@[::1]:2222/acme/shop", "ssh://[::1]:2222/acme/shop"),
        ("/srv/git/shop.git", None),
    ],
)
def test_repository_urls_from_remotes(tmp_path: Path, url: str, want: str | None) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "remote", "add", "origin", url], check=True)
    assert repo_url(tmp_path) == want


def test_endpoints_resolve_as_the_sdk_does() -> None:
    env = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://base:4318/"}
    assert resolve_endpoint("http://c:4318", env) == "http://c:4318/v1/logs"
    assert resolve_endpoint("http://c:4318/", {}) == "http://c:4318/v1/logs"
    assert resolve_endpoint("https://c/ingest/logs", {}) == "https://c/ingest/logs"
    assert resolve_endpoint("", env) == "http://base:4318/v1/logs"
    logs = {**env, "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT": "http://logs:9/x"}
    assert resolve_endpoint(None, logs) == "http://logs:9/x"
    assert resolve_endpoint(None, {}) == "http://localhost:4318/v1/logs"
    assert shown("https://u:p@c:1/v1/logs?k=v") == "https://c:1/v1/logs?k=v"


@pytest.mark.parametrize(
    ("given", "env", "says"),
    [
        ("ftp://c/x", {}, "is not an http:// or https:// URL"),
        ("http://", {}, "is not an http:// or https:// URL"),
        ("http://c:port", {}, "is not a URL"),
        ("http://c /x", {}, "is not an http:// or https:// URL"),
        (None, {"OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4318"}, "OTEL_EXPORTER_OTLP_ENDPOINT"),
        ("http://c", {"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, "'grpc' is not supported"),
    ],
)
def test_bad_endpoints_are_refused(given: str | None, env: dict[str, str], says: str) -> None:
    with pytest.raises(ExportError, match=says):
        resolve_endpoint(given, env)


def test_bad_endpoint_on_the_command_line_is_exit_2_before_anything_else(ws: Workspace) -> None:
    ws.save("src/billing/a.py", "x = 1\n")
    done = send(ws, "ftp://collector/")
    assert done.returncode == 2
    assert "is not an http:// or https:// URL" in done.stderr
    assert not (ws.root / ".orchestration" / ".local" / "otlp").exists()


_WITHOUT_SDK = """
import sys
sys.modules["opentelemetry"] = None  # as if the otlp extra were not installed
from intent_ls.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def test_without_the_extra_the_message_names_it(recorded: Workspace) -> None:
    with receiver() as rx:
        done = subprocess.run(
            [sys.executable, "-c", _WITHOUT_SDK, "export", "--otlp", rx.url],
            cwd=recorded.root,
            capture_output=True,
            text=True,
            env=_clean_env(),
        )
    assert done.returncode == 2
    assert "pip install 'intent-ls[otlp]'" in done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert rx.requests == []


_IMPORTED = """
import sys
from intent_ls.cli.main import main
code = main(sys.argv[1:])
print(code, any(m.split(".")[0] == "opentelemetry" for m in sys.modules))
"""


def test_the_cli_imports_opentelemetry_only_for_otlp(recorded: Workspace, tmp_path: Path) -> None:
    def run(*args: str) -> list[str]:
        done = subprocess.run(
            [sys.executable, "-c", _IMPORTED, *args, "--workspace", str(recorded.root)],
            capture_output=True,
            text=True,
            env=_clean_env(),
        )
        return done.stdout.split()[-2:]

    assert run("export", "--out", str(tmp_path / "o")) == ["0", "False"]
    assert run("export", "--query", "records-per-model", "--from", str(tmp_path / "o")) == [
        "0",
        "False",
    ]
    with receiver() as rx:
        assert run("export", "--otlp", rx.url) == ["0", "True"]


def test_state_tracked_by_git_is_refused(recorded: Workspace) -> None:
    root = recorded.root
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    forged = root / ".orchestration" / ".local" / "otlp" / "0123456789abcdef" / "sent"
    forged.parent.mkdir(parents=True)
    forged.write_bytes(b"\0" * 32)
    subprocess.run(["git", "-C", str(root), "add", "-f", str(forged)], check=True)
    with receiver() as rx:
        done = send(recorded, rx.url)
    assert done.returncode == 2
    assert "is tracked by git" in done.stderr
    assert rx.requests == []


def test_a_torn_state_entry_is_cut_and_its_record_sent_again(recorded: Workspace) -> None:
    with receiver() as rx:
        assert send(recorded, rx.url).returncode == 0
        (state,) = (recorded.root / ".orchestration" / ".local" / "otlp").glob("*/sent")
        data = state.read_bytes()
        assert len(data) == 32 * len(recorded.lines())
        state.write_bytes(data[:-5])  # the last acknowledgement torn mid-write
        (state.parent / "checkpoint.json").unlink()
        done = send(recorded, rx.url)
        assert done.returncode == 0, done.stderr
        assert "sent 1 record(s)" in done.stdout
        assert state.read_bytes() == data


def test_a_record_with_several_files_is_one_log_record_per_file() -> None:
    record = {
        "id": "r1",
        "timestamp": "2026-01-02T03:04:05.678901Z",
        "files": [
            {"path": "a.py", "conversations": [{"contributor": {"type": "human"}}]},
            {"path": "b.py", "conversations": [{"contributor": {"type": "ai", "model_id": "m"}}]},
        ],
        "metadata": {"intent_ls": {"digest": "sha256:" + "ab" * 32, "kind": "mutation"}},
    }
    line = json.dumps(record).encode()
    first, second = log_fields(line)
    assert first.attributes["code.file.path"] == "a.py"
    assert "gen_ai.request.model" not in first.attributes
    assert second.attributes["gen_ai.request.model"] == "m"
    assert first.timestamp_ns == nanos(record["timestamp"])
    assert first.body == line.decode()
    assert second.body is None  # the line once per record, not once per file
    (merge,) = log_fields(json.dumps({**record, "files": []}).encode())
    assert "code.file.path" not in merge.attributes


def test_usage_errors(ws: Workspace, tmp_path: Path) -> None:
    ws.save("src/billing/a.py", "x = 1\n")
    for args, says in (
        (("--otlp", "http://c", "--out", str(tmp_path / "o")), "give one of --out DIR"),
        (("--otlp", "http://c", "--from", str(tmp_path)), "--from and --param go with --query"),
    ):
        done = ws.cli("export", *args)
        assert done.returncode == 2, args
        assert says in done.stderr, done.stderr


def test_a_two_file_record_reaches_the_collector_once_per_file(ws: Workspace) -> None:
    """A record of several files (another Agent Trace writer's shape) verifies, and
    arrives as one log record per file, the line as the first one's body."""
    record = ws.save("src/billing/a.py", "x = 1\n")
    second = json.loads(json.dumps(record["files"][0]))
    second["path"] = "src/billing/b.py"
    second["conversations"][0]["contributor"] = {"type": "human"}
    two = json.loads(json.dumps(record))
    two["id"] = "6f1d3c1e-0000-4000-8000-000000000001"
    two["files"].append(second)
    ws.ledger.append(two)
    with receiver() as rx:
        done = send(ws, rx.url)
        assert done.returncode == 0, done.stderr
    assert "sent 2 record(s) as 3 log record(s)" in done.stdout
    line = ws.lines()[-1].decode()
    mine = [log for log in rx.logs if log.attributes["intent_ls.id"] == two["id"]]
    assert [(log.attributes["code.file.path"], log.body) for log in mine] == [
        ("src/billing/a.py", line),
        ("src/billing/b.py", None),
    ]
    assert mine[1].attributes["intent_ls.contributor.type"] == "human"
    assert "gen_ai.request.model" not in mine[1].attributes


def test_an_exporter_the_sdk_refuses_to_set_up_is_one_line_before_any_reading(
    recorded: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The SDK reads OTEL_* variables when the exporter is made, and raises on some (an
    unknown credential provider): a message, and the ledger is not even verified."""

    def refused(**_: object) -> None:
        raise RuntimeError("Requested component 'nonexistent' not found")

    sdk = otlp._Sdk.load()
    monkeypatch.setattr(otlp._Sdk, "load", lambda: attrs.evolve(sdk, OTLPLogExporter=refused))
    monkeypatch.setattr(otlp.Snapshot, "verify", lambda self: pytest.fail("verified"))
    with pytest.raises(ExportError, match="exporter cannot be set up: Requested component"):
        send_ledger(recorded.root, recorded.ledger.path, REPO, "http://127.0.0.1:9", None)


def test_a_removed_delivery_record_sends_everything_again(recorded: Workspace) -> None:
    """The checkpoint alone must not stand for "delivered": without ``sent`` the whole
    ledger is verified and sent again (at least once, never lost)."""
    with receiver() as rx:
        assert send(recorded, rx.url).returncode == 0
        (sent,) = (recorded.root / ".orchestration" / ".local" / "otlp").glob("*/sent")
        sent.unlink()
        assert (sent.parent / "checkpoint.json").exists()
        done = send(recorded, rx.url)
        assert done.returncode == 0, done.stderr
        assert f"sent {len(recorded.lines())} record(s)" in done.stdout
        assert "the whole ledger verified" in done.stdout
