"""``intent-ls serve``: the language server. pygls is imported only when this verb runs."""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="run the language server",
        description="Speak LSP over stdio (default) or TCP.",
    )
    parser.add_argument("--stdio", action="store_true", help="use stdio (the default)")
    parser.add_argument("--tcp", metavar="HOST:PORT", help="listen on a TCP address instead")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from intent_ls.cli.errors import CliError
    from intent_ls.server.app import build_server
    from intent_ls.server.transport import configure_logging

    configure_logging()
    server = build_server()
    if args.tcp:
        host, _, port = args.tcp.rpartition(":")
        if not host or not port.isdigit() or int(port) > 65535:
            raise CliError(f"--tcp expects HOST:PORT with a port up to 65535, got {args.tcp!r}")
        server.start_tcp(host, int(port))
    else:
        server.start_io()
    return 1 if server.exit_reason is not None else 0
