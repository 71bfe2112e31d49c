"""Tree-sitter knowledge: which languages we parse and where their definitions are.

This package root is import-light (no tree-sitter): the grammar wheels load on first
parse, in :mod:`intent_ls.syntax.grammar`. Which node kinds are definitions, and where
their names are, is data: ``queries/<language>.scm``.
"""

from __future__ import annotations

from pathlib import PurePath

from intent_ls.syntax.model import AstNode

#: Our language name → (grammar wheel module, function returning the language pointer).
GRAMMARS: dict[str, tuple[str, str]] = {
    "python": ("tree_sitter_python", "language"),
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "go": ("tree_sitter_go", "language"),
    "rust": ("tree_sitter_rust", "language"),
    "java": ("tree_sitter_java", "language"),
}

EXTENSIONS: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
}

#: LSP ``languageId`` → our language name.
LANGUAGE_IDS: dict[str, str] = {
    "python": "python",
    "javascript": "javascript",
    "javascriptreact": "javascript",
    "typescript": "typescript",
    "typescriptreact": "tsx",
    "go": "go",
    "rust": "rust",
    "java": "java",
}


def language_for(*, language: str | None = None, path: str | PurePath | None = None) -> str | None:
    """Our language name from an LSP languageId or, failing that, the file extension.

    A languageId is trusted over the extension (an untitled buffer has none), but a
    ``typescriptreact`` id cannot be refined further, so ``.tsx`` is what selects TSX.
    """
    if language:
        found = LANGUAGE_IDS.get(language) or (language if language in GRAMMARS else None)
        if found:
            return found
    if path is not None:
        return EXTENSIONS.get(PurePath(path).suffix.lower())
    return None


def definitions(text: str, language: str | None) -> list[AstNode]:
    """Every named definition in ``text`` (for code lens); [] for unsupported languages."""
    if language not in GRAMMARS:
        return []
    from intent_ls.syntax.document import DocumentSyntax

    return DocumentSyntax.parse(text, language).definitions()


__all__ = ["EXTENSIONS", "GRAMMARS", "LANGUAGE_IDS", "AstNode", "definitions", "language_for"]
