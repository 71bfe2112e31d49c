"""A fresh clone of a 1M-record ledger, used at once: what waits for the trace index?

Reproduces issue 20's table. A workspace holds a generated ledger of ``--records``
records (cached under ``--cache``: writing 1M records takes a while) and no index cache,
as after ``git clone``. The server is started and used at once, as a user does:
``intent.select`` (the handshake), a hover every 0.25 s on a recorded definition, and
300 keystrokes at 30 ms (didChange → publishDiagnostics), all while the index is built;
then the same after the build. The bare pygls floor server of ``lsp_latency.py`` types
the same keystrokes in the same run, for the ratio. ``$/progress`` reports are counted.

    python benchmarks/cold_clone_bench.py [--records 1000000] [--baseline-python PATH]

``--baseline-python`` runs the same scenario first with another installation of intent-ls
(the interpreter of a virtualenv holding, e.g., the main branch), for the "today" column.
The machine may be shared: compare the figures of one run, not across runs.

``--check`` measures the CI side instead: ``intent-ls check`` in a fresh clone of a git
repository whose committed ledger holds ``--records`` valid, chained records
(``merge_bench.sealed_lines``: check verifies the ledger first) and one changed file, with
no index cache (and git's index as a clone leaves it); wall time, CPU time and peak RSS of
the command, baseline first if given.
The repository is built once under ``--cache`` (committing 1 GB takes a minute).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

sys.path.insert(0, str(Path(__file__).parent))
from bench_common import p95, start_lsp, stop_lsp
from ledger_bench import INTENTS, synthetic_ledger
from lsp_latency import FLOOR_SERVER
from merge_bench import sealed_lines

KEYS = 300
KEY_GAP = 0.03
#: The definition hovered: records of ``src/pkg3/mod3.py`` name ``C3.m3`` (ledger_bench).
SOURCE = "class C3:\n    def m3(self):\n        return 1\n" + "".join(
    f"\n\ndef helper_{i}(x):\n    return x + {i}\n" for i in range(200)
)
HOVER_LINE = 2


def workspace(root: Path, ledger: Path) -> Path:
    spec = ["active_intents:"]
    for n, intent in enumerate(INTENTS):
        spec += [
            f"  - id: {intent}",
            f"    name: Generated intent {n}",
            "    status: IN_PROGRESS",
            "    owned_scope:",
            "      - src/**",
        ]
    orch = root / ".orchestration"
    orch.mkdir(parents=True)
    (orch / "active_intents.yaml").write_text("\n".join(spec) + "\n")
    os.link(ledger, orch / "agent_trace.jsonl")  # a regular file, no copy of 1 GB
    target = root / "src/pkg3/mod3.py"
    target.parent.mkdir(parents=True)
    target.write_text(SOURCE)
    return target


class Session:
    """One server on the workspace, with what it sent."""

    def __init__(self, name: str) -> None:
        self.client = LanguageClient(name, "1")
        self.progress: list[tuple[float, Any]] = []
        self.diagnostics: dict[int, asyncio.Future[float]] = {}
        self.refreshed: list[float] = []
        client = self.client

        @client.feature(types.WINDOW_WORK_DONE_PROGRESS_CREATE)
        def create(params: Any) -> None:
            """Accepted."""

        @client.feature(types.PROGRESS)
        def progress(params: Any) -> None:
            value = params.value
            self.progress.append((time.perf_counter(), value if isinstance(value, dict) else {}))

        @client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
        def refresh(params: Any) -> None:
            self.refreshed.append(time.perf_counter())

        @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def diagnostics(params: types.PublishDiagnosticsParams) -> None:
            fut = self.diagnostics.pop(params.version or -1, None)
            if fut is not None and not fut.done():
                fut.set_result(time.perf_counter())

        for method in ("intent/status", "intent/recorded", "intent/spec"):
            client.feature(method)(lambda params: None)

    def ended(self) -> bool:
        return any(v.get("kind") == "end" for _, v in self.progress)

    async def start(self, command: list[str], root: Path, env: dict[str, str]) -> float:
        caps = types.ClientCapabilities(
            window=types.WindowClientCapabilities(work_done_progress=True),
            workspace=types.WorkspaceClientCapabilities(
                code_lens=types.CodeLensWorkspaceClientCapabilities(refresh_support=True)
            ),
        )
        await start_lsp(self.client, command, root, caps, env)
        return time.perf_counter()

    def open(self, target: Path) -> str:
        uri = from_fs_path(str(target)) or ""
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id="python", version=0, text=target.read_text()
                )
            )
        )
        return uri

    async def timed(self, request: Any) -> tuple[float, Any]:
        t0 = time.perf_counter()
        result = await request
        return time.perf_counter() - t0, result

    async def select(self) -> tuple[float, str]:
        took, result = await self.timed(
            self.client.workspace_execute_command_async(
                types.ExecuteCommandParams(command="intent.select", arguments=["INT-004"])
            )
        )
        return took, result["context"]

    async def hover(self, uri: str) -> tuple[float, str]:
        took, result = await self.timed(
            self.client.text_document_hover_async(
                types.HoverParams(
                    text_document=types.TextDocumentIdentifier(uri=uri),
                    position=types.Position(line=HOVER_LINE, character=8),
                )
            )
        )
        return took, result.contents.value if result is not None else ""

    async def type_keys(self, uri: str, first_version: int, keys: int) -> list[float]:
        loop = asyncio.get_running_loop()
        samples = []
        for k in range(keys):
            version = first_version + k
            fut: asyncio.Future[float] = loop.create_future()
            self.diagnostics[version] = fut
            pos = types.Position(line=HOVER_LINE + 4 + (k // 60), character=k % 60)
            t0 = time.perf_counter()
            self.client.text_document_did_change(
                types.DidChangeTextDocumentParams(
                    text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                    content_changes=[
                        types.TextDocumentContentChangePartial(
                            range=types.Range(start=pos, end=pos), text="#" if k % 60 == 0 else "x"
                        )
                    ],
                )
            )
            samples.append((await asyncio.wait_for(fut, 60) - t0) * 1000)
            await asyncio.sleep(max(0.0, KEY_GAP - (time.perf_counter() - t0)))
        return samples

    async def stop(self) -> None:
        await stop_lsp(self.client)


async def floor_typing(root: Path, target: Path) -> list[float]:
    session = Session("floor")
    await session.start([sys.executable, "-c", FLOOR_SERVER], root, dict(os.environ))
    uri = session.open(target)
    samples = await session.type_keys(uri, 1, KEYS)
    await session.stop()
    return samples


async def scenario(label: str, python: str, root: Path, target: Path) -> dict[str, Any]:
    """The server on a cold clone: select, hovers and typing during the build, then after."""
    cache = root / ".orchestration/.local/trace-index.sqlite"
    for leftover in cache.parent.glob("trace-index.sqlite*") if cache.parent.exists() else ():
        leftover.unlink()
    target.write_text(SOURCE)
    env = dict(os.environ)
    floor = await floor_typing(root, target)
    session = Session(label)
    t0 = await session.start([python, "-m", "intent_ls", "serve"], root, env)
    uri = session.open(target)
    # The handshake and a hover first; typing once they are answered, or after a second
    # if they wait for the index (then the keystrokes meet the build in the server).
    select_task = asyncio.ensure_future(session.select())
    hover_task = asyncio.ensure_future(session.hover(uri))
    await asyncio.wait([select_task, hover_task], timeout=1.0)
    typing_during = await session.type_keys(uri, 1, KEYS)
    typed_at = time.perf_counter()
    # The floor server typing beside the same build (the build competes for the CPU).
    floor_during = await floor_typing(root, target)
    floor_at = time.perf_counter()
    select_s, context = await select_task
    first_hover, first_text = await hover_task
    during_hovers = [first_hover]  # sent at once: during the build
    marked = int("being indexed" in first_text)
    while not session.ended():
        took, text = await session.hover(uri)
        if not session.ended():
            during_hovers.append(took)
            marked += "being indexed" in text
        await asyncio.sleep(0.25)
    end_at = max(t for t, v in session.progress if v.get("kind") == "end")
    typed_during_build, floor_during_build = typed_at < end_at, floor_at < end_at
    build_s = end_at - t0
    reports = [
        (t - t0, v["percentage"])
        for t, v in session.progress
        if v.get("kind") == "report" and v.get("percentage") is not None
    ]
    after_hovers = []
    text = ""
    for _ in range(100):
        took, text = await session.hover(uri)
        after_hovers.append(took * 1000)
    select_after_s, _ = await session.select()
    typing_after = await session.type_keys(uri, KEYS + 1, KEYS)
    await session.stop()
    return {
        "label": label,
        "build_s": build_s,
        "select_s": select_s,
        "select_partial": "note=" in context.split("<recent_history", 1)[1].split(">", 1)[0],
        "select_after_ms": select_after_s * 1000,
        "hovers_during": during_hovers,
        "hovers_marked": marked,
        "hover_after_p95": p95(after_hovers),
        "hover_after_has_history": "| When |" in text,
        "typing_during_p95": p95(typing_during),
        "typing_during_slow": sum(v >= 5 for v in typing_during),
        "typed_during_build": typed_during_build,
        "typing_after_p95": p95(typing_after),
        "floor_p95": p95(floor),
        "floor_during_p95": p95(floor_during),
        "floor_during_build": floor_during_build,
        "reports": reports,
        "lens_refreshes": len(session.refreshed),
    }


def show(r: dict[str, Any]) -> None:
    hovers = r["hovers_during"]
    worst = f"{max(hovers):.2f} s" if hovers else "n/a (none answered during the build)"
    first = f"{hovers[0]:.2f} s" if hovers else "n/a"
    reports = r["reports"]
    print(f"== {r['label']}: cold build {r['build_s']:.1f} s (progress begin → end)")
    print(f"  intent.select during the build: {r['select_s']:.3f} s", end="")
    print("  (recent_history marked incomplete)" if r["select_partial"] else "")
    print(
        f"  hover during the build: {len(hovers)} hovers, first {first}, worst {worst}, "
        f"{r['hovers_marked']} marked 'being indexed'"
    )
    print(
        f"  typing during the build: p95 {r['typing_during_p95']:.2f} ms, "
        f"{r['typing_during_slow']}/{KEYS} keystrokes >= 5 ms "
        f"(all during the build: {r['typed_during_build']}); pygls floor p95 "
        f"{r['floor_during_p95']:.2f} ms right after (build still running: "
        f"{r['floor_during_build']}; {r['floor_p95']:.2f} ms before the server started), "
        f"ratio {r['typing_during_p95'] / r['floor_during_p95']:.2f}x"
    )
    pcts = ", ".join(f"{p}% at {t:.1f}s" for t, p in reports[:6])
    more = f" … ({len(reports)} in all)" if len(reports) > 6 else ""
    print(f"  $/progress reports with a percentage before the end: {len(reports)} [{pcts}{more}]")
    print(f"  workspace/codeLens/refresh sent: {r['lens_refreshes']}")
    print(
        f"  after the build: hover p95 {r['hover_after_p95']:.2f} ms "
        f"(history shown: {r['hover_after_has_history']}), select {r['select_after_ms']:.1f} ms, "
        f"typing p95 {r['typing_after_p95']:.2f} ms"
    )


async def run(args: argparse.Namespace) -> None:
    args.cache.mkdir(parents=True, exist_ok=True)
    ledger = args.cache / f"ledger-{args.records}.jsonl"
    if not ledger.exists():
        t0 = time.perf_counter()
        partial = ledger.with_suffix(".partial")
        synthetic_ledger(partial, args.records)
        partial.rename(ledger)
        print(f"generated {ledger} in {time.perf_counter() - t0:.0f} s")
    print(
        f"ledger: {args.records:,} records, {ledger.stat().st_size / 1e6:,.0f} MB; "
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
    )
    with tempfile.TemporaryDirectory(prefix="intent-ls-cold-", dir=args.cache) as tmp:
        root = Path(tmp)
        target = workspace(root, ledger)
        results = []
        if args.baseline_python is not None:
            results.append(await scenario("baseline", args.baseline_python, root, target))
            show(results[-1])
        results.append(await scenario("this tree", sys.executable, root, target))
        show(results[-1])
    r = results[-1]
    checks = {
        "select <= 0.5 s": r["select_s"] <= 0.5,
        "every hover during the build <= 0.5 s": all(h <= 0.5 for h in r["hovers_during"]),
        "typing p95 <= 2x floor, during the build": r["typed_during_build"]
        and r["typing_during_p95"] <= 2 * r["floor_during_p95"],
        ">= 1 progress report with a percentage": len(r["reports"]) >= 1,
        "hover p95 after the build <= 3 ms": r["hover_after_p95"] <= 3,
    }
    for name, ok in checks.items():
        print(f"  [{'ok' if ok else 'MISSED'}] {name}")


def check_repository(cache: Path, records: int) -> Path:
    """A clone of a repository whose committed ledger holds ``records`` sealed records,
    with ``src/app.py`` changed since; built once."""
    origin = cache / f"check-origin-{records}"
    if not (origin / ".git").exists():
        origin.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "init", "-q", "-b", "main"], cwd=origin, check=True)
        (origin / ".orchestration").mkdir(exist_ok=True)
        spec = ["active_intents:"]
        for n in range(20):
            spec += [f"  - id: INT-{n:03d}", f"    name: Intent {n}", "    status: IN_PROGRESS"]
            spec += ["    owned_scope:", "      - src/**"]
        (origin / ".orchestration/active_intents.yaml").write_text("\n".join(spec) + "\n")
        (origin / "src").mkdir(exist_ok=True)
        (origin / "src/app.py").write_text("def f():\n    return 1\n")
        with (origin / ".orchestration/agent_trace.jsonl").open("wb") as f:
            for line in sealed_lines(records, "main"):
                f.write(line + b"\n")
        subprocess.run(["git", "add", "-A"], cwd=origin, check=True)
        subprocess.run(
            ["git", "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "base"],
            cwd=origin,
            check=True,
        )
    clone = cache / f"check-clone-{records}"
    if not (clone / ".git").exists():
        subprocess.run(["git", "clone", "-q", str(origin), str(clone)], check=True)
        (clone / "src/app.py").write_text("def f():\n    return 2\n\n\ndef g():\n    return 3\n")
    return clone


#: Runs a command and prints its CPU time and peak RSS (of it and every process it
#: waited for) on stderr's last line: this script's own children add up over runs.
_MEASURED = """
import resource, subprocess, sys
code = subprocess.run(sys.argv[1:]).returncode
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(r.ru_utime + r.ru_stime, r.ru_maxrss, file=sys.stderr)
sys.exit(code)
"""


def timed_check(label: str, python: str, clone: Path) -> None:
    """``intent-ls check`` as a CI job runs it on a fresh clone: no index cache, and git's
    index as a clone leaves it, the ledger "racily clean" (written in the index's own
    instant, so git hashes it again to compare; any ``git status`` would settle that)."""
    shutil.rmtree(clone / ".orchestration/.local", ignore_errors=True)
    ledger = clone / ".orchestration/agent_trace.jsonl"
    os.utime(clone / ".git/index", ns=(time.time_ns(), ledger.stat().st_mtime_ns))
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _MEASURED, python, "-m", "intent_ls", "check", "--base", "HEAD"],
        cwd=clone,
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - t0
    cpu, rss = done.stderr.splitlines()[-1].split()
    output = (done.stdout + done.stderr).splitlines()
    summary = [line for line in output if line.startswith("intent-ls check")]
    print(
        f"== {label}: check on a fresh clone {wall:.1f} s (CPU {float(cpu):.1f} s over its "
        f"processes, peak RSS {int(rss) / 1024:.0f} MB, load {load:.1f}), "
        f"exit {done.returncode}: {summary[-1] if summary else output[-2:]}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument(
        "--cache", type=Path, default=Path(tempfile.gettempdir()) / "intent-ls-bench"
    )
    parser.add_argument("--baseline-python", default=None)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    if args.check:
        clone = check_repository(args.cache, args.records)
        if args.baseline_python is not None:
            timed_check("baseline", args.baseline_python, clone)
        timed_check("this tree", sys.executable, clone)
        return
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
