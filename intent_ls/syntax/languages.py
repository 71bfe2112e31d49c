"""The languages intent-ls parses, and how a file or an editor's languageId names one.

Import-light (no tree-sitter): the agent hooks and the CLI ask which language a path is
in without loading a grammar.
"""

from __future__ import annotations

from pathlib import PurePath

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
