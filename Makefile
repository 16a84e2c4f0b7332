# The book's single entry point. `make book` builds the book; `make test` runs every test.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
# torch comes pinned: on these machines 2.13.0 is a local CPU wheel; an unpinned torch pulls a CUDA build.
TORCH  ?= torch==2.13.0
JB_FLAGS := -W -n --keep-going

export MPLBACKEND := Agg
export PYTHONHASHSEED := 0
export NEURIPS24_CLAIMS_DIR ?= $(CURDIR)/_build/claims

.PHONY: install book test lint unit notebooks clean

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet "$(TORCH)"
	$(BIN)/python -m pip install --quiet -e ".[book,test]"
	touch $@

install: $(BIN)/.installed

book: install
	rm -rf $(NEURIPS24_CLAIMS_DIR)
	$(BIN)/jupyter-book build . $(JB_FLAGS)
	@echo "The book: $(CURDIR)/_build/html/index.html"

lint: install
	$(BIN)/ruff check src tests benchmarks notebooks

unit: install
	$(BIN)/python -m pytest tests -q

# Every notebook runs once, with nbmake, writing its outputs in place; the book is then built from those
# outputs (a copy of _config.yml with execution off) with warnings as errors, and the outputs are cleared.
notebooks: install
	rm -rf $(NEURIPS24_CLAIMS_DIR)
	mkdir -p _build && sed 's/execute_notebooks: force/execute_notebooks: "off"/' _config.yml > _build/_config_noexec.yml
	$(BIN)/python -m pytest --nbmake --nbmake-timeout=900 --overwrite notebooks -q -p no:cacheprovider; \
	status=$$?; \
	if [ $$status -eq 0 ]; then $(BIN)/jupyter-book build . $(JB_FLAGS) --config _build/_config_noexec.yml; status=$$?; fi; \
	$(BIN)/jupyter nbconvert --clear-output --inplace --log-level=WARN notebooks/*.ipynb; \
	exit $$status

test: lint unit notebooks
	@if [ -f ../shared/tools/check_chapters.py ]; then $(BIN)/python ../shared/tools/check_chapters.py; fi

clean:
	rm -rf _build .pytest_cache .ruff_cache
