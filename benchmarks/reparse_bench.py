"""Why a save right after a change costs a full parse: tree-sitter's reuse, per file shape.

A save that follows the change at once has to bring the document's tree up to date
(``benchmarks/lsp_latency.py`` measures that save). The tree is edited exactly
(``tree.edit`` with the change's byte offsets and points, one changed range) and then
reparsed with the old tree, so the reparse should be cheap. Whether it is depends on
how many old subtrees tree-sitter may reuse, which this script counts with the
parser's own log, next to the time of a full parse and of the incremental reparse of
the same one-line edit in the middle of a 10,000-line file, all in the same run.

    python benchmarks/reparse_bench.py [--lines 10000] [--repeat 9]

Prints, per shape, the median full parse, the median reparse, their ratio, how many
nodes were reused and how many were refused (and the most frequent refusal), the time
to answer a save's question (the definitions on the changed line) right after the edit
without reparsing (a local parse of the top-level nodes around it), and the time the
main thread was held while a worker thread parsed (tree-sitter keeps the GIL).
"""

from __future__ import annotations

import argparse
import collections
import statistics
import threading
import time
from collections.abc import Callable

from intent_ls.common.diff import LineSpan
from intent_ls.syntax import grammar
from intent_ls.syntax.document import DocumentSyntax
from intent_ls.syntax.positions import point_after, position_to_byte

Shape = tuple[str, str, Callable[[int], str]]

SHAPES: list[Shape] = [
    (
        "python, top-level assignments (the save benchmark's file)",
        "python",
        lambda n: "".join(f"value_{i} = {i}  # line {i}\n" for i in range(n)),
    ),
    (
        "python, one function per two lines",
        "python",
        lambda n: "".join(f"def f{i}():\n    return {i}  # line {i}\n" for i in range(n // 2)),
    ),
    (
        "go, top-level var declarations",
        "go",
        lambda n: "package x\n" + "".join(f"var value_{i} = {i} // line {i}\n" for i in range(n)),
    ),
]


def edited(source: bytes, line: int) -> tuple[bytes, dict[str, object]]:
    """The source with ``line`` changed the way the save benchmark changes it, and the
    exact ``tree.edit`` arguments of that change."""
    old = source.split(b"\n")[line]
    new = old.replace(b"= ", b"= 1 + ", 1) + b"\n"
    start, start_point = position_to_byte(source, line, 0, "utf-32")
    end, end_point = position_to_byte(source, line + 1, 0, "utf-32")
    edit = {
        "start_byte": start,
        "old_end_byte": end,
        "new_end_byte": start + len(new),
        "start_point": start_point,
        "old_end_point": end_point,
        "new_end_point": point_after(start_point, new),
    }
    return source[:start] + new + source[end:], edit


def measure(language: str, text: str, repeat: int) -> tuple[float, float, collections.Counter[str]]:
    parser = grammar.parser(language)
    source = text.encode("utf-8")
    line = text.count("\n") // 2 + 1
    new_source, edit = edited(source, line)
    full: list[float] = []
    again: list[float] = []
    for _ in range(repeat):
        start = time.perf_counter()
        tree = parser.parse(source)
        full.append((time.perf_counter() - start) * 1000)
        tree.edit(**edit)  # type: ignore[arg-type]  # the keyword arguments built above
        start = time.perf_counter()
        new_tree = parser.parse(new_source, tree)
        again.append((time.perf_counter() - start) * 1000)
        if len(tree.changed_ranges(new_tree)) != 1:
            raise SystemExit("the edit did not produce exactly one changed range")
    events: collections.Counter[str] = collections.Counter()

    def log(_kind: object, message: str) -> None:
        word = message.split(" ", 1)[0]
        if word.startswith("cant_reuse_node"):
            detail = message.split("first_leaf_symbol:", 1)
            events[word + (f" (first leaf: {detail[1]})" if len(detail) > 1 else "")] += 1
        elif word in ("reuse_node", "lex_external", "lex_internal"):
            events[word] += 1

    tree = parser.parse(source)
    tree.edit(**edit)  # type: ignore[arg-type]
    parser.logger = log
    parser.parse(new_source, tree)
    parser.logger = None
    return statistics.median(full), statistics.median(again), events


def local_answer(language: str, text: str, repeat: int) -> tuple[float, int]:
    """Median ms to answer "which definitions are on the changed line" right after the
    edit, as a save does (a local parse, :mod:`intent_ls.syntax.region`), and how many
    whole-file reparses that took (0 when the local parse stood in)."""
    source = text.encode("utf-8")
    line = text.count("\n") // 2 + 1
    new_source, edit = edited(source, line)
    times: list[float] = []
    reparses = 0
    for _ in range(repeat):
        doc = DocumentSyntax.parse(source, language)
        doc.apply_edit(**edit, new_source=new_source)  # type: ignore[arg-type]  # built above
        start = time.perf_counter()
        doc.definitions_for_spans([LineSpan(line + 1, line + 1)])
        times.append((time.perf_counter() - start) * 1000)
        reparses += doc.reparses
    return statistics.median(times), reparses


def main_thread_stall(language: str, text: str) -> float:
    """Longest stretch (ms) the main thread could not run while another thread parsed."""
    source = text.encode("utf-8")
    parser = grammar.parser(language)
    finished = threading.Event()

    def work() -> None:
        for _ in range(3):
            parser.parse(source)
        finished.set()

    worker = threading.Thread(target=work)
    worker.start()
    longest, last = 0.0, time.perf_counter()
    while not finished.is_set():
        time.sleep(0)
        now = time.perf_counter()
        longest, last = max(longest, now - last), now
    worker.join()
    return longest * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=9)
    args = parser.parse_args()
    print(f"one line changed in the middle of a {args.lines:,}-line file, {args.repeat} runs")
    for label, language, make in SHAPES:
        text = make(args.lines)
        full, again, events = measure(language, text, args.repeat)
        refused = sum(n for k, n in events.items() if k.startswith("cant_reuse_node"))
        print(f"{label}:")
        print(
            f"  full parse {full:.1f} ms, incremental reparse {again:.1f} ms "
            f"(ratio {again / full:.2f}); nodes reused {events['reuse_node']}, "
            f"refused {refused}, tokens lexed again "
            f"{events['lex_external'] + events['lex_internal']}"
        )
        for reason, count in events.most_common():
            if reason.startswith("cant_reuse_node"):
                print(f"    {count:>6}  {reason}")
        local, reparses = local_answer(language, text, args.repeat)
        print(
            f"  definitions on the changed line right after the edit (what a save asks): "
            f"{local:.2f} ms ({local / full:.3f} of a full parse), whole-file reparses: "
            f"{reparses}"
        )
    text = SHAPES[0][2](args.lines)
    print(
        f"main thread held while a worker parses the first shape: "
        f"{main_thread_stall('python', text):.1f} ms at most"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
