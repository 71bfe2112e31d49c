"""What the symlink-proof, bounded I/O of ``intent_ls/common/safe_io.py`` costs.

Run: ``python benchmarks/safe_io_bench.py [--rounds 5000]``. Each figure is the median
microseconds per operation and its ratio to the naive call it replaced, measured in the
same run on the same files (a sidecar two directories deep, as the ledger's lock is).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from intent_ls.common.safe_io import open_sidecar, read_regular, read_sidecar, write_atomic
from intent_ls.ledger.store import Ledger


def per_op(fn: Callable[[], object], rounds: int) -> float:
    """Median µs per call over 5 batches."""
    batch = max(1, rounds // 5)
    samples = []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(batch):
            fn()
        samples.append((time.perf_counter() - start) / batch * 1e6)
    return statistics.median(samples)


def naive_replace(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    tmp.replace(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=5000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        lock = root / ".orchestration" / ".local" / "agent_trace.jsonl.lock"
        lock.parent.mkdir(parents=True)
        lock.touch()
        text = root / ".orchestration" / "intent_map.md"
        text.write_bytes(b"x" * 10_000)

        def naive_open() -> None:
            os.close(os.open(lock, os.O_RDWR | os.O_CREAT, 0o644))

        def safe_open() -> None:
            os.close(open_sidecar(lock, os.O_RDWR | os.O_CREAT))

        figures = [
            ("open lock file", naive_open, safe_open),
            ("read 10 KB sidecar", text.read_bytes, lambda: read_sidecar(text, 1 << 20)),
            ("read 10 KB file", text.read_bytes, lambda: read_regular(text, 1 << 20)),
            (
                "replace 10 KB file",
                lambda: naive_replace(text, b"y" * 10_000),
                lambda: write_atomic(text, b"y" * 10_000),
            ),
        ]
        for name, naive, safe in figures:
            base = per_op(naive, args.rounds)
            ours = per_op(safe, args.rounds)
            print(
                f"{name:<22} naive {base:7.1f} µs  safe_io {ours:7.1f} µs  ratio {ours / base:4.2f}"
            )
        ledger = Ledger(root / ".orchestration" / "agent_trace.jsonl", fsync=False)
        record = {"id": "x", "timestamp": "2026-01-01T00:00:00Z", "files": []}
        appends = per_op(lambda: ledger.append(record), min(args.rounds, 2000))
        print(f"{'ledger append (no fsync)':<22} {appends:7.1f} µs per record")


if __name__ == "__main__":
    main()
