"""The fields of a ledger line the index reads, as msgspec types (:mod:`.fastpath`).

Each type is the one our writer produces, or absent: a line with another type in one of
these fields fails the decode and is read by json.loads. No ``from __future__ import
annotations`` here: msgspec reads these annotations at run time.
"""

import msgspec


class Contributor(msgspec.Struct, gc=False):
    type: str | None = None
    model_id: str | None = None


class Related(msgspec.Struct, gc=False):
    type: str | None = None
    url: str = ""


class Range(msgspec.Struct, gc=False):
    content_hash: str | None = None


class Conversation(msgspec.Struct, gc=False):
    contributor: Contributor | None = None
    related: list[Related] | None = None
    ranges: list[Range] | None = None


class File(msgspec.Struct, gc=False):
    path: str | None = None
    conversations: list[Conversation] | None = None


class Node(msgspec.Struct, gc=False):
    content_hash: str | None = None
    path: str | None = None
    name: str | None = None
    kind: str | None = None


class Meta(msgspec.Struct, gc=False):
    intent_id: str | None = None
    ast_nodes: list[Node] | None = None
    digest: str | None = None
    mutation_class: str | None = None
    kind: str | None = None


class Metadata(msgspec.Struct, gc=False):
    intent_ls: Meta = msgspec.field(default_factory=Meta)


class Record(msgspec.Struct, gc=False):
    files: list[File] | None = None
    metadata: Metadata = msgspec.field(default_factory=Metadata)
    timestamp: str | None = None
