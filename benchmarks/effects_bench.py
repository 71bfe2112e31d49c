"""Cost of verifying an agent's tool call by its effects, in a 10,000-file repository.

For each of ``--calls`` shell calls: the before-tool snapshot (protected paths, ``git
status``, copies of dirty files), a change (one in-scope file rewritten, as ``sed -i``
would), then the after-tool verification (protected paths compared and put back, ``git
status`` again, the change judged and recorded). Beside it, in the same run, ``git
status`` alone on the same repository (the floor any git-based check pays) and, with
``--hooks``, one whole ``intent-ls hook claude-code`` process for a PreToolUse and a
PostToolUse Bash call, and the peer hook cc-safety-net when ``--peer CMD`` names it, with
the CPU time of each process (git's included) and the hook/peer ratio of medians.
Budget: verification after a shell call p95 <= 50 ms; the hook's median below the peer's.

    python benchmarks/effects_bench.py [--files 10000] [--calls 40] [--hooks]
        [--peer 'node /path/to/cc-safety-net/dist/index.js']
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_common import bash_payload, compile_intent_ls, p95

SPEC = """active_intents:
  - id: INT-APP
    name: Application
    status: IN_PROGRESS
    owned_scope:
      - src/**
"""


def make_repo(root: Path, files: int) -> None:
    (root / ".orchestration").mkdir(parents=True)
    (root / ".orchestration" / "active_intents.yaml").write_text(SPEC)
    per_dir = 100
    for i in range(files):
        folder = root / "src" / f"pkg{i // per_dir:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"mod{i % per_dir:03d}.py").write_text(f"def f{i}():\n    return {i}\n")
    git = ["git", "-c", "user.name=b", "-c", "user.email=b@b"]
    subprocess.run([*git, "init", "-q", "-b", "main"], cwd=root, check=True)
    subprocess.run([*git, "add", "-A"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "base"], cwd=root, check=True)
    # Files written in the same second as the index are "racily clean" and re-hashed by
    # every status; a repository in use has long written its index since.
    time.sleep(1.1)
    subprocess.run(["git", "status", "-s"], cwd=root, capture_output=True, check=True)


def cpu() -> float:
    """CPU seconds of this process and its waited-for children."""
    import resource

    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def show(name: str, values: list[float]) -> None:
    print(f"{name:<58} median {statistics.median(values):7.1f} ms   p95 {p95(values):7.1f} ms")


def payload(root: Path, event: str, call: int) -> bytes:
    command = "sed -i 's/return/return  /' src/pkg000/mod000.py"
    return bash_payload(root, "bench", event, call, command)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--calls", type=int, default=40)
    parser.add_argument("--hooks", action="store_true")
    parser.add_argument("--peer", default="")
    args = parser.parse_args()

    from intent_ls.agents import sessions
    from intent_ls.agents.effects import verify
    from intent_ls.agents.effects.attribute import judge_files
    from intent_ls.agents.events import HookEvent, Phase, ToolCall, ToolKind
    from intent_ls.agents.gate.effects import wording
    from intent_ls.agents.gate.governance import load_governance

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(os.path.realpath(tmp)) / "repo"
        make_repo(root, args.files)
        os.environ["XDG_STATE_HOME"] = str(Path(tmp) / "state")
        with sessions.updating(root, "claude-code", "bench") as state:
            state["intent_id"] = "INT-APP"
        target = root / "src" / "pkg000" / "mod000.py"
        status_ms, before_ms, after_ms = [], [], []
        status_cpu, before_cpu, after_cpu = [], [], []
        for call in range(args.calls):
            tool = ToolCall(ToolKind.SHELL, "Bash", command="sed -i …")
            event = HookEvent(
                "claude-code", Phase.BEFORE_TOOL, "bench", str(root), tool=tool, tool_id=f"c{call}"
            )
            c0, t0 = cpu(), time.perf_counter()
            subprocess.run(
                ["git", "status", "--porcelain=v2", "-z", "--untracked-files=all"],
                cwd=root,
                capture_output=True,
                check=True,
            )
            c1, t1 = cpu(), time.perf_counter()
            verify.before_call(root, event)
            c2, t2 = cpu(), time.perf_counter()
            target.write_text(target.read_text() + f"# call {call}\n")
            after = HookEvent(
                "claude-code", Phase.AFTER_TOOL, "bench", str(root), tool=tool, tool_id=f"c{call}"
            )
            c3, t3 = cpu(), time.perf_counter()
            restored = verify.restore_protected(root, after)
            gov = load_governance(root)
            assert restored is not None and gov is not None
            told = judge_files(gov, after, restored, set(), wording(gov, after))
            c4, t4 = cpu(), time.perf_counter()
            status_cpu.append((c1 - c0) * 1000)
            before_cpu.append((c2 - c1) * 1000)
            after_cpu.append((c4 - c3) * 1000)
            assert told == [], told
            status_ms.append((t1 - t0) * 1000)
            before_ms.append((t2 - t1) * 1000)
            after_ms.append((t4 - t3) * 1000)
        load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
        print(f"{args.files} tracked files, {args.calls} calls (shared 2-core machine)")
        print(f"load average before the hook processes: {load}")
        show("git status --porcelain=v2 -uall (floor)", status_ms)
        show("before-tool snapshot", before_ms)
        show("after-tool verification (+ judge + record one file)", after_ms)
        print("CPU time (the same calls; less sensitive to the machine's load):")
        show("git status (floor), CPU", status_cpu)
        show("before-tool snapshot, CPU", before_cpu)
        show("after-tool verification, CPU", after_cpu)
        if args.hooks:
            compile_intent_ls()
            exe = shutil.which("intent-ls", path=str(Path(sys.executable).parent))
            runs: dict[str, tuple[list[float], list[float]]] = {}
            names = {
                "PreToolUse": "intent-ls hook claude-code PreToolUse Bash (process)",
                "PostToolUse": "intent-ls hook claude-code PostToolUse Bash (process)",
                "peer": f"peer: {args.peer.split('/')[-1][:40]}",
            }
            for call in range(args.calls):
                for event in ("PreToolUse", "PostToolUse"):
                    timed(runs.setdefault(event, ([], [])), [exe, "hook", "claude-code"],
                          payload(root, event, call), root)  # fmt: skip
                if args.peer:
                    timed(runs.setdefault("peer", ([], [])), shlex.split(args.peer),
                          payload(root, "PreToolUse", call), root, check=False)  # fmt: skip
            for key, (wall, _) in runs.items():
                show(names[key], wall)
            print("CPU time of the same processes (user + system, git's included):")
            for key, (_, used) in runs.items():
                show(names[key] + ", CPU", used)
            if "peer" in runs:
                peer = statistics.median(runs["peer"][0])
                ratios = ", ".join(
                    f"{key} {statistics.median(runs[key][0]) / peer:.2f}x"
                    for key in ("PreToolUse", "PostToolUse")
                )
                print(f"hook median / peer median (same run): {ratios}")
            print("load average after: " + ", ".join(f"{x:.2f}" for x in os.getloadavg()))


def timed(
    into: tuple[list[float], list[float]],
    command: list[str],
    data: bytes,
    cwd: Path,
    check: bool = True,
) -> None:
    """Runs one hook process; appends its wall time and its CPU time (ms)."""
    c0, t0 = cpu(), time.perf_counter()
    subprocess.run(command, input=data, capture_output=True, check=check, cwd=cwd)
    into[0].append((time.perf_counter() - t0) * 1000)
    into[1].append((cpu() - c0) * 1000)


if __name__ == "__main__":
    main()
