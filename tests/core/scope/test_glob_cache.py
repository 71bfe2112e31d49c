"""The per-line glob translations an agent hook uses instead of importing pathspec."""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

import pathspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from intent_ls.common.local_state import local_dir
from intent_ls.scope import glob_cache
from intent_ls.scope.index import BUILTIN_IGNORES, GitMatcher

#: Lines exercising every part of the gitignore grammar pathspec translates.
CORPUS = [
    "src/**",
    "!src/generated/**",
    "**/migrations/**",
    "*.py",
    "/build/",
    "docs/",
    "a/**/b",
    "**",
    "lib/mod_*.py",
    "file[0-9].txt",
    "[!a-c]x",
    "\\!important",
    "\\#not-a-comment",
    "# a comment",
    "trailing\\ ",
    "name?.md",
    "/anchored",
    "!/anchored/keep",
    "deep/nested/dir/",
    "***",
    "\\[literal\\]",
    ".git/",
    "",
]


@pytest.fixture(autouse=True)
def fresh_memo(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts with an empty per-process memo, as a new hook process does."""
    monkeypatch.setattr(glob_cache, "_known", {})
    monkeypatch.setattr(glob_cache, "_used", set())
    monkeypatch.setattr(glob_cache, "_unsaved", False)


def by_pathspec(lines: list[str]) -> list[glob_cache.Translation]:
    """What ``GitIgnoreSpec.from_lines`` makes of the whole list at once."""
    spec = pathspec.GitIgnoreSpec.from_lines(lines)
    return [(p.include, None if p.regex is None else p.regex.pattern) for p in spec.patterns]


def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / ".orchestration").mkdir(parents=True)
    return root


def cache_file(root: Path) -> Path:
    return local_dir(root) / glob_cache.CACHE_FILE


def forget(monkeypatch: pytest.MonkeyPatch) -> None:
    """A new process: nothing known, and pathspec cannot be imported (a hit must not)."""
    monkeypatch.setattr(glob_cache, "_known", {})
    monkeypatch.setattr(glob_cache, "_used", set())
    monkeypatch.setattr(glob_cache, "_unsaved", False)
    monkeypatch.setitem(sys.modules, "pathspec", None)


def test_one_line_at_a_time_translates_like_the_whole_list() -> None:
    assert glob_cache.translate(CORPUS) == by_pathspec(CORPUS)
    assert glob_cache.translate(list(reversed(CORPUS))) == by_pathspec(list(reversed(CORPUS)))


@pytest.mark.filterwarnings("ignore:Possible nested set:FutureWarning")
@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet="ab/*?[]!\\#. -", max_size=10), max_size=8))
def test_any_lines_translate_alone_as_in_their_list(lines: list[str]) -> None:
    glob_cache._known.clear()
    try:
        expected = by_pathspec(lines)
    except Exception as exc:  # a malformed glob: translating it alone fails the same way
        with pytest.raises(type(exc)):
            glob_cache.translate(lines)
        return
    assert glob_cache.translate(lines) == expected


def test_a_warm_cache_answers_without_pathspec(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = workspace(tmp_path)
    lines = ["src/**", "!src/gen/**", *BUILTIN_IGNORES]
    cold = GitMatcher(lines)
    glob_cache.save(root)
    forget(monkeypatch)
    assert glob_cache.load(root) == 3
    warm = GitMatcher(lines)
    for path in ("src/a.py", "src/gen/x.py", "lib/a.py", ".git/config", "src/gen"):
        assert warm.match(path) == cold.match(path)
    with pytest.raises(ImportError):  # a line never seen (a changed pattern) needs pathspec
        glob_cache.translate(["src/**", "docs/**"])


def test_a_changed_pattern_is_translated_and_saved_beside_the_old(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = workspace(tmp_path)
    glob_cache.translate(["src/**"])
    glob_cache.save(root)
    forget(monkeypatch)
    monkeypatch.setitem(sys.modules, "pathspec", pathspec)
    assert glob_cache.load(root) == 1
    assert GitMatcher(["docs/**"]).match("docs/a.md")
    glob_cache.save(root)
    forget(monkeypatch)
    assert glob_cache.load(root) == 2
    assert glob_cache.translate(["docs/**", "src/**"]) == by_pathspec(["docs/**", "src/**"])


def test_nothing_new_writes_nothing(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    glob_cache.save(root)
    assert not cache_file(root).exists()


def saved(tmp_path: Path) -> tuple[Path, bytes]:
    root = workspace(tmp_path)
    glob_cache.translate(["src/**", "!src/gen/**"])
    glob_cache.save(root)
    return root, cache_file(root).read_bytes()


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda raw: raw[: len(raw) // 2], id="torn"),
        pytest.param(lambda raw: b"\xff\xfe" + raw, id="not-utf8"),
        pytest.param(lambda raw: b"{}\n{}", id="foreign-header"),
        pytest.param(lambda raw: raw.split(b"\n")[0], id="no-entries"),
        pytest.param(lambda raw: raw.replace(b'"^src/"', b'"^"'), id="widened-regex"),
        pytest.param(lambda raw: raw.replace(b"true", b"false", 1), id="flipped-include"),
    ],
)
def test_a_damaged_or_tampered_file_is_not_believed(tmp_path: Path, damage) -> None:
    root, raw = saved(tmp_path)
    cache_file(root).write_bytes(damage(raw))
    glob_cache._known.clear()
    assert glob_cache.load(root) == 0
    assert glob_cache._known == {}
    # pathspec answers instead, and the next save replaces the file with a good one
    assert GitMatcher(["src/**"]).match("src/a.py")
    glob_cache.save(root)
    glob_cache._known.clear()
    assert glob_cache.load(root) == 1


def test_entries_of_the_wrong_shape_are_not_believed(tmp_path: Path) -> None:
    root, raw = saved(tmp_path)
    header = json.loads(raw.split(b"\n")[0])
    for entries in ({"src/**": [True]}, {"src/**": [None, "^src/"]}, {"x": ["yes", "x"]}, []):
        body = json.dumps(entries).encode()
        header["sha256"] = hashlib.sha256(body).hexdigest()
        cache_file(root).write_bytes(json.dumps(header).encode() + b"\n" + body)
        glob_cache._known.clear()
        assert glob_cache.load(root) == 0


def test_a_cache_from_another_checkout_is_not_believed(tmp_path: Path) -> None:
    """Committed into a repository and cloned, the file is intact but not this
    checkout's: ``.local/.gitignore`` is another file than the one it was made beside."""
    root, _ = saved(tmp_path)
    ignore = local_dir(root) / ".gitignore"
    text = ignore.read_bytes()
    ignore.unlink()
    ignore.write_bytes(text)
    os.utime(ignore, ns=(1, 1))
    glob_cache._known.clear()
    assert glob_cache.load(root) == 0


def test_another_pathspec_install_is_not_believed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, _ = saved(tmp_path)
    real = glob_cache._pathspec_identity()
    assert real is not None and real[0].endswith("__init__.py")
    monkeypatch.setattr(glob_cache, "_pathspec_identity", lambda: [real[0], 0, real[2]])
    glob_cache._known.clear()
    assert glob_cache.load(root) == 0


def test_an_unreadable_or_unwritable_cache_costs_only_speed(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    local_dir(root, create=True)
    cache_file(root).mkdir()
    assert glob_cache.load(root) == 0
    assert GitMatcher(["src/**"]).match("src/a.py")
    glob_cache.save(root)  # refused (a directory is in the way), not raised
    cache_file(root).rmdir()
    cache_file(root).symlink_to(tmp_path / "elsewhere.json")
    assert glob_cache.load(root) == 0
    glob_cache.save(root)
    assert not (tmp_path / "elsewhere.json").exists()


def test_a_full_cache_keeps_the_lines_in_use(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = workspace(tmp_path)
    monkeypatch.setattr(glob_cache, "MAX_ENTRIES", 2)
    glob_cache.translate(["a/**", "b/**"])
    glob_cache.save(root)
    forget(monkeypatch)
    monkeypatch.setitem(sys.modules, "pathspec", pathspec)
    glob_cache.load(root)
    glob_cache.translate(["c/**"])
    glob_cache.save(root)
    forget(monkeypatch)
    assert glob_cache.load(root) == 1
    assert list(glob_cache._known) == ["c/**"]


def test_a_long_lived_memo_starts_afresh_instead_of_growing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(glob_cache, "_MEMO_LIMIT", 2)
    glob_cache.translate(["a/**", "b/**", "c/**"])
    assert len(glob_cache._known) == 3
    assert glob_cache.translate(["d/**"]) == by_pathspec(["d/**"])
    assert list(glob_cache._known) == ["d/**"]
