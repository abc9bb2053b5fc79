"""The reference package (khasino_sim/reference/) stays an independent oracle: standard library only, nothing
of the Numba kernels or the compiled engine, no import cycle between its modules, and the former import paths
(``khasino_sim.reference`` as the Khasino engine, ``reference_cassino``, ``reference_kasino``) still work."""
import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "khasino_sim" / "reference"
MODULES = ["khasino_sim.reference"] + [f"khasino_sim.reference.{p.stem}" for p in sorted(PACKAGE.glob("*.py"))
                                       if p.stem != "__init__"]
SHIMS = ["khasino_sim.reference_cassino", "khasino_sim.reference_kasino"]
FORBIDDEN = ("numpy", "numba", "khasino_sim.kernels", "khasino_sim.engine", "khasino_sim.kasino_engine")


@pytest.mark.parametrize("module", MODULES + SHIMS)
def test_imports_alone_without_the_kernels(module):
    """Each module imports on its own in a fresh process and pulls in none of the compiled core."""
    code = (f"import sys, {module}\n"
            f"bad = [m for m in sys.modules if m in {FORBIDDEN!r} or m.startswith(('numpy.', 'numba.'))]\n"
            "print(','.join(bad))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "", f"{module} imported {out.stdout.strip()}"


def _imports(path: Path) -> set[str]:
    """The package modules (stems; ``__init__`` for the package) that a module of the package imports."""
    tree = ast.parse(path.read_text())
    stems = {p.stem for p in PACKAGE.glob("*.py")}
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1:                      # from . import x / from .x import y
                base = node.module
            elif node.module and node.module.startswith("khasino_sim.reference"):
                base = node.module[len("khasino_sim.reference"):].lstrip(".") or None
            else:
                base = ""
            if base == "":
                continue
            if base is None:
                out |= {a.name for a in node.names if a.name in stems} or {"__init__"}
            else:
                out.add(base.split(".")[0])
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("khasino_sim.reference"):
                    rest = a.name[len("khasino_sim.reference"):].lstrip(".")
                    out.add(rest.split(".")[0] or "__init__")
    return out


def test_import_graph_is_acyclic():
    graph = {p.stem: _imports(p) - {p.stem} for p in PACKAGE.glob("*.py")}
    assert graph["common"] == set(), "common imports no family"
    assert "khasino" not in graph["kasino"]
    state = {}

    def visit(node, path):
        if state.get(node) == "done":
            return
        assert state.get(node) != "open", f"import cycle: {' -> '.join(path + [node])}"
        state[node] = "open"
        for nxt in sorted(graph.get(node, ())):
            visit(nxt, path + [node])
        state[node] = "done"

    for node in sorted(graph):
        visit(node, [])


def test_standard_library_only():
    """No module of the package imports anything outside the standard library and the package itself."""
    allowed = set(sys.stdlib_module_names) | {"__future__"}
    for p in PACKAGE.glob("*.py"):
        for node in ast.walk(ast.parse(p.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module]
            for n in names:
                assert n.split(".")[0] in allowed or n.startswith("khasino_sim.reference"), f"{p.name}: {n}"


def test_former_paths_are_the_new_modules():
    """The former paths give the very objects of the new modules (one engine, not a copy)."""
    import khasino_sim.reference as R
    import khasino_sim.reference_cassino as RC
    import khasino_sim.reference_kasino as RK
    from khasino_sim.reference import cassino, common, kasino, khasino

    for name in khasino.__all__ + ["_Collections", "_Gen", "_collections", "_from_json", "_to_json"]:
        assert getattr(R, name) is getattr(khasino, name), name
    for name in ("BOT_SALT", "M64", "Z", "k10_order", "fmix", "SplitMix64"):
        assert getattr(R, name) is getattr(common, name), name
    for shim, module in ((RC, cassino), (RK, kasino)):
        assert shim.__all__ == module.__all__
        for name in module.__all__:
            assert getattr(shim, name) is getattr(module, name), name
    assert RK._from_json is kasino._from_json and RC.fmix is common.fmix
    assert R._Gen is khasino._Gen                      # reached through the module __getattr__ too
    with pytest.raises(AttributeError):
        R.no_such_name
