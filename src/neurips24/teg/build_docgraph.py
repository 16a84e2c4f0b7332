"""Rebuild the shipped docstring graph from the installed NumPy, SciPy and scikit-learn.

    python -m neurips24.teg.build_docgraph            # writes src/neurips24/teg/data/docgraph.json.gz
    python -m neurips24.teg.build_docgraph --out x.json.gz

A node is a public callable (function, class, ufunc) of one of the modules in :data:`MODULES`, with its numpydoc
*Summary* as node text and its module as label. An edge u -> v is an entry v of u's *See Also* section, with the
entry's description as edge text (None when the entry has none): the role a citation's context plays in TEG-DB
(Li et al., NeurIPS 2024). Docstrings are parsed by numpydoc's ``NumpyDocString``, as vendored in scikit-learn
(``sklearn.externals._numpydoc``). Docstrings change between releases, so the file records the library versions;
the chapter reads the shipped file, never this script's output at run time.
"""
from __future__ import annotations

import argparse
import gzip
import importlib
import inspect
import json
import pkgutil
import platform
import re
import warnings
from pathlib import Path

DATA = Path(__file__).with_name("data") / "docgraph.json.gz"
MODULES = ("numpy", "numpy.linalg", "numpy.fft", "numpy.random", "numpy.polynomial", "numpy.ma", "numpy.char",
           "numpy.lib.stride_tricks", "scipy.cluster.hierarchy", "scipy.cluster.vq", "scipy.constants", "scipy.fft",
           "scipy.integrate", "scipy.interpolate", "scipy.io", "scipy.linalg", "scipy.ndimage", "scipy.optimize",
           "scipy.signal", "scipy.sparse", "scipy.sparse.linalg", "scipy.sparse.csgraph", "scipy.spatial",
           "scipy.special", "scipy.stats", "scipy.differentiate", "scipy.datasets")
MIN_CLASS_SIZE = 40   # a module with fewer callables gives its nodes no label (-1)


def sklearn_modules() -> list[str]:
    import sklearn
    skip = {"tests", "externals", "conftest", "experimental"}
    return ["sklearn." + m.name for m in pkgutil.iter_modules(sklearn.__path__)
            if not m.name.startswith("_") and m.name not in skip]


def collect_nodes(modules) -> dict[str, dict]:
    """Public callables with a numpydoc summary: qualified name -> {'module', 'text', 'see_also'}.

    A callable reachable from several modules or names is kept once, under the first module of ``modules`` that
    exports it and, there, its alphabetically first name. Modules without ``__all__`` contribute only the
    callables they define.
    """
    from sklearn.externals._numpydoc.docscrape import NumpyDocString

    nodes, seen = {}, set()
    for module_name in modules:
        module = importlib.import_module(module_name)
        exported = getattr(module, "__all__", None)
        root = module_name.split(".")[0]
        for name in sorted(exported or [n for n in dir(module) if not n.startswith("_")]):   # __all__ order varies
            try:
                obj = getattr(module, name)
            except (AttributeError, ImportError):   # experimental estimators need an explicit enable_* import
                continue
            home = str(getattr(obj, "__module__", None) or root)
            if name.startswith("_") or not callable(obj) or id(obj) in seen or not home.startswith(root):
                continue
            if exported is None and not home.startswith(module_name):
                continue
            doc = inspect.getdoc(obj)
            if not doc:
                continue
            try:
                parsed = NumpyDocString(doc)
            except Exception:   # a docstring numpydoc cannot parse: the callable is left out
                continue
            summary = " ".join(parsed["Summary"]).strip()
            if not re.search(r"[A-Za-z]", summary):
                continue
            seen.add(id(obj))
            nodes[f"{module_name}.{name}"] = {"module": module_name, "text": summary,
                                              "see_also": [([n for n, _ in names], " ".join(desc).strip())
                                                           for names, desc in parsed["See Also"]]}
    return nodes


def resolve(name: str, source: str, nodes: dict, by_short: dict) -> str | None:
    """The node a See Also entry of ``source`` names: exact, same module, same library, or a unique short name."""
    name = re.sub(r"^:\w+:", "", name.strip()).strip("`~ ")
    if name in nodes:
        return name
    module = nodes[source]["module"]
    for candidate in (f"{module}.{name}", f"{module.split('.')[0]}.{name}"):
        if candidate in nodes:
            return candidate
    matches = by_short.get(name.rsplit(".", 1)[-1], [])
    same_library = [m for m in matches if m.split(".")[0] == module.split(".")[0]]
    for group in (matches, same_library):
        if len(group) == 1:
            return group[0]
    return None


def build(modules=None) -> dict:
    """The graph as the JSON-ready dict that :func:`neurips24.teg.load_docgraph` reads."""
    import numpy
    import scipy
    import sklearn

    warnings.filterwarnings("ignore")
    nodes = collect_nodes(list(modules or MODULES) + sklearn_modules())
    names = sorted(nodes)
    index = {n: i for i, n in enumerate(names)}
    by_short: dict[str, list[str]] = {}
    for n in names:
        by_short.setdefault(n.rsplit(".", 1)[1], []).append(n)
    edges, seen = [], set()
    for src in names:
        for targets, desc in nodes[src]["see_also"]:
            text = desc if re.search(r"[A-Za-z]", desc) else None
            for target in targets:
                dst = resolve(target, src, nodes, by_short)
                if dst is None or dst == src or (src, dst) in seen:
                    continue
                seen.add((src, dst))
                edges.append([index[src], index[dst], text])
    counts: dict[str, int] = {}
    for n in names:
        counts[nodes[n]["module"]] = counts.get(nodes[n]["module"], 0) + 1
    label_names = sorted(m for m, c in counts.items() if c >= MIN_CLASS_SIZE)
    label_of = {m: i for i, m in enumerate(label_names)}
    return {"source": "numpydoc Summary and See Also sections of the installed libraries",
            "versions": {"numpy": numpy.__version__, "scipy": scipy.__version__, "scikit-learn": sklearn.__version__,
                         "python": platform.python_version()},
            "min_class_size": MIN_CLASS_SIZE, "label_names": label_names,
            "nodes": [{"name": n, "module": nodes[n]["module"], "text": nodes[n]["text"]} for n in names],
            "labels": [label_of.get(nodes[n]["module"], -1) for n in names],
            "edges": edges}


def write(graph: dict, out: Path) -> None:
    """Write ``graph`` as gzip-compressed JSON, byte-for-byte reproducible (no time or file name in the header)."""
    payload = json.dumps(graph, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    with open(out, "wb") as raw, gzip.GzipFile(filename="", fileobj=raw, mode="wb", mtime=0, compresslevel=9) as fh:
        fh.write(payload)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DATA)
    args = parser.parse_args(argv)
    graph = build()
    write(graph, args.out)
    print(f"{len(graph['nodes'])} nodes, {len(graph['edges'])} edges "
          f"({sum(e[2] is not None for e in graph['edges'])} with text), {len(graph['label_names'])} classes, "
          f"{graph['versions']} -> {args.out} ({args.out.stat().st_size / 1e3:.0f} kB)")


if __name__ == "__main__":
    main()
