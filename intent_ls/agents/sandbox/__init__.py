"""The sandbox an agent's shell commands run in: an allow-list the kernel enforces.

Everything a command starts — its children, daemons, ``setsid`` descendants — may write
the workspace, a private ``/tmp`` and the development caches, and nothing else; inside
the workspace the protected paths stay read-only; no capabilities, locked mounts, no
host daemon sockets. bubblewrap (:mod:`.bwrap`) builds it from a plan
(:mod:`.plan`); Landlock scopes (:mod:`.landlock`) keep signals and abstract Unix
sockets inside it where the kernel has them. Which of these holds here is one value
(:mod:`.environment`), which ``doctor`` and each session start report.
"""
