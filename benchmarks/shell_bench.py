"""The shell readers' cost per command, in process: what one hook call spends judging a
shell command (the approval guard, then the effect classifier, on the same text) over
the classifier's labelled corpus, each command read as a fresh hook process reads it
(nothing cached from the command before). CPU time is reported beside wall time: it
stays meaningful when other processes load the machine.

    python benchmarks/shell_bench.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def fresh() -> None:
    """Forgets what an earlier command left cached, as a new hook process would."""
    try:
        from intent_ls.agents.shell import parse
    except ImportError:  # before the shell model: nothing is cached
        return
    parse.forget()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    opts = ap.parse_args()
    from intent_ls.agents.approval_guard import is_approval_attempt
    from intent_ls.agents.shell.classify import classify_command
    from tests.agents.shell.test_shell_classify import CORPUS

    commands = [c for c, _ in CORPUS]
    classify_command("true", "/ws")  # the grammar loaded once, as in the hook
    wall: list[float] = []
    cpu: list[float] = []
    for _ in range(opts.rounds):
        for command in commands:
            fresh()
            t0, c0 = time.perf_counter(), time.process_time()
            is_approval_attempt(command)
            classify_command(command, "/ws", "/ws")
            cpu.append((time.process_time() - c0) * 1e6)
            wall.append((time.perf_counter() - t0) * 1e6)
    print(f"{len(commands)} commands x {opts.rounds}: guard + classifier per command")
    for label, samples in (("wall", wall), ("cpu", cpu)):
        samples.sort()
        print(
            f"  {label:4} median {statistics.median(samples):6.0f} us, "
            f"p95 {samples[int(len(samples) * 0.95)]:6.0f} us, "
            f"total {sum(samples) / opts.rounds / 1000:6.1f} ms per round"
        )


if __name__ == "__main__":
    main()
