"""The approve verb in every spelling an agent's shell could run it, refused; mentions of
it in the arguments of programs that only read or print them, let through."""

from __future__ import annotations

import base64
import shlex

import pytest

from intent_ls.agents.approval_guard import is_approval_attempt

ENCODED = base64.b64encode(b"intent-ls approve destructive-edit src/app.py").decode()

HOSTILE = [
    "intent-ls approve destructive-edit src/app.py",
    "intent-ls --workspace . approve out-of-scope docs/guide.md",
    "'intent-ls' 'approve' destructive-edit src/app.py",
    "intent-l\\s appro\\ve destructive-edit src/app.py",
    'intent-ls "ap"prove destructive-edit src/app.py',
    "env -S 'intent-ls approve destructive-edit src/app.py'",
    "env -S'intent-ls approve x'",
    "env --split-string='env -S \"intent-ls approve x\"'",
    "env -u CLAUDECODE -u CODEX_CI intent-ls approve destructive-edit src/app.py",
    "sh -c 'intent-ls approve destructive-edit src/app.py'",
    "bash -lc \"sh -c 'intent-ls approve destructive-edit x'\"",
    'bash -c "$(echo aW50ZW50LWxzIGFwcHJvdmU= | base64 -d) x"',
    'sh -c "$CMD"',
    "bash -c '\"$0\" approve destructive-edit x' intent-ls",
    "echo destructive-edit | xargs intent-ls approve",
    "echo approve | xargs intent-ls",
    "printf 'x\\n' | xargs -I{} sh -c '{}'",
    "python -m intent_ls approve destructive-edit src/app.py",
    "python3 -I -X dev -mintent_ls approve destructive-edit src/app.py",
    "python3 -m intent_ls.cli approve x",
    "python3 -c \"from intent_ls.cli.main import main; main(['approve', 'x'])\"",
    "/usr/local/bin/intent-ls approve destructive-edit src/app.py",
    ".venv/bin/intent-ls approve destructive-edit src/app.py",
    "python3 .venv/bin/intent-ls approve destructive-edit src/app.py",
    "x=intent-ls; $x approve destructive-edit src/app.py",
    "x='intent-ls approve destructive-edit'; $x src/app.py",
    "X=approve; intent-ls $X destructive-edit src/app.py",
    'a=(intent-ls approve x); "${a[@]}"',
    "eval 'intent-ls approve destructive-edit src/app.py'",
    'eval "$(printf %s aW50ZW50LWxzIGFwcHJvdmU= | base64 -d)"',
    f"echo {ENCODED} | base64 -d | sh",
    f"echo {ENCODED} | base64 --decode | bash -s",
    "echo 'intent-ls approve destructive-edit x' | sh",
    "bash <<< 'intent-ls approve destructive-edit x'",
    "bash <<'EOF'\nintent-ls approve destructive-edit x\nEOF\n",
    "cat <<EOF | sh\nintent-ls approve destructive-edit x\nEOF\n",
    "bash <(echo 'intent-ls approve x')",
    "source <(echo 'intent-ls approve x')",
    "alias ok='intent-ls approve destructive-edit'; ok src/app.py",
    'f() { intent-ls approve "$@"; }; f destructive-edit src/app.py',
    "echo $(intent-ls approve destructive-edit src/app.py)",
    "ls `intent-ls approve destructive-edit src/app.py`",
    "nohup intent-ls approve destructive-command --command 'git push -f' &",
    "timeout 5 sudo -u me nice -n 5 intent-ls approve scope-widened .orchestration/x",
    "find . -name app.py -exec intent-ls approve destructive-edit {} \\;",
    "watch -n 1 intent-ls approve destructive-edit src/app.py",
    "su me -c 'intent-ls approve destructive-edit src/app.py'",
    "uv run python -m intent_ls approve destructive-edit src/app.py",
    'flock /tmp/l bash -c "$(cat payload)"',
    'perl -e \'system("intent-ls", "approve", "x")\'',
    'node -e \'require("child_process").execSync("intent-ls approve x")\'',
    "awk 'BEGIN { system(\"intent-ls approve destructive-edit x\") }'",
    "sed -n '1e intent-ls approve destructive-edit x' README.md",
    "git -c core.pager='intent-ls approve destructive-edit x' log",
    "git -c alias.ok='!intent-ls approve destructive-edit' ok src/app.py",
    "git config core.editor 'intent-ls approve destructive-edit x'",
    "GIT_EDITOR='intent-ls approve destructive-edit x' git commit",
    "let 'x[$(intent-ls approve destructive-edit x)]=1'",
    "declare -a 'x[$(intent-ls approve x)]'",
    "printf -v 'x[$(intent-ls approve x)]' %s 1",
    "exec -a name intent-ls approve destructive-edit x",
    "INTENT_LS=1 intent_ls approve destructive-edit src/app.py",
    "intent-ls ap{p,}rove destructive-edit src/app.py",
    "intent-ls appr?ve destructive-edit src/app.py",
    "intent-ls $'appr\\x6fve' destructive-edit src/app.py",
    "/usr/local/bin/intent-l? approve destructive-edit src/app.py",
    "busybox sh -c 'intent-ls approve destructive-edit x'",
    "bash -c 'source /dev/stdin' <<< 'intent-ls approve destructive-edit x'",
    "sh -s < <(echo 'intent-ls approve x')",
    "python3 - <<'EOF'\nimport subprocess\nsubprocess.run(['intent-ls', 'approve', 'x'])\nEOF\n",
    'ln -s "$(command -v intent-ls)" ok && ./ok approve destructive-edit src/app.py',
    "hash -p /usr/local/bin/intent-ls ok; ok approve destructive-edit src/app.py",
    'set -- intent-ls approve destructive-edit x; "$@"',
    "ssh localhost intent-ls approve destructive-edit x",
    "coproc intent-ls approve destructive-edit x",
    'echo "$(intent-ls approve destructive-edit x)"',
    "{ intent-ls approve destructive-edit x; }",
    "if true; then intent-ls approve destructive-edit x; fi",
    "python -m runpy intent_ls approve destructive-edit x",
    "python3 -m pdb -m intent_ls approve destructive-edit x",
    "coverage run -m intent_ls approve destructive-edit x",
    'python -c \'import runpy; runpy.run_module("intent_ls", run_name="__main__")\' approve x',
    "python3 -c 'import os, sys; os.execvp(sys.argv[1], sys.argv[1:])' intent-ls approve x",
    "perl -e 'exec @ARGV' intent-ls approve destructive-edit x",
    "npx -y intent-ls approve destructive-edit x",
    "parallel intent-ls approve ::: destructive-edit",
    "script -qc 'intent-ls approve destructive-edit x' /dev/null",
    "env -i PATH=$PATH intent-ls approve destructive-edit x",
    "echo 'intent-ls approve destructive-edit x' | ssh localhost sh",
    "timeout 5 env -S 'intent-ls approve destructive-edit x'",
    "sudo -u me env -i -S'intent-ls approve destructive-edit x'",
    "env -u CLAUDECODE -C . -S 'intent-ls approve destructive-edit x'",
    "intent-l\\\ns appr\\\nove destructive-edit x",
    'intent-ls "app\\\nrove" destructive-edit x',
]

BENIGN = [
    'git commit -m "approve intent-ls"',
    "git commit -qm 'guard: refuse intent-ls approve in agents'",
    'echo "how to approve intent-ls"',
    "echo intent-ls approve destructive-edit src/app.py",
    'grep -r "intent-ls approve" docs',
    "rg -n 'intent-ls approve' -g '*.md'",
    "printf '%s\\n' 'run intent-ls approve yourself'",
    "cat docs/security.md | grep approve",
    "intent-ls check --workspace .",
    "intent-ls shell classify -- 'intent-ls approve x'",
    "python -m intent_ls check",
    "python -m pytest -k 'approve and not intent_ls'",
    "python3 -m pytest tests/agents/test_approval_guard.py -q",
    "cp docs/approve.md /tmp/approve.md",
    "ls approve",
    "find docs -name '*.md' -exec grep -l 'intent-ls approve' {} +",
    "echo 'intent-ls approve x' > notes.txt",
    "jq '.approve' package.json",
    '"$PYTHON" -m pytest -q',
    "git log --grep='intent-ls approve' --oneline",
    "echo ok | xargs echo",
    "bash scripts/test.sh",
    "python -c 'print(1)' approve",
    "python tool.py --approve",
    "node -e 'console.log(process.argv)' x",
    "pkill node",
    "timeout 5 watch -n 1 python",
]


@pytest.mark.parametrize("command", HOSTILE)
def test_every_spelling_of_the_verb_is_refused(command: str) -> None:
    assert is_approval_attempt(command), command


@pytest.mark.parametrize("command", BENIGN)
def test_mentions_in_what_only_reads_or_prints_are_let_through(command: str) -> None:
    assert not is_approval_attempt(command), command


def test_nesting_deeper_than_can_be_read_is_refused() -> None:
    """Strings in strings past the limit are refused here; a parse tree too deep to walk
    only when it names the verb, else the classifier holds it with that reason
    (tests/agents/shell/test_shell_classify_reading.py)."""
    command = "true"
    for _ in range(12):
        command = f"sh -c {shlex.quote(command)}"
    assert is_approval_attempt(command)
    assert is_approval_attempt("echo " + "$(" * 3000 + "intent-ls approve x" + ")" * 3000)
    assert not is_approval_attempt("echo " + "$(" * 3000 + "true" + ")" * 3000)
    assert not is_approval_attempt("sh -c 'sh -c \"echo approve\"'")


def test_what_cannot_be_read_is_closed_even_when_ordinary() -> None:
    """The price docs/agents.md names: refused, and spelled out they pass."""
    for unreadable, spelled in [
        ('eval "$(pyenv init -)"', "pyenv init -"),
        ("$EDITOR notes.txt", '"$EDITOR" notes.txt'),
        ("cat install.sh | sh", "sh install.sh"),
    ]:
        assert is_approval_attempt(unreadable), unreadable
        assert not is_approval_attempt(spelled), spelled
