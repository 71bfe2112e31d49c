"""The CLI's progress bar: on a terminal only, for work over a second, erased at the end."""

from __future__ import annotations

import io

from intent_ls.cli.progress import DELAY, TerminalProgress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_bar_appears_after_a_second_and_is_erased() -> None:
    stream, clock = Terminal(), Clock()
    bar = TerminalProgress("indexing", stream, clock)
    bar(10, 100)
    assert stream.getvalue() == ""  # quick work shows nothing
    clock.now += DELAY
    bar(40, 100)
    assert stream.getvalue() == "\rindexing [############                  ]  40 %"
    bar(50, 100)  # too soon to redraw
    assert stream.getvalue().count("\r") == 1
    clock.now += 1
    bar(100, 100)
    assert stream.getvalue().endswith("] 100 %")
    bar.close()
    assert stream.getvalue().endswith("\r\x1b[K")


def test_no_bar_when_stderr_is_not_a_terminal() -> None:
    stream, clock = io.StringIO(), Clock()
    bar = TerminalProgress("indexing", stream, clock)
    clock.now += 10
    bar(40, 100)
    bar.close()
    assert stream.getvalue() == ""


def test_an_empty_ledger_counts_as_done() -> None:
    stream, clock = Terminal(), Clock()
    bar = TerminalProgress("verifying", stream, clock)
    clock.now += DELAY
    bar(0, 0)
    assert stream.getvalue().endswith("] 100 %")
