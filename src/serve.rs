//! The `mcp` command (Code Mode served over MCP in front of the upstreams)
//! and the `sdk` command (the TypeScript SDK it would present).

use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context as _, bail};
use coderun::code_mode::Mode;
use coderun::mcp::{
    self, AuthToken, CodeModeServer, Gateway, HttpConfig, HttpOptions, Listen, ProcessGroups,
    RequestStateConfig, Sealer, Shutdown, Stdio, Transport, UpstreamSpec,
};
use coderun::runtime::RuntimeConfig;

use crate::{McpArgs, RuntimeFlags, SdkArgs, Upstreams, print_stderr, print_stdout};

/// What `mcp` and `sdk` start from: signal handling, the upstreams, and
/// the configuration file's settings with the flags over them.
struct Setup {
    shutdown: Shutdown,
    upstreams: Vec<UpstreamSpec>,
    config: RuntimeConfig,
    limits: mcp::Limits,
    http: HttpConfig,
    request_state: RequestStateConfig,
}

impl Setup {
    fn new(
        upstreams: &Upstreams,
        runtime: &RuntimeFlags,
        flags: &mcp::Limits,
    ) -> anyhow::Result<Self> {
        let shutdown = Shutdown::new();
        shutdown
            .on_signals()
            .context("installing the SIGINT and SIGTERM handlers")?;
        let loaded = upstreams.load()?;
        Ok(Self {
            shutdown,
            upstreams: loaded.upstreams,
            config: runtime.runtime_config(&loaded.limits, &loaded.network)?,
            limits: loaded.limits.overridden_by(flags),
            http: loaded.http,
            request_state: loaded.request_state,
        })
    }
}

pub(crate) async fn serve(args: McpArgs) -> anyhow::Result<ExitCode> {
    let mut flags = args.upstream.limits()?;
    if args.max_message_bytes == Some(0) {
        bail!("--max-message-bytes must be positive (got 0)");
    }
    flags.max_message_bytes = args.max_message_bytes;
    let Setup {
        shutdown,
        upstreams,
        config,
        limits,
        http: file_http,
        request_state,
    } = Setup::new(&args.upstreams, &args.runtime, &flags)?;
    let transport = match &args.listen {
        Some(listen) => {
            let listen = Listen::parse(listen).map_err(anyhow::Error::msg)?;
            let http = file_http
                .with_flags(&args.allow_origin, args.auth_token_env.as_deref())
                .map_err(anyhow::Error::msg)?;
            let key = match args.auth_token_env {
                Some(_) => "--auth-token-env",
                None => "http.authTokenEnv",
            };
            let auth_token = http
                .auth_token_env()
                .map(|name| AuthToken::from_env(key, name))
                .transpose()
                .map_err(anyhow::Error::msg)?;
            let options = HttpOptions {
                listen,
                allowed_origins: http.allowed_origins().to_vec(),
                auth_token,
                max_body_bytes: limits.max_message_bytes(),
                max_connections: http.max_connections(),
                header_timeout: http.header_timeout(),
                body_timeout: http.body_timeout(),
            };
            Transport::Http(options.bind().await?)
        }
        None => Transport::Stdio(
            Stdio::start(limits.max_message_bytes(), &shutdown)
                .context("starting the stdio threads")?,
        ),
    };
    let drain = mcp::config::seconds("--drain-seconds", args.drain_seconds)
        .or_else(|message| {
            if args.drain_seconds == 0.0 {
                Ok(Duration::ZERO)
            } else {
                Err(message)
            }
        })
        .map_err(anyhow::Error::msg)?;
    shutdown.drain_for(drain);
    if let Some(ops) = &args.ops_listen {
        let listener = Listen::parse(ops)
            .map_err(|message| anyhow::anyhow!("--ops-listen: {message}"))?
            .bind()
            .await?;
        let local = listener.local_addr().context("--ops-listen")?;
        eprintln!("coderun mcp: serving the operations endpoints at http://{local}/");
        tokio::spawn(mcp::ops::serve_ops(listener, shutdown.clone()));
    }
    // Everything the flags and the file give is checked, and the HTTP
    // socket bound, before any upstream starts.
    mcp::serve(
        &upstreams,
        config,
        &limits,
        &request_state,
        args.mode,
        transport,
        &shutdown,
    )
    .await?;
    Ok(ExitCode::SUCCESS)
}

pub(crate) async fn sdk(args: SdkArgs) -> anyhow::Result<ExitCode> {
    let Setup {
        shutdown,
        upstreams,
        config,
        limits,
        ..
    } = Setup::new(&args.upstreams, &args.runtime, &args.upstream.limits()?)?;
    let groups = ProcessGroups::new();
    // Builds the runtime (validating the budgets) before any upstream starts.
    let gateway = tokio::select! {
        gateway = Gateway::start(&upstreams, config, &limits, Mode::Code, &groups) => gateway?,
        () = shutdown.requested() => {
            // Interrupted: stop what started, and exit as a signal would.
            groups.terminate(mcp::process_group::TERMINATE_GRACE).await;
            return Ok(ExitCode::from(match shutdown.reason() {
                Some(mcp::Reason::Interrupt) => 130,
                _ => 143,
            }));
        }
    };
    let printed = print_sdk(&gateway, args.stats);
    let failed = !gateway.unavailable().is_empty();
    for reason in gateway.unavailable() {
        print_stderr(&format!("coderun sdk: {reason}"));
    }
    gateway.close().await;
    printed?;
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// The SDK's declarations, or with `stats` the sizes of the tool lists.
fn print_sdk(gateway: &Gateway, stats: bool) -> anyhow::Result<()> {
    if stats {
        let native: Vec<&rmcp::model::Tool> = gateway
            .upstreams()
            .iter()
            .flat_map(|upstream| upstream.listed_tools())
            .collect();
        let sealer = Sealer::for_limits(&RequestStateConfig::default(), &mcp::Limits::default())
            .map_err(anyhow::Error::msg)?;
        let server = CodeModeServer::new(gateway, sealer)?;
        let native_bytes = serde_json::to_string(&native)?.len();
        let code_bytes = serde_json::to_string(server.tools())?.len();
        let sdk = gateway.registry().sdk_stats();
        print_stdout(&format!(
            "native tools/list: {} tools, {native_bytes} bytes of JSON\n\
             coderun mcp tools/list: {} tool, {code_bytes} bytes of JSON ({:.0}% of native)\n\
             sdk, full disclosure: {} bytes\n\
             sdk, search disclosure: {} bytes\n\
             disclosure in effect: {} (budget {} bytes)",
            native.len(),
            server.tools().len(),
            100.0 * code_bytes as f64 / native_bytes.max(1) as f64,
            sdk.full_bytes.map_or_else(
                || format!("over the cap of {}", sdk.max_bytes),
                |bytes| bytes.to_string()
            ),
            sdk.search_bytes,
            sdk.disclosure,
            sdk.budget_bytes,
        ))
    } else {
        print_stdout(&gateway.registry().sdk_declarations())
    }
}
