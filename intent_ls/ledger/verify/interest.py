"""Which lines a verifying pass hands back to ``intent-ls check``."""

from __future__ import annotations

import re

import attrs


@attrs.frozen
class Interest:
    """The lines a caller wants handed back by the verifying pass: ``intent-ls check``
    answers its few questions of the trace index from them instead of building it.

    A superset of the lines whose index rows (:func:`~intent_ls.ledger.index.json_rows`)
    name one of ``paths`` or have a content hash key (:func:`hash_key`) among ``keys``;
    the caller parses the lines it gets. A line the fast path proved has no escape, so a
    path there is spelled exactly ``"path":"<path>"``, and a content hash the index
    keys from its first 16 hex digits starts ``sha256:`` and those digits (any other
    form sends the line back). Every line the fast path does not prove is handed back.
    """

    paths: frozenset[str] = frozenset()
    keys: frozenset[int] = frozenset()
    _path_needles: tuple[bytes, ...] = attrs.field(init=False, eq=False, repr=False)
    _key_forms: frozenset[bytes] = attrs.field(init=False, eq=False, repr=False)

    @_path_needles.default
    def _needles_default(self) -> tuple[bytes, ...]:
        return tuple(
            b'"path":"' + p.encode("utf-8", "surrogatepass") + b'"' for p in sorted(self.paths)
        )

    @_key_forms.default
    def _key_forms_default(self) -> frozenset[bytes]:
        return frozenset(b"sha256:%016x" % (key % (1 << 64)) for key in self.keys)

    def wants(self, body: bytes) -> bool:
        """Whether a line the fast path proved may be one the caller asks for."""
        if len(self._path_needles) > _NEEDLES:
            if not self.paths.isdisjoint(p.decode() for p in _PATHS(body)):
                return True
        elif any(needle in body for needle in self._path_needles):
            return True
        if self._key_forms:
            for form in _CONTENT_HASHES(body):
                if not form or form in self._key_forms:
                    return True
        return False


#: Above this many paths, a line's paths are found and looked up rather than searched for.
_NEEDLES = 4
_PATHS = re.compile(rb'"path":"([^"]*)"').findall
_CONTENT_HASHES = re.compile(rb'"content_hash":"(sha256:[0-9a-f]{16})?').findall
