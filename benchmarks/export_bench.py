"""``intent-ls export`` on a big ledger: first export, re-run with appended records, query.

Run: ``python benchmarks/export_bench.py [--records 1000000] [--appended 1000] [--otlp]``.
Prints one line per figure; with ``--otlp``, the figures of ``export --otlp`` to a receiver
on 127.0.0.1 (in this process: it decodes each request and counts its log records) instead
of the Parquet ones. The ledger (valid, chained records in the writer's exact shape, from
``merge_bench.sealed_lines``) is cached under ``/tmp/intent-ls-export-bench``; every run
exports into a fresh directory. Each figure is the wall time of the real CLI in a
subprocess, as a CI job runs it. The baseline, measured in the same run on the same file,
is ``intent-ls trace verify`` (the check every export must include), so the ratios stay
meaningful when other work shares the machine.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import resource
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from merge_bench import sealed_lines

CACHE = Path("/tmp/intent-ls-export-bench")
CLI = [sys.executable, "-m", "intent_ls"]


def cached_ledger(n: int) -> Path:
    path = CACHE / f"ledger-{n}.jsonl"
    if not path.exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        temp = path.with_suffix(".tmp")
        with temp.open("wb") as f:
            for line in sealed_lines(n, "main"):
                f.write(line + b"\n")
        temp.replace(path)
    return path


def last_line_hash(path: Path) -> str:
    with path.open("rb") as f:
        f.seek(max(0, path.stat().st_size - 64 * 1024))
        last = f.read().rstrip(b"\n").rsplit(b"\n", 1)[-1]
    return "sha256:" + hashlib.sha256(last).hexdigest()


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(*args: str, cwd: Path) -> tuple[float, str]:
    """Wall time of one CLI run; its CPU time (all threads) is kept in ``LAST_CPU``."""
    cpu, t0 = children_cpu(), time.perf_counter()
    done = subprocess.run([*CLI, *args], cwd=cwd, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - t0
    LAST_CPU[0] = children_cpu() - cpu
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed ({done.returncode}): {done.stderr}")
    return elapsed, done.stdout.strip()


LAST_CPU = [0.0]


def hash_floor(path: Path) -> float:
    """Reading and hashing every byte once: what any re-run that re-checks the whole
    ledger cannot go below (one core)."""
    t0 = time.perf_counter()
    with path.open("rb") as f:
        digest = hashlib.sha256()
        while chunk := f.read(1 << 24):
            digest.update(chunk)
    return time.perf_counter() - t0


def size_mb(root: Path) -> float:
    return sum(p.stat().st_size for p in root.rglob("*.parquet")) / 1e6


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--appended", type=int, default=1000)
    parser.add_argument("--otlp", action="store_true", help="measure export --otlp instead")
    args = parser.parse_args()
    source = cached_ledger(args.records)
    work = CACHE / "run"
    shutil.rmtree(work, ignore_errors=True)
    ws = work / "ws"
    (ws / ".orchestration").mkdir(parents=True)
    ledger = ws / ".orchestration" / "agent_trace.jsonl"
    shutil.copyfile(source, ledger)
    out = work / "export"
    mb = ledger.stat().st_size / 1e6
    print(f"ledger: {args.records:,} records, {mb:,.0f} MB (machine shared with other work)")

    verify, _ = timed("trace", "verify", cwd=ws)
    verify_cpu = LAST_CPU[0]
    print(f"baseline `trace verify` (whole ledger): {verify:.1f} s, CPU {verify_cpu:.1f} s")
    floor = hash_floor(ledger)
    startup, _ = timed("--version", cwd=ws)
    print(f"baseline sha256 of the ledger: {floor:.2f} s; `intent-ls --version`: {startup:.2f} s")
    if args.otlp:
        otlp_figures(ws, ledger, args.records, args.appended, verify, verify_cpu)
        shutil.rmtree(work, ignore_errors=True)
        return
    first, said = timed("export", "--out", str(out), "--repo", "bench/repo", cwd=ws)
    print(
        f"first export: {first:.1f} s, CPU {LAST_CPU[0]:.1f} s ({first / verify:.2f}x verify's "
        f"wall time, {LAST_CPU[0] / verify_cpu:.2f}x its CPU; goal <= 30 s) — {said}"
    )
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"peak RSS of the largest run so far (the first export): {peak:,.0f} MB")
    print(f"parquet written: {size_mb(out):,.0f} MB ({size_mb(out) / mb:.0%} of the ledger)")

    with ledger.open("ab") as f:
        for line in sealed_lines(args.appended, f"run{time.time_ns()}", last_line_hash(ledger)):
            f.write(line + b"\n")
    rerun, said = timed("export", "--out", str(out), "--repo", "bench/repo", cwd=ws)
    print(
        f"re-run, {args.appended:,} appended: {rerun:.2f} s, CPU {LAST_CPU[0]:.2f} s "
        f"({rerun / (floor + startup):.2f}x sha256 + startup; goal <= 2 s) — {said}"
    )
    idle, said = timed("export", "--out", str(out), "--repo", "bench/repo", cwd=ws)
    print(f"re-run, nothing new: {idle:.2f} s — {said}")

    for name in ("records-per-model", "ai-share"):
        elapsed, _ = timed("export", "--query", name, "--from", str(out), cwd=ws)
        print(f"query {name} over {args.records + args.appended:,} records: {elapsed:.2f} s")
    spark_count(out)
    shutil.rmtree(work, ignore_errors=True)


def otlp_figures(
    ws: Path, ledger: Path, records: int, appended: int, verify: float, verify_cpu: float
) -> None:
    with otlp_receiver() as (url, counts):
        first, said = timed("export", "--otlp", url, "--repo", "bench/repo", cwd=ws)
        print(
            f"first send: {first:.1f} s, CPU {LAST_CPU[0]:.1f} s ({first / verify:.2f}x "
            f"verify's wall time, {LAST_CPU[0] / verify_cpu:.2f}x its CPU) — {said}"
        )
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        print(
            f"receiver: {counts['requests']:,} requests, {counts['logs']:,} log records, "
            f"{counts['bytes'] / 1e6:,.0f} MB; peak RSS of the sender {peak:,.0f} MB"
        )
        assert counts["logs"] == records, counts
        with ledger.open("ab") as f:
            for line in sealed_lines(appended, f"run{time.time_ns()}", last_line_hash(ledger)):
                f.write(line + b"\n")
        rerun, said = timed("export", "--otlp", url, "--repo", "bench/repo", cwd=ws)
        print(f"re-run, {appended:,} appended: {rerun:.2f} s, CPU {LAST_CPU[0]:.2f} s — {said}")
        idle, said = timed("export", "--otlp", url, "--repo", "bench/repo", cwd=ws)
        print(f"re-run, nothing new: {idle:.2f} s — {said}")
        assert counts["logs"] == records + appended, counts


@contextlib.contextmanager
def otlp_receiver() -> Iterator[tuple[str, dict[str, int]]]:
    from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest

    counts = {"requests": 0, "logs": 0, "bytes": 0}

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["content-length"]))
            request = ExportLogsServiceRequest.FromString(body)
            counts["requests"] += 1
            counts["bytes"] += len(body)
            counts["logs"] += sum(
                len(s.log_records) for r in request.resource_logs for s in r.scope_logs
            )
            self.send_response(200)
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", counts
    finally:
        server.shutdown()
        server.server_close()


def spark_count(out: Path) -> None:
    """Spark in local mode reading the same files, when pyspark (and Java) are installed."""
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        print("spark: pyspark not installed, skipped")
        return
    t0 = time.perf_counter()
    spark = (
        SparkSession.builder.master("local[2]")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
    )
    started = time.perf_counter() - t0
    t0 = time.perf_counter()
    records = spark.read.parquet(str(out / "records"))
    rows = records.groupBy("repo", "model_id").count().collect()
    elapsed = time.perf_counter() - t0
    spark.stop()
    total = sum(r["count"] for r in rows)
    print(
        f"spark (local[2]) group-by over records: {elapsed:.1f} s for {total:,} rows "
        f"(+{started:.1f} s session start)"
    )


if __name__ == "__main__":
    main()
