"""What intent-ls answers an agent: the same rules as the editor, for one hook event.

Before a write: the session must have selected an intent that owns the path, the file
must not have changed on disk since this session last read or wrote it, nothing under
``.orchestration/`` may be written, and a destructive change needs a human. Before a
shell command: the classifier decides, and each file it writes is judged like a file
write. After a write: a ledger record through :mod:`intent_ls.workflow`. Session start
and each prompt: the selected intent's context, or how to select one.

One module per concern, each loaded only by the events that need it:

- :mod:`.answer` — the entry point: one event in, one :class:`~..events.Outcome` out,
  a verified call bracketed by its effects;
- :mod:`.decide` — what each event decides (context, the tool gates, the record);
- :mod:`.governance` — the workspace as a hook sees it (spec, scope, paths, the session);
- :mod:`.judge_write` — a file write before it happens;
- :mod:`.judge_shell` — a shell command before it runs;
- :mod:`.shell_barrier` — the command rewritten to run under the write barrier;
- :mod:`.record` — the ledger record after a write;
- :mod:`.effects` — the gate's side of verifying a call by its effects;
- :mod:`.context` — what the model is told at session start and on each prompt;
- :mod:`.messages` — refusals and next steps, worded for the model.

Every refusal names its code, the owning intents and the exact next step, because the
model reads it and must be able to comply without a human decoding it.
"""
