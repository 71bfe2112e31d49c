"""Programs whose effects no file put-back can undo: signals, shutdowns and database
drops (every run), and the subcommands of registry, cloud and cluster tools that publish
or delete there."""

from __future__ import annotations

from collections.abc import Sequence

from intent_ls.agents.shell.model import Word
from intent_ls.agents.shell.walk import DESTRUCTIVE, UNKNOWN, Walk

#: Programs whose every run is irreversible: signals, shutdowns, database drops.
IRREVERSIBLE = frozenset(
    ["kill", "pkill", "killall", "dropdb", "dropuser", "shutdown", "reboot", "halt", "poweroff"]
)
#: Tools that act on something outside the machine (a registry, a cloud, a cluster):
#: the subcommands (any operand) that publish or delete there, which nobody can undo.
REMOTE_IRREVERSIBLE: dict[str, frozenset[str]] = {
    "npm": frozenset(["publish", "unpublish", "deprecate"]),
    "yarn": frozenset(["publish", "npm"]),
    "pnpm": frozenset(["publish"]),
    "cargo": frozenset(["publish", "yank", "owner"]),
    "twine": frozenset(["upload", "register"]),
    "gem": frozenset(["push", "yank"]),
    "poetry": frozenset(["publish"]),
    "uv": frozenset(["publish"]),
    "flit": frozenset(["publish"]),
    "hatch": frozenset(["publish"]),
    "docker": frozenset(["push", "rm", "rmi", "prune", "kill"]),
    "podman": frozenset(["push", "rm", "rmi", "prune", "kill"]),
    "kubectl": frozenset(["delete", "drain", "replace", "scale"]),
    "helm": frozenset(["uninstall", "delete", "rollback"]),
    "terraform": frozenset(["destroy", "apply"]),
    "tofu": frozenset(["destroy", "apply"]),
    "pulumi": frozenset(["destroy", "up"]),
    "gh": frozenset(["delete", "merge", "publish"]),
    "aws": frozenset(["rm", "rb", "delete", "terminate-instances"]),
    "gsutil": frozenset(["rm", "rb"]),
    "gcloud": frozenset(["delete"]),
    "az": frozenset(["delete"]),
    "heroku": frozenset(["apps:destroy", "destroy", "pg:reset"]),
    "vercel": frozenset(["remove", "rm"]),
    "fly": frozenset(["destroy"]),
    "redis-cli": frozenset(["flushall", "flushdb"]),
}


def irreversible(walk: Walk, name: str, rest: Sequence[Word], depth: int) -> None:
    walk.raise_to(DESTRUCTIVE, f"{name} cannot be undone")


def remote(walk: Walk, name: str, rest: Sequence[Word], depth: int = 0) -> None:
    """A publish or a delete on a registry, cloud or cluster is held; the rest of what
    these tools do (build, test, install, plan, list) runs and is judged by its effects."""
    words = {(w.value or "").lower() for w in rest}
    if name == "aws":
        # ``delete-table``, ``terminate-instances``; ``s3 sync --delete`` erases too.
        words |= {
            w.lstrip("-").split("-", 1)[0]
            for w in words
            if w.lstrip("-").startswith(("delete", "terminate-"))
        }
    hit = sorted(words & REMOTE_IRREVERSIBLE[name])
    if hit:
        walk.raise_to(DESTRUCTIVE, f"{name} {hit[0]} publishes or deletes where nothing undoes it")
    else:
        walk.raise_to(UNKNOWN, f"{name} is not a program intent-ls knows the effects of")


HANDLERS = {
    **dict.fromkeys(IRREVERSIBLE, irreversible),
    # ``docker``/``podman`` are first daemons' clients (:mod:`.daemons`), which asks here.
    **dict.fromkeys(REMOTE_IRREVERSIBLE.keys() - {"docker", "podman"}, remote),
}
