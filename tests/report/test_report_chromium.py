"""The report in a real browser: headless Chromium at a desktop and a phone width.

A page that only passes string checks could still run a script, log a CSP violation, or
spill sideways on a phone; these tests load the file Chromium-side and ask the DOM.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from intent_ls.cli.main import main
from tests.report.chromium import Chromium, find_chromium
from tests.report.conftest import LedgerWorkspace

BINARY = find_chromium()
pytestmark = pytest.mark.skipif(
    BINARY is None, reason="chromium is not installed (apt-get install chromium; CI has it)"
)


@pytest.fixture
def page(ledger_ws: LedgerWorkspace, tmp_path: Path) -> Path:
    out = tmp_path / "report.html"
    assert main(["report", "--workspace", str(ledger_ws.root), "--out", str(out)]) == 0
    return out


@pytest.fixture
def browser() -> Iterator[Chromium]:
    assert BINARY is not None
    with Chromium(BINARY) as chromium:
        yield chromium


@pytest.mark.parametrize(("width", "mobile"), [(1280, False), (390, True), (390, False)])
def test_the_page_renders_cleanly_at_desktop_and_phone_widths(
    page: Path, browser: Chromium, tmp_path: Path, width: int, mobile: bool
) -> None:
    browser.open_page(width, 900, mobile=mobile)
    browser.load(page)
    assert browser.problems() == []
    # Nothing sticks out sideways: wide tables scroll inside their own box.
    overflow = browser.evaluate(
        "Array.from(document.querySelectorAll('body *')).filter(e => !e.closest('.scroll')"
        " && e.getBoundingClientRect().right > document.documentElement.clientWidth + 1)"
        ".map(e => e.tagName)"
    )
    assert overflow == []
    assert browser.evaluate(
        "document.documentElement.scrollWidth <= document.documentElement.clientWidth"
    )
    # Text is at a readable size at either width.
    smallest = browser.evaluate(
        "Math.min(...Array.from(document.querySelectorAll('p, li, td, th'))"
        ".map(e => parseFloat(getComputedStyle(e).fontSize)))"
    )
    assert smallest >= 12
    shot = tmp_path / f"report-{width}-{'mobile' if mobile else 'desktop'}.png"
    browser.screenshot(shot)
    assert shot.read_bytes().startswith(b"\x89PNG") and shot.stat().st_size > 10_000


def test_hostile_strings_did_not_become_elements(page: Path, browser: Chromium) -> None:
    browser.open_page(1280)
    browser.load(page)
    assert browser.evaluate("document.scripts.length") == 0
    assert browser.evaluate("document.images.length") == 0
    assert browser.evaluate("document.title").startswith("Intent report: ")
    assert "pwned" not in browser.evaluate("document.title")
    # ... and are there as text, where a reader sees them.
    assert "<script>document.title='pwned'</script>" in browser.evaluate("document.body.innerText")
    assert browser.problems() == []


def test_charts_and_the_map_are_labelled_for_assistive_technology(
    page: Path, browser: Chromium
) -> None:
    browser.open_page(1280)
    browser.load(page)
    charts = browser.evaluate(
        "Array.from(document.querySelectorAll('svg')).map(s => [s.getAttribute('role'),"
        " s.getAttribute('aria-labelledby').split(' ').map(id =>"
        " document.getElementById(id).textContent)])"
    )
    assert len(charts) == 4  # the map, two contributor charts, the timeline
    for role, (title, desc) in charts:
        assert role == "img"
        assert title and desc
    titles = [title for _, (title, _) in charts]
    assert "Changed lines by contributor type" in titles
    assert any(t.startswith("Intent map") for t in titles)
    # The contributor chart's description states the figures in words.
    desc = next(d for _, (t, d) in charts if t == "Changed lines by contributor type")
    assert "ai: 10 lines" in desc


def test_a_many_repository_page_renders_cleanly_on_a_phone(
    tmp_path: Path, browser: Chromium
) -> None:
    from tests.report.conftest import build_ledger_workspace
    from tests.report.test_report_export import write_export

    export = tmp_path / "export"
    for name in ("acme/shop", "acme/a-repository-with-a-rather-long-name-indeed"):
        ws = build_ledger_workspace(tmp_path / name.replace("/", "_"))
        write_export(export, name, ws.root)
    out = tmp_path / "org.html"
    assert main(["report", "--from", str(export), "--out", str(out)]) == 0
    browser.open_page(390, 900, mobile=True)
    browser.load(out)
    assert browser.problems() == []
    assert browser.evaluate(
        "document.documentElement.scrollWidth <= document.documentElement.clientWidth"
    )
    assert browser.evaluate("document.querySelectorAll('section.repo').length") == 2
    assert browser.evaluate("document.querySelectorAll('table.repos tbody tr').length") == 2
