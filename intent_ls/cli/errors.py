"""The CLI's one error type, in a module of its own: the verb helpers raise it and
``main`` catches it, and neither may import the other (``main`` must stay light for the
agent hook, which never loads the helpers)."""


class CliError(Exception):
    """A user-facing failure: printed as one line on stderr, exit status 2."""
