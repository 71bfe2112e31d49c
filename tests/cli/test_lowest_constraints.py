"""tools/lowest_constraints.py pins every runtime dependency, so CI tests each lower bound."""

from __future__ import annotations

import importlib.util
import tomllib
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[2]


def load_tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("lowest", REPO / "tools/lowest_constraints.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_runtime_dependency_is_pinned_to_its_lower_bound() -> None:
    pins = load_tool().lowest_pins(REPO / "pyproject.toml")
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    optional = project["optional-dependencies"]
    assert len(pins) == len(project["dependencies"]) + len(optional["otlp"])
    assert "pyyaml==6.0" in pins
    assert "opentelemetry-sdk==1.39" in pins  # the otlp extra's, which the test extra pulls in
    assert "intent-ls[otlp]" in optional["test"]
    assert all("==" in pin and ">" not in pin for pin in pins)


def test_a_dependency_without_a_lower_bound_is_named(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\ndependencies = ["pygls<3"]\n')
    with pytest.raises(SystemExit, match=r"no lower bound.*pygls<3"):
        load_tool().lowest_pins(tmp_path / "pyproject.toml")
