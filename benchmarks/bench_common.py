"""What the benchmarks share: the percentiles they report, and an LSP client's start and
stop. The scripts import it from beside them (``python benchmarks/NAME.py`` puts this
folder first on ``sys.path``).

p95 is interpolated (``statistics.quantiles``), so a few hundred samples give a stable
figure; every script reports it the same way.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Sequence
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path


def compile_intent_ls() -> None:
    """Byte-compiles intent-ls, as pip leaves an installed package: a checkout run with
    ``PYTHONDONTWRITEBYTECODE`` (set on the shared machines) would otherwise compile every
    module in every hook process, about 100 ms of a hook's 180."""
    import compileall

    import intent_ls

    compileall.compile_dir(Path(intent_ls.__file__).parent, quiet=1)


def p95(values: Sequence[float]) -> float:
    return statistics.quantiles(values, n=20)[-1] if len(values) > 1 else values[0]


def median_p95(values: Sequence[float]) -> tuple[float, float]:
    return statistics.median(values), p95(values)


def bash_payload(root: Path, session: str, event: str, call: int, command: str) -> bytes:
    """A Claude Code hook payload for a ``Bash`` call of ``command`` (its tool-use id
    numbered ``call``), as the hook reads it on stdin."""
    return json.dumps(
        {
            "session_id": session,
            "cwd": str(root),
            "hook_event_name": event,
            "tool_name": "Bash",
            "tool_use_id": f"b{call}",
            "tool_input": {"command": command},
        }
    ).encode()


async def start_lsp(
    client: LanguageClient,
    command: Sequence[str],
    root: Path,
    capabilities: types.ClientCapabilities | None = None,
    env: dict[str, str] | None = None,
) -> None:
    """Starts the server ``command`` and initializes it with ``root`` as its one folder."""
    await client.start_io(*command, env=env, cwd=str(root))
    await client.initialize_async(
        types.InitializeParams(
            capabilities=capabilities or types.ClientCapabilities(),
            root_uri=from_fs_path(str(root)),
            workspace_folders=[
                types.WorkspaceFolder(uri=from_fs_path(str(root)) or "", name="bench")
            ],
        )
    )
    client.initialized(types.InitializedParams())


async def stop_lsp(client: LanguageClient) -> None:
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
