"""Many writers and merges: records lost, verify and merge times, index catch-up.

Run: ``python benchmarks/merge_bench.py [--writers 8] [--each 200] [--clone-records 5000]
[--big 1000000]``. Prints one line per figure:

1. N concurrent writers in one clone — language servers (real ``intent-ls serve``
   processes driven over LSP, saving a file) and CLI processes (``Ledger.append``, the
   call agent hooks make) — and the records lost (goal 0);
2. two git clones each appending records, then ``git pull`` (merge) and, from a reset,
   ``git pull --rebase``, through the merge driver that ``intent-ls init`` configured:
   records lost, wall time, ``trace verify`` time of the result;
3. a merged ledger of ``--big`` records (two sides of half each, joined by the driver's
   merge record): merge-driver time and ``trace verify`` time;
4. the index: cold build of ``--big`` records, then catch-up after a merge that inserted
   5,000 lines in the middle, against a cold build of the result (the ratio is the point).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from intent_ls.ledger.index import TraceIndex
from intent_ls.ledger.merge import join_lines, split_lines
from intent_ls.ledger.records import build_mutation_record
from intent_ls.ledger.store import GENESIS, Ledger
from intent_ls.ledger.verify import verify_ledger
from intent_ls.policy.approvals import Contributor

HERE = Path(__file__).resolve().parent
_TEMPLATE = (
    '{{"files":[{{"conversations":[{{"contributor":{{"model_id":"anthropic/claude-x",'
    '"type":"ai"}},"ranges":[{{"content_hash":"sha256:{rh}","end_line":{e},"start_line":{s}}}],'
    '"related":[{{"type":"specification","url":"urn:intent:INT-{intent:03d}"}}]}}],'
    '"path":"{path}"}}],"id":"{id}","metadata":{{"intent_ls":{{"after_hash":"sha256:{rh}",'
    '"approvals":[],"ast_nodes":[{{"content_hash":"sha256:{nh}","end_line":{e},"kind":"function",'
    '"name":"f{m}","path":"{path}","start_line":{s}}}],"before_hash":"sha256:{rh}",'
    '"deleted_lines":0{digest},"intent_id":"INT-{intent:03d}","kind":"mutation",'
    '"mutation_class":"INTENT_EVOLUTION","prev":"{prev}","session_id":"s","verdicts":[]}}}},'
    '"timestamp":"2026-01-01T00:{mi:02d}:{sec:02d}.{us:06d}Z","tool":{{"name":"intent-ls",'
    '"version":"0.1.0"}},"version":"0.1.0"}}'
)


def sealed_lines(n: int, tag: str, prev: str = GENESIS) -> list[bytes]:
    """n valid, chained records in the writer's exact shape (what verify's fast path and
    the index's fast path see in production), sealed without going through json."""
    out = []
    for i in range(n):
        h = hashlib.sha256(f"{tag}{i}".encode()).hexdigest()
        fields = {
            "rh": h,
            "nh": h[::-1],
            "e": i % 900 + 5,
            "s": i % 900 + 1,
            "intent": i % 20,
            "path": f"src/{tag}/mod{i % 500}.py",
            "id": uuid.UUID(hex=h[:32], version=4),
            "m": i % 50,
            "prev": prev,
            "mi": i // 60_000_000 % 60,
            "sec": i // 1_000_000 % 60,
            "us": i % 1_000_000,
        }
        unsealed = _TEMPLATE.format(digest="", **fields).encode()
        digest = "sha256:" + hashlib.sha256(unsealed).hexdigest()
        line = _TEMPLATE.format(digest=f',"digest":"{digest}"', **fields).encode()
        out.append(line)
        prev = "sha256:" + hashlib.sha256(line).hexdigest()
    return out


# -- 1. concurrent writers ---------------------------------------------------------

_CLI_WRITER = """
import sys
from pathlib import Path
from intent_ls.ledger.records import Contributor, build_mutation_record
from intent_ls.ledger.store import Ledger, ledger_path
root, n, who = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
ledger = Ledger(ledger_path(root))
for i in range(n):
    record = build_mutation_record(
        root, f"src/{who}.py", f"x = {i}\\n", f"x = {i + 1}\\n", intent_id="INT-001",
        session_id=who, contributor=Contributor("ai", "bench/model"))
    ledger.append(record)
"""


async def _server_writer(root: Path, n: int) -> int:
    sys.path.insert(0, str(HERE.parent / "tests" / "lsp"))
    from lsp_harness import start_editor, stop_editor

    editor = await start_editor("visual-studio-code", [root])
    try:
        await editor.execute("intent.select", "INT-001")
        await editor.wait_status(lambda s: (s["intent"] or {}).get("id") == "INT-001", "select")
        rel = f"src/auth/bench_{os.getpid()}_{id(editor)}.py"
        (root / rel).write_text("", encoding="utf-8")
        uri = editor.open(rel)
        for i in range(n):
            editor.insert(uri, i, 0, f"x{i} = {i}\n")
            since = editor.recorded_count()
            await editor.save(uri)
            await editor.wait_recorded(since)
    finally:
        await stop_editor(editor)
    return n


def bench_writers(work: Path, writers: int, each: int) -> None:
    import shutil

    root = work / "writers"
    shutil.copytree(HERE.parent / "examples" / "workspace", root)
    servers = max(1, writers // 4)
    procs = [
        subprocess.Popen([sys.executable, "-c", _CLI_WRITER, str(root), str(each), f"cli{k}"])
        for k in range(writers - servers)
    ]

    async def run_servers() -> list[int]:
        return await asyncio.gather(*(_server_writer(root, each) for _ in range(servers)))

    t0 = time.perf_counter()
    asyncio.run(run_servers())
    for proc in procs:
        proc.wait()
    elapsed = time.perf_counter() - t0
    ledger = root / ".orchestration" / "agent_trace.jsonl"
    expected = writers * each
    present = len(split_lines(ledger.read_bytes()))
    result = verify_ledger(ledger)
    print(
        f"concurrent writers: {servers} language servers + {writers - servers} CLI processes "
        f"x {each} saves: {present}/{expected} records, lost {expected - present}, "
        f"verify {'ok' if result.ok else result.problem}, {elapsed:.1f} s "
        f"({expected / elapsed:,.0f} records/s, fsync on)"
    )


# -- 2. two clones -----------------------------------------------------------------


def _git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=root, check=True, capture_output=True, text=True
    ).stdout


def _append_many(root: Path, n: int, who: str) -> None:
    ledger = Ledger(root / ".orchestration" / "agent_trace.jsonl", fsync=False)
    for i in range(n):
        record = build_mutation_record(
            root,
            f"src/{who}.py",
            f"x = {i}\n",
            f"x = {i + 1}\n",
            intent_id="INT-001",
            session_id=who,
            contributor=Contributor("ai", "bench/model"),
        )
        assert record is not None
        ledger.append(record)


def bench_clones(work: Path, n: int) -> None:
    env_backup = dict(os.environ)
    os.environ.update(
        GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@b", GIT_COMMITTER_NAME="b",
        GIT_COMMITTER_EMAIL="b@b", GIT_CONFIG_GLOBAL=str(work / "nogit"), GIT_CONFIG_NOSYSTEM="1",
    )  # fmt: skip
    try:
        origin, clone = work / "origin", work / "clone"
        origin.mkdir()
        _git(origin, "init", "-q", "-b", "main")
        cli = [sys.executable, "-m", "intent_ls", "init", "--workspace"]
        subprocess.run([*cli, str(origin)], check=True, capture_output=True)
        _append_many(origin, 1, "start")
        _git(origin, "add", "-A")
        _git(origin, "commit", "-q", "-m", "start")
        _git(work, "clone", "-q", str(origin), str(clone))
        subprocess.run([*cli, str(clone)], check=True, capture_output=True)
        for root, who in ((origin, "origin"), (clone, "clone")):
            _append_many(root, n, who)
            _git(root, "add", "-A")
            _git(root, "commit", "-q", "-m", who)
        before = set(split_lines((origin / ".orchestration/agent_trace.jsonl").read_bytes()))
        before |= set(split_lines((clone / ".orchestration/agent_trace.jsonl").read_bytes()))
        mine = _git(clone, "rev-parse", "HEAD").strip()
        for how in ("--no-rebase", "--rebase"):
            t0 = time.perf_counter()
            _git(clone, "pull", "-q", how, "--no-edit")
            pulled = time.perf_counter() - t0
            path = clone / ".orchestration/agent_trace.jsonl"
            after = split_lines(path.read_bytes())
            lost = len(before - set(after))
            t0 = time.perf_counter()
            result = verify_ledger(path)
            verified = time.perf_counter() - t0
            print(
                f"two clones x {n:,} records, git pull {how}: {len(after):,} lines "
                f"({len(after) - len(before)} merge record), lost {lost}, pull {pulled:.2f} s, "
                f"trace verify {verified * 1000:.0f} ms ({'ok' if result.ok else result.problem})"
            )
            _git(clone, "reset", "-q", "--hard", mine)
    finally:
        os.environ.clear()
        os.environ.update(env_backup)


# -- 3 and 4. a big merged ledger, and the index ------------------------------------


def bench_big(work: Path, n: int) -> None:
    t0 = time.perf_counter()
    base = sealed_lines(1, "base")
    prev = "sha256:" + hashlib.sha256(base[0]).hexdigest()
    ours = base + sealed_lines(n // 2, "ours", prev)
    theirs = base + sealed_lines(n - n // 2, "theirs", prev)
    print(f"[{n:,}] two sides of sealed records generated in {time.perf_counter() - t0:.1f} s")
    paths = {}
    for name, lines in (("base", base), ("ours", ours), ("theirs", theirs)):
        paths[name] = work / f"{name}.jsonl"
        paths[name].write_bytes(join_lines(lines))
    t0 = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "intent_ls", "merge-driver", *map(str, paths.values())],
        check=True,
    )
    driver = time.perf_counter() - t0
    merged = paths["ours"]
    t0 = time.perf_counter()
    result = verify_ledger(merged)
    verified = time.perf_counter() - t0
    lines = result.records
    print(
        f"[{n:,}] merge driver (process, union + merge record) {driver:.2f} s; trace verify "
        f"of the merged {lines:,} lines {verified:.2f} s "
        f"({lines / verified:,.0f} lines/s, {'ok' if result.ok else result.problem})"
    )

    cache = work / "index.sqlite"
    t0 = time.perf_counter()
    index = TraceIndex(merged, cache)
    index.refresh()
    cold = time.perf_counter() - t0
    print(f"[{n:,}] index cold build {cold:.2f} s ({index.record_count:,} records)")
    data = split_lines(merged.read_bytes())
    middle = len(data) // 2
    inserted = sealed_lines(5000, "inserted", prev)
    merged.write_bytes(join_lines(data[:middle] + inserted + data[middle:]))
    t0 = time.perf_counter()
    index.refresh()
    catch_up = time.perf_counter() - t0
    count = index.record_count
    index.close()
    t0 = time.perf_counter()
    cold_again = TraceIndex(merged, work / "index-cold.sqlite")
    cold_again.refresh()
    rebuild = time.perf_counter() - t0
    cold_again.close()
    print(
        f"[{n:,}] index catch-up after 5,000 lines inserted in the middle: {catch_up:.2f} s "
        f"({count:,} records) vs cold build of the result {rebuild:.2f} s "
        f"(ratio {rebuild / catch_up:.0f}x)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--each", type=int, default=200)
    parser.add_argument("--clone-records", type=int, default=5000)
    parser.add_argument("--big", type=int, default=1_000_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        bench_writers(work, args.writers, args.each)
        bench_clones(work, args.clone_records)
        bench_big(work, args.big)


if __name__ == "__main__":
    main()
