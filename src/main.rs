//! The `coderun` command-line tool.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context as _, bail};
use clap::{Args, Parser, Subcommand};
use coderun::code_mode::Mode;
use coderun::mcp::{self, HttpConfig, McpConfig, RequestStateConfig, ServerSpec, UpstreamSpec};
use coderun::runtime::{NetworkPolicy, RuntimeConfig};

mod commands;
mod logging;
mod serve;

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
    /// as JSON. Exits 1 when the program fails, 3 when a binding
    /// interrupted it (its continuation is in the `--record` file).
    Run(commands::RunArgs),
    /// Run a recorded program again, its binding calls answered and checked
    /// by the record, and print the result as `run` does.
    Replay(commands::ReplayArgs),
    /// Resume an interrupted run from its continuation: replay it, deliver
    /// the answer to the interrupted call, and go on live.
    Resume(commands::ResumeArgs),
    /// Serve Code Mode over MCP in front of MCP servers: one `run_code` tool
    /// whose description declares every upstream tool in TypeScript. Serves
    /// stdio unless `--listen` is given. Logs go to stderr (`RUST_LOG`).
    /// SIGINT, SIGTERM and the end of stdin stop it within a second.
    Mcp(McpArgs),
    /// Print the TypeScript SDK generated for MCP servers, without serving.
    Sdk(SdkArgs),
}

/// The upstream MCP servers: a configuration file, or one command.
#[derive(Args)]
struct Upstreams {
    /// A configuration in the `mcpServers` JSON format of MCP clients, with
    /// optional `limits`, `http`, `requestState` and `network` objects (see
    /// the README). Tools are named
    /// `<server>_<tool>`.
    #[arg(long, value_name = "FILE", required_unless_present = "command")]
    config: Option<PathBuf>,
    /// One upstream server to start instead of a configuration:
    /// `-- <command> [args...]`. Its tools keep their names.
    #[arg(last = true, value_name = "COMMAND", conflicts_with = "config")]
    command: Vec<String>,
    /// With `-- <command>`: which of its tools need approval before a
    /// program's call runs: `never`, `destructive` (those annotated
    /// `destructiveHint: true`) or `always`. With `--config`, each server's
    /// `"requireApproval"` says.
    #[arg(long, value_name = "WHICH", default_value = "never", value_parser = str::parse::<mcp::RequireApproval>, conflicts_with = "config")]
    require_approval: mcp::RequireApproval,
}

#[derive(Args)]
struct McpArgs {
    #[command(flatten)]
    upstreams: Upstreams,
    /// What to offer: `code` (only run_code) or `both` (every upstream tool
    /// and run_code).
    #[arg(long, default_value = "code", value_parser = parse_mode)]
    mode: Mode,
    /// Serve streamable HTTP at `http://<ADDR>/mcp` instead of stdio: `PORT`
    /// (on 127.0.0.1), `IP:PORT`, `[IPv6]:PORT` or `HOST:PORT` (the first of
    /// the name's addresses that can be bound). Port 0 picks a free one (the
    /// address is printed to stderr).
    #[arg(long, value_name = "ADDR")]
    listen: Option<String>,
    /// `--listen`: also accept requests from browser pages of this origin
    /// (`https://app.example.com`, `http://host:*` for any port); pages on
    /// localhost are always accepted, others get 403. Repeatable; adds to
    /// the configuration's `http.allowedOrigins`.
    #[arg(long, value_name = "ORIGIN", requires = "listen")]
    allow_origin: Vec<String>,
    /// `--listen`: require every request to carry `Authorization: Bearer
    /// <token>`, the token being the value of the environment variable NAME
    /// (overrides the configuration's `http.authTokenEnv`).
    #[arg(long, value_name = "NAME", requires = "listen")]
    auth_token_env: Option<String>,
    /// Serve the operations endpoints (`/healthz`, `/readyz`, `/metrics` in
    /// Prometheus text) at ADDR, as `--listen` takes it: a port of their
    /// own, never exposed with `/mcp`.
    #[arg(long, value_name = "ADDR")]
    ops_listen: Option<String>,
    /// On SIGTERM, drain for up to SECONDS first: stop being ready, refuse
    /// new calls (error -32001, retry them elsewhere), let the calls in
    /// flight finish, then shut down, aborting what still runs. A second
    /// SIGTERM or SIGINT stops at once. Default 0: no drain.
    #[arg(long, value_name = "SECONDS", default_value_t = 0.0)]
    drain_seconds: f64,
    /// Log to stderr as one JSON object a line (with the call's `trace_id`
    /// when traces are exported), for log collectors.
    #[arg(long)]
    log_json: bool,
    /// The largest MCP message accepted, in bytes: a line on stdio (a longer
    /// one is answered with an error and skipped), a request body over HTTP
    /// (413). Default 16 MiB.
    #[arg(long, value_name = "BYTES")]
    max_message_bytes: Option<usize>,
    #[command(flatten)]
    runtime: RuntimeFlags,
    #[command(flatten)]
    upstream: UpstreamFlags,
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
    runtime: RuntimeFlags,
    #[command(flatten)]
    upstream: UpstreamFlags,
}

fn parse_mode(text: &str) -> Result<Mode, String> {
    match text.parse::<Mode>() {
        Ok(Mode::Native) => Err("mode native offers no run_code; use code or both".to_owned()),
        Ok(mode) => Ok(mode),
        Err(error) => Err(error.to_string()),
    }
}

/// The runtime's budgets and its compile cache; each budget defaults to the
/// library's default (or, for `mcp` and `sdk`, to the configuration file's
/// `limits`).
#[derive(Args)]
struct RuntimeFlags {
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
    /// Cap on the bytes of the failure message.
    #[arg(long, value_name = "BYTES")]
    max_error_bytes: Option<usize>,
    /// The longest program accepted, in bytes.
    #[arg(long, value_name = "BYTES")]
    max_program_bytes: Option<usize>,
    /// The deepest nesting of syntax accepted (brackets, blocks, chained
    /// operators).
    #[arg(long, value_name = "LEVELS")]
    max_nesting_depth: Option<usize>,
    /// Memory all concurrent programs may hold together, in MiB (default:
    /// half the machine's).
    #[arg(long, value_name = "MIB")]
    max_total_memory_mib: Option<u64>,
    /// Compile the guest in this process instead of loading it from the
    /// per-user cache ($XDG_CACHE_HOME/coderun, or ~/.cache/coderun), and
    /// write nothing there.
    #[arg(long)]
    no_cache: bool,
    /// The environment variable holding the key continuations are signed
    /// with (HMAC-SHA256; its value, at least 32 bytes, random): an
    /// interrupted run's continuation is signed with an expiry, and resuming
    /// refuses one that is unsigned, altered or expired. Give every process
    /// that resumes the same key.
    #[arg(long, value_name = "NAME")]
    continuation_key_env: Option<String>,
    /// Let programs `fetch` from ORIGIN (`https://api.github.com`,
    /// `https://*.example.com`, `http://127.0.0.1:*`); repeatable. Nothing
    /// is allowed by default. Adds to a configuration's `network.allow`.
    #[arg(long = "allow-net", value_name = "ORIGIN")]
    allow_net: Vec<String>,
    /// A secret requests may carry to ORIGIN: the value of the environment
    /// variable ENV_VAR, sent where a program writes `{{secret:NAME}}` in a
    /// header; the program never sees it. Repeatable (once per origin).
    #[arg(long = "secret", value_name = "NAME=ENV_VAR@ORIGIN")]
    secrets: Vec<String>,
    /// Let allowed origins resolve to loopback addresses (127.0.0.0/8,
    /// ::1): for tests and local services.
    #[arg(long)]
    allow_loopback: bool,
    /// Let allowed origins resolve to private addresses (10/8, 172.16/12,
    /// 192.168/16, 100.64/10, fc00::/7).
    #[arg(long)]
    allow_private: bool,
}

impl RuntimeFlags {
    /// The budgets these flags set (the others unset).
    fn limits(&self) -> anyhow::Result<mcp::Limits> {
        Ok(mcp::Limits {
            fuel: self.fuel,
            wall_clock: mcp::config::optional_seconds("--wall-clock", self.wall_clock)
                .map_err(anyhow::Error::msg)?,
            max_memory_mib: self.max_memory_mib,
            max_log_bytes: self.max_log_bytes,
            max_value_bytes: self.max_value_bytes,
            max_error_bytes: self.max_error_bytes,
            max_program_bytes: self.max_program_bytes,
            max_nesting_depth: self.max_nesting_depth,
            max_total_memory_mib: self.max_total_memory_mib,
            ..mcp::Limits::default()
        })
    }

    /// The runtime configuration: `base`'s budgets with the flags' over
    /// them, `network` with the flags' origins and secrets added, and the
    /// compile cache.
    fn runtime_config(
        &self,
        base: &mcp::Limits,
        network: &NetworkPolicy,
    ) -> anyhow::Result<RuntimeConfig> {
        let mut config = base.overridden_by(&self.limits()?).runtime_config();
        config.network(self.network(network.clone())?);
        config.compile_cache_dir(if self.no_cache { None } else { cache_dir() });
        if let Some(name) = &self.continuation_key_env {
            config.continuation_key(Some(continuation_key(name)?));
        }
        Ok(config)
    }
}

impl RuntimeFlags {
    /// `policy` with the flags' origins, secrets and reach added.
    fn network(&self, mut policy: NetworkPolicy) -> anyhow::Result<NetworkPolicy> {
        for origin in &self.allow_net {
            policy = policy.allow(origin.as_str());
        }
        for flag in &self.secrets {
            let parsed = flag.split_once('=').and_then(|(name, rest)| {
                rest.split_once('@')
                    .map(|(variable, origin)| (name, variable, origin))
            });
            let Some((name, variable, origin)) = parsed else {
                bail!("--secret {flag:?} is not NAME=ENV_VAR@ORIGIN");
            };
            if let Some(secret) = policy.secrets.iter_mut().find(|s| s.name == name) {
                *secret = secret.clone().origin(origin);
                continue;
            }
            let value = std::env::var(variable).with_context(|| {
                format!("--secret {name}: the environment variable {variable} is not set")
            })?;
            policy = policy.secret(coderun::runtime::Secret::new(name, value).origin(origin));
        }
        policy.allow_loopback |= self.allow_loopback;
        policy.allow_private |= self.allow_private;
        policy
            .validate()
            .map_err(|why| anyhow::anyhow!("the network policy is invalid: {why}"))?;
        Ok(policy)
    }
}

/// The signing key in the environment variable `name` (its bytes as they
/// are), which must be set and at least 32 bytes long.
fn continuation_key(name: &str) -> anyhow::Result<coderun::runtime::SigningKey> {
    use std::os::unix::ffi::OsStringExt as _;
    let value = std::env::var_os(name).with_context(|| {
        format!("--continuation-key-env names the environment variable {name}, which is not set")
    })?;
    let bytes = value.into_vec();
    if bytes.len() < MIN_KEY_BYTES {
        bail!(
            "--continuation-key-env names the environment variable {name}, whose value has {} \
             bytes; a signing key needs at least {MIN_KEY_BYTES} (random)",
            bytes.len()
        );
    }
    Ok(coderun::runtime::SigningKey::new(bytes))
}

/// The shortest continuation signing key accepted.
const MIN_KEY_BYTES: usize = 32;

/// The per-user cache directory for the compiled guest: `$XDG_CACHE_HOME`
/// or `~/.cache`, then `coderun`; none if neither is known.
fn cache_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache")))?;
    Some(base.join("coderun"))
}

/// `mcp` and `sdk`: how long upstreams may take, and what `run_code`
/// shows.
#[derive(Args)]
struct UpstreamFlags {
    /// How much of the catalog run_code's description declares: `full`
    /// (every tool in TypeScript), `search` (names and one-line summaries;
    /// programs find signatures with `tools.$search`), or `auto` (full
    /// while it fits the SDK budget, else search). Default auto.
    #[arg(long, value_name = "MODE", value_parser = str::parse::<coderun::code_mode::Disclosure>)]
    disclosure: Option<coderun::code_mode::Disclosure>,
    /// Bytes the SDK in run_code's description may take before `auto`
    /// switches to search (default 15360).
    #[arg(long, value_name = "BYTES")]
    sdk_budget_bytes: Option<usize>,
    /// Bytes of text one run_code result may return: printed lines, the
    /// returned value and a failure together (default 24576).
    #[arg(long, value_name = "BYTES")]
    max_output_bytes: Option<usize>,
    /// Log each run's trace (calls, durations, sizes, fuel, memory) as one
    /// JSON line on stderr.
    #[arg(long)]
    trace: bool,
    /// Seconds an upstream has to start and list its tools (default 30).
    #[arg(long, value_name = "SECONDS")]
    startup_timeout: Option<f64>,
    /// Seconds an upstream has to answer one call (default 20); a call it
    /// has not answered by then rejects in the program.
    #[arg(long, value_name = "SECONDS")]
    call_timeout: Option<f64>,
}

impl UpstreamFlags {
    /// The limits these flags set (the others unset).
    fn limits(&self) -> anyhow::Result<mcp::Limits> {
        let seconds = |flag: &str, value: Option<f64>| {
            mcp::config::optional_seconds(flag, value).map_err(anyhow::Error::msg)
        };
        Ok(mcp::Limits {
            startup_timeout: seconds("--startup-timeout", self.startup_timeout)?,
            call_timeout: seconds("--call-timeout", self.call_timeout)?,
            max_output_bytes: match self.max_output_bytes {
                Some(0) => bail!("--max-output-bytes must be positive (got 0)"),
                other => other,
            },
            sdk_budget_bytes: self.sdk_budget_bytes,
            disclosure: self.disclosure,
            trace: self.trace.then_some(true),
            ..mcp::Limits::default()
        })
    }
}

impl Upstreams {
    /// The upstreams to start, and the limits and HTTP settings the
    /// configuration file sets.
    fn load(&self) -> anyhow::Result<Loaded> {
        if let Some(path) = &self.config {
            let config = McpConfig::load(path)?;
            return Ok(Loaded {
                upstreams: UpstreamSpec::from_config(&config),
                limits: config.limits,
                http: config.http,
                request_state: config.request_state,
                network: config.network,
            });
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
            require_approval: self.require_approval,
            timeouts: mcp::ServerTimeouts::default(),
        };
        Ok(Loaded {
            upstreams: vec![upstream],
            limits: mcp::Limits::default(),
            http: HttpConfig::default(),
            request_state: RequestStateConfig::default(),
            network: NetworkPolicy::default(),
        })
    }
}

/// What the configuration file (or the command line) sets up.
struct Loaded {
    upstreams: Vec<UpstreamSpec>,
    limits: mcp::Limits,
    http: HttpConfig,
    request_state: RequestStateConfig,
    network: NetworkPolicy,
}

/// How long the async runtime may take to stop once a command is done: a
/// task still blocked then (say, on a slow pipe) is abandoned.
const RUNTIME_SHUTDOWN: Duration = Duration::from_millis(100);

fn main() -> ExitCode {
    match try_main() {
        Ok(code) => code,
        Err(error) => {
            print_stderr(&format!("coderun: {error:#}"));
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
    let outcome = match cli.command {
        Command::Run(args) => runtime.block_on(commands::run(args)),
        Command::Replay(args) => runtime.block_on(commands::replay(args)),
        Command::Resume(args) => runtime.block_on(commands::resume(args)),
        Command::Mcp(args) => {
            let _logs = logging::init_mcp_process(args.log_json);
            runtime.block_on(serve::serve(args))
        }
        Command::Sdk(args) => {
            let _logs = logging::init_mcp_process(false);
            runtime.block_on(serve::sdk(args))
        }
    };
    runtime.shutdown_timeout(RUNTIME_SHUTDOWN);
    outcome
}

/// Writes `text` and a newline to stdout. A reader that has closed the pipe
/// (`coderun run prog.ts | head -c 1`) has what it wanted: that is not an
/// error, and the command keeps the exit status it would have had.
fn print_stdout(text: &str) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    match writeln!(stdout, "{text}").and_then(|()| stdout.flush()) {
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        written => written.context("writing to stdout"),
    }
}

/// Writes `text` and a newline to stderr, if it can: there is nowhere left
/// to report a failure to write there.
fn print_stderr(text: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{text}");
}
