"""Ledger benchmarks: save → record, append throughput, index build/warm start/RSS, blame.

Run: ``python benchmarks/ledger_bench.py [--records 100000 1000000] [--appends 300]
[--baseline-tree DIR]``. Prints one line per figure. Index builds run in a subprocess so
``ru_maxrss`` is the index's own peak, not this script's; a large cold build parses part
of the ledger in a second process, whose peak and CPU time are reported beside (CPU time
is the steadier figure when other work shares the machine). The cold build runs with the
C writer (``_bulk.c``, when the install compiled it) and again with
``INTENT_LS_PURE_PYTHON=1``, for the ratio. ``--baseline-tree`` names another checkout's
source tree (``git worktree add /tmp/main main``): its cold build of the same file runs
first, in the same run, for the ratio.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from intent_ls.common.hashing import content_hash
from intent_ls.ledger.records import build_mutation_record
from intent_ls.ledger.store import Ledger
from intent_ls.policy.approvals import Contributor
from intent_ls.syntax.document import DocumentSyntax

INTENTS = [f"INT-{i:03d}" for i in range(1, 21)]


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def synthetic_ledger(path: Path, n: int) -> None:
    """n realistic records (one file, one range, two AST nodes, chained ``prev``), written
    from a template: sealing 1M records through json would dominate the run."""
    rnd = random.Random(7)
    prev = "sha256:" + "0" * 64
    template = (
        '{{"files":[{{"conversations":[{{"contributor":{{"model_id":"anthropic/claude-x",'
        '"type":"ai"}},"ranges":[{{"content_hash":"{rh}","end_line":{e},"start_line":{s}}}],'
        '"related":[{{"type":"specification","url":"urn:intent:{intent}"}}]}}],"path":"{path}"}}],'
        '"id":"{id}","metadata":{{"intent_ls":{{"after_hash":"{h1}","approvals":[],'
        '"ast_nodes":[{{"content_hash":"{n1}","end_line":{ce},"kind":"class","name":"C{c}",'
        '"path":"{path}","start_line":1}},{{"content_hash":"{n2}","end_line":{e},"kind":"method",'
        '"name":"C{c}.m{m}","path":"{path}","start_line":{s}}}],"before_hash":"{h0}",'
        '"deleted_lines":0,"digest":"{h2}","intent_id":"{intent}","kind":"mutation",'
        '"mutation_class":"INTENT_EVOLUTION","prev":"{prev}","session_id":"{sid}","verdicts":[]}}}},'
        '"timestamp":"2026-01-01T00:00:{sec:02d}.{us:06d}Z","tool":{{"name":"intent-ls",'
        '"version":"0.1.0"}},"version":"0.1.0"}}'
    )
    with path.open("wb") as f:
        for i in range(n):
            h = hashlib.sha256(str(i).encode()).hexdigest()
            s = rnd.randint(1, 900)
            line = template.format(
                rh=content_hash([f"line {i % 50000}"]),
                e=s + 5,
                s=s,
                ce=1000,
                intent=INTENTS[i % len(INTENTS)],
                path=f"src/pkg{i % 100}/mod{i % 2000}.py",
                id=uuid.UUID(int=rnd.getrandbits(128), version=4),
                h0="sha256:" + h,
                h1="sha256:" + h[::-1],
                h2="sha256:" + h[1:] + "0",
                n1="sha256:" + hashlib.sha256(f"class{i % 2000}".encode()).hexdigest(),
                n2="sha256:" + hashlib.sha256(f"m{i % 20000}".encode()).hexdigest(),
                c=i % 2000,
                m=i % 10,
                prev=prev,
                sid=h[:32],
                sec=i % 60,
                us=i % 1_000_000,
            ).encode()
            prev = "sha256:" + hashlib.sha256(line).hexdigest()
            f.write(line + b"\n")


def bench_save(work: Path, samples: int) -> None:
    """Save → record appended for a 10,000-line Python file, as the server does it:
    the open document's tree is current (incremental) and the baseline tree is kept."""
    base = "".join(f"def f{i}(x):\n    y = x + {i}\n    return y\n\n" for i in range(2500))
    ledger = Ledger(work / ".orchestration" / "agent_trace.jsonl", fsync=True)
    old_doc = DocumentSyntax.parse(base, "python")
    times = []
    text = base
    for k in range(samples):
        new_doc = old_doc.copy()
        line = (k * 37) % 10000
        row = line - line % 4 + 1  # the "y = ..." line of some function
        new_doc.apply_change((row, 8), (row, 9), "z" if k % 2 else "y", "utf-16")
        new_text = new_doc.text
        t0 = time.perf_counter()
        record = build_mutation_record(
            work,
            "big.py",
            text,
            new_text,
            intent_id="INT-001",
            session_id="s",
            contributor=Contributor("ai", "anthropic/claude-x"),
            syntax=new_doc,
            old_syntax=old_doc,
            revision=None,
        )
        if record is not None:
            ledger.append(record)
        times.append((time.perf_counter() - t0) * 1000)
        text, old_doc = new_text, new_doc
    print(
        f"save->record (10k lines, fsync on): p50 {pct(times, 0.5):.2f} ms  "
        f"p95 {pct(times, 0.95):.2f} ms  (n={samples})"
    )


def bench_append(work: Path, n: int) -> None:
    record = build_mutation_record(
        work,
        "a.py",
        "a = 1\n",
        "a = 2\n",
        intent_id="INT-001",
        session_id="s",
        contributor=Contributor("human"),
        revision=None,
    )
    assert record is not None
    for fsync in (True, False):
        ledger = Ledger(work / f"t-{fsync}.jsonl", fsync=fsync)
        t0 = time.perf_counter()
        for _ in range(n):
            ledger.append(record)
        rate = n / (time.perf_counter() - t0)
        print(f"append throughput fsync={'on' if fsync else 'off'}: {rate:,.0f} records/s")


_CHILD = """
import resource, sys, time, json
from pathlib import Path
from intent_ls.ledger.index import TraceIndex
t0 = time.perf_counter()
idx = TraceIndex(Path(sys.argv[1]), Path(sys.argv[2]))
idx.refresh()
elapsed = time.perf_counter() - t0
try:
    from intent_ls.ledger.index import native
    writer = "C" if native.available() else "Python"
except ImportError:  # a tree from before the C writer
    writer = "Python"
me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({
    "seconds": elapsed,
    "cpu": me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime,
    "rss_mb": me.ru_maxrss / 1024,
    "worker_rss_mb": kids.ru_maxrss / 1024,
    "records": idx.record_count,
    "writer": writer,
}))
"""


def run_child(ledger: Path, cache: Path, tree: Path | None = None, *, pure: bool = False) -> dict:
    """One build in a fresh interpreter; ``tree`` puts another source tree's intent_ls
    first on its path; ``pure``: without the C writer."""
    env = dict(os.environ, INTENT_LS_PURE_PYTHON="1" if pure else "")
    if tree is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(tree), env.get("PYTHONPATH")]))
    out = subprocess.run(
        # -P: run from a checkout, ``-c`` would import the working directory's
        # intent_ls ahead of ``tree`` (the baseline was this tree, its ratio 1.0).
        [sys.executable, "-P", "-c", _CHILD, str(ledger), str(cache)],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    )
    return json.loads(out.stdout)


def show_cold(n: int, label: str, cold: dict) -> None:
    print(
        f"[{n:,} records] index cold build{label}, {cold['writer']} writer: "
        f"{cold['seconds']:.2f} s "
        f"(CPU {cold['cpu']:.2f} s over both processes), peak RSS {cold['rss_mb']:.0f} MB, "
        f"second process {cold['worker_rss_mb']:.0f} MB ({cold['records']:,} records)"
    )


def bench_index(work: Path, n: int, lookups: int, baseline: Path | None) -> None:
    ledger = work / f"ledger-{n}.jsonl"
    t0 = time.perf_counter()
    synthetic_ledger(ledger, n)
    size = ledger.stat().st_size / 1e6
    print(
        f"[{n:,} records] synthetic ledger {size:,.0f} MB written in "
        f"{time.perf_counter() - t0:.1f} s"
    )
    cache = work / f"index-{n}.sqlite"
    if baseline is not None:
        base = run_child(ledger, work / f"baseline-{n}.sqlite", baseline)
        show_cold(n, f" (baseline {baseline}, load {os.getloadavg()[0]:.1f})", base)
    cold = run_child(ledger, cache)
    show_cold(n, f" (this tree, load {os.getloadavg()[0]:.1f})", cold)
    pure = run_child(ledger, work / f"pure-{n}.sqlite", pure=True)
    show_cold(n, f" (this tree, load {os.getloadavg()[0]:.1f})", pure)
    print(
        f"[{n:,} records] {cold['writer']} writer / Python writer: "
        f"wall {cold['seconds'] / pure['seconds']:.2f}x, CPU {cold['cpu'] / pure['cpu']:.2f}x"
    )
    if baseline is not None:
        print(
            f"[{n:,} records] this tree / baseline: wall {cold['seconds'] / base['seconds']:.2f}x"
            f", CPU {cold['cpu'] / base['cpu']:.2f}x"
        )
    warm = run_child(ledger, cache)
    print(
        f"[{n:,} records] index warm start {warm['seconds'] * 1000:.1f} ms, "
        f"peak RSS {warm['rss_mb']:.0f} MB"
    )
    from intent_ls.ledger.index import TraceIndex
    from intent_ls.syntax.model import AstNode

    idx = TraceIndex(ledger, cache)
    idx.refresh()
    rnd = random.Random(3)
    times = []
    hits = 0
    for _ in range(lookups):
        i = rnd.randrange(n)
        node = AstNode(
            "method",
            f"C{i % 2000}.m{i % 10}",
            1,
            5,
            "sha256:" + hashlib.sha256(f"m{i % 20000}".encode()).hexdigest(),
        )
        t0 = time.perf_counter()
        entries = idx.blame(
            f"src/pkg{i % 100}/mod{i % 2000}.py",
            definition=node,
            content_hash=content_hash([f"line {i % 50000}"]),
        )
        times.append((time.perf_counter() - t0) * 1000)
        hits += bool(entries)
    print(
        f"[{n:,} records] hover blame lookup: p50 {pct(times, 0.5):.2f} ms  "
        f"p95 {pct(times, 0.95):.2f} ms  ({hits}/{lookups} with history)"
    )
    idx.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--appends", type=int, default=300)
    parser.add_argument("--saves", type=int, default=100)
    parser.add_argument("--lookups", type=int, default=500)
    parser.add_argument("--baseline-tree", type=Path, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        bench_save(work, args.saves)
        bench_append(work, args.appends)
        for n in args.records:
            bench_index(work, n, args.lookups, args.baseline_tree)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"benchmark driver peak RSS {rss:.0f} MB")


if __name__ == "__main__":
    main()
