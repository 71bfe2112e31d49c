"""editors/vscode: the settings the extension contributes and forwards match the server's.

The extension is built with npm (see editors/README.md); this checks, without node, that
its configuration schema and the keys it sends stay in step with intent_ls/server/config.py
(the server rejects unknown keys, so a drift would silently reset settings to defaults).
"""

from __future__ import annotations

import json
import re

import attrs
from editor_harness import EDITORS

from intent_ls.server.config import Config, Contributor, SeverityOption, _camel

VSCODE = EDITORS / "vscode"
CLIENT_ONLY = {"serverCommand", "startEverywhere", "trace.server"}


def _contributed() -> dict[str, dict]:
    package = json.loads((VSCODE / "package.json").read_text())
    props = package["contributes"]["configuration"]["properties"]
    return {key.removeprefix("intentLs."): value for key, value in props.items()}


def test_schema_covers_exactly_the_server_settings() -> None:
    server_keys = {_camel(f.name) for f in attrs.fields(Config)}
    assert set(_contributed()) - CLIENT_ONLY == server_keys


def test_extension_forwards_exactly_the_server_settings() -> None:
    source = (VSCODE / "src" / "extension.ts").read_text()
    match = re.search(r"SERVER_KEYS = \[([^\]]*)\]", source)
    assert match, "SERVER_KEYS not found in extension.ts"
    forwarded = set(re.findall(r"'([A-Za-z]+)'", match.group(1)))
    assert forwarded == {_camel(f.name) for f in attrs.fields(Config)}


def test_schema_types_and_defaults_match_the_server() -> None:
    props = _contributed()
    defaults = Config()
    assert props["pollInterval"]["default"] == defaults.poll_interval
    assert props["extraIgnores"]["default"] == list(defaults.extra_ignores)
    assert props["severity"]["default"] == {}
    assert props["severity"]["additionalProperties"]["enum"] == [s.value for s in SeverityOption]
    contributor = props["contributor"]
    assert set(contributor["properties"]) == {_camel(f.name) for f in attrs.fields(Contributor)}
    assert contributor["default"]["type"] == Contributor().type
    assert contributor["properties"]["type"]["enum"] == ["human", "ai", "mixed", "unknown"]


def test_manifest_attaches_to_every_file_and_names_the_palette_commands() -> None:
    package = json.loads((VSCODE / "package.json").read_text())
    source = (VSCODE / "src" / "extension.ts").read_text()
    assert "documentSelector: [{ scheme: 'file' }, { scheme: 'untitled' }]" in source
    titles = {f"{c['category']}: {c['title']}" for c in package["contributes"]["commands"]}
    assert "intent-ls: Select active intent…" in titles
    for command in package["contributes"]["commands"]:
        assert f"registerCommand('{command['command']}'" in source, command
    assert package["engines"]["vscode"] == "^1.91.0"
    assert package["dependencies"]["vscode-languageclient"].startswith("11.")


def test_manifest_is_releasable_and_starts_only_where_governed() -> None:
    package = json.loads((VSCODE / "package.json").read_text())
    assert package["publisher"] == "intent-ls"
    assert "private" not in package
    # No public URL exists yet: no repository field rather than a made-up one.
    assert "example.invalid" not in json.dumps(package)
    assert package["activationEvents"][0] == "workspaceContains:.orchestration/active_intents.yaml"
    icon = VSCODE / package["icon"]
    assert icon.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    for name in ("README.md", "CHANGELOG.md"):
        assert (VSCODE / name).is_file()
    [validation] = package["contributes"]["yamlValidation"]
    assert validation == {
        "fileMatch": "**/.orchestration/active_intents.yaml",
        "url": "./schemas/active_intents.schema.json",
    }
    assert (
        "node scripts/schema.mjs"
        in package["scripts"]["vscode:prepublish"] + package["scripts"]["schema"]
    )
    [view] = package["contributes"]["views"]["explorer"]
    assert (view["id"], view["name"]) == ("intentLs.intents", "Intents")
