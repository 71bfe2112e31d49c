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


#: What no sandbox of the machine's files and no put-back undoes (issue 28, item 5): SQL
#: fed to a database client however it is spelled, clouds and clusters, publishes, forced
#: pushes, interpreter code that deletes or moves, a move onto a device, a fork bomb, and
#: daemons that run work outside the sandbox.
UNDONE_BY_NOTHING = [
    "echo 'DROP TABLE x;' | psql",
    "printf 'delete from orders;' | mysql shop",
    "psql <<EOF\nDROP TABLE users;\nEOF",
    "cat <<'SQL' | psql app\nTRUNCATE sessions;\nSQL",
    "mysql shop <<< 'UPDATE users SET admin = 1'",
    "psql -c 'drop schema public cascade'",
    "mysql -e 'DROP DATABASE shop'",
    "sqlite3 db.sqlite3 'DELETE FROM users'",
    "aws s3 rm s3://bucket/key",
    "aws s3 sync build s3://bucket --delete",
    "aws rds delete-db-instance --db-instance-identifier db1",
    "gcloud sql instances delete main",
    "az vm delete -g rg -n vm1 --yes",
    "kubectl delete pod web-1",
    "kubectl drain node-1 --force",
    "kubectl replace --force -f deploy.yaml",
    "helm uninstall web",
    "terraform destroy",
    "terraform apply -auto-approve",
    "npm publish --access public",
    "twine upload dist/*",
    "cargo publish --allow-dirty",
    "gem push x.gem",
    "poetry publish",
    "git push --force-with-lease origin main",
    "git push -f origin topic",
    "git push origin --delete topic",
    "git push origin :refs/tags/v1",
    "git push --mirror origin",
    "python -c \"import shutil; shutil.rmtree('/')\"",
    "python3 -c 'import os; os.remove(\"db.sqlite3\")'",
    "python3 -c \"import os; os.remove('.env'); import shutil; shutil.rmtree('build')\"",
    "python3 -c 'from pathlib import Path; Path(\".env\").unlink()'",
    "python3 <<EOF\nimport os\nos.unlink('.env.local')\nEOF",
    "echo \"import shutil; shutil.rmtree('src')\" | python3",
    "node -e \"require('fs').rmSync('src', {recursive: true, force: true})\"",
    'node -e \'require("fs").unlinkSync(".env")\'',
    "perl -e 'unlink glob \"*.py\"'",
    "ruby -e 'FileUtils.rm_rf(\"src\")'",
    "php -r 'unlink(\".env\");'",
    "mv src/app.py /dev/null",
    ":(){ :|:& };:",
    "bomb() { bomb | bomb & }; bomb",
    "docker run --rm -v /:/host alpine rm -rf /host/home",
    "docker exec web rm -rf /data",
    "podman run -v ~/.ssh:/k alpine cat /k/id_rsa",
    "docker compose run web sh",
    "systemd-run --user rm -rf ~/src",
    "echo 'rm -rf ~/work' | at now + 1 minute",
    "echo 'rm -rf src' | batch",
    "crontab evil.cron",
    "ssh localhost 'rm -rf ~/work'",
    "tmux new-window -d 'rm -rf src'",
    "tmux send-keys -t main 'rm -rf src' Enter",
    "screen -S main -X stuff 'rm -rf src\\n'",
    "screen -dm sh -c 'sleep 5; rm -rf src'",
    "watch -n1 rm -rf src",
]

#: Ordinary development, spelled as agents spell it: none of it is held (at most one).
DEVELOPMENT = [
    "npm install",
    "npm install --save-dev vitest",
    "npm test",
    "npm run test -- --watch=false",
    "npm run dev &",
    "npx vitest run",
    "npx eslint src --fix",
    "npx prettier --check .",
    "pnpm add zod",
    "yarn add -D typescript",
    "python -m venv .venv",
    ".venv/bin/pip install -e '.[test]'",
    ".venv/bin/pip install requests",
    "pip install -r requirements-dev.txt",
    "python3 -m pip install --upgrade pip",
    "pytest",
    "pytest -q tests/test_app.py -k login",
    "python -m pytest -x --ff",
    ".venv/bin/python -m pytest -q",
    "python manage.py runserver 8000 &",
    "python -m http.server 8000 &",
    "flask run --debug",
    "uvicorn app.main:app --reload &",
    "python scripts/seed.py",
    "python -c 'import sys; print(sys.version)'",
    "node -e 'console.log(process.version)'",
    "node scripts/build.js",
    "make",
    "make check",
    "make -C docs html",
    "git status --short",
    "git diff HEAD~1 -- src",
    "git add src/app.py && git commit -m 'fix login'",
    "git commit -am 'wip'",
    "git commit --amend --no-edit",
    "git branch feature/login",
    "git branch -m old new",
    "git switch -c fix/typo",
    "git switch main",
    "git checkout -b spike",
    "git stash push -m wip",
    "git stash pop",
    "git stash apply stash@{0}",
    "git rebase main",
    "git rebase --continue",
    "git rebase -i HEAD~3",
    "git merge --no-ff topic",
    "git cherry-pick abc123",
    "git log --oneline --graph -20",
    "git show HEAD:src/app.py",
    "git push -u origin feature/login",
    "git fetch --all --prune",
    "git tag v1.2.0",
    "ruff check --fix .",
    "ruff format .",
    "black --check src",
    "prettier --write 'src/**/*.ts'",
    "gofmt -l .",
    "cargo fmt --all",
    "mypy --strict src",
    "docker build -t web:dev .",
    "docker ps -a",
    "docker compose logs -f web",
    "sqlite3 db.sqlite3 'SELECT count(*) FROM users'",
    "psql -c 'select * from users limit 5'",
    "echo 'SELECT 1;' | psql app",
    "tmux ls",
    "crontab -l",
    "mkdir -p src/gen && cp docs/guide.md src/gen/",
    "mv src/old.py src/new.py",
    "nohup npm run watch > /tmp/watch.log 2>&1 &",
    "watch -n 5 git status --short",
]


def test_the_undone_by_nothing_corpus_is_held_and_development_runs(governed: Path) -> None:
    assert len(UNDONE_BY_NOTHING) >= 40 and len(DEVELOPMENT) >= 60
    _select(governed, "claude-code")
    let_through = [
        c for c in UNDONE_BY_NOTHING if _before_tool(governed, "claude-code", c)[0] != "ask"
    ]
    assert not let_through
    held = [c for c in DEVELOPMENT if _before_tool(governed, "claude-code", c)[0] is not None]
    assert len(held) <= 1, held


@pytest.mark.parametrize(
    ("command", "why"),
    [
        ("echo 'DROP TABLE x;' | psql", "psql runs SQL that drops or erases data"),
        ("python -c \"import shutil; shutil.rmtree('/')\"", "deletes, truncates or moves"),
        ("mv src/app.py /dev/null", "mv onto /dev/null destroys what it moves"),
        (":(){ :|:& };:", "function : calls itself: it can fork without bound"),
        ("tmux new-window -d 'rm -rf src'", "hands work to a daemon outside the sandbox"),
    ],
)
def test_codex_is_denied_with_the_approval_step_and_told_why(
    governed: Path, command: str, why: str
) -> None:
    _select(governed, "codex")
    verdict, reason = _before_tool(governed, "codex", command)
    assert verdict == "deny" and why in reason
    assert "intent-ls approve" in reason and "destructive-command --command" in reason
