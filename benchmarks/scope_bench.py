"""Scope lookup speed: "which intents own this path" on a 1,000-intent spec (5 globs each).

Prints figures, asserts nothing. The baseline, measured in the same run, is the naive
approach: test every intent's pathspec in turn.

    python benchmarks/scope_bench.py [--intents 1000] [--lookups 20000]
"""

from __future__ import annotations

import argparse
import random
import time

import pathspec
from bench_common import median_p95

from intent_ls.scope.index import ScopeIndex
from intent_ls.spec.load import load_spec_text
from intent_ls.spec.model import Glob, Intent, Span, Spec, Status

TOP = ["src", "lib", "web", "services", "docs", "tests", "tools", "pkg"]


def make_spec(n: int, rng: random.Random) -> Spec:
    intents = []
    for i in range(n):
        top = rng.choice(TOP)
        globs = [
            f"{top}/mod{i}/**",
            f"{top}/mod{i}_*.py",
            f"{top}/shared/f{i}.ts",
            f"!{top}/mod{i}/generated/**",
            f"{top}/mod{i}/docs/",
        ]
        status = Status.IN_PROGRESS
        if i % 50 == 0:
            # A floating glob every so often. It truly overlaps every live `mod/**`
            # directory (scope-conflict says so), so its intent is a DRAFT: the spec
            # stays clean and validate measures the check, not 20,000 warnings.
            globs[2] = f"**/feature{i}.py"
            status = Status.DRAFT
        intents.append(
            Intent(
                f"INT-{i:04d}",
                f"Intent {i}",
                status,
                tuple(Glob(g, Span.point()) for g in globs),
            )
        )
    return Spec(tuple(intents))


def make_paths(n: int, intents: int, rng: random.Random) -> list[str]:
    paths = []
    for k in range(n):
        top, i = rng.choice(TOP), rng.randrange(intents)
        paths.append(
            rng.choice([
                f"{top}/mod{i}/sub/file{k}.py",
                f"{top}/mod{i}_x{k}.py",
                f"{top}/other/file{k}.go",
                f"README{k}.md",
            ])
        )  # fmt: skip
    return paths


def spec_yaml(spec: Spec) -> str:
    lines = ["active_intents:"]
    for intent in spec.intents:
        lines += [f"  - id: {intent.id}", f"    name: {intent.name}"]
        lines += [f"    status: {intent.status.value}"]
        lines += ["    owned_scope:", *(f'      - "{p}"' for p in intent.patterns)]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--intents", type=int, default=1000)
    parser.add_argument("--lookups", type=int, default=20000)
    args = parser.parse_args()
    rng = random.Random(7)
    spec = make_spec(args.intents, rng)
    paths = make_paths(args.lookups, args.intents, rng)

    started = time.perf_counter()
    index = ScopeIndex(spec)
    compile_ms = (time.perf_counter() - started) * 1000

    ours = []
    for path in paths:
        t0 = time.perf_counter()
        index.owners(path)
        ours.append((time.perf_counter() - t0) * 1e6)

    naive_specs = [pathspec.GitIgnoreSpec.from_lines(i.patterns) for i in spec.intents]
    naive = []
    for path in paths[: max(500, args.lookups // 20)]:
        t0 = time.perf_counter()
        [i for i, s in zip(spec.intents, naive_specs, strict=True) if s.match_file(path)]
        naive.append((time.perf_counter() - t0) * 1e6)

    t0 = time.perf_counter()
    for path in paths[-1000:]:
        index.owners(path)
    cached_us = (time.perf_counter() - t0) * 1e6 / 1000

    text = spec_yaml(spec)
    t0 = time.perf_counter()
    result = load_spec_text(text)
    load_cold_ms = (time.perf_counter() - t0) * 1000
    assert not result.problems, result.problems[:3]
    t0 = time.perf_counter()
    load_spec_text(text.replace("Intent 7", "Intent seven"))
    load_warm_ms = (time.perf_counter() - t0) * 1000

    o50, o95 = median_p95(ours)
    n50, n95 = median_p95(naive)
    print(f"spec: {args.intents} intents x 5 globs; {len(paths)} distinct lookups")
    print(f"compile ScopeIndex         {compile_ms:8.1f} ms (once per spec version)")
    print(f"owners() uncached          p50 {o50:7.1f} us   p95 {o95:7.1f} us")
    print(f"owners() cached (LRU)      mean {cached_us:6.2f} us")
    print(f"baseline: every pathspec   p50 {n50:7.1f} us   p95 {n95:7.1f} us")
    print(
        f"validate spec YAML (incl. scope-conflict check): first {load_cold_ms:.0f} ms, "
        f"re-validate after an edit {load_warm_ms:.0f} ms"
    )
    print(f"speed-up vs baseline       p50 x{n50 / o50:.1f}   p95 x{n95 / o95:.1f}")


if __name__ == "__main__":
    main()
