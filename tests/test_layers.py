"""The house rules: what each layer may import, checked on the real import graph."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("ofc_stats", "parsers", "reports")
HEAVY = ("pyarrow", "pandas", "duckdb", "matplotlib", "click", "rich")


def modules() -> dict[str, Path]:
    """Every project module by name; the compiled core counts as the module its stub describes."""
    found = {"ofc_stats._core": ROOT / "ofc_stats" / "_core.pyi"}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    # The compiled core imports nothing of the project; its stub stands for it (so an
    # ``from ofc_stats import _core`` is an edge to it, not to the package's __init__).
    found["ofc_stats._core"] = ROOT / "ofc_stats" / "_core.pyi"
    return found


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """Project modules ``path`` imports, at module level or inside functions."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            # `from package import module` imports the module, not the package's __init__.
            named = [f"{base}.{alias.name}" for alias in node.names]
            targets = named if all(t in known for t in named) else [base, *named]
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                out.add(target)
    return out


GRAPH = {name: imports_of(name, path, set(modules())) for name, path in modules().items()}


def under(name: str, *prefixes: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def test_importing_the_engine_loads_no_data_library() -> None:
    code = (
        "import sys, ofc_stats.engine, ofc_stats.core.scoring, ofc_stats.engine.scoring, "
        "ofc_stats.engine.ruleset_toml, ofc_stats.engine.timeout, ofc_stats.core.timeout, "
        "ofc_stats.engine.fantasy_exhaustive; "
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_the_engine_imports_only_itself_and_errors() -> None:
    for name, targets in GRAPH.items():
        if under(name, "ofc_stats.engine"):
            bad = {t for t in targets if not under(t, "ofc_stats.engine", "ofc_stats.errors")}
            assert not bad, f"{name} imports {bad}"


def test_the_compiled_core_sits_right_above_the_engine() -> None:
    """``ofc_stats.core`` wraps ``ofc_stats._core`` with rulesets compiled by the engine."""
    for name, targets in GRAPH.items():
        if under(name, "ofc_stats.core"):
            allowed = ("ofc_stats.core", "ofc_stats._core", "ofc_stats.engine", "ofc_stats.errors")
            bad = {t for t in targets if not under(t, *allowed)}
            assert not bad, f"{name} imports {bad}"
        elif under(name, "ofc_stats.engine"):
            assert not {t for t in targets if under(t, "ofc_stats.core", "ofc_stats._core")}


@pytest.mark.parametrize(
    ("layer", "allowed"),
    [
        ("ofc_stats.records", ("ofc_stats.engine", "ofc_stats.errors")),
        (
            "parsers",
            (
                "parsers",
                "ofc_stats.records",
                "ofc_stats.core",  # the core's decoders: app JSON and the open format
                "ofc_stats.engine",
                "ofc_stats.errors",
            ),
        ),
        (
            "ofc_stats.store",
            (
                "ofc_stats.store",
                "ofc_stats.records",
                "ofc_stats.core",
                "ofc_stats.engine",
                "ofc_stats.errors",
                "parsers",
            ),
        ),
    ],
)
def test_lower_layers_import_nothing_above_them(layer: str, allowed: tuple[str, ...]) -> None:
    for name, targets in GRAPH.items():
        if under(name, layer):
            bad = {t for t in targets if not under(t, *allowed)}
            assert not bad, f"{name} imports {bad}"


def test_reports_read_only_through_the_store_views() -> None:
    for name, targets in GRAPH.items():
        if under(name, "reports"):
            store = {t for t in targets if under(t, "ofc_stats.store")}
            assert store <= {"ofc_stats.store.views"}, f"{name} imports {store}"
            assert not {t for t in targets if under(t, "parsers", "ofc_stats.cli")}, name


# The layers side by side above the store: each reads the others' results through the
# store's views, never their modules (a report that imported the audit would compute, not read).
SIBLINGS = ("ofc_stats.audit", "ofc_stats.grade", "ofc_stats.sim", "ofc_stats.spark")


def test_reports_import_no_sibling_layer() -> None:
    for name, targets in GRAPH.items():
        if under(name, "reports"):
            bad = {t for t in targets if under(t, *SIBLINGS)}
            assert not bad, f"{name} imports {bad}: read it from a store view instead"


def test_a_rooms_payouts_are_neither_the_audits_nor_the_simulators() -> None:
    """Rake, settlement and paying mistakes live in ``ofc_stats.payouts``, which the audit
    and the simulator both use; neither imports the other, and payouts sits on the engine."""
    for name, targets in GRAPH.items():
        if under(name, "ofc_stats.payouts"):
            allowed = ("ofc_stats.payouts", "ofc_stats.engine", "ofc_stats.errors")
            bad = {t for t in targets if not under(t, *allowed)}
            assert not bad, f"{name} imports {bad}"
        elif under(name, "ofc_stats.sim"):
            bad = {t for t in targets if under(t, "ofc_stats.audit")}
            assert not bad, f"{name} imports {bad}: a room's money rules are ofc_stats.payouts'"
        elif under(name, "ofc_stats.audit"):
            bad = {t for t in targets if under(t, "ofc_stats.sim")}
            assert not bad, f"{name} imports {bad}"


def test_nothing_below_the_cli_imports_it() -> None:
    for name, targets in GRAPH.items():
        if not under(name, "ofc_stats.cli", "ofc_stats.__main__"):  # `python -m ofc_stats`
            assert not {t for t in targets if under(t, "ofc_stats.cli")}, name


def test_no_import_cycle_anywhere() -> None:
    """Depth-first search over every project module; a back edge is a cycle."""
    state: dict[str, int] = {}  # 1 on the stack, 2 done
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for target in sorted(GRAPH.get(node, ())):
            if state.get(target) == 1:
                cycle = [*stack[stack.index(target) :], target]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if target not in state:
                visit(target)
        stack.pop()
        state[node] = 2

    for node in sorted(GRAPH):
        if node not in state:
            visit(node)


def test_a_star_import_does_not_shadow_builtins_or_load_duckdb() -> None:
    code = "import sys; from ofc_stats import *; print(open is __builtins__.open, 'duckdb' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["True", "False"]


def test_every_error_class_lives_in_errors() -> None:
    for name, path in modules().items():
        if name == "ofc_stats.errors":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                bases = {getattr(b, "id", getattr(b, "attr", "")) for b in node.bases}
                assert not any(
                    b.endswith(("Error", "Locked")) or b == "UnknownPlayer" for b in bases
                ), f"{name}.{node.name} subclasses {bases}: put it in ofc_stats/errors.py"


def _declared(group: str | None) -> set[str]:
    """Top-level import names of ``[project] dependencies`` (or an optional group)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    listed = project["dependencies"] if group is None else project["optional-dependencies"][group]
    names = {re.split(r"[<>=!~\[; ]", spec, maxsplit=1)[0].lower() for spec in listed}
    return {n.replace("-", "_") for n in names}  # each listed package imports as its name


def test_the_product_imports_only_what_pyproject_installs() -> None:
    """`make demo` installs the dependencies alone: a module the product imports from the
    test extra (orjson once) fails only there, after every test passed."""
    allowed = set(sys.stdlib_module_names) | set(PACKAGES) | _declared(None) | {"__future__"}
    spark = _declared("spark")
    missing = []
    for name, path in modules().items():
        if path.suffix != ".py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                tops = [alias.name.partition(".")[0] for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                tops = [node.module.partition(".")[0]]
            else:
                continue
            for top in tops:
                in_spark = top in spark and name.startswith("ofc_stats.spark")
                if top not in allowed and not in_spark:
                    missing.append(f"{path.relative_to(ROOT)}:{node.lineno} imports {top}")
    assert missing == []
