//! The `coderun` command-line tool.

use std::io::Read as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context as _, bail};
use clap::{Args, Parser, Subcommand};
use coderun::runtime::{CodeRunRequest, CodeRuntime, RuntimeConfig, WasmCodeRuntime};

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
}

impl Limits {
    fn config(&self) -> anyhow::Result<RuntimeConfig> {
        let mut config = RuntimeConfig::new();
        // The CLI runs one program at a time: keep the pool small.
        config.max_concurrent_runs(4);
        if let Some(fuel) = self.fuel {
            config.fuel(fuel);
        }
        if let Some(seconds) = self.wall_clock {
            let wall_clock = Duration::try_from_secs_f64(seconds).with_context(|| {
                format!("--wall-clock must be a positive number of seconds (got {seconds})")
            })?;
            config.wall_clock(wall_clock);
        }
        if let Some(mib) = self.max_memory_mib {
            config.max_memory_bytes(mib.saturating_mul(1024 * 1024));
        }
        if let Some(bytes) = self.max_log_bytes {
            config.max_log_bytes(bytes);
        }
        if let Some(bytes) = self.max_value_bytes {
            config.max_value_bytes(bytes);
        }
        Ok(config)
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
    }
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
