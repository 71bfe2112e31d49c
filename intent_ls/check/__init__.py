"""``intent-ls check``: the CI gate that turns the trace ledger into an enforceable rule.

``engine`` holds the rule, ``git`` the only subprocess edge, ``report`` the renderers.
See ``docs/check.md``.
"""
