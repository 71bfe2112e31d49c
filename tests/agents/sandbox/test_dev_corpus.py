"""Ordinary development, played through the whole cycle as an agent runs it (pre-tool
hook, the command in the sandbox, post-tool hook), works as it would without intent-ls.

A governed git workspace holds a small Python package, a ``package.json`` with a local
``file:`` dependency and a Makefile; the selected intent owns all of them (build
outputs are in ``.intentignore``). The corpus (74 commands: npm, pip into a workspace
venv, pytest, make, git's everyday verbs, a background dev server reached by a later
command, formatters, file moves, ``/tmp`` and ``$HOME`` caches kept between commands,
``/dev/shm``) runs in order, each through
Claude Code's shell prefix and, for Gemini CLI, through the hook's rewrite into the
sandbox. Every command must exit 0 with its expected effect; at most one may be held.
Nothing reaches a registry: npm and pip are pointed at a closed local port and run
offline from local sources.

Measured (both agents): 74 commands, 73 run unprompted with their effect, none put
back, 1 held — ``kill $(cat build/server.pid)``, whose target is only known at run
time. Run anyway it would fail too: each command is its own Landlock domain, so a later
command cannot signal the dev server an earlier one started (the agent's own stop
button, outside the sandbox, can). Two findings fixed on the way: a write to a home
cache (``mkdir -p ~/.cache/tool``) was predicted out of scope and denied though the
sandbox allows it, and ``mv a b`` inside the scope had its source put back as a
deleted file.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import attrs
import pytest

from intent_ls.agents.sandbox import bwrap
from intent_ls.workspace import effects_log
from tests.agents.conftest import decision
from tests.agents.effects_helpers import Agent
from tests.support import committed

pytestmark = pytest.mark.skipif(not bwrap.works()[0], reason="bubblewrap cannot run here")

SPEC = """\
active_intents:
  - id: INT-APP
    name: Application
    status: IN_PROGRESS
    owned_scope:
      - src/
      - tests/
      - scripts/
      - vendor/
      - package.json
      - package-lock.json
      - Makefile
      - pyproject.toml
      - data.json
      - README.md
      - "*.js"
  - id: INT-DOCS
    name: Documentation
    status: IN_PROGRESS
    owned_scope:
      - docs/
"""

PYPROJECT = """\
[build-system]
requires = ["setuptools"]
build-backend = "setuptools.build_meta"

[project]
name = "calc"
version = "0.1.0"

[tool.setuptools.packages.find]
where = ["src"]

[tool.pytest.ini_options]
pythonpath = ["src"]
"""
CALC = 'VERSION = "0.1.0"\n\n\ndef add(a, b):\n    return a + b\n'
TESTS = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
PACKAGE = {
    "name": "web",
    "version": "1.0.0",
    "private": True,
    "scripts": {"test": "node test.js", "build": "node build.js"},
    "dependencies": {"helper": "file:./vendor/helper"},
}
HELPER = {"name": "helper", "version": "1.0.0", "main": "index.js"}
MAKEFILE = """\
all: build/out.txt

build/out.txt: src/calc/__init__.py
\tmkdir -p build
\tgrep -c def src/calc/__init__.py > build/out.txt

test:
\tpython3 -m pytest -q -p no:randomly -p no:cacheprovider tests

clean:
\trm -rf build/out.txt

.PHONY: all test clean
"""
GITIGNORE = (
    ".venv/\nnode_modules/\n__pycache__/\nbuild/\ndist/\n*.egg-info/\n.pytest_cache/\n"
    ".ruff_cache/\n*.log\n"
)


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def project(root: Path) -> Path:
    """The governed workspace: the package, the node project, the Makefile, committed."""
    _write(
        root,
        {
            ".orchestration/active_intents.yaml": SPEC,
            ".intentignore": "*.log\nbuild/\ndist/\n",
            ".gitattributes": "*.py text\n",
            ".gitignore": GITIGNORE,
            "README.md": "# calc\n",
            "pyproject.toml": PYPROJECT,
            "src/calc/__init__.py": CALC,
            "tests/test_calc.py": TESTS,
            "package.json": json.dumps(PACKAGE, indent=2) + "\n",
            "vendor/helper/package.json": json.dumps(HELPER) + "\n",
            "vendor/helper/index.js": "exports.greet = (n) => `hello ${n}`;\n",
            "index.js": "module.exports = (a, b) => a + b;\n",
            "test.js": "const add = require('./index');\n"
            "if (add(2, 3) !== 5) process.exit(1);\nconsole.log('js ok');\n",
            "build.js": "const fs = require('fs');\nfs.mkdirSync('build', {recursive: true});\n"
            "fs.writeFileSync('build/app.js', fs.readFileSync('index.js'));\n",
            "Makefile": MAKEFILE,
            "data.json": '{"b": 1, "a": [1, 2]}\n',
            "scripts/run.sh": "#!/bin/sh\necho run ok\n",
            "docs/guide.md": "# Guide\n",
        },
    )
    return committed(root)


@attrs.frozen
class Step:
    """One command and its expected effect: files that exist afterwards, text its
    output holds."""

    command: str
    files: tuple[str, ...] = ()
    out: str = ""


def corpus(port: int) -> list[Step]:
    url = f"http://127.0.0.1:{port}"
    return [
        # Looking around.
        Step("ls src tests"),
        Step("git status --short"),
        Step("git log --oneline", out="base"),
        Step("cat package.json | head -3", out='"name"'),
        Step("which node npm git python3 make", out="node"),
        # Python: a workspace venv, a wheel built here, pip offline from local sources.
        Step("python3 -m venv .venv", files=(".venv/bin/pip",)),
        Step(
            "python3 -m pip wheel -q --no-index --no-build-isolation --no-deps -w dist .",
            files=("dist/calc-0.1.0-py3-none-any.whl",),
        ),
        Step(".venv/bin/pip install -q --no-index dist/calc-0.1.0-py3-none-any.whl"),
        Step(".venv/bin/python -c 'import calc; print(calc.add(2, 3))'", out="5"),
        Step(".venv/bin/pip install -q --no-index --force-reinstall --find-links dist calc"),
        Step(".venv/bin/pip list", out="calc"),
        Step("python3 -m pytest -q -p no:randomly tests", out="1 passed"),
        Step("python3 -m pytest -q -p no:randomly tests -k add", out="1 passed"),
        Step("python3 -m compileall -q src", files=("src/calc/__pycache__",)),
        # Formatters.
        Step("ruff format src tests", out="file"),
        Step("ruff check src tests"),
        Step("python3 -m json.tool --indent 2 data.json /tmp/data.json && cp /tmp/data.json ."),
        Step("sed -i 's/0.1.0\"/0.1.1\"/' src/calc/__init__.py && grep 0.1.1 src/calc/__init__.py"),
        # npm, offline.
        Step("npm test", out="js ok"),
        Step("npm run build", files=("build/app.js",)),
        Step("npm install", files=("node_modules/helper/index.js", "package-lock.json")),
        Step("node -e \"console.log(require('helper').greet('x'))\"", out="hello x"),
        Step("npm ls", out="helper@1.0.0"),
        Step("npm install --offline", files=("node_modules/helper",)),
        Step("npm cache verify", out="Cache verified"),
        Step("npm pack --dry-run 2>&1 | tail -1", out="web-1.0.0.tgz"),
        # make.
        Step("make", files=("build/out.txt",)),
        Step("make test", out="1 passed"),
        Step("make clean && make", files=("build/out.txt",)),
        Step("make -n", out=""),
        # git's everyday verbs.
        Step("git add src tests package.json package-lock.json && git status --short", out="A "),
        Step("git commit -qm 'build set-up'"),
        Step("git branch feature"),
        Step("git switch feature"),
        Step("printf 'def mul(a, b):\\n    return a * b\\n' > src/calc/ops.py"),
        Step("git add src/calc/ops.py && git commit -qm mul"),
        Step("git switch main"),
        Step("git checkout -b topic"),
        Step("echo 'More.' >> README.md && git commit -qam readme"),
        Step("echo 'Draft.' >> README.md"),
        Step("git stash"),
        Step("git stash list", out="stash@{0}"),
        Step("git stash pop && grep Draft README.md"),
        Step("git restore README.md && git status --short"),
        Step("git rebase -q feature", files=("src/calc/ops.py",)),
        Step("git switch -q main && git merge -q --no-edit topic", files=("src/calc/ops.py",)),
        Step("git tag v0.1.1 && git tag", out="v0.1.1"),
        Step("git log --oneline --graph --all | head -5", out="readme"),
        Step("git diff HEAD~1 --stat", out="README.md"),
        Step("git show --stat HEAD", out="readme"),
        Step("git branch -d feature topic"),
        # Files inside the scope.
        Step("mkdir -p src/calc/sub && cp src/calc/ops.py src/calc/sub/copy.py"),
        Step("mv src/calc/sub/copy.py src/calc/sub/moved.py", files=("src/calc/sub/moved.py",)),
        Step("touch src/calc/py.typed && cp -r src build/src-copy", files=("build/src-copy",)),
        Step("chmod +x scripts/run.sh && ./scripts/run.sh", out="run ok"),
        Step("printf 'print(\"main ok\")\\n' > src/calc/__main__.py"),
        Step("PYTHONPATH=src python3 -m calc", out="main ok"),
        Step("find src -name '*.py' | xargs grep -l def | sort | head -1", out="src/calc"),
        # /tmp, kept between the session's commands.
        Step("echo hello > /tmp/corpus-note.txt"),
        Step("cat /tmp/corpus-note.txt", out="hello"),
        Step("git diff HEAD~1 > /tmp/last.patch && test -s /tmp/last.patch"),
        Step("git apply --check -R /tmp/last.patch && echo applies", out="applies"),
        Step("d=$(mktemp -d) && echo x > $d/f && cat $d/f", out="x"),
        Step("tar czf /tmp/src.tgz src && tar tzf /tmp/src.tgz | head -1", out="src/"),
        # Caches under $HOME.
        Step("mkdir -p ~/.cache/corpus && echo cached > ~/.cache/corpus/entry"),
        Step("cat ~/.cache/corpus/entry", out="cached"),
        Step("ls ~/.npm", out="_cacache"),
        Step("python3 -m pip cache dir", out=".cache/pip"),
        # Shared memory, as multiprocessing uses it.
        Step("python3 -c 'import multiprocessing as m; q = m.Queue(); q.put(7); print(q.get())'"),
        Step(
            "python3 -c 'from concurrent.futures import ProcessPoolExecutor as P;"
            " print(sum(P(2).map(abs, [-1, -2])))'",
            out="3",
        ),
        # A background dev server, reached by later commands.
        Step(
            f"nohup python3 -m http.server {port} --bind 127.0.0.1 > build/server.log 2>&1 &"
            " echo $! > build/server.pid"
        ),
        Step(
            f"for i in $(seq 100); do curl -sf {url}/package.json && break; sleep 0.1; done",
            out='"name": "web"',
        ),
        Step(
            f"python3 -c \"import urllib.request; print(urllib.request.urlopen('{url}/').status)\"",
            out="200",
        ),
        Step("kill $(cat build/server.pid)"),
    ]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _offline(tmp_path: Path) -> dict[str, str]:
    """npm and pip offline, their registries a closed local port: a request that slipped
    through would fail the command rather than reach the network."""
    nowhere = "http://127.0.0.1:9/"
    return {
        "PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin",
        "npm_config_offline": "true",
        "npm_config_registry": nowhere,
        "npm_config_audit": "false",
        "npm_config_fund": "false",
        "npm_config_update_notifier": "false",
        "PIP_NO_INDEX": "1",
        "PIP_INDEX_URL": nowhere,
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "GIT_AUTHOR_NAME": "Dev",
        "GIT_AUTHOR_EMAIL": "dev@example.com",
        "GIT_COMMITTER_NAME": "Dev",
        "GIT_COMMITTER_EMAIL": "dev@example.com",
        "GIT_EDITOR": "true",
    }


def _failure(step: Step, agent: Agent, root: Path) -> str | None:
    done = agent.done
    if done is None:
        return f"{step.command}: not run"
    if done.returncode != 0:
        return f"{step.command}: exit {done.returncode}\n{done.stdout[-800:]}{done.stderr[-800:]}"
    missing = [rel for rel in step.files if not (root / rel).exists()]
    if missing:
        return f"{step.command}: missing {missing}"
    if step.out not in done.stdout:
        return f"{step.command}: {step.out!r} not in {done.stdout[-800:]!r}"
    return None


def _stop_server(root: Path) -> None:
    """The test's own clean-up when the corpus stopped before its last command."""
    pid_file = root / "build" / "server.pid"
    if pid_file.exists():
        subprocess.run(["kill", pid_file.read_text().strip()], capture_output=True, check=False)


@pytest.mark.parametrize("agent_name", ["claude-code", "gemini"])
def test_ordinary_development_runs_unchanged(tmp_path: Path, agent_name: str) -> None:
    root = project(tmp_path / "ws")
    (tmp_path / "home").mkdir()
    agent = Agent(root, agent_name, home=tmp_path / "home")
    agent.env.update(_offline(tmp_path))
    agent.select("INT-APP")
    steps = corpus(_free_port())
    held: list[str] = []
    failures: list[str] = []
    try:
        for step in steps:
            pre, told = agent.shell(step.command, run_held=False)
            if decision(pre)[0] in ("ask", "deny"):
                held.append(step.command)
                continue
            put_back = list(effects_log.read(root))
            assert put_back == [], (step.command, told, put_back)
            failure = _failure(step, agent, root)
            if failure:
                failures.append(failure)
    finally:
        _stop_server(root)
    assert len(steps) >= 60
    assert not failures, "\n\n".join(failures)
    assert len(held) <= 1, held
