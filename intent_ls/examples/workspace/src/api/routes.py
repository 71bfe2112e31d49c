"""HTTP routes for orders."""

from dataclasses import dataclass


@dataclass
class Page:
    items: list
    next_cursor: str | None


def list_orders(store, cursor: str | None = None, limit: int = 50) -> Page:
    rows = store.orders_after(cursor, limit + 1)
    more = len(rows) > limit
    return Page(items=rows[:limit], next_cursor=rows[limit - 1].id if more else None)
