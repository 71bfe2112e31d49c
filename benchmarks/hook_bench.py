"""Agent hook latency: wall time of one ``intent-ls hook claude-code`` process per
PreToolUse call on a 1,000-intent spec, beside ``python3 -c pass`` measured in the same
run (every agent pays the interpreter's start on every tool call; the goal is a median
of at most 100 ms on the hook).

Besides the benchmark's two payloads (a write and a shell command before any intent is
selected) it times the common case, a selected session's in-scope write, and a
destructive edit that asks for approval. The import cost of one hook call is broken down
from ``-X importtime`` (the modules with the largest cumulative time, beyond what
``python -I -c pass`` imports itself). Also prints the start-up time of ``intent-ls mcp``
(spawn → first ``initialize`` reply) and whether pygls/lsprotocol were imported on the
hook path (they must not be).

intent-ls's own bytecode is compiled first, as an installed wheel has it: with
``PYTHONDONTWRITEBYTECODE`` set, an editable install would otherwise recompile every
module on every call.

    python benchmarks/hook_bench.py [--intents 1000] [--calls 40] [--imports 12]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_common import compile_intent_ls


def make_workspace(root: Path, intents: int) -> None:
    (root / ".orchestration").mkdir(parents=True)
    lines = ["active_intents:"]
    for i in range(intents):
        lines += [
            f"  - id: INT-{i:04d}",
            f"    name: Intent {i}",
            "    status: IN_PROGRESS",
            "    owned_scope:",
            f"      - src/mod{i}/**",
            f"      - lib/mod{i}_*.py",
            f"      - '!src/mod{i}/generated/**'",
        ]
    (root / ".orchestration" / "active_intents.yaml").write_text("\n".join(lines) + "\n")
    (root / "src" / "mod7").mkdir(parents=True)
    (root / "src" / "mod7" / "a.py").write_text("def a():\n    return 1\n")


#: An in-scope edit of ``src/mod7/a.py`` that destroys nothing.
EDITED = "def a():\n    return 2\n"


def hook_command() -> list[str]:
    exe = shutil.which("intent-ls", path=str(Path(sys.executable).parent))
    return [exe] if exe else [sys.executable, "-m", "intent_ls.cli.main"]


CPU: list[float] = []


def timed(cmd: list[str], stdin: bytes, env: dict[str, str] | None = None) -> tuple[float, bytes]:
    """Wall milliseconds; the child's CPU milliseconds (user + system) go to ``CPU``,
    which stays meaningful when other processes load the machine."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(cmd, input=stdin, capture_output=True, env=env, check=False)
    wall = (time.perf_counter() - t0) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU.append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
    return wall, done.stdout


def cpu_of(samples: int) -> str:
    taken = CPU[-samples:]
    return f"cpu median {statistics.median(taken):6.1f} ms"


def payload(root: Path, session: str, tool: str, tool_input: dict[str, object]) -> bytes:
    body = {
        "session_id": session,
        "cwd": str(root),
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
    }
    return json.dumps(body).encode()


def median_ms(samples: list[float]) -> str:
    p90 = sorted(samples)[int(len(samples) * 0.9)]
    return f"median {statistics.median(samples):6.1f} ms (p90 {p90:6.1f})"


def mcp_startup(root: Path) -> float:
    cmd = [*hook_command(), "mcp", "--workspace", str(root)]
    request = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "bench", "version": "0"},
        },
    }
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write((json.dumps(request) + "\n").encode())
    proc.stdin.flush()
    proc.stdout.readline()
    elapsed = (time.perf_counter() - t0) * 1000
    proc.stdin.close()
    proc.wait(timeout=10)
    return elapsed


def import_times(stderr: str) -> tuple[list[tuple[int, int, str]], int]:
    """``-X importtime`` lines as (self µs, cumulative µs, indented name), and the total
    of the top-level imports (each import counted once)."""
    rows: list[tuple[int, int, str]] = []
    for line in stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        own, total, name = line[len("import time:") :].split("|", 2)
        rows.append((int(own), int(total), name.rstrip()))
    top = sum(total for _, total, name in rows if not name.startswith("  "))
    return rows, top


def import_breakdown(stderr: str, shown: int) -> list[str]:
    """The hook's imports beyond the bare interpreter's, largest cumulative first."""
    bare = subprocess.run(
        [sys.executable, "-I", "-X", "importtime", "-c", "pass"], capture_output=True, text=True
    )
    known = {name.strip() for _, _, name in import_times(bare.stderr)[0]}
    rows, _ = import_times(stderr)
    ours = [(own, total, name) for own, total, name in rows if name.strip() not in known]
    lines = [
        f"imports beyond `python -I -c pass`: {sum(own for own, _, _ in ours) / 1000:.1f} ms "
        "self time in total (-X importtime inflates it); largest cumulative:"
    ]
    for own, total, name in sorted(ours, key=lambda r: -r[1])[:shown]:
        lines.append(f"  {total / 1000:6.1f} ms cumulative {own / 1000:5.1f} self  {name.strip()}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--intents", type=int, default=1000)
    parser.add_argument("--calls", type=int, default=40)
    parser.add_argument("--imports", type=int, default=12, help="import rows to print")
    args = parser.parse_args()
    compile_intent_ls()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        make_workspace(root, args.intents)
        cmd = [*hook_command(), "hook", "claude-code"]
        write = payload(
            root, "bench", "Write", {"file_path": str(root / "src/mod7/b.py"), "content": "x\n"}
        )
        shell = payload(root, "bench", "Bash", {"command": "echo hi > src/mod7/c.py"})
        select = payload(
            root, "sel", "mcp__intent-ls__select_active_intent", {"intent_id": "INT-0007"}
        )
        target = str(root / "src/mod7/a.py")
        in_scope = payload(root, "sel", "Write", {"file_path": target, "content": EDITED})
        destroy = payload(root, "sel", "Write", {"file_path": target, "content": "x = 1\n"})
        timed(cmd, write)  # the first call compiles the spec cache
        timed(cmd, select)
        timed(cmd, destroy)  # the first destructive edit creates the trace index
        n = args.calls
        python = [timed([sys.executable, "-I", "-c", "pass"], b"")[0] for _ in range(n)]
        python_cpu = cpu_of(n)
        python3 = shutil.which("python3") or sys.executable
        system = [timed([python3, "-c", "pass"], b"")[0] for _ in range(n)]
        system_cpu = cpu_of(n)
        writes = [timed(cmd, write)[0] for _ in range(n)]
        writes_cpu = cpu_of(n)
        shells = [timed(cmd, shell)[0] for _ in range(n)]
        shells_cpu = cpu_of(n)
        allowed = [timed(cmd, in_scope)[0] for _ in range(n)]
        allowed_cpu = cpu_of(n)
        asked = [timed(cmd, destroy)[0] for _ in range(n)]
        asked_cpu = cpu_of(n)
        env = {**os.environ, "PYTHONPROFILEIMPORTTIME": "1"}
        probe = subprocess.run(cmd, input=write, capture_output=True, env=env, check=False)
        heavy = [m for m in ("pygls", "lsprotocol") if f" {m}" in probe.stderr.decode()]
        breakdown = import_breakdown(probe.stderr.decode(), args.imports)
        print(f"[{args.intents} intents, {args.calls} calls each]")
        print(f"python3 -c pass              {median_ms(system)}  {system_cpu}")
        print(f"venv python -I -c pass       {median_ms(python)}  {python_cpu}")
        print(f"hook PreToolUse Write        {median_ms(writes)}  {writes_cpu}")
        print(f"hook PreToolUse Bash (shell) {median_ms(shells)}  {shells_cpu}")
        print(f"hook Write, selected, allowed {median_ms(allowed)}  {allowed_cpu}")
        print(f"hook Write, destructive (ask) {median_ms(asked)}  {asked_cpu}")
        ratio = statistics.median(writes) / statistics.median(system)
        print(f"hook / python3 -c pass       {ratio:.2f}x")
        print(f"pygls/lsprotocol imported on the hook path: {heavy or 'no'}")
        print("\n".join(breakdown))
        starts = [mcp_startup(root) for _ in range(5)]
        print(f"intent-ls mcp spawn -> initialize reply {median_ms(starts)}")


if __name__ == "__main__":
    main()
