"""Prediction only where effects cannot be undone: which shell commands the hooks hold.

Ordinary development runs without a prompt (its effects are verified after the call,
``test_effects.py``); what nothing could put back — remote history, other processes,
registries, clouds, databases, files outside the workspace — waits for a human (denied
with the approval step on Codex, which cannot ask)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from intent_ls.agents.hook import run
from tests.agents.conftest import decision

ORDINARY = [
    "npm test",
    "npm install",
    "npm ci",
    "npm run build",
    "npm run lint -- --fix",
    "npx prettier --write src",
    "yarn install",
    "yarn test",
    "pnpm install",
    "pnpm test",
    "make",
    "make test",
    "make -j4 all",
    "cmake -S . -B build",
    "cmake --build build",
    "ninja -C build",
    "cargo build --release",
    "cargo test",
    "cargo fmt",
    "cargo clippy --fix --allow-dirty",
    "go test ./...",
    "go build ./...",
    "go mod tidy",
    "gofmt -w src",
    "pytest -q",
    "python -m pytest tests -x",
    "python -m pip install -e .",
    "pip install -r requirements.txt",
    "uv sync",
    "poetry install",
    "tox -e py311",
    "ruff check --fix src",
    "ruff format src",
    "black src",
    "isort src",
    "mypy src",
    "eslint --fix src",
    "tsc -p .",
    "mvn -q package",
    "gradle test",
    "bundle install",
    "rake test",
    "dotnet build",
    "git status",
    "git diff --stat",
    "git log --oneline -5",
    "git checkout -b feature/x",
    "git switch main",
    "git switch -c topic",
    "git stash list",
    "git stash",
    "git stash pop",
    "git add -A && git commit -m wip",
    "git fetch origin",
    "git pull --rebase",
    "git push origin feature/x",
    "git branch -a",
    "docker build -t app .",
    "docker compose up -d",
    "./gradlew build",
    "sed -i 's/a/b/' src/app.py",
    "python scripts/gen.py > src/gen.py",
]

IRREVERSIBLE = [
    "git push --force origin main",
    "git push -f",
    "git push origin +main",
    "git push origin :main",
    "git push --delete origin topic",
    "git push --prune origin",
    "git push --mirror backup",
    "git reflog expire --expire=now --all",
    "git reflog delete HEAD@{1}",
    "git branch -f main HEAD~3",
    "git branch -D topic",
    "git tag -d v1.0",
    "git update-ref -d refs/heads/main",
    "git filter-branch --tree-filter 'rm -f x' HEAD",
    "git filter-repo --path secret --invert-paths",
    "git gc --prune=now",
    "git reset --hard HEAD~1",
    "git clean -fdx",
    "kill -9 1234",
    "pkill node",
    "killall python",
    "dropdb prod",
    "psql -c 'DROP TABLE users'",
    "mysql -e 'truncate table orders'",
    "redis-cli flushall",
    "npm publish",
    "npm unpublish pkg@1.0.0",
    "yarn publish",
    "cargo publish",
    "cargo yank --version 1.0.0",
    "twine upload dist/*",
    "python -m twine upload dist/*",
    "gem push pkg.gem",
    "poetry publish --build",
    "docker push registry/app:latest",
    "docker rmi app",
    "docker system prune -af",
    "kubectl delete namespace prod",
    "helm uninstall app",
    "terraform destroy -auto-approve",
    "aws s3 rm s3://bucket --recursive",
    "aws s3 rb s3://bucket --force",
    "aws ec2 terminate-instances --instance-ids i-1",
    "aws dynamodb delete-table --table-name t",
    "gsutil rm -r gs://bucket",
    "gcloud compute instances delete vm1",
    "az group delete -n rg",
    "gh repo delete org/repo --yes",
    "gh release delete v1",
    "rm -rf /home/user/project-other",
    "cp secrets.txt ~/.ssh/authorized_keys",
    "echo x > /etc/hosts",
    "mv src /opt/elsewhere",
    "sudo rm -rf /var/lib/db",
    "bash -c 'git push --force'",
    "env FOO=1 kill 1",
]


def _before(root: Path, agent: str, tool: str, tool_input: dict[str, str]) -> dict[str, Any]:
    """The hook's answer (in process: these tests ask it hundreds of times) before ``tool``."""
    payload = {
        "session_id": "s1",
        "cwd": str(root),
        "hook_event_name": "BeforeTool" if agent == "gemini" else "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
    }
    answer, status = run(agent, json.dumps(payload).encode(), root)
    assert status == 0
    return answer


def _before_tool(root: Path, agent: str, command: str) -> tuple[str | None, str]:
    tool = "run_shell_command" if agent == "gemini" else "Bash"
    return decision(_before(root, agent, tool, {"command": command}))


def _select(root: Path, agent: str) -> None:
    tool = {
        "claude-code": "mcp__intent-ls__select_active_intent",
        "codex": "mcp__intent_ls__select_active_intent",
        "gemini": "mcp_intent-ls_select_active_intent",
    }[agent]
    _before(root, agent, tool, {"intent_id": "INT-APP"})


def test_ordinary_development_runs_without_a_prompt(governed: Path) -> None:
    assert len(ORDINARY) >= 60
    _select(governed, "claude-code")
    held = [c for c in ORDINARY if _before_tool(governed, "claude-code", c)[0] is not None]
    assert len(held) <= len(ORDINARY) // 60, held


@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini"])
def test_what_cannot_be_undone_is_held(governed: Path, agent: str) -> None:
    _select(governed, agent)
    expected = "deny" if agent == "codex" else "ask"
    let_through = []
    for command in IRREVERSIBLE:
        verdict, reason = _before_tool(governed, agent, command)
        if verdict not in (expected, "deny"):
            let_through.append(command)
        elif agent == "codex" and verdict == "deny" and "destructive-command" in reason:
            assert "intent-ls approve" in reason and "--command" in reason
    assert not let_through


@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini"])
def test_what_the_parser_would_misread_is_held_with_the_reason(governed: Path, agent: str) -> None:
    """A continuation inside a word, and nesting too deep to walk: the agent is told why,
    never an internal error."""
    _select(governed, agent)
    expected = "deny" if agent == "codex" else "ask"
    verdict, reason = _before_tool(governed, agent, "git push --for\\\nce origin main")
    assert verdict == expected and "git push rewrites or deletes remote history" in reason
    deep = "echo " + "$(" * 3000 + "true" + ")" * 3000
    verdict, reason = _before_tool(governed, agent, deep)
    assert verdict == expected and "too deeply nested to read" in reason
    assert "cannot be read" in reason and "(9,009 characters)" in reason
    assert len(reason) < 2000 or agent == "codex"  # Codex's approval step names it whole
    assert "governance-error" not in reason and "RecursionError" not in reason
