"""Two kept views of the workspace compared (``compare.between``): what changed from
one to the other, with the bytes each view holds, whichever side a file was clean on."""

from __future__ import annotations

from pathlib import Path

from intent_ls.agents.effects import snapshot
from intent_ls.agents.effects.compare import between
from intent_ls.agents.effects.store import Store
from tests.agents.effects_helpers import git_workspace


def _views(ws: Path, change: object) -> list[tuple[str, bytes | None, bytes | None]]:
    store = Store(ws)
    first = snapshot.files(store, ws)
    assert first is not None
    change()  # type: ignore[operator]
    second = snapshot.files(store, ws)
    assert second is not None
    return [(c.rel, c.old, c.new) for c in between(store, first, second)]


def test_nothing_changed_is_nothing(governed: Path) -> None:
    ws = git_workspace(governed)
    (ws / "src" / "app.py").write_text("dirty = 1\n")
    assert _views(ws, lambda: None) == []


def test_a_clean_file_changed_holds_the_commits_bytes_before(governed: Path) -> None:
    ws = git_workspace(governed)
    before = (ws / "docs" / "guide.md").read_bytes()
    assert _views(ws, lambda: (ws / "docs" / "guide.md").write_text("# New\n")) == [
        ("docs/guide.md", before, b"# New\n")
    ]


def test_a_dirty_file_changed_again_and_one_reverted(governed: Path) -> None:
    ws = git_workspace(governed)
    committed = (ws / "docs" / "guide.md").read_bytes()
    (ws / "src" / "app.py").write_text("one = 1\n")
    (ws / "docs" / "guide.md").write_text("# Mine\n")

    def change() -> None:
        (ws / "src" / "app.py").write_text("two = 2\n")
        (ws / "docs" / "guide.md").write_bytes(committed)  # clean again

    assert _views(ws, change) == [
        ("docs/guide.md", b"# Mine\n", committed),
        ("src/app.py", b"one = 1\n", b"two = 2\n"),
    ]


def test_created_and_deleted_files_have_no_bytes_on_one_side(governed: Path) -> None:
    ws = git_workspace(governed)
    app = (ws / "src" / "app.py").read_bytes()

    def change() -> None:
        (ws / "src" / "app.py").unlink()
        (ws / "src" / "new.py").write_text("n = 1\n")

    assert _views(ws, change) == [("src/app.py", app, None), ("src/new.py", None, b"n = 1\n")]


def test_touched_without_a_change_of_bytes_is_left_out(governed: Path) -> None:
    ws = git_workspace(governed)
    (ws / "src" / "app.py").write_text("dirty = 1\n")
    assert _views(ws, lambda: (ws / "src" / "app.py").write_text("dirty = 1\n")) == []


def test_views_of_another_repository_compare_to_nothing(governed: Path) -> None:
    ws = git_workspace(governed)
    store = Store(ws)
    view = snapshot.files(store, ws)
    assert view is not None
    assert between(store, {**view, "top": "/elsewhere"}, view) == []
