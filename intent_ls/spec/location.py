"""Where the spec lives in a workspace. Its own module so that code which only needs to
find a workspace (the sandbox's launcher, before every agent shell command) does not
import the spec's loader and YAML (~30 ms)."""

SPEC_RELPATH = ".orchestration/active_intents.yaml"
