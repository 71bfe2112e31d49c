"""The shell readers' answers on every command string the tests hold, as a golden file.

The classifier's and the approval guard's answers were dumped for every string literal
in the shell-facing test files (and a few spellings of each: nested in ``bash -c``,
behind ``sudo``, fed by a pipe, redirected, in a subshell) before the shell model
replaced their own walks of the parse tree; ``test_shell_golden.py`` compares the
answers now with that dump, so a refactoring of the readers shows any answer it changes.
Each command and its answers are kept as short digests (the commands are the tests'
own); ``python -m tests.agents.shell.golden --full FILE`` writes them out whole, to
compare two checkouts.

    python -m tests.agents.shell.golden   # rewrites golden_answers.json
"""

from __future__ import annotations

import ast
import hashlib
import json
import shlex
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
TESTS = HERE.parent.parent
GOLDEN = HERE / "golden_answers.json"
SOURCES = (
    "agents/shell/test_shell_classify.py",
    "agents/shell/test_shell_classify_reading.py",
    "agents/test_approval_guard.py",
    "agents/test_shell_holds.py",
    "agents/test_barrier_rewrite.py",
    "agents/test_hook.py",
    "agents/test_effects.py",
    "core/policy/test_classify.py",
    "core/policy/test_classify_properties.py",
)
ROOT = "/ws"
CWD = "/ws/sub"
#: Longer literals are file contents, not commands.
MAX_LEN = 2000


def literals() -> list[str]:
    found: dict[str, None] = {}
    for rel in SOURCES:
        tree = ast.parse((TESTS / rel).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            value = node.value if isinstance(node, ast.Constant) else None
            if isinstance(value, str) and value.strip() and len(value) <= MAX_LEN:
                found.setdefault(value, None)
    return list(found)


def spellings(command: str) -> list[str]:
    return [
        command,
        f"bash -c {shlex.quote(command)}",
        f"sudo -u me {command}",
        f"echo x | {command}",
        f"{command} > out.txt",
        f"(cd sub; {command})",
        f"x=$({command})",
    ]


def commands() -> list[str]:
    seen: dict[str, None] = {}
    for literal in literals():
        for spelled in spellings(literal):
            seen.setdefault(spelled, None)
    return list(seen)


def answers() -> dict[str, list[object]]:
    from intent_ls.agents.approval_guard import is_approval_attempt
    from intent_ls.agents.shell.classify import classify_command

    out: dict[str, list[object]] = {}
    for command in commands():
        try:
            found: object = classify_command(command, ROOT, CWD).to_json()
        except Exception as exc:
            found = f"raises {type(exc).__name__}"
        try:
            guard: object = is_approval_attempt(command)
        except Exception as exc:
            guard = f"raises {type(exc).__name__}"
        out[command] = [found, guard]
    return out


def digest(value: object) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:12]


def digests(found: dict[str, list[object]]) -> dict[str, str]:
    return {digest(command): digest(answer) for command, answer in found.items()}


if __name__ == "__main__":
    if sys.argv[1:2] == ["--full"]:
        Path(sys.argv[2]).write_text(json.dumps(answers(), indent=0) + "\n")
    else:
        GOLDEN.write_text(json.dumps(digests(answers()), indent=0, sort_keys=True) + "\n")
