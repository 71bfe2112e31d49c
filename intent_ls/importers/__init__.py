"""``intent-ls import``: intents proposed from the spec-driven tools' own files.

GitHub spec-kit (``specs/<feature>/``), OpenSpec (``openspec/changes/<id>/``) and Kiro
(``.kiro/specs/<feature>/``) declare work in Markdown but enforce nothing at edit time.
Each reader here turns one feature or change into one :class:`~.model.ProposedIntent`;
``spec_merge`` adds the new ones to ``active_intents.yaml`` without touching a byte of
what is already there.
"""
