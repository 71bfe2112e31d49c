"""``file:`` URIs to local paths, the one way every part of intent-ls maps them.

Clients spell the same file differently: ``file:///w/a.py``, ``file://localhost/w/a.py``,
``FILE:///w/a.py``, percent-encoded bytes. A mapping that misses a spelling leaves the file
ungoverned, and one that decodes loosely records a change under a path that does not
exist (``%ff%fe`` as U+FFFD). So the scheme is compared without case, the only accepted
authorities are empty and ``localhost``, and the path is percent-decoded to bytes and
then decoded as strict UTF-8; anything else is refused with a message saying why.
"""

from __future__ import annotations

import re

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")
_PERCENT = re.compile(rb"%([0-9A-Fa-f]{2})")


class UriError(ValueError):
    """A URI that does not name a local file; the text says why."""


def is_file_uri(uri: str) -> bool:
    match = _SCHEME.match(uri)
    return bool(match) and match.group(1).lower() == "file"


def uri_to_path(uri: str) -> str:
    """The absolute local path a ``file:`` URI names. Raises :class:`UriError`."""
    if not is_file_uri(uri):
        raise UriError(f"{_short(uri)} is not a file: URI")
    rest = uri[5:].split("#", 1)[0].split("?", 1)[0]
    if rest.startswith("//"):
        authority, slash, path = rest[2:].partition("/")
        if authority.lower() not in ("", "localhost"):
            raise UriError(f"{_short(uri)} names a file on another host ({authority})")
        path = slash + path
    else:
        path = rest
    if not path.startswith("/"):
        raise UriError(f"{_short(uri)} has no absolute path")
    try:
        raw = _PERCENT.sub(lambda m: bytes([int(m.group(1), 16)]), path.encode("utf-8"))
    except UnicodeEncodeError:  # a lone surrogate in the URI text itself
        raise UriError(f"{_short(uri)} is not valid text") from None
    try:
        decoded = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UriError(
            f"{_short(uri)} decodes to bytes that are not UTF-8 (0x{raw[exc.start]:02x}); "
            "intent-ls records paths as UTF-8 text"
        ) from None
    if "\0" in decoded:
        raise UriError(f"{_short(uri)} contains a NUL byte")
    return decoded


def path_of_uri(uri: str) -> str | None:
    """:func:`uri_to_path`, or None for anything that is not a usable local file URI."""
    try:
        return uri_to_path(uri)
    except UriError:
        return None


def _short(uri: str) -> str:
    return repr(uri if len(uri) <= 200 else uri[:200] + "…")
