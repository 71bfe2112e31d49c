"""Which intent owns a path: the scope index, gitignore glob translations, protected
paths and overlapping scopes."""
