"""``intent-ls editors helix``: editor configuration that needs the editor's own defaults."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "editors",
        help="print editor configuration (helix)",
        description="Print configuration that adds intent-ls to an editor.",
    )
    editors = parser.add_subparsers(
        dest="editor", metavar="EDITOR", required=True, help="the editor to configure"
    )
    helix = editors.add_parser(
        "helix",
        help="languages.toml adding intent-ls to every language",
        description="Print a Helix languages.toml that adds intent-ls to every language, "
        "after each language's default servers (Helix replaces the whole list a user file "
        "sets, so the defaults are repeated).",
    )
    helix.add_argument(
        "--defaults",
        metavar="FILE",
        type=Path,
        help="Helix's own languages.toml, to match your Helix version (default: the "
        "defaults bundled with intent-ls)",
    )
    helix.set_defaults(func=run_helix)


def run_helix(args: argparse.Namespace) -> int:
    import tomllib

    from intent_ls.cli.errors import CliError
    from intent_ls.cli.helix_config import generate

    try:
        text = generate(args.defaults)
    except OSError as exc:
        raise CliError(f"cannot read {args.defaults}: {exc.strerror or exc}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise CliError(f"{args.defaults} is not a valid TOML file: {exc}") from None
    except (TypeError, KeyError) as exc:
        raise CliError(
            f"{args.defaults} is not shaped like Helix's languages.toml: {exc}"
        ) from None
    sys.stdout.write(text)
    return 0
