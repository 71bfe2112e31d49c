"""Prints pip constraints pinning every runtime dependency (optional extras included) to its
lowest allowed version.

A fresh machine gets the newest releases the ranges allow; CI also installs these pins, so
a lower bound in pyproject.toml is one the tests really pass with, not a guess.
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

_LOWER = re.compile(r"^\s*([A-Za-z0-9._-]+)(?:\[[^\]]*\])?\s*(?:[^,]*,)*?\s*>=\s*([^,;\s]+)")


def lowest_pins(pyproject: Path) -> list[str]:
    """The dependencies and every optional feature's extra (``otlp``): the ``test`` extra
    holds tools, whose newest releases are what the tests are written against."""
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    extras = project.get("optional-dependencies", {})
    requirements = [
        *project["dependencies"],
        *(r for name, group in extras.items() if name != "test" for r in group),
    ]
    pins = []
    for requirement in requirements:
        match = _LOWER.match(requirement)
        if match is None:
            raise SystemExit(f"{pyproject}: no lower bound (>=) in dependency {requirement!r}")
        pins.append(f"{match.group(1)}=={match.group(2)}")
    return pins


def main() -> None:
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent
    print("\n".join(lowest_pins(root / "pyproject.toml")))


if __name__ == "__main__":
    main()
