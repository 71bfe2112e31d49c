"""The imports of intent_ls/ draw the architecture (docs/architecture.md): packages in
layers, arrows pointing one way, no cycles.

Every import counts: module-level, inside functions and under ``TYPE_CHECKING`` alike,
since a function-level import is still a dependency and a type-only one still ties two
modules' meanings together.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "intent_ls"

#: Lowest first; a package may import its own layer and the layers below, never above.
LAYERS: tuple[frozenset[str], ...] = (
    frozenset({"common"}),
    frozenset({"spec"}),
    frozenset({"scope"}),
    frozenset({"syntax"}),
    frozenset({"policy"}),
    frozenset({"ledger"}),
    frozenset({"workflow", "workspace"}),
    frozenset({"export", "importers", "report"}),
    frozenset({"check", "agents", "server"}),
    frozenset({"doctor"}),
    frozenset({"cli"}),
)
RANK = {package: n for n, layer in enumerate(LAYERS) for package in layer}
#: The front doors of one layer stay apart: an agent hook or the CI gate never loads the
#: language server, and neither loads the other.
APART = frozenset({"check", "agents", "server"})


def modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        if parts[0] == "examples":
            continue
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def imports(path: Path, known: dict[str, Path]) -> Iterator[tuple[int, str]]:
    """(line, module) of every intent_ls import in ``path``, names relative to intent_ls."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            # ``from intent_ls.spec.load import shape`` imports the module spec.shape.
            targets = [
                f"{node.module}.{a.name}"
                if f"{node.module}.{a.name}".removeprefix("intent_ls.") in known
                else node.module
                for a in node.names
            ]
        else:
            continue
        for target in targets:
            if target.startswith("intent_ls."):
                yield node.lineno, target.removeprefix("intent_ls.")


def graph() -> dict[str, set[str]]:
    known = modules()
    return {
        name: {t for _, t in imports(path, known) if t in known and t != name}
        for name, path in known.items()
    }


def cycles(edges: dict[str, set[str]]) -> set[tuple[str, ...]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: set[tuple[str, ...]] = set()
    for root in edges:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.add(tuple(sorted(component)))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(edges[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


def test_imports_point_one_way() -> None:
    known = modules()
    wrong = []
    for name, path in sorted(known.items()):
        mine = name.split(".")[0]
        for line, target in imports(path, known):
            theirs = target.split(".")[0]
            if mine not in RANK or theirs not in RANK or mine == theirs:
                continue
            if RANK[theirs] > RANK[mine] or {mine, theirs} <= APART:
                wrong.append(f"intent_ls/{path.relative_to(PACKAGE)}:{line}: {mine} -> {theirs}")
    assert wrong == []


def test_every_package_has_a_layer() -> None:
    packages = {name.split(".")[0] for name in modules() if "." in name}
    assert packages - {"data"} == set(RANK) - {"workflow"}


def test_no_import_cycles() -> None:
    assert cycles(graph()) == set()


def test_the_cycle_finder_finds_a_function_level_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == {("a", "b", "c")}
    assert cycles({"a": {"b"}, "b": set()}) == set()


def test_only_the_wiring_imports_the_language_server_object() -> None:
    """Features take a ``server.hub.Hub``; ``server.app`` alone wires them to the server
    object, so that no feature depends on the hub that composes it."""
    edges = graph()
    assert {name for name, targets in edges.items() if "server.server" in targets} == {"server.app"}


# -- a rule's code is branched on in its own file only -----------------------------------

#: Where codes may be listed: the registry and the vocabulary that re-exports it.
REGISTRIES = frozenset({"policy.rules", "policy.verdicts"})


def rule_codes() -> tuple[dict[str, str], dict[str, str]]:
    """(code -> the module of its rule, constant name -> code) for every registered rule:
    the constants are ``CODE`` in a rule's file and the names ``policy/verdicts.py``
    gives them."""
    from intent_ls.policy.rules import REGISTRY

    home = {}
    for rule in REGISTRY:
        module = rule.judge.__module__ if rule.judge else None
        home[rule.code] = module or _module_defining(rule.code)
    names = {}
    tree = ast.parse((PACKAGE / "policy" / "verdicts.py").read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                if alias.name == "CODE" and alias.asname:
                    names[alias.asname] = _code_of(node.module)
    return home, names


def _module_defining(code: str) -> str:
    for name, path in modules().items():
        if name.startswith("policy.rules.") and f'CODE = "{code}"' in path.read_text("utf-8"):
            return f"intent_ls.{name}"
    raise AssertionError(f"no rule file defines {code!r}")


def _code_of(module: str) -> str:
    import importlib

    return str(importlib.import_module(module).CODE)


def _names_a_code(node: ast.AST, codes: set[str], names: dict[str, str]) -> str | None:
    """The code ``node`` names: a code literal, a code constant, or a collection
    literal holding one."""
    if isinstance(node, ast.Constant) and node.value in codes:
        return str(node.value)
    if isinstance(node, ast.Name) and node.id in names:
        return names[node.id]
    if isinstance(node, ast.Attribute) and node.attr in names:
        return names[node.attr]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        for item in node.elts:
            found = _names_a_code(item, codes, names)
            if found is not None:
                return found
    if _is_collection_call(node):  # frozenset({...}), set([...])
        assert isinstance(node, ast.Call)
        return _names_a_code(node.args[0], codes, names)
    return None


def _is_collection_call(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in {"frozenset", "set", "tuple", "list"}
        and bool(node.args)
    )


def code_branches(source: str, codes: set[str], names: dict[str, str]) -> list[tuple[int, str]]:
    """(line, code) of every comparison or membership test against a rule code, and of
    every module-level table (a collection or mapping literal) listing codes."""
    found = []
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for operand in (node.left, *node.comparators):
                code = _names_a_code(operand, codes, names)
                if code is not None:
                    found.append((node.lineno, code))
    for statement in tree.body:
        value = statement.value if isinstance(statement, (ast.Assign, ast.AnnAssign)) else None
        if isinstance(value, ast.Dict):
            listed = [_names_a_code(k, codes, names) for k in value.keys if k is not None]
        elif value is not None and not isinstance(value, (ast.Constant, ast.Name)):
            listed = [_names_a_code(value, codes, names)]
        else:
            listed = []
        found += [(statement.lineno, code) for code in listed if code is not None]
    return found


def test_no_module_branches_on_another_rules_code() -> None:
    """What a verdict means is asked of its rule (``rule_of(code)``): only the rule's own
    file compares against its code, and no module keeps a table of codes beside the
    registry, so a new rule is one file and changes no other module."""
    home, names = rule_codes()
    codes = set(home)
    wrong = []
    for name, path in sorted(modules().items()):
        if name in REGISTRIES:
            continue
        for line, code in code_branches(path.read_text(encoding="utf-8"), codes, names):
            if home[code] != f"intent_ls.{name}":
                wrong.append(f"intent_ls/{path.relative_to(PACKAGE)}:{line}: {code}")
    assert wrong == []


def test_the_code_branch_finder_finds_comparisons_and_tables() -> None:
    names = {"DESTRUCTIVE_EDIT": "destructive-edit", "STALE_FILE": "stale-file"}
    codes = set(names.values())
    source = (
        "TABLE = frozenset({verdicts.STALE_FILE})\n"
        "SEVERITY = {'stale-file': 1}\n"
        "def f(v):\n"
        "    if v.code == DESTRUCTIVE_EDIT:\n"
        "        return v.code in (STALE_FILE, 'x')\n"
        "    return v.get('code') != 'stale-file' and v.code == other\n"
        "def g(approvals):\n"
        "    return approvals.find(STALE_FILE, 'p', None) is not None\n"
    )
    assert code_branches(source, codes, names) == [
        (4, "destructive-edit"),
        (5, "stale-file"),
        (6, "stale-file"),
        (1, "stale-file"),
        (2, "stale-file"),
    ]


#: Modules allowed to name an agent outside its folder: the list of agents itself.
AGENT_REGISTRY = "agents.registry"


def _agent_words() -> dict[str, re.Pattern[str]]:
    """Per agent folder, how code would name it: its CLI name, its folder, the first word
    of its name (``claude`` of ``claude-code``), in any case. A file name the project
    shares with an agent's convention (``CLAUDE.md``, the brain) does not count."""
    from intent_ls.agents.registry import BUILT_IN

    found = {}
    for name, folder in BUILT_IN.items():
        words = sorted({name, folder, re.split(r"[-_]", name)[0]}, key=len, reverse=True)
        alternatives = "|".join(re.escape(w) for w in words)
        found[folder] = re.compile(rf"(?<![a-z])(?:{alternatives})(?![a-z])(?!\.md)", re.I)
    return found


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def _code_words(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """(line, text) of every string literal that is not a docstring, every name and
    attribute, every definition and every import: what code could branch on or reach
    an agent by. Prose (docstrings, comments) may still say which agent a fact is from."""
    docs = _docstrings(tree)
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) not in docs:
                yield line, node.value
        elif isinstance(node, ast.Name):
            yield line, node.id
        elif isinstance(node, ast.Attribute):
            yield line, node.attr
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield line, node.name
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield line, node.module
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield from ((line, alias.name) for alias in node.names)


def named_agents(source: str) -> list[tuple[int, str, str]]:
    """(line, agent folder, text) wherever the code of ``source`` names an agent."""
    words = _agent_words()
    return [
        (line, folder, text)
        for line, text in _code_words(ast.parse(source))
        for folder, pattern in words.items()
        if pattern.search(text)
    ]


def test_no_module_outside_an_agents_folder_names_it() -> None:
    """An agent is its folder (agents/<folder>/) and its profile: every other module
    reads the profile from the registry, so that adding an agent touches nothing else
    (docs/architecture.md, "Adding an agent"). An agent's folder may state facts about
    another agent (Gemini CLI sets ``CLAUDE_PROJECT_DIR`` too) but not import its code:
    a format they share lives outside both (``agents/hook_json.py``)."""
    folders = set(_agent_words())
    wrong = []
    for name, path in sorted(modules().items()):
        if name == AGENT_REGISTRY:
            continue
        parts = name.split(".")
        own = parts[1] if parts[0] == "agents" and len(parts) > 1 and parts[1] in folders else None
        for line, folder, text in named_agents(path.read_text(encoding="utf-8")):
            if own is None or (folder != own and text.startswith(f"intent_ls.agents.{folder}")):
                wrong.append(f"intent_ls/{path.relative_to(PACKAGE)}:{line}: {text[:60]!r}")
    assert wrong == []


def test_the_agent_name_finder_finds_names_in_code_not_in_prose() -> None:
    source = (
        '"""Claude Code and Gemini CLI both do this."""\n'
        "# codex too\n"
        "from intent_ls.agents.codex import adapter\n"
        'if agent == "claude-code":\n'
        '    os.environ.get("GEMINI_PROJECT_DIR")\n'
        'BRAIN = ".orchestration/CLAUDE.md"\n'
    )
    assert [(line, folder) for line, folder, _ in named_agents(source)] == [
        (3, "codex"),
        (4, "claude_code"),
        (5, "gemini"),
    ]
