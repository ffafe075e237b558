# `make bench-peers`: coderun side by side with the runtimes a user would
# otherwise pick, on the same workloads (benches/peers/). Included by the
# root Makefile, whose CARGO, SUDO and MCP_SERVERS (the upstream of the MCP
# workload) it uses.
#
# The peers come from the project's own files: quickjs-emscripten from npm
# (pinned in benches/peers/package-lock.json), Node from apt when missing.
# Native QuickJS is rquickjs built for the host inside the coderun harness
# (Debian bookworm ships no `quickjs` package).

PEERS_DIR := benches/peers
PEERS_NPM := $(PEERS_DIR)/node_modules/.installed

.PHONY: bench-peers

## bench-peers: every peer on every workload; prints the ratio table and
## writes it into benches/RESULTS.md. run.py builds the coderun harness
## (`cargo bench --bench peers --no-run`) before it measures anything.
bench-peers: $(PEERS_NPM) $(MCP_SERVERS)
	command -v python3 >/dev/null || { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq python3; }
	python3 $(PEERS_DIR)/run.py --cargo "$(CARGO)"

$(PEERS_NPM): $(PEERS_DIR)/package.json $(PEERS_DIR)/package-lock.json
	command -v npm >/dev/null || { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq nodejs npm; }
	cd $(PEERS_DIR) && npm ci --no-audit --no-fund --silent
	touch $@
