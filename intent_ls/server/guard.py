"""Keeps exceptions from reaching the user as tracebacks.

pygls would answer a failing request with the traceback in the error's ``data`` and
report a failing notification as "Error in server: ...". Every handler is wrapped
here instead: user mistakes raise :class:`UserError` (an InvalidParams response with our
message), anything else is logged with its traceback on stderr and surfaces as one
readable line.
"""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Callable
from typing import Any, TypeVar

from pygls.exceptions import JsonRpcException, JsonRpcInternalError, JsonRpcInvalidParams

logger = logging.getLogger(__name__)

F = TypeVar("F", bound=Callable[..., Any])


class UserError(JsonRpcInvalidParams):
    """A bad request (wrong arguments, refused selection): the message is for the user."""

    def __init__(self, message: str, data: Any = None) -> None:
        super().__init__(message=message, data=data)


def request(what: str) -> Callable[[F], F]:
    """For requests: unexpected errors become an Internal Error response without traceback."""

    def decorate(fn: F) -> F:
        if inspect.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def run_async(ls: Any, *args: Any) -> Any:
                try:
                    return await fn(ls, *args)
                except JsonRpcException:
                    raise
                except Exception as exc:
                    logger.exception("%s failed", what)
                    raise JsonRpcInternalError(message=f"intent-ls: {what} failed: {exc}") from None

            return run_async  # type: ignore[return-value]

        @functools.wraps(fn)
        def run(ls: Any, *args: Any) -> Any:
            try:
                return fn(ls, *args)
            except JsonRpcException:
                raise
            except Exception as exc:
                logger.exception("%s failed", what)
                raise JsonRpcInternalError(message=f"intent-ls: {what} failed: {exc}") from None

        return run  # type: ignore[return-value]

    return decorate


def notification(what: str) -> Callable[[F], F]:
    """For notifications (no response to carry an error): log it and show one line."""

    def decorate(fn: F) -> F:
        if inspect.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def run_async(ls: Any, *args: Any) -> None:
                try:
                    await fn(ls, *args)
                except Exception as exc:
                    ls.report_failure(what, exc)

            return run_async  # type: ignore[return-value]

        @functools.wraps(fn)
        def run(ls: Any, *args: Any) -> None:
            try:
                fn(ls, *args)
            except Exception as exc:
                ls.report_failure(what, exc)

        return run  # type: ignore[return-value]

    return decorate
