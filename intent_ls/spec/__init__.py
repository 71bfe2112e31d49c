"""The spec, ``active_intents.yaml``: its typed model, shape, loader, JSON Schema, glob
checks, formatting-preserving edits and the compiled cache hooks read."""
