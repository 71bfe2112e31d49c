"""``intent-ls hook``'s arguments, read without argparse on every agent tool call."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from intent_ls.cli.hook import _add_arguments, quick_parse


def by_argparse(argv: list[str]) -> tuple[str, Path | None, float]:
    parser = argparse.ArgumentParser(prog="intent-ls hook")
    _add_arguments(parser, None)
    args = parser.parse_args(argv)
    return args.agent, args.workspace, args.budget


@pytest.mark.parametrize(
    "argv",
    [
        ["claude-code"],
        ["codex"],
        ["gemini"],
        ["claude-code", "--workspace", "/w s"],
        ["-w", "rel/dir", "gemini"],
        ["codex", "--budget", "2.5", "--workspace=/x"],
        ["--budget=3", "claude-code", "-w", "a", "--workspace", "b"],
        ["gemini", "--budget", "1e1"],
    ],
)
def test_the_installed_forms_read_as_argparse_reads_them(argv: list[str]) -> None:
    assert quick_parse(argv) == by_argparse(argv)


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["--help"],
        ["claude-code", "-h"],
        ["aider"],
        ["codex", "codex"],
        ["codex", "--budget", "soon"],
        ["codex", "--budget", "-1"],
        ["codex", "--workspace"],
        ["codex", "--workspace="],
        ["codex", "--work", "/x"],
        ["codex", "-w/x"],
        ["codex", "--", "gemini"],
    ],
)
def test_anything_else_is_left_to_argparse(argv: list[str]) -> None:
    assert quick_parse(argv) is None
