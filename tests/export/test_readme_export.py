"""The README's "For teams" export, query and OTLP commands, run as written on a real
ledger (the OTLP one against a receiver on 127.0.0.1)."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

from export_helpers import Workspace
from otlp_receiver import receiver

from tests.support import readme_section, sh_blocks


def export_commands() -> list[str]:
    return sh_blocks(readme_section("<!-- intent-ls export", "<!-- end intent-ls export"))


def test_readme_export_commands_work_as_written(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "shop")
    ws.save("src/billing/invoice.py", "def total(items):\n    return sum(items)\n")
    commands = export_commands()
    assert [c.split()[:2] for c in commands] == [["intent-ls", "export"]] * 4
    outputs = []
    with receiver() as collector:
        # The collector the text tells the reader to name in OTEL_EXPORTER_OTLP_ENDPOINT.
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("OTEL_")},
            "OTEL_EXPORTER_OTLP_ENDPOINT": collector.url,
        }
        for command in commands:
            words = shlex.split(command)
            done = subprocess.run(
                [sys.executable, "-m", "intent_ls", *words[1:]],
                cwd=ws.root,
                capture_output=True,
                text=True,
                env=env,
            )
            assert done.returncode == 0, (command, done.stderr)
            outputs.append(done.stdout)
    assert outputs[0].startswith("shop: exported 1 record(s)")
    assert (tmp_path / "ledger-export" / "records" / "repo=shop").is_dir()
    assert "INT-001" in outputs[1] and "1.0" in outputs[1]
    assert outputs[2].splitlines()[1].startswith("shop,")
    assert outputs[3].startswith("shop: sent 1 record(s)")
    (log,) = collector.logs
    assert log.body.encode() == ws.lines()[0]
