"""``intent-ls export --out``: the documented columns, incremental by digest, verified
ledgers only, and no part a reader could take for complete before it is."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest
from export_helpers import Workspace, intent_ls, query

from intent_ls.common.hashing import bytes_hash
from intent_ls.export.exporter import export_ledger
from intent_ls.export.layout import _name_from_url, partition
from intent_ls.ledger.records import RecordedVerdict
from intent_ls.policy.approvals import Contributor

RECORD_COLUMNS = [
    "digest",
    "id",
    "ts",
    "kind",
    "intent_id",
    "session_id",
    "mutation_class",
    "contributor_type",
    "model_id",
    "revision",
    "prev",
    "parents",
    "verdicts",
    "approvals",
    "line",
    "repo",
]
TOUCH_COLUMNS = [
    "digest",
    "path",
    "name",
    "kind",
    "start_line",
    "end_line",
    "content_hash",
    "repo",
]


def export(ws: Workspace, out: Path, *extra: str) -> str:
    done = ws.cli("export", "--out", str(out), "--repo", "acme/shop", *extra)
    assert done.returncode == 0, done.stderr
    return done.stdout


def parquet_files(out: Path) -> list[Path]:
    return sorted(out.rglob("*.parquet"))


def expected_touches(lines: list[bytes]) -> list[tuple[object, ...]]:
    """The touches rows computed from the ledger with json, independently of DuckDB."""
    expected: list[tuple[object, ...]] = []
    for line in lines:
        record = json.loads(line)
        meta = record["metadata"]["intent_ls"]
        for file in record["files"]:
            for conv in file["conversations"]:
                for r in conv["ranges"]:
                    expected.append(
                        (
                            meta["digest"],
                            file["path"],
                            None,
                            None,
                            r["start_line"],
                            r["end_line"],
                            r["content_hash"],
                        )
                    )
        for n in meta["ast_nodes"]:
            expected.append(
                (
                    meta["digest"],
                    n["path"],
                    n["name"],
                    n["kind"],
                    n["start_line"],
                    n["end_line"],
                    n["content_hash"],
                )
            )
    return expected


def test_records_table_has_the_documented_columns_and_the_exact_lines(
    recorded: Workspace, tmp_path: Path
) -> None:
    out = tmp_path / "export"
    said = export(recorded, out)
    lines = recorded.lines()
    assert f"exported {len(lines)} record(s)" in said
    assert [p.parent.name for p in parquet_files(out)] == ["repo=acme%2Fshop"] * 2
    columns = query(out, "SELECT * FROM records LIMIT 0")
    import duckdb

    described = (
        duckdb.connect()
        .execute(
            f"DESCRIBE SELECT * FROM read_parquet('{out}/records/*/*.parquet', "
            "hive_partitioning = true)"
        )
        .fetchall()
    )
    assert [c[0] for c in described] == RECORD_COLUMNS
    assert columns == []
    types = {c[0]: c[1] for c in described}
    assert types["ts"] == "TIMESTAMP WITH TIME ZONE"
    assert types["parents"] == "VARCHAR[]"
    assert types["verdicts"].startswith("STRUCT(code VARCHAR, message VARCHAR")
    rows = query(
        out,
        "SELECT repo, digest, id, ts, kind, intent_id, session_id, mutation_class, "
        "contributor_type, model_id, prev, line FROM records",
    )
    by_digest = {row[1]: row for row in rows}
    assert len(rows) == len(lines) == len(by_digest)
    for line in lines:
        record = json.loads(line)
        meta = record["metadata"]["intent_ls"]
        contributor = record["files"][0]["conversations"][0]["contributor"]
        row = by_digest[meta["digest"]]
        assert row[0] == "acme/shop"
        assert row[2] == record["id"]
        stamp = datetime.strptime(record["timestamp"], "%Y-%m-%dT%H:%M:%S.%fZ")
        assert row[3] == stamp.replace(tzinfo=UTC)
        assert row[4:8] == (
            meta["kind"],
            meta["intent_id"],
            meta["session_id"],
            meta["mutation_class"],
        )
        assert row[8:11] == (contributor["type"], contributor.get("model_id"), meta["prev"])
        assert row[11].encode() == line  # byte for byte: the export re-verifies
        assert bytes_hash(row[11].encode()) == bytes_hash(line)


def test_touches_has_one_row_per_range_and_per_ast_node(
    recorded: Workspace, tmp_path: Path
) -> None:
    out = tmp_path / "export"
    export(recorded, out)
    expected = expected_touches(recorded.lines())
    assert any(row[2] == "Invoice.pay" for row in expected)  # the AST nodes are there
    rows = query(out, f"SELECT {', '.join(TOUCH_COLUMNS[:-1])} FROM touches")
    assert sorted(rows, key=repr) == sorted(expected, key=repr)
    assert {r[0] for r in query(out, "SELECT DISTINCT repo FROM touches")} == {"acme/shop"}


def test_verdicts_and_approvals_are_lists_of_structs(recorded: Workspace, tmp_path: Path) -> None:
    out = tmp_path / "export"
    export(recorded, out)
    verdicts = query(
        out,
        "SELECT v.code, v.message, v.details FROM records, unnest(verdicts) AS u(v) "
        "WHERE kind = 'mutation' ORDER BY v.message",
    )
    assert verdicts == [
        ("out-of-scope", "README.md is outside INT-001's scope", '{"path":"README.md"}'),
        ("out-of-scope", "docs/notes.md is outside INT-001's scope", '{"path":"docs/notes.md"}'),
    ]
    approvals = query(
        out,
        "SELECT a.verdict_code, a.path, a.start_line, a.reason, a.approver.type "
        "FROM records, unnest(approvals) AS u(a)",
    )
    assert approvals == [("out-of-scope", "README.md", 1, "reviewed", "human")]


def test_a_rerun_adds_no_row_and_appended_records_are_added_once(
    recorded: Workspace, tmp_path: Path
) -> None:
    out = tmp_path / "export"
    export(recorded, out)
    said = export(recorded, out)
    assert "nothing new to export (0 appended line(s) verified)" in said
    assert len(parquet_files(out)) == 2
    recorded.save("src/billing/tax.py", "RATE = 1\n")
    recorded.save("src/billing/tax.py", "RATE = 2\n")
    said = export(recorded, out)
    assert "exported 2 record(s)" in said and "2 appended line(s) verified" in said
    assert len(parquet_files(out)) == 4
    digests = [r[0] for r in query(out, "SELECT digest FROM records")]
    ledger = [json.loads(line)["metadata"]["intent_ls"]["digest"] for line in recorded.lines()]
    assert sorted(digests) == sorted(ledger)
    assert "nothing new" in export(recorded, out)


def test_a_lost_checkpoint_costs_a_full_verification_not_a_duplicate(
    recorded: Workspace, tmp_path: Path
) -> None:
    out = tmp_path / "export"
    export(recorded, out)
    (out / "records" / "repo=acme%2Fshop" / ".intent-ls-checkpoint.json").unlink()
    recorded.save("src/billing/tax.py", "RATE = 3\n")
    said = export(recorded, out)
    assert "exported 1 record(s)" in said and "the whole ledger verified" in said
    (count, distinct), *_ = query(out, "SELECT count(*), count(DISTINCT digest) FROM records")
    assert count == distinct == len(recorded.lines())


def test_a_tampered_ledger_exits_1_and_writes_nothing(recorded: Workspace, tmp_path: Path) -> None:
    ledger = recorded.ledger.path
    data = ledger.read_bytes()
    ledger.write_bytes(data.replace(b'"INT-002"', b'"INT-003"', 1))
    out = tmp_path / "export"
    done = recorded.cli("export", "--out", str(out), "--repo", "acme/shop")
    assert done.returncode == 1
    assert "agent_trace.jsonl:" in done.stderr and "nothing was exported" in done.stderr
    assert "Traceback" not in done.stderr
    assert parquet_files(out) == []


def test_tampering_after_an_export_is_caught_by_the_next_run(
    recorded: Workspace, tmp_path: Path
) -> None:
    out = tmp_path / "export"
    export(recorded, out)
    checkpoint = out / "records" / "repo=acme%2Fshop" / ".intent-ls-checkpoint.json"
    before = checkpoint.read_bytes()
    recorded.save("src/billing/tax.py", "RATE = 1\n")
    ledger = recorded.ledger.path
    ledger.write_bytes(ledger.read_bytes().replace(b'"sess-1"', b'"sess-2"', 1))
    done = recorded.cli("export", "--out", str(out), "--repo", "acme/shop")
    assert done.returncode == 1, done.stdout
    assert ":1: record digest mismatch" in done.stderr
    assert len(parquet_files(out)) == 2
    assert checkpoint.read_bytes() == before


def test_a_duplicated_appended_line_is_refused(recorded: Workspace, tmp_path: Path) -> None:
    """A copy of an exported line appended at the end chains to nothing new: the export
    must not skip it as "already exported" but report the ledger as broken."""
    out = tmp_path / "export"
    export(recorded, out)
    ledger = recorded.ledger.path
    first = ledger.read_bytes().splitlines(keepends=True)[0]
    with ledger.open("ab") as f:
        f.write(first)
    done = recorded.cli("export", "--out", str(out), "--repo", "acme/shop")
    assert done.returncode == 1
    assert "duplicated line" in done.stderr or "chain broken" in done.stderr
    assert len(parquet_files(out)) == 2


def test_an_interrupted_run_leaves_no_part_readers_take_as_complete(
    recorded: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Killed between publishing the touches part and the records part: readers see no
    records part (temp names start with a dot, which no reader globs), and the next run
    exports every record exactly once and removes the leftovers."""
    out = tmp_path / "export"
    real_replace = os.replace

    def crash_on_records(src: os.PathLike[str], dst: os.PathLike[str]) -> None:
        if "/records/" in str(dst) and str(dst).endswith(".parquet"):
            raise KeyboardInterrupt
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", crash_on_records)
    with pytest.raises(KeyboardInterrupt):
        export_ledger(recorded.ledger.path, out, "acme/shop")
    monkeypatch.setattr(os, "replace", real_replace)
    partition_dir = out / "records" / "repo=acme%2Fshop"
    assert list(partition_dir.glob("*.parquet")) == []
    assert [p.name.startswith(".") for p in partition_dir.iterdir() if "part" in p.name] == [True]
    said = export(recorded, out)
    assert f"exported {len(recorded.lines())} record(s)" in said
    assert [p for p in out.rglob(".*.tmp")] == []
    (count, distinct), *_ = query(out, "SELECT count(*), count(DISTINCT digest) FROM records")
    assert count == distinct == len(recorded.lines())
    touches = sorted(query(out, f"SELECT {', '.join(TOUCH_COLUMNS[:-1])} FROM touches"), key=repr)
    assert touches == sorted(expected_touches(recorded.lines()), key=repr)
    assert len(list((out / "touches" / "repo=acme%2Fshop").glob("*.parquet"))) == 1


def test_many_repositories_sit_side_by_side(tmp_path: Path) -> None:
    out = tmp_path / "export"
    for name, rel in (("acme/shop", "src/billing/a.py"), ("acme/auth", "src/auth/b.py")):
        ws = Workspace(tmp_path / name.replace("/", "-"))
        ws.save(rel, "x = 1\n")
        export_ws = ws.cli("export", "--out", str(out), "--repo", name)
        assert export_ws.returncode == 0, export_ws.stderr
    rows = query(out, "SELECT repo, count(*) FROM records GROUP BY repo ORDER BY repo")
    assert rows == [("acme/auth", 1), ("acme/shop", 1)]


def test_the_default_repo_name_is_the_origin_remote_or_the_directory(
    ws: Workspace, tmp_path: Path, git_identity: None
) -> None:
    ws.save("src/billing/a.py", "x = 1\n")
    out = tmp_path / "export"
    assert ws.cli("export", "--out", str(out)).returncode == 0
    assert (out / "records" / "repo=ws").is_dir()
    import subprocess

    subprocess.run(["git", "init", "-q"], cwd=ws.root, check=True)
    subprocess.run(
        ["git", "remote", "add", "origin", "https://bot:s3cret@github.com/acme/shop.git"],
        cwd=ws.root,
        check=True,
    )
    said = ws.cli("export", "--out", str(out))
    assert said.stdout.startswith("acme/shop: exported 1 record(s)"), said.stderr
    assert "s3cret" not in said.stdout
    assert sorted(p.name for p in (out / "records").iterdir()) == ["repo=acme%2Fshop", "repo=ws"]


@pytest.mark.parametrize(
    ("url", "name"),
    [
        ("git@github.com:acme/shop.git", "acme/shop"),
        ("ssh://git@host:2222/acme/shop.git", "acme/shop"),
        ("https://user:token@gitlab.example.com/group/sub/shop.git", "sub/shop"),
        ("/srv/git/shop.git", "git/shop"),
        ("file:///srv/shop/", "srv/shop"),
    ],
)
def test_repo_names_from_remote_urls(url: str, name: str) -> None:
    assert _name_from_url(url) == name


def test_partition_names_are_escaped_and_hostile_names_refused(
    ws: Workspace, tmp_path: Path
) -> None:
    assert partition("acme/shop") == "repo=acme%2Fshop"
    assert partition("../..") == "repo=..%2F.."
    ws.save("src/billing/a.py", "x = 1\n")
    out = tmp_path / "export"
    for bad in ("", "a\nb", " padded", "x" * 300):
        done = ws.cli("export", "--out", str(out), "--repo", bad)
        assert done.returncode == 2, bad
        assert done.stderr.startswith("intent-ls: error: repository name"), done.stderr
        assert "Traceback" not in done.stderr
    done = ws.cli("export", "--out", str(out), "--repo", "../../escape")
    assert done.returncode == 0
    assert [p.name for p in (out / "records").iterdir()] == ["repo=..%2F..%2Fescape"]
    assert not (tmp_path / "escape").exists()


def test_a_symlinked_partition_is_refused(ws: Workspace, tmp_path: Path) -> None:
    ws.save("src/billing/a.py", "x = 1\n")
    out = tmp_path / "export"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (out / "records").mkdir(parents=True)
    (out / "records" / "repo=acme%2Fshop").symlink_to(elsewhere)
    done = ws.cli("export", "--out", str(out), "--repo", "acme/shop")
    assert done.returncode == 2
    assert "not a directory (a symlink?)" in done.stderr
    assert list(elsewhere.iterdir()) == []


def test_usage_errors_exit_2_with_one_line(ws: Workspace, tmp_path: Path) -> None:
    ws.save("src/billing/a.py", "x = 1\n")
    (tmp_path / "file").write_text("x")
    for args, says in (
        ((), "give one of --out DIR"),
        (("--out", str(tmp_path / "o"), "--query", "x"), "give one of --out DIR"),
        (("--out", str(tmp_path / "file")), "exists and is not a directory"),
        (("--query", "SELECT 1"), "--query needs --from DIR"),
        (("--out", str(tmp_path / "o"), "--param", "a=b"), "--from and --param go with"),
    ):
        done = ws.cli("export", *args)
        assert done.returncode == 2, args
        assert says in done.stderr, done.stderr
        assert done.stderr.count("\n") == 1


def test_no_ledger_is_nothing_to_export(ws: Workspace, tmp_path: Path) -> None:
    done = intent_ls("export", "--out", str(tmp_path / "o"), cwd=ws.root)
    assert done.returncode == 0
    assert "nothing to export: no ledger" in done.stderr
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("chunk", [97, 4096, 1 << 26])
def test_the_checkpoint_spans_chunks_and_catches_a_change_in_any(
    recorded: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    """With chunks smaller than the ledger, the checkpoint's chunks carry over from run to
    run (a partial last chunk is re-hashed over its old extent), appended lines take the
    fast path, and a one-byte change in an early chunk sends the run to full verification."""
    from intent_ls.export import source

    monkeypatch.setattr(source, "CHUNK", chunk)
    out = tmp_path / "export"
    ledger = recorded.ledger.path
    assert export_ledger(ledger, out, "r").verified_lines is None
    for i in range(3):
        recorded.save("src/billing/tax.py", f"RATE = {i}\n")
        result = export_ledger(ledger, out, "r")
        assert (result.records, result.verified_lines) == (1, 1)
    checkpoint = json.loads((out / "records" / "repo=r" / ".intent-ls-checkpoint.json").read_text())
    assert checkpoint["size"] == ledger.stat().st_size
    assert len(checkpoint["chunks"]) == -(-checkpoint["size"] // chunk)
    recorded.save("src/billing/tax.py", "RATE = 9\n")
    data = bytearray(ledger.read_bytes())
    at = data.index(b'"sess-1"')
    data[at + 6] = ord("7")
    ledger.write_bytes(bytes(data))
    with pytest.raises(source.TamperedLedger):
        export_ledger(ledger, out, "r")
    assert len(query(out, "SELECT * FROM records")) == len(recorded.lines()) - 1


def test_hostile_but_valid_records_export_without_breaking_the_run(
    ws: Workspace, tmp_path: Path
) -> None:
    """Records that verify but carry what a hostile writer can put there: escapes, NUL
    and terminal control characters, numbers beyond 64 bits, several files, extra keys."""
    import copy

    base = ws.save(
        "src/billing/a.py",
        "x = 1\n",
        verdicts=(
            RecordedVerdict("out-of-scope", 'm\n\x1b[31m\x00 "q"', {"n": 10**30, "d": [{}]}),
        ),
        contributor=Contributor("ai", 'model"\\\x00'),
    )
    huge = copy.deepcopy(base)
    huge["files"][0]["conversations"][0]["ranges"][0].update(start_line=10**30, end_line=10**30)
    ws.ledger.append(huge)
    many = copy.deepcopy(base)
    many["timestamp"] = "2026-01-01T00:00:00Z"
    many["files"].append(
        {"path": "b/ü ' x.py", "conversations": [{"contributor": {"type": "human"}, "ranges": []}]}
    )
    many["extra"] = {"anything": [1, 2]}
    ws.ledger.append(many)
    assert ws.cli("trace", "verify").returncode == 0
    out = tmp_path / "export"
    assert ws.cli("export", "--out", str(out), "--repo", "r").returncode == 0
    rows = query(out, "SELECT model_id, verdicts[1].message, ts, line FROM records")
    assert sorted(r[3].encode() for r in rows) == sorted(ws.lines())
    assert {r[0] for r in rows} == {'model"\\\x00'}
    assert {r[1] for r in rows} == {'m\n\x1b[31m\x00 "q"'}
    assert datetime(2026, 1, 1, tzinfo=UTC) in {r[2] for r in rows}
    starts = sorted(query(out, "SELECT start_line FROM touches WHERE name IS NULL"), key=repr)
    assert starts == [(1,), (1,), (None,)]  # beyond BIGINT: null, the line keeps the value


def test_a_ledger_appended_to_while_it_is_read_is_read_again(
    recorded: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An append that lands while DuckDB reads the ledger: the file is not the one
    verified any more, so the run starts over and exports every record, once."""
    from intent_ls.export import exporter

    real_stage = exporter.stage
    calls = []

    def stage_then_append(*args: object) -> object:
        staged = real_stage(*args)  # type: ignore[arg-type]
        if not calls:
            recorded.save("src/billing/late.py", "LATE = 1\n")
        calls.append(1)
        return staged

    monkeypatch.setattr(exporter, "stage", stage_then_append)
    result = export_ledger(recorded.ledger.path, tmp_path / "export", "r")
    assert len(calls) == 2
    assert result.records == len(recorded.lines())
    (count, distinct), *_ = query(
        tmp_path / "export", "SELECT count(*), count(DISTINCT digest) FROM records"
    )
    assert count == distinct == len(recorded.lines())
    assert list((tmp_path / "export").rglob(".*.tmp")) == []
