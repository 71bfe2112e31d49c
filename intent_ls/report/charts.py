"""Small inline SVG charts: no library, no script, a few kilobytes each.

Every chart is an ``<svg role="img">`` with a ``<title>`` and a ``<desc>`` that states the
figures in words, and the page prints the same figures as a table beside it, so a screen
reader or a text-only mail client loses nothing. Every piece of text passes through
:func:`esc`: labels are repository content (paths, model ids, intent names).
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

import attrs

#: Characters HTML has no use for in text, and a hostile ledger could use to garble it.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
#: Colours for series, each with at least 4.5:1 contrast against white.
PALETTE = ("#1f5fbf", "#b3261e", "#1b7a3d", "#8a4b00", "#6b3fa0", "#00707a", "#444444")


def esc(text: object) -> str:
    return html.escape(_CONTROL.sub("\ufffd", str(text)), quote=True)


def shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "0.0%"


@attrs.frozen
class Bar:
    label: str
    value: int


def _svg_open(uid: str, width: int, height: int, title: str, desc: str) -> str:
    """``uid`` keeps the title/desc ids unique on a page of many charts."""
    n = uid
    return (
        f'<svg class="chart" viewBox="0 0 {width} {height}" role="img" '
        f'aria-labelledby="t{n} d{n}" xmlns="http://www.w3.org/2000/svg">'
        f'<title id="t{n}">{esc(title)}</title><desc id="d{n}">{esc(desc)}</desc>'
    )


def bar_chart(uid: str, title: str, bars: Sequence[Bar], unit: str) -> str:
    """Horizontal bars, longest first, each under its own label line: narrow enough
    (400 units) to stay legible on a phone."""
    total = sum(b.value for b in bars)
    rows = sorted(bars, key=lambda b: (-b.value, b.label))
    desc = "; ".join(f"{b.label}: {b.value} {unit} ({percent(b.value, total)})" for b in rows)
    width, row_h = 400, 40
    height = max(1, len(rows)) * row_h + 4
    out = [_svg_open(uid, width, height, title, desc or f"no {unit}")]
    top = max((b.value for b in rows), default=0)
    span = width - 130
    for i, bar in enumerate(rows):
        y = 2 + i * row_h
        w = max(round(span * bar.value / top) if top else 0, 1)
        out.append(
            f"<g><title>{esc(bar.label)}: {bar.value} {esc(unit)}</title>"
            f'<text x="0" y="{y + 14}">{esc(shorten(bar.label, 48))}</text>'
            f'<rect x="0" y="{y + 20}" width="{w}" height="14" '
            f'fill="{PALETTE[i % len(PALETTE)]}"/>'
            f'<text x="{w + 6}" y="{y + 32}">{bar.value} ({percent(bar.value, total)})</text></g>'
        )
    if not rows:
        out.append(f'<text x="0" y="20">No {esc(unit)} recorded.</text>')
    out.append("</svg>")
    return "".join(out)


def buckets(per_day: dict[str, int], limit: int = 60) -> list[Bar]:
    """Days, or months when there are more days than fit: a year of records stays a
    readable row of columns."""
    days = sorted(per_day)
    if len(days) <= limit:
        return [Bar(day, per_day[day]) for day in days]
    months: dict[str, int] = {}
    for day in days:
        months[day[:7]] = months.get(day[:7], 0) + per_day[day]
    return [Bar(month, n) for month, n in sorted(months.items())]


def column_chart(uid: str, title: str, bars: Sequence[Bar], unit: str) -> str:
    width, height, left, bottom = 400, 180, 36, 32
    desc = "; ".join(f"{b.label}: {b.value} {unit}" for b in bars)
    out = [_svg_open(uid, width, height, title, desc or f"no {unit}")]
    top = max((b.value for b in bars), default=0)
    plot_w, plot_h = width - left - 8, height - bottom - 12
    out.append(
        f'<line x1="{left}" y1="{12 + plot_h}" x2="{width - 8}" y2="{12 + plot_h}" '
        'stroke="#555"/>'
        f'<text x="{left - 4}" y="20" text-anchor="end">{top}</text>'
        f'<text x="{left - 4}" y="{12 + plot_h}" text-anchor="end">0</text>'
    )
    if bars:
        step = plot_w / len(bars)
        for i, bar in enumerate(bars):
            h = round(plot_h * bar.value / top) if top else 0
            x = left + i * step
            out.append(
                f'<rect x="{x + step * 0.1:.1f}" y="{12 + plot_h - h}" '
                f'width="{max(step * 0.8, 1):.1f}" height="{h}" fill="{PALETTE[0]}">'
                f"<title>{esc(bar.label)}: {bar.value} {esc(unit)}</title></rect>"
            )
        label_every = max(1, len(bars) // 6)
        for i in range(0, len(bars), label_every):
            x = left + i * step + step / 2
            out.append(
                f'<text x="{x:.1f}" y="{height - 12}" text-anchor="middle">'
                f"{esc(bars[i].label)}</text>"
            )
    else:
        out.append(f'<text x="{left + 8}" y="60">No {esc(unit)}.</text>')
    out.append("</svg>")
    return "".join(out)


@attrs.frozen
class Edge:
    intent: str
    target: str
    weight: int


def map_diagram(uid: str, title: str, intents: Sequence[str], edges: Sequence[Edge]) -> str:
    """Intents on the left, the directories they changed on the right, one line per
    pair, its width growing with the changed lines."""
    targets = sorted({e.target for e in edges})
    rows = max(len(intents), len(targets), 1)
    row_h, width = 30, 480
    height = rows * row_h + 16
    desc = "; ".join(f"{e.intent} changed {e.weight} lines in {e.target}" for e in edges)
    out = [_svg_open(uid, width, height, title, desc or "no recorded changes")]
    left_y = {name: 8 + i * row_h + row_h / 2 for i, name in enumerate(intents)}
    right_y = {name: 8 + i * row_h + row_h / 2 for i, name in enumerate(targets)}
    top = max((e.weight for e in edges), default=1) or 1
    colours = {name: PALETTE[i % len(PALETTE)] for i, name in enumerate(intents)}
    for edge in edges:
        if edge.intent not in left_y:
            continue
        y1, y2 = left_y[edge.intent], right_y[edge.target]
        stroke = 1 + 7 * edge.weight / top
        out.append(
            f'<path d="M 170 {y1:.1f} C 240 {y1:.1f}, 240 {y2:.1f}, 310 {y2:.1f}" fill="none" '
            f'stroke="{colours[edge.intent]}" stroke-opacity="0.6" stroke-width="{stroke:.1f}">'
            f"<title>{esc(edge.intent)} → {esc(edge.target)}: {edge.weight} lines</title></path>"
        )
    for name, y in left_y.items():
        out.append(
            f'<rect x="2" y="{y - 11:.1f}" width="168" height="22" rx="4" fill="#eef2f8" '
            f'stroke="{colours[name]}"/><text x="8" y="{y + 5:.1f}">'
            f"<title>{esc(name)}</title>{esc(shorten(name, 22))}</text>"
        )
    for name, y in right_y.items():
        out.append(
            f'<rect x="310" y="{y - 11:.1f}" width="168" height="22" rx="4" fill="#f6f6f6" '
            f'stroke="#777"/><text x="316" y="{y + 5:.1f}">'
            f"<title>{esc(name)}</title>{esc(shorten(name, 22))}</text>"
        )
    out.append("</svg>")
    return "".join(out)
