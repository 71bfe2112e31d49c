"""Tree-sitter knowledge: which languages we parse and where their definitions are.

This package is import-light where it can be: :mod:`~intent_ls.syntax.languages` names
the languages without tree-sitter, and the grammar wheels load on first parse, in
:mod:`intent_ls.syntax.grammar`. Which node kinds are definitions, and where their names
are, is data: ``queries/<language>.scm``.
"""
