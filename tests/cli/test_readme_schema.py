"""The README's spec-schema instructions, run as written: the command writes the schema
where the modeline points, and the example spec passes it."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import yaml

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "workspace"


def test_the_readme_schema_command_and_modeline_work_as_written(tmp_path: Path) -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    [command] = re.findall(r"```sh\n(intent-ls schema [^\n]*)\n```", readme)
    [modeline] = re.findall(r"```yaml\n(# yaml-language-server: \$schema=\S+)\n```", readme)
    root = tmp_path / "ws"
    shutil.copytree(EXAMPLE, root)
    argv = command.split()
    target = argv[argv.index(">") + 1]
    with (root / target).open("w") as out:
        subprocess.run(
            [sys.executable, "-m", "intent_ls", *argv[1 : argv.index(">")]],
            cwd=root,
            stdout=out,
            check=True,
        )
    spec = root / ".orchestration" / "active_intents.yaml"
    # yaml-language-server resolves a relative $schema against the YAML file's folder.
    schema_path = (spec.parent / modeline.split("$schema=", 1)[1]).resolve()
    assert schema_path == (root / target).resolve()
    schema = json.loads(schema_path.read_text())
    text = modeline + "\n" + spec.read_text(encoding="utf-8")
    spec.write_text(text, encoding="utf-8")
    jsonschema.Draft202012Validator(schema).validate(yaml.safe_load(text))
    check = subprocess.run(
        [sys.executable, "-m", "intent_ls", "validate", "--workspace", str(root)],
        capture_output=True,
        text=True,
    )
    assert check.returncode == 0, check.stdout + check.stderr


def test_the_readme_policy_section_validates_and_is_what_every_door_reads(
    tmp_path: Path,
) -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    [policy] = re.findall(r"```yaml\n(policy:\n.*?)```", readme, re.DOTALL)
    root = tmp_path / "ws"
    shutil.copytree(EXAMPLE, root)
    spec = root / ".orchestration" / "active_intents.yaml"
    text = spec.read_text(encoding="utf-8") + "\n" + policy
    spec.write_text(text, encoding="utf-8")
    schema = json.loads(
        subprocess.run(
            [sys.executable, "-m", "intent_ls", "schema"], capture_output=True, check=True
        ).stdout
    )
    jsonschema.Draft202012Validator(schema).validate(yaml.safe_load(text))
    from intent_ls.policy.judge import PolicyConfig
    from intent_ls.workspace.discover import Workspace

    ws = Workspace(root)
    assert ws.spec_result().problems == ()
    config = PolicyConfig.of(ws.spec())
    assert config.max_deleted_lines == 5
    assert config.protected.match("deploy/prod.yml") == "deploy/**"
    assert config.protected.match("package-lock.json") is None  # the list was replaced
