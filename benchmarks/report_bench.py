"""Report benchmark: a 100k-record ledger to an HTML page, and the page in Chromium.

Run: ``python benchmarks/report_bench.py [--records 100000] [--intents 20] [--no-browser]``.

The ledger is real: every record is sealed (``prev`` and ``digest``) so it verifies, with
20 intents (or ``--intents``), three models, human and mixed saves, some verdicts and
approvals, spread over a year. Prints, for the same ledger in the same run:

- ``trace verify`` alone: the baseline, one streaming pass that any report must match;
- ``intent-ls report`` (verify + read + tally + render) run as a user runs it, its ratio
  to the baseline, and a 100-record report's time as a second baseline;
- each page opened in headless Chromium (already started, as a reader's browser is), at
  1280 px and at a phone's 390 px: time to the load event, and to a frame painted after it
  (the issue's "renders in ≤ 3 s"), beside the 100-record page's.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from intent_ls.common.hashing import bytes_hash, content_hash
from intent_ls.ledger.records import RecordedVerdict, build_mutation_record
from intent_ls.ledger.store import GENESIS, LEDGER_RELPATH, seal
from intent_ls.ledger.verify import verify_ledger
from intent_ls.policy.approvals import Contributor

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

INTENTS = [f"INT-{i:04d}" for i in range(1, 21)]
CONTRIBUTORS = [
    Contributor("ai", "anthropic/claude-sonnet-4"),
    Contributor("ai", "anthropic/claude-sonnet-4"),
    Contributor("ai", "openai/gpt-5"),
    Contributor("ai", "google/gemini-2.5-pro"),
    Contributor("human"),
    Contributor("mixed", "anthropic/claude-sonnet-4"),
]


def write_workspace(root: Path, n: int) -> None:
    """A spec of 20 intents and ``n`` sealed records; the records are variations of one
    real record (ids, times, paths, contributors, ranges), sealed one by one."""
    orchestration = root / ".orchestration"
    orchestration.mkdir(parents=True)
    spec = ["active_intents:"]
    for i, intent in enumerate(INTENTS):
        spec += [
            f"  - id: {intent}",
            f"    name: Work item {i}",
            "    status: IN_PROGRESS",
            "    owned_scope:",
            f"      - src/pkg{i}/**",
            "    acceptance_criteria:",
            f"      - Tests in tests/pkg{i} pass",
        ]
    (orchestration / "active_intents.yaml").write_text("\n".join(spec) + "\n")
    template = build_mutation_record(
        root,
        "src/pkg0/mod0.py",
        "class C:\n    def m(self):\n        return 0\n",
        "class C:\n    def m(self):\n        return 1\n",
        intent_id="INT-001",
        session_id="s",
        contributor=CONTRIBUTORS[0],
        revision=None,
    )
    assert template is not None
    rnd = random.Random(19)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    prev = GENESIS
    verdict = RecordedVerdict("out-of-scope", "not owned by the active intent").to_json()
    with (root / LEDGER_RELPATH).open("wb") as out:
        for i in range(n):
            record: dict[str, Any] = json.loads(json.dumps(template))
            intent = INTENTS[i % len(INTENTS)]
            pkg = i % len(INTENTS)
            path = f"src/pkg{pkg}/mod{i % 500}.py"
            who = CONTRIBUTORS[rnd.randrange(len(CONTRIBUTORS))]
            record["id"] = str(uuid.UUID(int=rnd.getrandbits(128), version=4))
            when = start + timedelta(seconds=i * 315)  # 100k records: a year
            record["timestamp"] = when.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
            file = record["files"][0]
            file["path"] = path
            conv = file["conversations"][0]
            conv["contributor"] = who.to_json()
            conv["related"] = [{"type": "specification", "url": f"urn:intent:{intent}"}]
            first = rnd.randint(1, 400)
            last = first + rnd.randint(0, 12)
            conv["ranges"] = [
                {
                    "start_line": first,
                    "end_line": last,
                    "content_hash": content_hash([f"line {i}"]),
                }
            ]
            meta = record["metadata"]["intent_ls"]
            meta["intent_id"] = intent
            for node in meta["ast_nodes"]:
                node["path"] = path
                node["name"] = node["name"].replace("C", f"C{i % 2000}", 1)
            meta["verdicts"] = [verdict] if i % 97 == 0 else []
            line = seal(record, prev)
            prev = bytes_hash(line)
            out.write(line + b"\n")


def timed(fn: Any) -> tuple[float, Any]:
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def cpu() -> tuple[float, float]:
    """CPU seconds of this process and of its finished children: steadier than wall
    time when other work shares the machine."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, kids.ru_utime + kids.ru_stime


def cli_report(root: Path, out: Path) -> tuple[float, float]:
    """``intent-ls report`` as a user runs it: wall time, and CPU time of the command and
    the verification process it starts."""
    _, kids0 = cpu()
    wall, done = timed(
        lambda: subprocess.run(
            [sys.executable, "-m", "intent_ls", "report", "--out", str(out)],
            cwd=root,
            capture_output=True,
            text=True,
            check=False,
        )
    )
    assert done.returncode == 0, done.stderr
    return wall, cpu()[1] - kids0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--intents", type=int, default=20, help="intents in the spec")
    parser.add_argument("--no-browser", action="store_true")
    args = parser.parse_args()
    INTENTS[:] = [f"INT-{i:04d}" for i in range(1, args.intents + 1)]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "ws"
        small_root = Path(tmp) / "small"
        built, _ = timed(lambda: write_workspace(root, args.records))
        write_workspace(small_root, 100)
        print(f"ledger of {args.records} sealed records written in {built:.1f} s")
        print(f"load average before: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
        own0, _ = cpu()
        verify_s, result = timed(lambda: verify_ledger(root / LEDGER_RELPATH))
        verify_cpu = cpu()[0] - own0
        assert result.problem is None, result.problem
        print(f"baseline: trace verify {verify_s:.2f} s wall, {verify_cpu:.2f} s CPU")
        small = Path(tmp) / "report-100.html"
        small_s, _ = cli_report(small_root, small)
        print(f"baseline: `intent-ls report` of 100 records {small_s:.2f} s")
        out = Path(tmp) / "report.html"
        report_s, report_cpu = cli_report(root, out)
        print(
            f"`intent-ls report` of {args.records} records: {report_s:.2f} s wall "
            f"({report_s / verify_s:.1f}x trace verify), CPU {report_cpu:.2f} s (tally and "
            f"render, and the verification in a second process), "
            f"{out.stat().st_size / 1024:.0f} KiB of HTML"
        )
        if args.no_browser:
            return
        from tests.report.chromium import Chromium, find_chromium

        binary = find_chromium()
        if binary is None:
            print("chromium not found: rendering not measured")
            return
        start = time.perf_counter()
        with Chromium(binary) as browser:
            browser.open_page(1280, 900)
            print(f"chromium started, blank tab open: {time.perf_counter() - start:.2f} s")
            for width in (1280, 390):
                for name, page in (("100 records", small), (f"{args.records} records", out)):
                    browser.open_page(width, 900, mobile=width < 500)
                    loaded, painted = browser.rendered(page)
                    assert browser.problems() == [], browser.problems()
                    count = browser.evaluate("document.getElementsByTagName('*').length")
                    print(
                        f"{name} at {width} px: load event {loaded:.2f} s, painted "
                        f"{painted:.2f} s ({count} elements)"
                    )
        print(f"load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
