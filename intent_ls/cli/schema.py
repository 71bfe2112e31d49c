"""``intent-ls schema``: the JSON Schema of active_intents.yaml, for YAML editors."""

from __future__ import annotations

import argparse

from intent_ls.cli.common import print_json


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "schema",
        help="print the JSON Schema of active_intents.yaml",
        description="Print the JSON Schema (draft 2020-12) of .orchestration/active_intents.yaml, "
        "built from the same field table as `intent-ls validate`, for YAML language servers "
        "(completion, hover, structural checks).",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from intent_ls.spec.schema import spec_schema

    print_json(spec_schema())
    return 0
