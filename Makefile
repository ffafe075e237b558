# coderun build entry points. `make demo` and `make test` work on a fresh
# Debian machine: both install the toolchain first (idempotent).

SHELL := /bin/bash
.DEFAULT_GOAL := build

CARGO ?= cargo
TARGET_DIR := $(CURDIR)/target
# Root is needed for apt; CI and the dev machines run as root.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
APT_PACKAGES := clang-19 lld-19 llvm-19 wasi-libc libclang-rt-19-dev-wasm32

# The guest: QuickJS built for wasm32-wasip2, then pre-initialised (Wizer).
RQUICKJS_SYS := rquickjs-sys-0.14.0
PATCHED_DIR := $(TARGET_DIR)/patched
PATCHED_SYS := $(PATCHED_DIR)/$(RQUICKJS_SYS)
WASI_SYSROOT := $(TARGET_DIR)/wasi-sysroot
GUEST_RAW := $(TARGET_DIR)/wasm32-wasip2/release/guest_js_engine.wasm
GUEST_SNAPSHOT := $(TARGET_DIR)/guest/coderun-guest.wasm
GUEST_SOURCES := $(shell find guest-js-engine/src guest-js-engine/patches wit xtask/src -type f) \
	guest-js-engine/Cargo.toml guest-js-engine/Cargo.lock guest-js-engine/build.rs
GUEST_ENV := RQUICKJS_SYS_NO_WASI_SDK=1 \
	CC_wasm32_wasip2=clang-19 AR_wasm32_wasip2=llvm-ar-19 \
	CFLAGS_wasm32_wasip2="--sysroot=$(WASI_SYSROOT)"

.PHONY: toolchain guest typescript mcp-servers build test lint bench bless demo ci clean-guest

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

## The registry copy of rquickjs-sys with the project's QuickJS patch applied
## (guest-js-engine/patches): QuickJS disables its stack-depth check on WASI,
## the patch turns it back on so deep recursion is a catchable RangeError.
$(PATCHED_SYS)/.patched: guest-js-engine/patches/quickjs-wasi-stack-limit.patch
	$(CARGO) fetch --quiet
	rm -rf $(PATCHED_SYS) && mkdir -p $(PATCHED_DIR)
	crate=$$(ls $${CARGO_HOME:-$$HOME/.cargo}/registry/cache/*/$(RQUICKJS_SYS).crate | head -n1) \
	  && tar -xzf "$$crate" -C $(PATCHED_DIR)
	patch -p1 -d $(PATCHED_SYS) < guest-js-engine/patches/quickjs-wasi-stack-limit.patch
	touch $@

## guest: build the QuickJS component and snapshot it with Wizer.
guest: $(GUEST_SNAPSHOT)
$(GUEST_SNAPSHOT): $(TARGET_DIR)/.toolchain-ok $(PATCHED_SYS)/.patched $(GUEST_SOURCES)
	$(GUEST_ENV) $(CARGO) build --release --locked --target wasm32-wasip2 \
	  --manifest-path guest-js-engine/Cargo.toml --target-dir $(TARGET_DIR)
	mkdir -p $(dir $@)
	$(CARGO) run --quiet --locked -p xtask -- snapshot $(GUEST_RAW) $@

build: guest
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

test: guest $(TSC) $(MCP_SERVERS)
	CODERUN_TSC=$(TSC) $(CARGO) test --locked --workspace

## bless: regenerate the golden TypeScript of the schema tests.
bless:
	CODERUN_BLESS=1 $(CARGO) test --locked -p code-mode --test golden

lint: guest
	$(CARGO) fmt --all --check
	$(CARGO) fmt --manifest-path guest-js-engine/Cargo.toml --check
	$(CARGO) clippy --locked --workspace --all-targets -- -D warnings
	$(GUEST_ENV) $(CARGO) clippy --locked --release --target wasm32-wasip2 \
	  --manifest-path guest-js-engine/Cargo.toml --target-dir $(TARGET_DIR) -- -D warnings

## bench: criterion benches, then the ratio table (benches/RESULTS.md).
bench: guest
	$(CARGO) bench --locked --bench runtime
	python3 benches/report.py

## demo: set everything up, run the example program through the CLI, then
## start the example MCP servers behind `coderun mcp`'s gateway and show what
## the model is offered instead of their tool lists.
demo: guest $(MCP_SERVERS)
	$(CARGO) build --quiet --locked --release --bin coderun
	$(TARGET_DIR)/release/coderun run examples/hello.ts
	$(TARGET_DIR)/release/coderun sdk --config examples/mcp-servers.json --stats

ci: lint test

include benches/peers.mk

clean-guest:
	rm -rf $(GUEST_SNAPSHOT) $(TARGET_DIR)/wasm32-wasip2 $(PATCHED_DIR)
