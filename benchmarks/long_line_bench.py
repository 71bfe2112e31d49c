"""A keystroke on a 1,000,000-character line: didChange → publishDiagnostics, in ms.

Minified bundles and generated data files have such lines. Each change types one
character in the middle of the line (character 500,000 in the client's units), in a
governed file with no active intent, so every change yields a real ``no-active-intent``
diagnostic whose range ends at the end of that line. The server must convert the
change's positions once, not per copy of the text it keeps, and never character by
character in Python. A pygls floor server (publishing one constant diagnostic per
change, converting positions the way pygls' own document does) runs in the same run for
comparison.

    python benchmarks/long_line_bench.py [--changes 30] [--chars 1000000]

Prints median and p95 for both servers (goal for intent-ls: ≤ 50 ms per keystroke).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench_common import p95, start_lsp, stop_lsp

# The same floor server as the keystroke benchmark beside this script.
from lsp_latency import FLOOR_SERVER
from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

SPEC = """active_intents:
  - id: INT-001
    name: Bundle
    status: IN_PROGRESS
    owned_scope:
      - src/**
"""


def make_workspace(root: Path, chars: int) -> Path:
    (root / ".orchestration").mkdir(parents=True)
    (root / ".orchestration/active_intents.yaml").write_text(SPEC)
    target = root / "src/bundle.js"
    target.parent.mkdir(parents=True)
    # Non-ASCII in the line: UTF-16 units and code points differ, as in real bundles.
    body = ("é" + "a" * 99) * (chars // 100)
    target.write_text(f'const data = "{body}";\nexport default data;\n', encoding="utf-8")
    return target


async def measure(cmd: list[str], root: Path, target: Path, changes: int) -> list[float]:
    client = LanguageClient("long-line-bench", "1")
    uri = from_fs_path(str(target)) or ""
    waiting: list[asyncio.Future[float]] = []

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
        if params.uri == uri and params.version and waiting and not waiting[0].done():
            waiting.pop(0).set_result(time.perf_counter())

    @client.feature("intent/status")
    def on_status(params: object) -> None:
        """Not measured here."""

    await start_lsp(client, cmd, root)
    text = target.read_text(encoding="utf-8")
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="javascript", version=0, text=text
            )
        )
    )
    loop = asyncio.get_running_loop()
    samples: list[float] = []
    middle = len(text.splitlines()[0]) // 2
    for version in range(1, changes + 1):
        fut: asyncio.Future[float] = loop.create_future()
        waiting.append(fut)
        start = time.perf_counter()
        at = types.Position(line=0, character=middle + version)  # ASCII region: units = chars
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[
                    types.TextDocumentContentChangePartial(
                        range=types.Range(start=at, end=at), text="x"
                    )
                ],
            )
        )
        samples.append((await asyncio.wait_for(fut, 120) - start) * 1000)
    await stop_lsp(client)
    return samples[2:]  # the first ones share the start-up's work


async def run(changes: int, chars: int) -> None:
    with tempfile.TemporaryDirectory(prefix="intent-ls-long-line-") as tmp:
        root = Path(tmp)
        target = make_workspace(root, chars)
        floor = await measure([sys.executable, "-c", FLOOR_SERVER], root, target, changes)
        ours = await measure([sys.executable, "-m", "intent_ls", "serve"], root, target, changes)
    print(f"one {chars:,}-character line, {len(ours)} keystrokes in its middle")
    print(f"{'server':<22}{'median ms':>10}{'p95 ms':>10}")
    for name, values in (("pygls floor", floor), ("intent-ls", ours)):
        print(f"{name:<22}{statistics.median(values):>10.2f}{p95(values):>10.2f}")
    print(f"intent-ls p95 {p95(ours):.2f} ms per keystroke (goal ≤ 50 ms)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--changes", type=int, default=30)
    parser.add_argument("--chars", type=int, default=1_000_000)
    args = parser.parse_args()
    asyncio.run(run(args.changes, args.chars))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
