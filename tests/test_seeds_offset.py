"""Every seed a chapter uses goes through neurips24.seeding (so `make reseed` really draws other seeds).

Flagged: in a notebook's code, a literal seed passed by keyword (``seed=3``, ``seeds=(0, 1, 2)``,
``seeds=range(3)``); in the package, a ``run_*`` entry point whose ``seed``/``seeds`` parameter defaults to a
literal, and a configuration entry ``seeds=(0, 1, 2)`` / ``"seeds": (0, 1, 2)``. Write ``neurips24.seed(3)``,
``neurips24.seeds(3)``, or default to None and resolve with ``seeding.seed``/``seeding.seeds`` inside.

The seeds of a shipped product (a table or checkpoint trained once, with its command) stay what they were: a line
that says so with a ``# shipped:`` comment (why, and which product) is not flagged.
"""
from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
SEED_NAMES = ("seed", "seeds")


def _is_seed_name(name: str | None) -> bool:
    return bool(name) and (name in SEED_NAMES or name.endswith("_seed") or name.endswith("_seeds"))


def _literal_seed(node: ast.AST) -> bool:
    """An int, a tuple/list of ints, or range(...) of ints: a seed typed in, not drawn through seeding."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, int) and not isinstance(node.value, bool)
    if isinstance(node, (ast.Tuple, ast.List)):
        return bool(node.elts) and all(_literal_seed(e) for e in node.elts)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range":
        return all(isinstance(a, ast.Constant) for a in node.args)
    return False


def literal_seed_keywords(tree: ast.AST) -> list[str]:
    """``name=<literal seed>`` keyword arguments and dict entries in ``tree``."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and _is_seed_name(node.arg) and _literal_seed(node.value):
            found.append(f"{node.arg}={ast.unparse(node.value)} (line {node.value.lineno})")
        if isinstance(node, ast.Dict):
            for k, v in zip(node.keys, node.values, strict=True):
                if isinstance(k, ast.Constant) and _is_seed_name(str(k.value)) and _literal_seed(v):
                    found.append(f"'{k.value}': {ast.unparse(v)} (line {v.lineno})")
    return found


def literal_seed_defaults(tree: ast.AST) -> list[str]:
    """``run_*`` functions whose seed parameters default to a literal."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("run_"):
            args = node.args.args + node.args.kwonlyargs
            defaults = [None] * (len(node.args.args) - len(node.args.defaults)) + list(node.args.defaults)
            defaults += list(node.args.kw_defaults)
            for a, d in zip(args, defaults, strict=True):
                if d is not None and _is_seed_name(a.arg) and _literal_seed(d):
                    found.append(f"{node.name}({a.arg}={ast.unparse(d)}) (line {d.lineno})")
    return found


def _notebook_code(path: Path) -> str:
    nb = json.loads(path.read_text(encoding="utf-8"))
    cells = ["".join(c["source"]) if isinstance(c["source"], list) else c["source"]
             for c in nb["cells"] if c["cell_type"] == "code"]
    # IPython magics are not Python
    return "\n".join("\n".join(ln for ln in c.splitlines() if not ln.lstrip().startswith(("%", "!"))) for c in cells)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebooks_type_no_seed(path):
    found = literal_seed_keywords(ast.parse(_notebook_code(path)))
    assert not found, f"{path.name} types seeds instead of neurips24.seed/seeds: {found}"


CHAPTER_MODULES = sorted(p for p in (ROOT / "src" / "neurips24").glob("*/*.py")
                         if p.parent.name != "assets" and p.name not in ("exercises.py", "kernels.py"))


def _shipped_lines(text: str) -> set[int]:
    return {i for i, line in enumerate(text.splitlines(), 1) if "# shipped:" in line}


@pytest.mark.parametrize("path", CHAPTER_MODULES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_package_entry_points_and_configs_type_no_seed(path):
    text = path.read_text(encoding="utf-8")
    tree, shipped = ast.parse(text), _shipped_lines(text)
    found = literal_seed_defaults(tree) + [f for f in literal_seed_keywords(tree)
                                           if f.startswith(("seeds=", "'seeds'"))]
    found = [f for f in found if int(f.rsplit("line ", 1)[1].rstrip(")")) not in shipped]
    assert not found, f"{path.relative_to(ROOT)}: seeds that bypass neurips24.seeding: {found}"


def test_the_scanner_finds_literal_seeds_and_accepts_seeding_calls():
    code = ("run(seed=3); run(seeds=(0, 1, 2)); run(seeds=range(3)); cfg = {'seeds': [0, 1]}\n"
            "run(seed=neurips24.seed(3)); run(seeds=neurips24.seeds(3)); run(train_seed=s)\n"
            "def run_x(scale, seed=0): pass\ndef run_y(scale, seed=None): pass\n")
    tree = ast.parse(code)
    assert len(literal_seed_keywords(tree)) == 4
    assert literal_seed_defaults(tree) == ["run_x(seed=0) (line 3)"]
