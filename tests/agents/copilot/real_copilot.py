"""The real GitHub Copilot CLI (``@github/copilot``), found, set up and run offline
against the scripted OpenAI Chat Completions endpoint (its ``COPILOT_PROVIDER_*`` custom
provider, ``COPILOT_OFFLINE=true``: no sign-in, telemetry, update or GitHub MCP server).

The npm package is a loader; the CLI is a native binary from an optional dependency
(``@github/copilot-linux-x64``), which unpacks its JavaScript on first start into
``$COPILOT_PKG_CACHE_HOME/pkg`` (~235 MB): kept in one cache for every run, not in each
test's home.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

from tests.agents.real_cli import find_agent, releases
from tests.agents.scripted_model import ScriptedChat, serve_chat

COPILOT = find_agent("copilot", "@github/copilot")
COPILOT_NEWEST = find_agent("copilot", "@github/copilot@latest", "INTENT_LS_AGENTS_NEWEST")
COPILOTS = releases(COPILOT, COPILOT_NEWEST)
#: intent-ls's ``select_active_intent`` as Copilot CLI names MCP tools (``<server>-<tool>``).
SELECT = "intent-ls-select_active_intent"
#: The model the scripted provider is asked for (given with ``--model``, so that the hooks
#: find it in the session's event log, not in ``COPILOT_MODEL``).
MODEL = "scripted-copilot"


def package_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return Path(base) / "intent-ls-copilot-pkg"


def copilot_env(home: Path, url: str, path: str) -> dict[str, str]:
    """Copilot CLI's environment offline: its home, the scripted provider, no traffic."""
    return {
        "PATH": path,
        "HOME": str(home),
        "COPILOT_PROVIDER_BASE_URL": f"{url}/v1",
        "COPILOT_PROVIDER_TYPE": "openai",
        "COPILOT_PROVIDER_API_KEY": "test",
        "COPILOT_OFFLINE": "true",
        "COPILOT_AUTO_UPDATE": "false",
        "COPILOT_PKG_CACHE_HOME": str(package_cache()),
    }


def run_copilot(
    binary: str, root: Path, tmp_path: Path, model: ScriptedChat, path: str, *flags: str
) -> dict[str, str]:
    """``copilot -p`` in ``root``, a folder the user trusted (``trustedFolders`` in its
    config: ``--trust-folder`` came with 1.0.100), allowing what ``flags`` allow; each
    tool call's result as the model saw it, by call id."""
    home = tmp_path / "home"
    (home / ".copilot").mkdir(parents=True, exist_ok=True)
    (home / ".copilot" / "config.json").write_text(json.dumps({"trustedFolders": [str(root)]}))
    with serve_chat(model) as url:
        done = subprocess.run(
            [binary, "-p", "do the task", "--model", MODEL, *flags],
            cwd=root, env=copilot_env(home, url, path), stdin=subprocess.DEVNULL,
            capture_output=True, text=True, timeout=300, check=False,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:] + done.stdout[-3000:]
    return {str(r.get("tool_call_id")): str(r.get("content")) for r in model.tool_results()}


#: Copilot CLI 1.0.102 opens an MCP server with ``server/discover`` (protocol 2026-07-28)
#: and, when the answer is slow (a server delayed by 6 s lost once in two tries, by 12 s
#: always), retries with ``initialize`` on the same connection,
#: which the ``mcp`` SDK 2.3 refuses once it has served the first (-32022). ``intent-ls
#: mcp`` spends most of its start importing the SDK: 3.4-4.2 s measured at load average
#: 6.6 on the shared 2-core machine. So a session whose server lost that race runs again,
#: once, in a fresh copy of the workspace.
MCP_RACE = "failed to initialize MCP client"


def run_session(
    binary: str,
    workspace: Path,
    tmp_path: Path,
    session: Callable[[Path], ScriptedChat],
    path: str,
    *flags: str,
) -> tuple[Path, ScriptedChat, dict[str, str]]:
    """:func:`run_copilot` on a copy of ``workspace`` with the model ``session`` scripts
    for it; (the copy, the model, the results)."""
    for attempt in (1, 2):
        here = tmp_path / f"session-{attempt}"
        root = here / workspace.name
        shutil.copytree(workspace, root, symlinks=True)
        model = session(root)
        results = run_copilot(binary, root, here, model, path, *flags)
        if not any(MCP_RACE in text for text in results.values()):
            break
    return root, model, results
