"""``intent-ls check`` on a pull request of 1,000 changed files against a 100k-record ledger.

Run: ``python benchmarks/check_bench.py [--files 1000] [--records 100000] [--unrecorded 0.2]``.

Builds a git repository in a temporary directory: ``--files`` Python files committed as
the base, then each edited by recorded saves (the real record builder and the real
``Ledger.append``, fsync off) — a function appended and a line rewritten by a second save,
so the first save's range no longer matches and only the chain of saves proves it. A
fraction of the files (``--unrecorded``) also gets an unrecorded line, which sends them
down the line-by-line path (shifted ranges, moved-code hash search, deletion
localisation). The ledger is padded with synthetic records of other files up to
``--records``. Prints the time of ``trace verify`` alone, then ``check`` with a cold index
(no SQLite cache) and a warm one.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

from intent_ls.check.engine import run_check
from intent_ls.common.hashing import content_hash
from intent_ls.ledger.index import CACHE_RELPATH
from intent_ls.ledger.records import build_mutation_record
from intent_ls.ledger.store import Ledger, ledger_path
from intent_ls.ledger.verify import verify_ledger
from intent_ls.policy.approvals import Contributor

SPEC = """\
active_intents:
  - id: INT-BENCH
    name: Benchmark work
    status: IN_PROGRESS
    owned_scope:
      - src/
"""


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def module(i: int) -> str:
    body = [f'"""Module {i}."""', "", "import math", ""]
    for f in range(8):
        body += [f"def func_{i}_{f}(x):", f"    y = x * {f + 1}", "    return math.sqrt(y)", ""]
    return "\n".join(body) + "\n"


def build(root: Path, files: int, records: int, unrecorded: float) -> tuple[int, int]:
    """The repository; returns (records written, files given an unrecorded line)."""
    env_root = root
    git(env_root, "init", "-q", "-b", "main")
    (root / ".orchestration").mkdir()
    (root / ".orchestration" / "active_intents.yaml").write_text(SPEC)
    paths = [f"src/pkg{i // 100:02d}/mod_{i:04d}.py" for i in range(files)]
    for i, rel in enumerate(paths):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(module(i))
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    ledger = Ledger(ledger_path(root), fsync=False)
    who = Contributor("ai", "anthropic/claude-bench")
    real: list[dict] = []
    for i, rel in enumerate(paths):
        old = module(i)
        first = old + f"\n\ndef added_{i}(a, b):\n    total = a + b\n    return total * {i}\n"
        second = first.replace(f"return total * {i}", f"return total * {i + 1}")
        for before, after in ((old, first), (first, second)):
            record = build_mutation_record(
                root, rel, before, after, intent_id="INT-BENCH", session_id="bench",
                contributor=who, revision=None,
            )  # fmt: skip
            assert record is not None
            real.append(record)
        (root / rel).write_text(second)
    template = json.dumps(real[0])
    start = time.perf_counter()
    for n in range(max(0, records - len(real))):
        filler = json.loads(template)  # a fresh copy, faster than deepcopy
        filler["id"] = str(uuid.uuid4())
        file = filler["files"][0]
        file["path"] = f"src/other/file_{n % 5000:04d}.py"
        file["conversations"][0]["ranges"][0]["content_hash"] = content_hash([f"filler {n}"])
        for node in filler["metadata"]["intent_ls"]["ast_nodes"]:
            node["path"] = file["path"]
        ledger.append(filler)
    for record in real:
        ledger.append(record)
    print(f"ledger: {max(records, len(real))} records in {time.perf_counter() - start:.1f} s")
    dirty = int(files * unrecorded)
    for i, rel in enumerate(paths[:dirty]):
        with (root / rel).open("a") as f:
            f.write(f"UNRECORDED_{i} = True\n")
    return max(records, len(real)), dirty


def timed_check(root: Path) -> tuple[float, int, int]:
    start = time.perf_counter()
    result = run_check(root, None)
    return time.perf_counter() - start, result.files_checked, len(result.findings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--unrecorded", type=float, default=0.2)
    args = parser.parse_args()
    os.environ.setdefault("GIT_AUTHOR_NAME", "bench")
    os.environ.setdefault("GIT_AUTHOR_EMAIL", "bench@example.com")
    os.environ.setdefault("GIT_COMMITTER_NAME", "bench")
    os.environ.setdefault("GIT_COMMITTER_EMAIL", "bench@example.com")
    root = Path(tempfile.mkdtemp(prefix="check-bench-"))
    try:
        start = time.perf_counter()
        total, dirty = build(root, args.files, args.records, args.unrecorded)
        print(f"repository built in {time.perf_counter() - start:.1f} s")
        start = time.perf_counter()
        assert verify_ledger(ledger_path(root)).ok
        print(f"trace verify alone: {time.perf_counter() - start:.2f} s ({total} records)")
        shutil.rmtree(root / CACHE_RELPATH.parent, ignore_errors=True)
        for label in ("cold index", "warm index"):
            seconds, checked, findings = timed_check(root)
            print(
                f"check, {label}: {seconds:.2f} s — {checked} changed files, {findings} "
                f"findings (expected {dirty}), {total} records"
            )
            assert findings == dirty, "every unrecorded line, and nothing else, is a finding"
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
