"""Reads the figures back out of a report page, by their ``data-*`` attributes."""

from __future__ import annotations

from html.parser import HTMLParser

#: Attributes that name what a row is about (an intent, a contributor type, ...).
KEYS = ("data-repo", "data-intent", "data-type", "data-model", "data-bucket")


class Figures(HTMLParser):
    """``figures[(repo, key attribute, key value, field)] = text`` for every element with a
    ``data-field``; key attribute and value are those of the nearest enclosing element
    that has one of :data:`KEYS` (``("", "")`` for repository-wide figures)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, dict[str, str | None]]] = []
        self.figures: dict[tuple[str, str, str, str], str] = {}
        self._open: tuple[str, str, str, str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.stack.append((tag, a))
        if "data-field" in a:
            repo, key, value = "", "", ""
            for _, outer in self.stack:
                if outer.get("data-repo") is not None:
                    repo = outer["data-repo"] or ""
            for _, outer in reversed(self.stack[:-1]):
                found = next((k for k in KEYS[1:] if outer.get(k) is not None), None)
                if found:
                    key, value = found, outer[found] or ""
                    break
            self._open = (repo, key, value, a["data-field"] or "")
            self.figures[self._open] = ""

    def handle_endtag(self, tag: str) -> None:
        while self.stack:
            open_tag, a = self.stack.pop()
            if "data-field" in a:
                self._open = None
            if open_tag == tag:
                break

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            self.figures[self._open] += data


def read_figures(html: str) -> dict[tuple[str, str, str, str], str]:
    parser = Figures()
    parser.feed(html)
    return parser.figures
