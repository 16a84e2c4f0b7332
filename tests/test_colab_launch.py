"""The header's Colab launch button opens the chapter's Colab copy (book/_ext/site_scripts.py): the theme's
launch URL for notebooks/<stem>.ipynb becomes colab/<stem>.ipynb; Binder and other pages are left alone."""
import importlib.util
from pathlib import Path
from types import SimpleNamespace

import yaml

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("site_scripts", ROOT / "book" / "_ext" / "site_scripts.py")
site_scripts = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(site_scripts)
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
COLAB = CONFIG["launch_buttons"]["colab_url"]
REPO = CONFIG["repository"]["url"].removeprefix("https://github.com/")
BRANCH = CONFIG["repository"]["branch"]


def _page(path):
    colab = f"{COLAB}/github/{REPO}/blob/{BRANCH}/{path}"
    binder = f"https://mybinder.org/v2/gh/{REPO}/{BRANCH}?urlpath=tree/{path}"
    return {"header_buttons": [{"type": "group", "label": "launch-buttons", "buttons": [
        {"type": "link", "text": "Binder", "url": binder}, {"type": "link", "text": "Colab", "url": colab}]},
        {"type": "link", "url": "https://github.com/x/y"}]}


def _app(colab_url=COLAB):
    return SimpleNamespace(config=SimpleNamespace(html_theme_options={"launch_buttons": {"colab_url": colab_url}}))


def test_a_chapters_colab_button_opens_its_colab_copy():
    context = _page("notebooks/thompson_sampling_paradox.ipynb")
    site_scripts.colab_launch_copy(_app(), "notebooks/thompson_sampling_paradox", "page.html", context, None)
    binder, colab = (b["url"] for b in context["header_buttons"][0]["buttons"])
    assert colab == f"{COLAB}/github/{REPO}/blob/{BRANCH}/colab/thompson_sampling_paradox.ipynb"
    assert binder.endswith("?urlpath=lab/tree/colab/thompson_sampling_paradox.ipynb")   # JupyterLab, the copy
    assert (ROOT / "colab").is_dir() is False or (ROOT / "colab" / "thompson_sampling_paradox.ipynb").is_file()


def test_other_pages_and_a_book_without_colab_are_left_alone():
    context = _page("book/seminar.md")
    site_scripts.colab_launch_copy(_app(), "book/seminar", "page.html", context, None)
    assert context["header_buttons"][0]["buttons"][1]["url"].endswith("/book/seminar.md")
    context = _page("notebooks/x.ipynb")
    site_scripts.colab_launch_copy(_app(""), "notebooks/x", "page.html", context, None)
    assert context["header_buttons"][0]["buttons"][1]["url"].endswith("/notebooks/x.ipynb")
    site_scripts.colab_launch_copy(_app(), "index", "page.html", {}, None)        # no header buttons: nothing to do
