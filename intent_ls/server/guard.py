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


#: Characters of a client's value echoed back in an error message or log line: a 10 MB
#: argument must not come back as a 10 MB error (or 20 MB of log).
MAX_ECHO = 200
#: Characters of an error message as a whole.
MAX_MESSAGE = 1000
#: LSP's ``RequestFailed``: the request was valid but refused in the current state.
REQUEST_FAILED = -32803


def cut(text: str, limit: int = MAX_MESSAGE) -> str:
    """``text`` cut to ``limit`` characters, saying how long it was."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text):,} characters)"


def brief(value: Any) -> str:
    """A client's value as echoed back in a message: its ``repr``, cut short."""
    return cut(repr(value), MAX_ECHO)


class Answered:
    """An error that is the answer to a request (the client asked for something wrong
    or refused), not a failure of the server: one log line, never a traceback."""

    message: str


class UserError(Answered, JsonRpcInvalidParams):
    """A bad request (wrong or malformed arguments): InvalidParams, message for the user."""

    def __init__(self, message: str, data: Any = None) -> None:
        super().__init__(message=cut(message), data=data)


class Refused(Answered, JsonRpcException):
    """A valid request refused in the current state (selecting a COMPLETED intent, no
    active intent, nothing to approve): RequestFailed, message for the user."""

    CODE = REQUEST_FAILED
    MESSAGE = "Request Failed"

    def __init__(self, message: str, data: Any = None) -> None:
        super().__init__(code=REQUEST_FAILED, message=cut(message), data=data)


_UNDESERIALIZABLE = "Unable to deserialize message\n%s"


class OneLineAnswers(logging.Filter):
    """pygls logs every error response with its traceback; for :class:`Answered` errors
    that becomes one bounded line (the request params are not logged either)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.msg == _UNDESERIALIZABLE:
            # A message whose params do not validate (e.g. a negative position): the frame
            # reader (transport.dispatch) answers or logs it in one line naming the field.
            return False
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, Answered):
            record.msg = "intent-ls: request answered with an error: %s"
            record.args = (exc.message,)
            record.exc_info = None
            record.exc_text = None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


def install_log_filter() -> None:
    logging.getLogger("pygls.protocol.json_rpc").addFilter(OneLineAnswers())


def _guarded(fn: F, failed: Callable[[Any, Exception], None]) -> F:
    """``fn`` (a handler, sync or async) with any exception it raises passed to ``failed``."""
    if inspect.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def run_async(ls: Any, *args: Any) -> Any:
            try:
                return await fn(ls, *args)
            except Exception as exc:
                failed(ls, exc)
                return None

        return run_async  # type: ignore[return-value]

    @functools.wraps(fn)
    def run(ls: Any, *args: Any) -> Any:
        try:
            return fn(ls, *args)
        except Exception as exc:
            failed(ls, exc)
            return None

    return run  # type: ignore[return-value]


def request(what: str) -> Callable[[F], F]:
    """For requests: unexpected errors become an Internal Error response without traceback."""

    def failed(ls: Any, exc: Exception) -> None:
        if isinstance(exc, JsonRpcException):
            raise exc  # already the answer (InvalidParams, RequestFailed, …)
        logger.error("%s failed", what, exc_info=exc)
        raise JsonRpcInternalError(message=f"intent-ls: {what} failed: {cut(str(exc))}") from None

    return lambda fn: _guarded(fn, failed)


def notification(what: str) -> Callable[[F], F]:
    """For notifications (no response to carry an error): log it and show one line."""

    def failed(ls: Any, exc: Exception) -> None:
        ls.report_failure(what, exc)

    return lambda fn: _guarded(fn, failed)
