"""owned_scope matching: gitignore semantics, checked against git itself."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from intent_ls.scope.index import ScopeIndex, _literal_key
from intent_ls.spec.model import Glob, Intent, Span, Spec, Status


def intent(intent_id: str, *patterns: str, status: Status = Status.IN_PROGRESS) -> Intent:
    return Intent(intent_id, intent_id, status, tuple(Glob(p, Span.point()) for p in patterns))


def index(*patterns: str, ignore: tuple[str, ...] = ()) -> ScopeIndex:
    return ScopeIndex(Spec((intent("A", *patterns),)), ignore)


@pytest.mark.parametrize(
    ("patterns", "path", "owned"),
    [
        (["src/**"], "src/a/b/c.py", True),
        (["src/*"], "src/a.py", True),
        (["src/*.py"], "src/a/b.py", False),  # '*' does not cross '/'
        (["*.py"], "deep/down/x.py", True),  # no slash: matches at any depth
        (["/x.py"], "deep/x.py", False),  # leading slash anchors to the root
        (["docs/"], "docs/guide/a.md", True),  # directory pattern owns its contents
        (["docs/"], "docs", False),  # ...but not a file named docs
        # git never looks inside an excluded directory: src/gen itself matches src/**
        (["src/**", "!src/gen/**"], "src/gen/a.py", True),
        (["src/**", "!src/gen/", "!src/gen/**"], "src/gen/a.py", False),
        (["a", "!/a"], "a/a/x.py", True),
        (["a", "!/a"], "a/x.py", False),
        (["src/**", "!src/gen/**"], "src/app.py", True),
        (["**/test_*.py"], "a/b/test_x.py", True),
        (["a/**/b"], "a/b", True),
        (["file[0-9].txt"], "file7.txt", True),
        (["file?.txt"], "file10.txt", False),
    ],
)
def test_gitignore_semantics(patterns: list[str], path: str, owned: bool) -> None:
    assert index(*patterns).owns("A", path) is owned
    assert (index(*patterns).owners(path) != ()) is owned


def test_owners_in_spec_order_with_buckets_and_floating_globs() -> None:
    spec = Spec(
        (
            intent("A", "src/**"),
            intent("B", "web/**"),
            intent("C", "*.py"),
            intent("D", "src/api/**", status=Status.DRAFT),
        )
    )
    scope = ScopeIndex(spec)
    assert [i.id for i in scope.owners("src/api/x.py")] == ["A", "C", "D"]
    assert [i.id for i in scope.owners("web/x.ts")] == ["B"]
    assert [i.id for i in scope.owners("tools/y.py")] == ["C"]
    assert scope.owners("README.md") == ()


def test_builtin_and_intentignore() -> None:
    scope = index("**", ignore=("build/", "*.lock"))
    assert scope.is_ignored(".git/config")
    assert scope.is_ignored("build/out.js")
    assert scope.is_ignored("deep/poetry.lock")
    assert not scope.is_ignored("src/app.py")


SEGMENTS = ["a", "b", "c.py", "d.md"]
PATTERN_PARTS = ["a", "b", "*", "**", "*.py", "?", "c.py", "[ab]"]


@st.composite
def patterns(draw: st.DrawFn) -> str:
    parts = draw(st.lists(st.sampled_from(PATTERN_PARTS), min_size=1, max_size=3))
    body = "/".join(parts)
    if draw(st.booleans()):
        body = "/" + body
    if draw(st.booleans()) and not body.endswith("**"):
        body += "/"
    if draw(st.integers(0, 3)) == 0:
        body = "!" + body
    return body


def all_paths() -> list[str]:
    dirs = ["a", "b", "a/a", "a/b", "b/a", "a/b/a"]
    files = ["c.py", "d.md", "a.py"]
    return [f for f in files] + [f"{d}/{f}" for d in dirs for f in files]


@pytest.fixture(scope="module")
def git_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("git") is None:
        pytest.skip("git not installed")
    root = tmp_path_factory.mktemp("gitdiff")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    for rel in all_paths():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x\n")
    return root


def git_ignored(root: Path, lines: list[str], paths: list[str]) -> set[str]:
    (root / ".gitignore").write_text("\n".join(lines) + "\n")
    out = subprocess.run(
        ["git", "-c", "core.excludesFile=/dev/null", "check-ignore", "--no-index", "--stdin"],
        cwd=root,
        input="\n".join(paths) + "\n",
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode in (0, 1), out.stderr
    return set(out.stdout.split())


@settings(
    max_examples=int(os.environ.get("INTENT_LS_DIFF_EXAMPLES", "150")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(st.lists(patterns(), min_size=1, max_size=4))
def test_agrees_with_git_check_ignore(git_tree: Path, lines: list[str]) -> None:
    paths = all_paths()
    expected = git_ignored(git_tree, lines, paths)
    scope = index(*lines)
    ours = {p for p in paths if scope.owns("A", p)}
    assert ours == expected, lines


def _literal_key_by_segments(pattern: str) -> tuple[tuple[str, ...], str]:
    """The plain reading of a glob's literal key, segment by segment (the reference)."""
    body = pattern.rstrip("/")
    if not (body.startswith("/") or "/" in body):
        return (), ""
    prefix: list[str] = []
    for segment in body.lstrip("/").split("/"):
        cut = min((segment.find(c) for c in "*?[\\" if c in segment), default=-1)
        if not segment:
            break
        if cut >= 0:
            return tuple(prefix), segment[:cut]
        prefix.append(segment)
    return tuple(prefix), ""


@settings(max_examples=3000, deadline=None)
@given(st.text(alphabet="ab/*?[]\\!.", max_size=14))
def test_literal_key_matches_the_segment_by_segment_reading(pattern: str) -> None:
    assert _literal_key(pattern) == _literal_key_by_segments(pattern)
