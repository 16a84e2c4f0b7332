"""Planted bugs (mutants): every test in this folder is marked ``mutant`` and runs in ``make unit``."""
from __future__ import annotations

from pathlib import Path

import pytest

_HERE = Path(__file__).parent


def pytest_collection_modifyitems(config, items):
    for item in items:
        if _HERE in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.mutant)
