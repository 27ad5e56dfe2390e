# Every target sets itself up: it creates .venv if needed and installs what it needs into it.
# A stamp file per extra records the install; it is redone only when pyproject.toml changes,
# so a second `make test` or `make demo` installs nothing.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
# llama.cpp's own thread count: both cores of a small machine by default.
export OMP_NUM_THREADS ?= 2

.PHONY: demo test bench lint docs clean-demo

# PyTorch first, pinned, so that no extra pulls in a build of its own choosing. Which build
# comes is pip's index's choice: PyPI serves Linux the CUDA one; for the CPU build on a
# machine without a GPU add PyTorch's CPU index, e.g.
#   make test TORCH='torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu'
TORCH  ?= torch==2.13.0

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

# The demo needs the local llama.cpp model, and Playwright for the screenshot of the report's
# first screen (it drives the system's Chromium: no browser is downloaded).
$(VENV)/.installed-demo: pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e '.[llamacpp,pdf]'
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(PY)
	$(PY) -m pip install --quiet $(TORCH)
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(VENV)/.installed-demo $@

# report-first-screen.png beside the report is what the README shows. Without Chromium the
# demo still writes the report and says in one line how to get it (apt-get install chromium):
# a demo should not need root or pull a browser on its own.
demo: $(VENV)/.installed-demo
	$(VENV)/bin/diptych --store diptych-demo/.diptych run pst-text --model smollm2 \
		--report diptych-demo
	$(PY) -m diptych.core.report.screenshot diptych-demo
	@echo "The demo's workspace is diptych-demo/.diptych; name it to look at its run:"
	@echo "  .venv/bin/diptych --store diptych-demo/.diptych runs"
	@echo "  .venv/bin/diptych --store diptych-demo/.diptych show RUN    # the same --store before report RUN or tui"

# Two test processes (pytest-xdist), one per core of a small machine. A test goes to whichever
# process is free, so that both end together; the tests that share a module's fixture, the
# llama.cpp server or the throwaway venv keep to one process, which builds it once
# (tests/conftest.py, xdist_group).
test: $(VENV)/.installed-dev
	$(PY) -m pytest -q -n 2 --dist loadgroup

bench: $(VENV)/.installed-dev
	$(PY) bench/run.py

lint: $(VENV)/.installed-dev
	$(VENV)/bin/ruff check diptych tests bench examples
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports

# The manual (docs/, mkdocs.yml) into build/docs/; --strict fails on any warning, such as a
# broken link or a docstring that cannot be read. The dev extra carries the docs extra.
# NO_MKDOCS_2_WARNING silences Material's notice about MkDocs 2.0, which is not about this site.
docs: $(VENV)/.installed-dev
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict

clean-demo:
	rm -rf diptych-demo
