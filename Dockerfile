# coderun mcp in a container: built from source with the committed guest
# (coderun-guest/), so the build needs no wasm toolchain; run as a non-root
# user on a read-only root filesystem. Build and run:
#
#   docker build -t coderun .
#   docker run --read-only --tmpfs /cache -p 8080:8080 -p 9090:9090 \
#     -v "$PWD/servers.json:/etc/coderun/servers.json:ro" coderun
#
# Stdio upstreams (`"command": ...` in servers.json) run inside this
# container: build FROM this image and add what they need (Node, Python).

FROM rust:1.95-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --locked --release --bin coderun \
 && install -D -m 0755 target/release/coderun /out/coderun

FROM debian:bookworm-slim
# CA certificates for upstreams over HTTPS.
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates=20230311+deb12u1 \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --no-create-home --shell /usr/sbin/nologin coderun
COPY --from=build /out/coderun /usr/local/bin/coderun
USER 10001:10001
# The compiled guest is cached here: mount a writable volume (tmpfs).
ENV XDG_CACHE_HOME=/cache
EXPOSE 8080 9090
ENTRYPOINT ["/usr/local/bin/coderun"]
CMD ["mcp", "--config", "/etc/coderun/servers.json", \
     "--listen", "0.0.0.0:8080", "--ops-listen", "0.0.0.0:9090", \
     "--auth-token-env", "CODERUN_TOKEN", "--drain-seconds", "30"]
