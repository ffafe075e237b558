//! The `coderun` command-line tool.

use std::io::Read as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context as _, bail};
use clap::{Args, Parser, Subcommand};
use code_mode::Mode;
use coderun::mcp::{self, CodeModeServer, Gateway, McpConfig, ServerSpec, UpstreamSpec};
use coderun::runtime::{CodeRunRequest, CodeRuntime, RuntimeConfig, WasmCodeRuntime};
use tokio_util::sync::CancellationToken;

/// Run model-written TypeScript in a QuickJS-in-wasm sandbox.
#[derive(Parser)]
#[command(name = "coderun", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a program (the body of an async function) and print the result
    /// as JSON. Exits non-zero when the program fails.
    Run(RunArgs),
    /// Serve Code Mode over MCP in front of MCP servers: one `run_code` tool
    /// whose description declares every upstream tool in TypeScript. Serves
    /// stdio unless `--listen` is given. Logs go to stderr (`RUST_LOG`).
    Mcp(McpArgs),
    /// Print the TypeScript SDK generated for MCP servers, without serving.
    Sdk(SdkArgs),
}

/// The upstream MCP servers: a configuration file, or one command.
#[derive(Args)]
struct Upstreams {
    /// A configuration in the `mcpServers` JSON format of MCP clients, with
    /// an optional `limits` object (see the README). Tools are named
    /// `<server>_<tool>`.
    #[arg(long, value_name = "FILE", required_unless_present = "command")]
    config: Option<PathBuf>,
    /// One upstream server to start instead of a configuration:
    /// `-- <command> [args...]`. Its tools keep their names.
    #[arg(last = true, value_name = "COMMAND", conflicts_with = "config")]
    command: Vec<String>,
}

#[derive(Args)]
struct McpArgs {
    #[command(flatten)]
    upstreams: Upstreams,
    /// What to offer: `code` (only run_code) or `both` (every upstream tool
    /// and run_code).
    #[arg(long, default_value = "code", value_parser = parse_mode)]
    mode: Mode,
    /// Serve streamable HTTP at `http://<ADDR>/mcp` instead of stdio. A bare
    /// port listens on 127.0.0.1; port 0 picks a free one (the address is
    /// printed to stderr).
    #[arg(long, value_name = "ADDR")]
    listen: Option<String>,
    #[command(flatten)]
    limits: Limits,
}

#[derive(Args)]
struct SdkArgs {
    #[command(flatten)]
    upstreams: Upstreams,
    /// Print sizes instead: the upstreams' native tool list against what
    /// `coderun mcp` lists, in bytes of JSON.
    #[arg(long)]
    stats: bool,
    #[command(flatten)]
    limits: Limits,
}

fn parse_mode(text: &str) -> Result<Mode, String> {
    match text.parse::<Mode>() {
        Ok(Mode::Native) => Err("mode native offers no run_code; use code or both".to_owned()),
        Ok(mode) => Ok(mode),
        Err(error) => Err(error.to_string()),
    }
}

#[derive(Args)]
struct RunArgs {
    /// The program file, or `-` to read it from stdin.
    program: PathBuf,
    #[command(flatten)]
    limits: Limits,
    /// Do not expose the demo namespace (`demo.echo`, `demo.add`,
    /// `demo.sleep`, `demo.fail`).
    #[arg(long)]
    no_demo: bool,
}

/// Budgets; each defaults to the library's default.
#[derive(Args)]
struct Limits {
    /// Fuel budget (about one unit per wasm instruction).
    #[arg(long, value_name = "UNITS")]
    fuel: Option<u64>,
    /// Wall-clock budget in seconds (fractions allowed).
    #[arg(long, value_name = "SECONDS")]
    wall_clock: Option<f64>,
    /// Memory cap of the sandbox, in MiB.
    #[arg(long, value_name = "MIB")]
    max_memory_mib: Option<u64>,
    /// Cap on the bytes of console output kept.
    #[arg(long, value_name = "BYTES")]
    max_log_bytes: Option<usize>,
    /// Cap on the bytes of the returned value's JSON.
    #[arg(long, value_name = "BYTES")]
    max_value_bytes: Option<usize>,
    /// `mcp` and `sdk`: seconds an upstream has to start and list its tools
    /// (default 30).
    #[arg(long, value_name = "SECONDS")]
    startup_timeout: Option<f64>,
    /// `mcp` and `sdk`: seconds an upstream has to answer one call (default
    /// 20); a call it has not answered by then rejects in the program.
    #[arg(long, value_name = "SECONDS")]
    call_timeout: Option<f64>,
}

impl Limits {
    /// The limits the flags set (the others unset).
    fn flags(&self) -> anyhow::Result<mcp::Limits> {
        let seconds = |flag: &str, value: Option<f64>| {
            mcp::config::optional_seconds(flag, value).map_err(anyhow::Error::msg)
        };
        Ok(mcp::Limits {
            fuel: self.fuel,
            wall_clock: seconds("--wall-clock", self.wall_clock)?,
            max_memory_mib: self.max_memory_mib,
            max_log_bytes: self.max_log_bytes,
            max_value_bytes: self.max_value_bytes,
            startup_timeout: seconds("--startup-timeout", self.startup_timeout)?,
            call_timeout: seconds("--call-timeout", self.call_timeout)?,
        })
    }

    fn config(&self) -> anyhow::Result<RuntimeConfig> {
        let mut config = self.flags()?.runtime_config();
        // The CLI runs one program at a time: keep the pool small.
        config.max_concurrent_runs(4);
        Ok(config)
    }
}

impl Upstreams {
    /// The upstreams to start and the limits the configuration file sets.
    fn load(&self) -> anyhow::Result<(Vec<UpstreamSpec>, mcp::Limits)> {
        if let Some(path) = &self.config {
            let config = McpConfig::load(path)?;
            return Ok((UpstreamSpec::from_config(&config), config.limits));
        }
        let Some((command, args)) = self.command.split_first() else {
            bail!("give --config <FILE> or -- <command> [args...]");
        };
        let name = std::path::Path::new(command).file_name().map_or_else(
            || command.clone(),
            |name| name.to_string_lossy().into_owned(),
        );
        let spec = ServerSpec::Stdio {
            command: command.clone(),
            args: args.to_vec(),
            env: Default::default(),
            cwd: None,
        };
        let upstream = UpstreamSpec {
            name,
            spec,
            prefixed: false,
        };
        Ok((vec![upstream], mcp::Limits::default()))
    }

    /// Starts the upstreams under the file's limits overridden by the flags.
    async fn start(&self, flags: &Limits, mode: Mode) -> anyhow::Result<Gateway> {
        let (upstreams, file_limits) = self.load()?;
        let limits = file_limits.overridden_by(&flags.flags()?);
        // Builds the runtime (validating the budgets) before any upstream starts.
        Gateway::start(&upstreams, &limits, mode).await
    }
}

fn main() -> ExitCode {
    match try_main() {
        Ok(code) => code,
        Err(error) => {
            eprintln!("coderun: {error:#}");
            ExitCode::from(2)
        }
    }
}

fn try_main() -> anyhow::Result<ExitCode> {
    let cli = Cli::parse();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    match cli.command {
        Command::Run(args) => runtime.block_on(run(args)),
        Command::Mcp(args) => {
            init_mcp_process();
            runtime.block_on(serve(args))
        }
        Command::Sdk(args) => {
            init_mcp_process();
            runtime.block_on(sdk(args))
        }
    }
}

/// Logging to stderr (stdout may be the MCP stream) and TLS for HTTPS
/// upstreams.
fn init_mcp_process() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn,coderun=info"));
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(filter)
        .with_ansi(false)
        .init();
    // Fails only if a provider is already installed, which is as good.
    let _ = rustls::crypto::ring::default_provider().install_default();
}

async fn serve(args: McpArgs) -> anyhow::Result<ExitCode> {
    let listen = args.listen.as_deref().map(parse_listen).transpose()?;
    let gateway = args.upstreams.start(&args.limits, args.mode).await?;
    let server = CodeModeServer::new(&gateway)?;
    let shutdown = CancellationToken::new();
    let on_signal = shutdown.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            on_signal.cancel();
        }
    });
    let served = match listen {
        Some(addr) => mcp::serve_http(server, addr, shutdown).await,
        None => tokio::select! {
            served = mcp::serve_stdio(server) => served,
            () = shutdown.cancelled() => Ok(()),
        },
    };
    gateway.close().await;
    served?;
    Ok(ExitCode::SUCCESS)
}

/// `8080` → 127.0.0.1:8080; `host:port` as given.
fn parse_listen(text: &str) -> anyhow::Result<std::net::SocketAddr> {
    if let Ok(port) = text.parse::<u16>() {
        return Ok(std::net::SocketAddr::from(([127, 0, 0, 1], port)));
    }
    text.parse().with_context(|| {
        format!(
            "--listen takes a port or an IP address and port, like 127.0.0.1:8080 (got {text:?})"
        )
    })
}

async fn sdk(args: SdkArgs) -> anyhow::Result<ExitCode> {
    let gateway = args.upstreams.start(&args.limits, Mode::Code).await?;
    if args.stats {
        let native: Vec<&rmcp::model::Tool> = gateway
            .upstreams()
            .iter()
            .flat_map(|upstream| upstream.listed_tools())
            .collect();
        let server = CodeModeServer::new(&gateway)?;
        let native_bytes = serde_json::to_string(&native)?.len();
        let code_bytes = serde_json::to_string(server.tools())?.len();
        println!(
            "native tools/list: {} tools, {native_bytes} bytes of JSON",
            native.len()
        );
        println!(
            "coderun mcp tools/list: {} tool, {code_bytes} bytes of JSON ({:.0}% of native)",
            server.tools().len(),
            100.0 * code_bytes as f64 / native_bytes.max(1) as f64
        );
    } else {
        println!("{}", gateway.registry().sdk_declarations());
    }
    let failed = !gateway.unavailable().is_empty();
    for reason in gateway.unavailable() {
        eprintln!("coderun sdk: {reason}");
    }
    gateway.close().await;
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

async fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    let program = read_program(&args.program)?;
    let runtime = WasmCodeRuntime::new(args.limits.config()?).context("creating the runtime")?;
    let mut request = CodeRunRequest::new(program);
    if !args.no_demo {
        request = request.binding(coderun::demo::namespace());
    }
    let result = runtime.run(request).await?;
    println!("{}", serde_json::to_string_pretty(&result)?);
    Ok(if result.is_ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn read_program(path: &PathBuf) -> anyhow::Result<String> {
    if path.as_os_str() == "-" {
        let mut program = String::new();
        std::io::stdin()
            .read_to_string(&mut program)
            .context("reading the program from stdin")?;
        return Ok(program);
    }
    if path.is_dir() {
        bail!("{} is a directory, not a program file", path.display());
    }
    std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))
}
