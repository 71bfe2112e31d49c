"""The text merge's scalars: whatever a task says, YAML reads back the same string."""

from __future__ import annotations

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from intent_ls.importers.spec_merge import scalar


@settings(max_examples=500, deadline=None)
@given(st.text(st.characters(exclude_categories=("Cs",))))
def test_every_string_reads_back_unchanged(value: str) -> None:
    assert yaml.safe_load(f"k: {scalar(value)}\n")["k"] == value


@given(st.sampled_from(["yes", "No", "null", "~", "1.5", "0x1f", "2026-01-01", "1e3", ""]))
def test_strings_yaml_would_retype_are_quoted(value: str) -> None:
    assert scalar(value).startswith('"')
