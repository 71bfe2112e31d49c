"""The README's "For teams" export and query commands, run as written on a real ledger."""

from __future__ import annotations

import shlex
from pathlib import Path

from export_helpers import Workspace

from tests.support import intent_ls, readme_section, sh_blocks


def export_commands() -> list[str]:
    return sh_blocks(readme_section("<!-- intent-ls export", "<!-- end intent-ls export"))


def test_readme_export_commands_work_as_written(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "shop")
    ws.save("src/billing/invoice.py", "def total(items):\n    return sum(items)\n")
    commands = export_commands()
    assert [c.split()[:2] for c in commands] == [["intent-ls", "export"]] * 3
    outputs = []
    for command in commands:
        words = shlex.split(command)
        done = intent_ls(*words[1:], cwd=ws.root)
        assert done.returncode == 0, (command, done.stderr)
        outputs.append(done.stdout)
    assert outputs[0].startswith("shop: exported 1 record(s)")
    assert (tmp_path / "ledger-export" / "records" / "repo=shop").is_dir()
    assert "INT-001" in outputs[1] and "1.0" in outputs[1]
    assert outputs[2].splitlines()[1].startswith("shop,")
