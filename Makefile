# coderun build entry points. `make demo` and `make test` work on a fresh
# Debian machine: both install the toolchain first (idempotent).

SHELL := /bin/bash
.DEFAULT_GOAL := build

CARGO ?= cargo
# Everything builds into one target dir (CARGO_TARGET_DIR when set), the
# Python package included, so that wasmtime is compiled once.
TARGET_DIR := $(or $(CARGO_TARGET_DIR),$(CURDIR)/target)
export CARGO_TARGET_DIR := $(TARGET_DIR)
# The Python package's venv (python-venv) lives there too.
PYTHON ?= python3
PY_VENV := $(TARGET_DIR)/python-venv
PY := $(PY_VENV)/bin/python
PY_DEPS := $(PY_VENV)/.deps-ok
# Root is needed for apt; CI and the dev machines run as root.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
APT_PACKAGES := clang-19 lld-19 llvm-19 wasi-libc libclang-rt-19-dev-wasm32

# The WASI headers the guest's QuickJS compiles against (TOOLCHAIN.md).
WASI_SYSROOT := $(TARGET_DIR)/wasi-sysroot

.PHONY: wpt intl-data toolchain guest hot-functions guest-check typescript mcp-servers mcp-conformance deploy-check scale-test build test lint bench bench-tokens bless demo ci clean-guest fuzz soak package embedder python-venv python-develop python-test python-features xtask-features bench-python

# The TypeScript compiler generated SDKs are type-checked with (pinned in
# tools/typescript/package-lock.json).
TSC := $(CURDIR)/tools/typescript/node_modules/.bin/tsc

## toolchain: apt packages for the guest's C side and the rustup wasm target.
toolchain: $(TARGET_DIR)/.toolchain-ok
$(TARGET_DIR)/.toolchain-ok:
	@if ! command -v clang-19 >/dev/null || [ ! -d /usr/include/wasm32-wasi ] \
	    || ! ls /usr/lib/llvm-19/lib/clang/19/lib/wasi/libclang_rt.builtins-wasm32.a >/dev/null 2>&1; then \
	  echo "installing $(APT_PACKAGES)"; \
	  $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq $(APT_PACKAGES); \
	fi
	rustup target add wasm32-wasip2
	rustup component add rustfmt clippy
	mkdir -p $(WASI_SYSROOT)
	ln -sfn /usr/include/wasm32-wasi $(WASI_SYSROOT)/include
	ln -sfn /usr/lib/wasm32-wasi $(WASI_SYSROOT)/lib
	touch $@

## guest: build the guest from source (QuickJS for wasm32-wasip2, its C
## through guest-js-engine/cc.sh, which applies guest-js-engine/patches),
## pre-initialise it with Wizer, and write the committed artifact,
## coderun-guest/coderun-guest.wasm, and its RECIPE.toml. Only for people who
## change the guest: everything else uses the committed artifact.
guest: toolchain
	$(CARGO) run --locked -p xtask -- guest

## hot-functions: rewrite guest-js-engine/hot-functions.txt, the guest's
## functions short runs call through QuickJS's table (which `make guest`
## exports, so that wasmtime keeps their entries on one page of each
## instance), from runs of the committed artifact (examples/hot_functions.rs).
## Then `make guest`. Only for people who change the guest.
hot-functions:
	$(CARGO) run --locked -p xtask -- hot-functions

## guest-check: rebuild the guest from source and fail unless it is the
## committed artifact, byte for byte (CI runs this, through `make test`).
guest-check: guest
	@test -z "$$(git status --porcelain -- coderun-guest/)" || { \
	  git status --short -- coderun-guest/; \
	  echo "the guest rebuilt from source differs from the committed coderun-guest/: run make guest and commit it"; \
	  exit 1; }

build:
	$(CARGO) build --locked --workspace

## typescript: the pinned TypeScript compiler, from npm.
typescript: $(TSC)
$(TSC): tools/typescript/package.json tools/typescript/package-lock.json
	command -v npm >/dev/null || { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq nodejs npm; }
	cd tools/typescript && npm ci --no-audit --no-fund --silent
	touch $@

## mcp-servers: the published MCP servers (pinned in
## tools/mcp-servers/package-lock.json) that the tests and the demo run as
## upstreams of `coderun mcp`.
MCP_SERVERS := $(CURDIR)/tools/mcp-servers/node_modules/.package-lock.json
mcp-servers: $(MCP_SERVERS)
$(MCP_SERVERS): tools/mcp-servers/package.json tools/mcp-servers/package-lock.json
	command -v npm >/dev/null || { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq nodejs npm; }
	cd tools/mcp-servers && npm ci --no-audit --no-fund --silent
	touch $@

## test: the whole suite: the guest rebuilt and checked against the
## committed one, every crate's tests (the hostile suite, a short fuzz and
## soak pass, the MCP end-to-end tests), the out-of-tree embedder, the
## packaging of every published crate, and the Python package's suite.
## mcp-conformance: the official MCP conformance suite and the Node 22 it
## runs on (pinned in tools/mcp-conformance/package-lock.json), for the
## conformance test of `coderun mcp`.
MCP_CONFORMANCE := $(CURDIR)/tools/mcp-conformance/node_modules/.package-lock.json
mcp-conformance: $(MCP_CONFORMANCE)
$(MCP_CONFORMANCE): tools/mcp-conformance/package.json tools/mcp-conformance/package-lock.json
	command -v npm >/dev/null || { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq nodejs npm; }
	cd tools/mcp-conformance && npm ci --no-audit --no-fund --silent
	touch $@

## deploy-check: the Kubernetes manifests (deploy/kubernetes) against the
## Kubernetes schemas, offline and strict, and the Dockerfile with hadolint;
## both tools pinned in deploy/requirements.txt, in the venv under target/.
DEPLOY_TOOLS := $(PY_VENV)/.deploy-tools-ok
$(DEPLOY_TOOLS): deploy/requirements.txt $(PY_DEPS)
	$(PY) -m pip install -q --disable-pip-version-check -r deploy/requirements.txt
	touch $@
deploy-check: $(DEPLOY_TOOLS)
	$(PY_VENV)/bin/kubernetes-validate --strict deploy/kubernetes/*.yaml
	$(PY_VENV)/bin/hadolint Dockerfile

## The load balancer of the scale tests (tests/mcp/scale.rs): Debian's HAProxy.
HAPROXY := /usr/sbin/haproxy
$(HAPROXY):
	$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq haproxy

## scale-test: three `coderun mcp --listen` replicas behind HAProxy
## (round-robin, no affinity): 1,000 runs and 100 approvals across them, a
## replica killed and one drained under load. `make test` runs 100 and 10.
scale-test: $(HAPROXY)
	CODERUN_SCALE_RUNS=$${CODERUN_SCALE_RUNS:-1000} $(CARGO) test --locked --test mcp -- scale:: --nocapture

test: guest-check $(TSC) $(MCP_SERVERS) $(MCP_CONFORMANCE) $(HAPROXY)
	CODERUN_TSC=$(TSC) $(CARGO) test --locked --workspace
	$(MAKE) --no-print-directory embedder
	$(MAKE) --no-print-directory package
	$(MAKE) --no-print-directory python-test
	$(MAKE) --no-print-directory deploy-check

## python-venv: a virtualenv under target/ with the pinned Python tools
## (python/requirements-dev.txt: maturin, pytest, pytest-asyncio, Ray).
python-venv: $(PY_DEPS)
$(PY_DEPS): python/requirements-dev.txt
	$(PYTHON) -m venv $(PY_VENV) || { $(PYTHON) -m pip install -q --user virtualenv && $(PYTHON) -m virtualenv $(PY_VENV); }
	$(PY) -m pip install -q --disable-pip-version-check -r python/requirements-dev.txt
	touch $@

## python-develop: build the Python package (debug, into target/) and
## install it into the venv (editable: python/coderun is imported in place).
python-develop: $(PY_DEPS)
	cd python && VIRTUAL_ENV=$(PY_VENV) PATH="$(PY_VENV)/bin:$$PATH" \
	  $(PY_VENV)/bin/maturin develop --locked -q

## python-test: the pytest suite (python/tests): the runtime contract, Code
## Mode, a 1,000-program Ray run on a local two-process cluster, and the
## MCP Python SDK as a client of `coderun mcp` (built first, as `make test`
## builds it). Checks
## first that the package's own build shares the workspace's features.
python-test: python-features python-develop $(MCP_CONFORMANCE)
	$(CARGO) test --locked --workspace --no-run -q
	cd python && CODERUN_BIN=$(TARGET_DIR)/debug/coderun $(PY) -m pytest -q -p no:cacheprovider

## python-features: fail when building the Python package alone (as maturin
## does) would enable other features than the workspace build, which would
## compile wasmtime and the runtime a second time (see python/Cargo.toml).
python-features:
	$(call same-features,coderun-python,python/Cargo.toml)

## xtask-features: the same for xtask, which `make lint` and `make test` build
## alone (`cargo run -p xtask`) before the workspace's tests (see
## xtask/Cargo.toml).
xtask-features:
	$(call same-features,xtask,xtask/Cargo.toml)

# same-features PACKAGE,MANIFEST: fail, naming the crates, when building
# PACKAGE alone resolves a crate with features the workspace's build (its
# tests and their dev-dependencies included) does not: that crate, and every
# crate above it, would be compiled twice. Compared twice: the crates built
# for the target alone (a build script's or a proc-macro's copy of a crate,
# libc say, is resolved apart, and its features could hide the target's),
# then every crate.
define same-features
	@mkdir -p $(TARGET_DIR)
	@set -o pipefail; for edges in normal,dev,no-proc-macro/normal,no-proc-macro all/all; do \
	  $(CARGO) tree --locked --workspace -e features,$${edges%/*} \
	    -f '{p} {f}' --prefix none | sed 's/ (\*)$$//' | sort -u > $(TARGET_DIR)/features-workspace.txt; \
	  $(CARGO) tree --locked -p $(1) -e features,$${edges#*/} -f '{p} {f}' --prefix none \
	    | sed 's/ (\*)$$//' | sort -u > $(TARGET_DIR)/features-$(1).txt; \
	  drift="$$(comm -13 $(TARGET_DIR)/features-workspace.txt $(TARGET_DIR)/features-$(1).txt | grep ' v[0-9]' || true)"; \
	  if [ -n "$$drift" ]; then \
	    echo "building $(1) alone enables other features than the workspace on:"; \
	    echo "$$drift"; \
	    echo "add the workspace's features of these crates to $(2)"; exit 1; fi; \
	done
endef

## bench-python: the Python benchmarks (benches/python/bench.py) on release
## builds of the package (its wheel, installed into the venv) and of the
## CLI; writes their table into benches/RESULTS.md. `make python-test`
## puts the debug build back. The CLI is another package than the Python
## module, with other features, so its release build compiles wasmtime
## again: it is built only when `make demo` has not built it already.
bench-python: $(PY_DEPS)
	rm -rf $(TARGET_DIR)/wheels
	cd python && VIRTUAL_ENV=$(PY_VENV) PATH="$(PY_VENV)/bin:$$PATH" \
	  $(PY_VENV)/bin/maturin build --locked --release -q -o $(TARGET_DIR)/wheels
	$(PY) -m pip install -q --disable-pip-version-check --force-reinstall --no-deps $(TARGET_DIR)/wheels/coderun-*.whl
	test -x $(TARGET_DIR)/release/coderun || $(CARGO) build --locked --release --bin coderun
	$(PY) benches/python/bench.py --coderun $(TARGET_DIR)/release/coderun

## fuzz: the fuzz target (tests/fuzz), then the HTTP framing fuzz against
## `coderun mcp --listen` (tests/mcp/http.rs) and the mangled upstream
## answers (tests/mcp/hostile.rs), each for CODERUN_FUZZ_SECONDS (default
## 600) in the release profile; `make test` runs a 15 s pass, 300 requests
## and 90 calls. A failure prints the seed that reproduces it
## (CODERUN_FUZZ_SEED).
fuzz:
	CODERUN_FUZZ_SECONDS=$${CODERUN_FUZZ_SECONDS:-600} $(CARGO) test --locked --release --test fuzz -- --nocapture
	CODERUN_FUZZ_SECONDS=$${CODERUN_FUZZ_SECONDS:-600} $(CARGO) test --locked --release --test mcp -- http::mangled_http_framing hostile::mangled_upstream_answers --nocapture

## soak: CODERUN_SOAK_RUNS (default 10,000) mixed runs through one runtime,
## then as many `run_code` calls through one `coderun mcp` in front of an
## upstream, every outcome checked, the resident memory's slope reported;
## then a 90 s program as a task with a client whose timeout is 60 s;
## `make test` runs 400 and 200, and the task for 6 s against 4 s.
soak:
	CODERUN_SOAK_RUNS=$${CODERUN_SOAK_RUNS:-10000} $(CARGO) test --locked --release --test soak -- --nocapture
	CODERUN_SOAK_RUNS=$${CODERUN_SOAK_RUNS:-10000} $(CARGO) test --locked --release --test mcp -- hostile::many_run_code_calls --nocapture
	CODERUN_LONG_TASK_SECONDS=$${CODERUN_LONG_TASK_SECONDS:-90} $(CARGO) test --locked --release --test mcp -- tasks::a_program_longer_than_the_clients_timeout --nocapture

## wpt: the Web Platform Tests of the guest's web APIs, from the WPT
## checkout at CODERUN_WPT_DIR, against tests/wpt/expectations.json; writes
## the per-suite table to tests/wpt/RESULTS.md.
wpt:
	@test -n "$$CODERUN_WPT_DIR" || { echo "set CODERUN_WPT_DIR to a checkout of web-platform-tests"; exit 2; }
	CODERUN_WPT_WRITE=1 $(CARGO) test --locked --release --test wpt

## intl-data: regenerate Intl's English tables (guest-js-engine/src/web/
## intl_data.rs) and the Intl cases recorded from Node
## (tests/runtime/fixtures/intl-node.json) from the ICU that Node.js
## carries; then `make guest` to rebuild the guest with them.
intl-data:
	$(CARGO) fetch --locked --manifest-path guest-js-engine/Cargo.toml
	node tools/intl-data/generate.mjs
	TZ=UTC node tools/intl-data/cases.mjs

## bless: regenerate the golden TypeScript of the schema tests.
bless:
	CODERUN_BLESS=1 $(CARGO) test --locked -p coderun-code-mode --test golden

lint: toolchain xtask-features
	$(CARGO) fmt --all --check
	$(CARGO) fmt --manifest-path guest-js-engine/Cargo.toml --check
	$(CARGO) clippy --locked --workspace --all-targets -- -D warnings
	$(CARGO) run --locked -p xtask -- guest-clippy

## bench: criterion benches, then the ratio table (benches/RESULTS.md).
bench:
	$(CARGO) bench --locked --bench runtime
	python3 benches/report.py

## bench-tokens: the bytes three scripted tasks put in a model's context,
## (bytes, not time: the dev profile is enough),
## natively and through run_code (the table in benches/RESULTS.md).
bench-tokens:
	$(CARGO) bench --locked --bench tokens --profile dev

## demo: set everything up, run the example program through the CLI, then
## start the example MCP servers behind `coderun mcp`'s gateway and show what
## the model is offered instead of their tool lists.
demo: $(MCP_SERVERS)
	$(CARGO) build --locked --release --bin coderun
	$(TARGET_DIR)/release/coderun run examples/hello.ts
	$(TARGET_DIR)/release/coderun sdk --config examples/mcp-servers.json --stats

## package: `cargo package` of every published crate (what crates.io would
## receive; `--no-verify`: the embedder fixture and `make test` build them).
package:
	$(CARGO) package --locked --workspace --no-verify --exclude xtask

## embedder: build and run tests/embedder, a crate outside the workspace that
## depends on coderun-runtime by path, with no C compiler for wasm reachable
## (clang and wasm-ld are masked on PATH), to prove that embedding coderun
## needs nothing but Rust.
EMBEDDER_MASK := $(TARGET_DIR)/masked-wasm-cc
embedder:
	mkdir -p $(EMBEDDER_MASK)
	for tool in clang clang-19 wasm-ld wasm-ld-19 llvm-ar-19; do \
	  printf '#!/bin/sh\necho "$$0 is masked: embedding coderun must not need a C compiler for wasm" >&2\nexit 1\n' \
	    > $(EMBEDDER_MASK)/$$tool && chmod +x $(EMBEDDER_MASK)/$$tool; \
	done
	env -u CC_wasm32_wasip2 -u CFLAGS_wasm32_wasip2 PATH="$(EMBEDDER_MASK):$$PATH" \
	  CARGO_TARGET_DIR=$(TARGET_DIR) $(CARGO) run --locked --manifest-path tests/embedder/Cargo.toml
	@echo "embedder: the README's library example built and ran with no C compiler for wasm on PATH"

ci: lint test

include benches/peers.mk

clean-guest:
	rm -rf $(TARGET_DIR)/wasm32-wasip2
