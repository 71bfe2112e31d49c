"""Fast unit tests for the server's pure pieces: settings parsing and edit regions."""

from __future__ import annotations

import inspect

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec
from pygls.workspace.text_document import TextDocument

from intent_ls.server.config import Config, Contributor, SeverityOption, merged, parse_config
from intent_ls.server.documents import Region, TrackedDocument
from intent_ls.server.positions import FastCodec
from intent_ls.spec.model import RepoPolicy, Spec


def test_defaults() -> None:
    assert parse_config(None) == (Config(), None)
    assert parse_config({}) == (Config(), None)
    config = Config()
    assert config.contributor.type == "unknown"  # see the README: an editor cannot tell
    assert config.ledger.fsync is True and config.code_lens.enabled is True
    assert config.destructive.max_deleted_lines is None  # the repository's
    assert config.destructive.protected_paths is None  # none beyond the repository's


def test_nested_settings() -> None:
    raw = {
        "ledger": {"fsync": False, "mapDelay": 0.5},
        "codeLens": {"enabled": False, "format": "{count}: {intents}"},
        "destructive": {"maxDeletedLines": 5, "protectedPaths": ["db/**"]},
        "analysisDelay": 0.3,
    }
    config, problem = parse_config(raw)
    assert problem is None
    assert (config.ledger.fsync, config.ledger.map_delay) == (False, 0.5)
    assert (config.code_lens.enabled, config.code_lens.format) == (False, "{count}: {intents}")
    assert config.destructive.max_deleted_lines == 5
    assert config.destructive.protected_paths == ("db/**",)
    assert config.analysis_delay == 0.3
    repository = Spec(policy=RepoPolicy(max_deleted_lines=8, protected_paths=("ci/**",)))
    policy = config.policy(repository)
    assert policy.max_deleted_lines == 5
    assert policy.protected.match("db/x.sql") == "db/**"
    assert policy.protected.match("ci/deploy.yml") == "ci/**"
    assert Config().policy(Spec()).protected.match("app/migrations/0001.py")


def test_editor_settings_only_make_the_repository_policy_stricter() -> None:
    repository = Spec(policy=RepoPolicy(max_deleted_lines=5, protected_paths=("db/**",)))
    looser, _ = parse_config(
        {"destructive": {"maxDeletedLines": 50, "protectedPaths": ["!db/**", "!db/x.sql"]}}
    )
    policy = looser.policy(repository)
    assert policy.max_deleted_lines == 5
    assert policy.protected.match("db/x.sql") == "db/**"


def test_camel_case_settings_under_the_section_or_bare() -> None:
    raw = {
        "severity": {"out-of-scope": "warning", "empty-scope": "off"},
        "contributor": {"type": "ai", "name": "bot", "modelId": "anthropic/claude"},
        "extraIgnores": ["vendor/"],
        "pollInterval": 0.25,
    }
    expected = Config(
        severity={"out-of-scope": SeverityOption.WARNING, "empty-scope": SeverityOption.OFF},
        contributor=Contributor(type="ai", name="bot", model_id="anthropic/claude"),
        extra_ignores=("vendor/",),
        poll_interval=0.25,
    )
    assert parse_config(raw) == (expected, None)
    assert parse_config({"intentLs": raw}) == (expected, None)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"extraIgnore": ["x"]}, "extraIgnore"),
        (
            {"extraIgnores": "vendor/"},
            "expected a list of strings, got str 'vendor/' @ intentLs.extraIgnores",
        ),
        ({"extraIgnores": [1]}, "expected a string"),
        ({"severity": {"out-of-scope": "loud"}}, "severity 'loud' is not one of error, warning"),
        ({"pollInterval": "fast"}, "expected a number, got str 'fast' @ intentLs.pollInterval"),
        ({"pollInterval": 0}, "pollInterval must be > 0"),
        ({"pollInterval": True}, "expected a number"),
        ({"contributor": {"type": "robot"}}, "intentLs.contributor.type"),
        ({"contributor": {"modelId": 3}}, "intentLs.contributor.modelId"),
        (
            {"ledger": {"fsync": "yes"}},
            "expected true or false, got str 'yes' @ intentLs.ledger.fsync",
        ),
        ({"ledger": {"mapDelay": -1}}, "ledger.mapDelay must be >= 0"),
        ({"codeLens": {"format": "{oops}"}}, "codeLens.format is not a valid format"),
        ({"codeLens": {"enabled": 1}}, "intentLs.codeLens.enabled"),
        ({"destructive": {"maxDeletedLines": 2.5}}, "expected an integer"),
        ({"destructive": {"protectedPaths": "x"}}, "intentLs.destructive.protectedPaths"),
        ({"analysisDelay": -0.1}, "analysisDelay must be >= 0"),
        ([1, 2], "must be an object, got list"),
    ],
)
def test_invalid_settings_fall_back_to_defaults(raw: object, message: str) -> None:
    config, problem = parse_config(raw)
    assert config == Config()
    assert problem is not None and message in problem
    assert problem.startswith(("invalid intentLs settings", "intentLs settings"))


def test_workspace_settings_override_start_up_options_key_by_key() -> None:
    start = {"intentLs": {"pollInterval": 0.1, "extraIgnores": ["a/"]}}
    config, problem = parse_config(merged(start, {"extraIgnores": ["b/"]}))
    assert problem is None
    assert (config.poll_interval, config.extra_ignores) == (0.1, ("b/",))
    assert merged(None, {"pollInterval": 2}) == {"pollInterval": 2}
    assert merged(start, None) == start["intentLs"]


def doc(text: str) -> TrackedDocument:
    return TrackedDocument("file:///x.py", text, None, None)


def test_regions_follow_the_text() -> None:
    d = doc("a\nb\nc\nd\n")
    assert d.regions() == []
    d.update("a\nB\nc\nd\n")
    assert d.regions() == [Region(1, 1)]
    d.update("new\na\nB\nc\nd\n")
    assert d.regions() == [Region(0, 0), Region(2, 2)]
    d.update("a\nb\nc\nd\n")
    assert d.regions() == []


def test_pure_deletion_sits_where_the_lines_were() -> None:
    d = doc("a\nb\nc\nd\n")
    d.update("a\nd\n")
    assert d.regions() == [Region(1, 1, inserted=False, deleted=2)]
    d.update("")
    assert d.regions() == [Region(0, 0, inserted=False, deleted=4)]


def test_absorb_accepts_only_the_touched_hunk() -> None:
    d = doc("a\nb\nc\nd\ne\n")
    d.update("A\nb\nc\nd\nE\n")
    assert d.absorb(0, 0) == 1
    assert d.regions() == [Region(4, 4)]
    assert d.absorb(2, 2) == 0


def test_untracked_documents_flag_the_whole_file_once_edited() -> None:
    d = doc("bin\0ary")
    assert d.untracked == "it is a binary file" and d.regions() == []
    d.update("bin\0ary!")
    assert d.regions() == [Region(0, 0)]
    assert d.absorb(0, 0) == 1 and d.regions() == []


_lines = st.lists(st.sampled_from(["a", "b", "c", "", "😀"]), max_size=12)


@given(_lines, _lines)
def test_regions_cover_exactly_the_changed_lines(old: list[str], new: list[str]) -> None:
    d = doc("\n".join(old))
    d.update("\n".join(new))
    regions = d.regions()
    if "\n".join(old).splitlines(keepends=True) == "\n".join(new).splitlines(keepends=True):
        assert regions == []
    else:
        assert regions
    for r in regions:
        assert 0 <= r.start <= r.end
        assert r.end < max(len(d.lines), 1)
    d.rebase()
    assert d.regions() == []


_text = st.lists(st.sampled_from(["a", "é", "😀", "日", "\n", "\r\n", "\r", " "]), max_size=20).map(
    "".join
)
_edit = st.tuples(
    st.integers(0, 8), st.integers(0, 12), st.integers(0, 8), st.integers(0, 12), _text
)


def units(text: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(text.encode("utf-8"))
    if encoding == "utf-16":
        return len(text.encode("utf-16-le")) // 2
    return len(text)


def reference_change(
    text: str, start: tuple[int, int], end: tuple[int, int], new: str, encoding: str
) -> str:
    """LSP's rules, character by character: a character past a line's end is its end
    (before the line break), a line past the document's end is the document's end, a
    character split by the units counts as passed."""
    lines = text.splitlines(keepends=True)

    def offset(line: int, character: int) -> int:
        if line >= len(lines):
            return len(text)
        body = lines[line].rstrip("\r\n")
        column = next(
            (k for k in range(len(body) + 1) if units(body[:k], encoding) >= character),
            len(body),
        )
        return sum(len(x) for x in lines[:line]) + column

    a, b = sorted([offset(*start), offset(*end)])
    return text[:a] + new + text[b:]


@given(
    _text,
    st.lists(
        st.tuples(
            st.integers(0, 8), st.integers(0, 12), st.integers(0, 8), st.integers(0, 12), _text
        ),
        max_size=6,
    ),
    st.sampled_from(["utf-8", "utf-16", "utf-32"]),
)
def test_spliced_lines_match_the_lsp_rules(
    start: str, edits: list[tuple[int, int, int, int, str]], encoding: str
) -> None:
    """Incremental changes spliced into our line list give the text LSP's rules give,
    with each range converted once (what the syntax tree is then fed)."""
    codec = FastCodec(encoding)
    expected = start
    d = doc(start)
    for l1, c1, l2, c2, new in edits:
        a, b = sorted([(l1, c1), (l2, c2)])
        change = types.TextDocumentContentChangePartial(
            range=types.Range(start=types.Position(*a), end=types.Position(*b)), text=new
        )
        before = expected
        expected = reference_change(expected, a, b, new, encoding)
        text, [converted] = d.follow([change], codec, lambda before=before: before)
        assert text == expected
        assert d.lines == expected.splitlines(keepends=True)
        assert isinstance(converted, types.TextDocumentContentChangePartial)
        assert reference_change(before, *_points(converted.range), new, "utf-32") == expected
    assert (d.regions() == []) == (d.lines == start.splitlines(keepends=True))


def _points(rng: types.Range) -> tuple[tuple[int, int], tuple[int, int]]:
    return (rng.start.line, rng.start.character), (rng.end.line, rng.end.character)


def test_a_million_character_line_converts_at_c_speed() -> None:
    line = ("é" + "a" * 98 + "😀") * 10_000
    for encoding in ("utf-8", "utf-16", "utf-32"):
        codec = FastCodec(encoding)
        total = units(line, encoding)
        assert codec.client_num_units(line) == total
        assert codec.column(line + "\n", total + 5) == len(line)
        middle = units(line[:500_000], encoding)
        assert codec.column(line, middle) == 500_000


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16", "utf-32"])
def test_live_tree_follows_changes_in_client_units(encoding: str) -> None:
    from intent_ls.server.trees import LiveTree
    from intent_ls.syntax.document import DocumentSyntax

    text = 'def f():\n    return "😀 hi"\n'
    tree = LiveTree("python", text, encoding)  # type: ignore[arg-type]
    codec = PositionCodec(encoding)  # type: ignore[arg-type]
    doc = TextDocument("file:///t.py", text, position_codec=codec)
    syntax = tree.apply(tree.take(), text)
    edits = [((1, 14), (1, 16), "hello"), ((2, 0), (2, 0), "def g():\n    pass\n")]
    for (sl, sc), (el, ec), new in edits:
        lines = doc.lines
        rng = codec.range_to_client_units(
            lines,
            types.Range(start=types.Position(sl, sc), end=types.Position(el, ec)),
        )
        change = types.TextDocumentContentChangePartial(range=rng, text=new)
        doc.apply_change(change)
        tree.push([change])
    assert tree.apply(tree.take(), doc.source) is syntax
    assert tree.resyncs == 0
    assert 'return "😀 hello"' in syntax.text
    assert syntax.definitions() == DocumentSyntax.parse(doc.source, "python").definitions()
    # a full-document change replaces the text
    tree.push([types.TextDocumentContentChangeWholeDocument(text="x = 1\n")])
    assert tree.apply(tree.take(), "x = 1\n").definitions() == []
    assert tree.resyncs == 0


def test_live_tree_edits_without_reparsing_until_it_settles() -> None:
    """A save's questions are answered from local parses while edits are pending; the
    whole-file reparse (which holds the GIL) waits for the pause in editing."""
    from intent_ls.common.diff import LineSpan
    from intent_ls.server.trees import LiveTree
    from intent_ls.syntax.document import DocumentSyntax

    lines = [f"value_{i} = {i}\n" for i in range(5_000)]
    text = "".join(lines)
    tree = LiveTree("python", text, "utf-32")
    syntax = tree.apply(tree.take(), text)
    lines[2_500] = "def added():\n    return 1\n"
    tree.push(
        [
            types.TextDocumentContentChangePartial(
                range=types.Range(start=types.Position(2_500, 0), end=types.Position(2_501, 0)),
                text=lines[2_500],
            )
        ]
    )
    text = "".join(lines)
    assert tree.apply(tree.take(), text) is syntax
    snapshot = tree.current(text)
    assert snapshot.syntax is not None
    nodes = snapshot.syntax.definitions_for_spans([LineSpan(2_501, 2_502)])
    assert [n.name for n in nodes] == ["added"]
    assert (syntax.reparses, snapshot.syntax.reparses) == (0, 0)
    tree.settle(tree.take(), text)
    assert (syntax.reparses, syntax.dirty) == (1, None)
    assert str(syntax.tree.root_node) == str(DocumentSyntax.parse(text, "python").tree.root_node)


def _missing(obj: object, protocol: type) -> list[str]:
    """The members of ``protocol`` that ``obj`` lacks (looked up without running any)."""
    names = {n for n in vars(protocol) if not n.startswith("_")} | set(protocol.__annotations__)
    absent = object()
    return sorted(n for n in names if inspect.getattr_static(obj, n, absent) is absent)


def test_the_server_object_offers_all_that_features_ask_of_it() -> None:
    """Features see the server as a Hub (server/hub.py), a Protocol no type checker runs
    on here: a member renamed on one side only fails this test."""
    from intent_ls.server.app import build_server
    from intent_ls.server.hub import Analyses, Hub, Records

    server = build_server()
    assert _missing(server, Hub) == []
    assert _missing(server.recorder, Records) == []
    assert _missing(server.analyzer, Analyses) == []
    assert {"config", "publish", "workspace"} <= set(_missing(object(), Hub))
