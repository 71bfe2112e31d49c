"""``recent_history``: an intent's last recorded mutations, newest first, in its context."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from intent_ls.ledger.history import workspace_history
from intent_ls.ledger.records import build_mutation_record
from intent_ls.ledger.store import Ledger, ledger_path
from intent_ls.policy.approvals import Contributor
from tests.core.ledger.ledger_helpers import mutation

SPEC = """active_intents:
  - id: INT-001
    name: One
    status: IN_PROGRESS
    owned_scope: [src/**]
  - id: INT-002
    name: Two
    status: IN_PROGRESS
    owned_scope: [lib/**]
"""


def workspace(tmp_path: Path) -> Path:
    (tmp_path / ".orchestration").mkdir()
    (tmp_path / ".orchestration" / "active_intents.yaml").write_text(SPEC)
    return tmp_path


def test_no_ledger_means_no_history(tmp_path: Path) -> None:
    assert workspace_history(workspace(tmp_path), "INT-001") == []
    assert not (tmp_path / ".orchestration" / ".local").exists()


def test_last_mutations_of_that_intent_only_newest_first(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    ledger = Ledger(ledger_path(root))
    for i in range(8):
        ledger.append(mutation(root, i, intent="INT-001", path=f"src/m{i}.py"))
        ledger.append(mutation(root, i, intent="INT-002", path=f"lib/o{i}.py"))
    history = workspace_history(root, "INT-001", limit=3)
    assert [h["file"] for h in history] == ["src/m7.py", "src/m6.py", "src/m5.py"]
    first = history[0]
    assert first["nodes"] == "function f"
    assert first["mutation_class"] == "INTENT_EVOLUTION"
    assert first["when"].startswith("20")
    assert first["summary"] == f"{first['mutation_class']} src/m7.py: function f"


def test_a_file_without_definitions_has_no_nodes(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    record = build_mutation_record(
        root,
        "src/notes.txt",
        "a\n",
        "b\n",
        intent_id="INT-001",
        session_id=None,
        contributor=Contributor("human"),
        revision=None,
    )
    assert record is not None
    Ledger(ledger_path(root)).append(record)
    [entry] = workspace_history(root, "INT-001")
    assert entry["nodes"] == ""
    assert entry["summary"] == f"{entry['mutation_class']} src/notes.txt"


def test_the_cli_context_carries_the_history(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    Ledger(ledger_path(root)).append(mutation(root, 1, intent="INT-001", path="src/a.py"))
    run = [sys.executable, "-m", "intent_ls", "context", "INT-001", "--workspace", str(root)]
    xml = subprocess.run(run, capture_output=True, text=True, check=True).stdout
    block = ET.fromstring(xml).find("recent_history")
    assert block is not None
    [change] = list(block)
    assert change.get("file") == "src/a.py" and change.get("nodes") == "function f"
    out = subprocess.run([*run, "--format", "json"], capture_output=True, text=True, check=True)
    data = json.loads(out.stdout)
    assert [h["file"] for h in data["recent_history"]] == ["src/a.py"]
