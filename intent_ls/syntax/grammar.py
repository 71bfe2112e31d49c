"""Loads grammars and definition queries on first use, once per process."""

from __future__ import annotations

import importlib
from functools import cache
from importlib import resources

import tree_sitter

from intent_ls.syntax.languages import GRAMMARS


@cache
def language(name: str) -> tree_sitter.Language:
    module_name, func = GRAMMARS[name]
    module = importlib.import_module(module_name)
    return tree_sitter.Language(getattr(module, func)())


@cache
def definitions_query(name: str) -> tree_sitter.Query:
    source = resources.files("intent_ls.syntax").joinpath("queries", f"{name}.scm")
    return tree_sitter.Query(language(name), source.read_text(encoding="utf-8"))


def parser(name: str) -> tree_sitter.Parser:
    """A fresh parser: parsers hold per-parse state, so documents do not share one."""
    return tree_sitter.Parser(language(name))
