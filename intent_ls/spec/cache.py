"""A compiled copy of the spec for short-lived processes (agent hooks).

Validating a 1,000-intent spec with positions takes about half a second, and an agent
hook runs as a fresh process on every tool call. The hook needs the intents, not the
positions, so after one full validation the usable spec is kept as plain JSON under
``.orchestration/.local/`` keyed on the spec file's identity (mtime, size, inode) and a
hash of its bytes. Any mismatch, or a spec with problems, falls back to the full load,
which also refreshes the copy. Writing the copy is best-effort: a read-only sidecar
only costs speed.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from intent_ls.common.local_state import local_dir
from intent_ls.spec.model import Glob, Intent, RepoPolicy, Span, Spec, Status

if TYPE_CHECKING:
    from intent_ls.spec.model import Problem

CACHE_FILE = "spec-cache.json"
_FORMAT = 4
#: :data:`intent_ls.spec.load.MAX_SPEC_BYTES`, repeated so that a cache hit never imports the
#: YAML parser (a test keeps the two equal).
MAX_SPEC_BYTES = 1024 * 1024


def _identity(path: Path) -> tuple[list[int], bytes] | None:
    try:
        st = path.stat()
        with path.open("rb") as fh:
            data = fh.read(MAX_SPEC_BYTES + 1)
    except OSError:
        return None
    return [st.st_mtime_ns, st.st_size, st.st_ino], data


def _encode(spec: Spec) -> list[dict[str, Any]]:
    return [
        {
            "id": i.id,
            "name": i.name,
            "status": i.status.value,
            "scope": list(i.patterns),
            "constraints": list(i.constraints),
            "acceptance": list(i.acceptance_criteria),
            "related": list(i.related_files),
            "history": list(i.recent_history),
        }
        for i in spec.intents
    ]


def _encode_policy(policy: RepoPolicy) -> dict[str, Any]:
    protected = policy.protected_paths
    return {
        "maxDeletedLines": policy.max_deleted_lines,
        "protectedPaths": None if protected is None else list(protected),
        "agentProtectedPaths": list(policy.agent_protected_paths),
        "agentWritablePaths": list(policy.agent_writable_paths),
        "agentMaxTasks": policy.agent_max_tasks,
    }


def _decode_policy(saved: dict[str, Any]) -> RepoPolicy:
    protected = saved["protectedPaths"]
    return RepoPolicy(
        saved["maxDeletedLines"],
        None if protected is None else tuple(protected),
        tuple(saved["agentProtectedPaths"]),
        tuple(saved["agentWritablePaths"]),
        saved["agentMaxTasks"],
    )


def _decode(
    items: list[dict[str, Any]], legacy: bool, active: str | None, policy: RepoPolicy
) -> Spec:
    point = Span.point()  # one shared position: a hook builds 1,000 intents per call
    return Spec(
        tuple(
            Intent(
                item["id"],
                item["name"],
                Status(item["status"]),
                tuple(Glob(p, point) for p in item["scope"]),
                tuple(item["constraints"]),
                tuple(item["acceptance"]),
                tuple(item["related"]),
                tuple(item["history"]),
                span=point,
            )
            for item in items
        ),
        legacy,
        active,
        policy,
    )


def load_spec_cached(root: Path, spec_path: Path) -> tuple[Spec | None, tuple[Problem, ...]]:
    """The spec at ``spec_path`` and its problems, as :func:`~intent_ls.spec.load.load_spec_file`
    finds them; a usable spec may come from the compiled copy (then without positions and
    without the warnings, which only an editor or ``validate`` shows)."""
    found = _identity(spec_path)
    if found is None:
        from intent_ls.spec.load import load_spec_file

        missing = load_spec_file(spec_path)
        return missing.spec, missing.problems
    key, data = found
    digest = hashlib.sha256(data).hexdigest()
    cache = local_dir(root) / CACHE_FILE
    try:
        saved = json.loads(cache.read_text(encoding="utf-8"))
        if saved.get("format") == _FORMAT and saved["key"] == key and saved["sha256"] == digest:
            policy = _decode_policy(saved["policy"])
            return _decode(saved["intents"], saved["legacy"], saved["active"], policy), ()
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass
    from intent_ls.spec.load import load_spec_bytes

    result = load_spec_bytes(data)
    if result.spec is not None and not result.has_errors:
        _store(root, cache, key, digest, result.spec)
    return result.spec, result.problems


def _store(root: Path, cache: Path, key: list[int], digest: str, spec: Spec) -> None:
    body = {
        "format": _FORMAT,
        "key": key,
        "sha256": digest,
        "legacy": spec.legacy,
        "active": spec.active_intent_id,
        "intents": _encode(spec),
        "policy": _encode_policy(spec.policy),
    }
    try:
        local_dir(root, create=True)
        tmp = cache.with_name(f".{CACHE_FILE}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(body), encoding="utf-8")
        os.replace(tmp, cache)
    except OSError:
        pass
