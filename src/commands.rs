//! `coderun run`, `replay` and `resume`: one program in the sandbox, its
//! record, and the continuation of a run a binding interrupted.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context as _, bail};
use clap::Args;
use coderun::mcp;
use coderun::runtime::{
    CodeRunRequest, CodeRunResult, CodeRuntime, Continuation, RunRecord, WasmCodeRuntime,
};
use serde_json::Value;

use crate::{RuntimeFlags, print_stdout};

/// The exit status of a run a binding interrupted.
const INTERRUPTED: u8 = 3;

#[derive(Args)]
pub(crate) struct RunArgs {
    /// The program file, or `-` to read it from stdin.
    program: PathBuf,
    #[command(flatten)]
    runtime: RuntimeFlags,
    #[command(flatten)]
    time: TimeFlags,
    /// Write the run's record to FILE (JSON), or, when a binding interrupts
    /// the run (`demo.confirm`), its continuation, for `coderun resume`.
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,
    /// Do not expose the demo namespace (`demo.echo`, `demo.add`,
    /// `demo.sleep`, `demo.fail`, `demo.confirm`).
    #[arg(long)]
    no_demo: bool,
}

/// Seed and clock.
#[derive(Args)]
struct TimeFlags {
    /// Deterministic mode: a virtual clock from `--epoch` (timers fire at
    /// once, in order; binding calls settle in start order) and the seed
    /// from `--seed` (default 0).
    #[arg(long)]
    deterministic: bool,
    /// The seed of `Math.random` and `crypto.getRandomValues` (default: a
    /// fresh one, kept in the record).
    #[arg(long, value_name = "N")]
    seed: Option<u64>,
    /// With `--deterministic`: where the virtual clock starts, as RFC 3339
    /// (`2025-01-01T00:00:00Z`) or milliseconds since the Unix epoch
    /// (default 0).
    #[arg(long, value_name = "ISO", requires = "deterministic")]
    epoch: Option<String>,
    /// The time zone of local time (`Date`'s local fields, `Intl`'s
    /// default): an IANA name (`America/New_York`), `UTC` or an offset
    /// (`+05:30`). Default: UTC, whatever this machine's zone.
    #[arg(long, value_name = "ZONE")]
    time_zone: Option<String>,
}

impl TimeFlags {
    fn apply(&self, mut request: CodeRunRequest) -> anyhow::Result<CodeRunRequest> {
        if self.deterministic {
            let epoch_ms = match &self.epoch {
                Some(epoch) => parse_epoch(epoch)?,
                None => 0,
            };
            request = request.deterministic(self.seed.unwrap_or(0), epoch_ms);
        } else if let Some(seed) = self.seed {
            request = request.seed(seed);
        }
        if let Some(zone) = &self.time_zone {
            request = request.time_zone(zone.clone());
        }
        Ok(request)
    }
}

fn parse_epoch(text: &str) -> anyhow::Result<u64> {
    if let Ok(ms) = text.parse::<u64>() {
        return Ok(ms);
    }
    let parsed = chrono::DateTime::parse_from_rfc3339(text).with_context(|| {
        format!("--epoch {text:?} is neither RFC 3339 (2025-01-01T00:00:00Z) nor milliseconds")
    })?;
    u64::try_from(parsed.timestamp_millis())
        .with_context(|| format!("--epoch {text:?} is before the Unix epoch"))
}

#[derive(Args)]
pub(crate) struct ReplayArgs {
    /// A record (or a continuation, whose record is replayed) written by
    /// `coderun run --record`.
    file: PathBuf,
    /// Check this program against the record instead of the recorded one.
    #[arg(long, value_name = "FILE")]
    program: Option<PathBuf>,
    #[command(flatten)]
    runtime: RuntimeFlags,
}

#[derive(Args)]
pub(crate) struct ResumeArgs {
    /// The continuation `coderun run --record` wrote when a binding
    /// interrupted the run.
    file: PathBuf,
    /// The interrupted call's result, as JSON (`'"approved"'`, `'{"ok": true}'`).
    #[arg(long, value_name = "JSON", required_unless_present = "reject")]
    answer: Option<String>,
    /// Reject the interrupted call with this message instead.
    #[arg(long, value_name = "MESSAGE", conflicts_with = "answer")]
    reject: Option<String>,
    /// Where to write the resumed run's record (or its continuation, if it
    /// is interrupted again).
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,
    #[command(flatten)]
    runtime: RuntimeFlags,
}

fn runtime(flags: &RuntimeFlags) -> anyhow::Result<WasmCodeRuntime> {
    let mut config = flags.runtime_config(&mcp::Limits::default(), &Default::default())?;
    // The CLI runs one program: keep the pool small, and one (each more
    // pool is another copy of the compiled guest to load).
    config.max_concurrent_runs(4).instance_pools(Some(1));
    WasmCodeRuntime::new(config).context("creating the runtime")
}

pub(crate) async fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    let program = read_program(&args.program)?;
    let record_file = args
        .record
        .as_deref()
        .map(RecordFile::prepare)
        .transpose()?;
    let runtime = runtime(&args.runtime)?;
    let mut request = args.time.apply(CodeRunRequest::new(program))?;
    request.record = record_file.is_some();
    if !args.no_demo {
        request = request.binding(coderun::demo::namespace());
    }
    let result = runtime.run(request).await?;
    report(result, record_file)
}

pub(crate) async fn replay(args: ReplayArgs) -> anyhow::Result<ExitCode> {
    let text = read_file(&args.file)?;
    let record = match RunRecord::from_json(&text) {
        Ok(record) => record,
        Err(not_a_record) => match Continuation::from_json(&text) {
            Ok(continuation) => continuation.record,
            Err(_) => bail!("{}: {not_a_record}", args.file.display()),
        },
    };
    let mut request = CodeRunRequest::replay(record);
    if let Some(program) = &args.program {
        request.program = read_program(program)?;
    }
    let result = runtime(&args.runtime)?.run(request).await?;
    report(result, None)
}

pub(crate) async fn resume(args: ResumeArgs) -> anyhow::Result<ExitCode> {
    let text = read_file(&args.file)?;
    let continuation = Continuation::from_json(&text)
        .with_context(|| format!("{} is not a continuation", args.file.display()))?;
    let answer = match (&args.answer, &args.reject) {
        (Some(json), _) => Ok(serde_json::from_str::<Value>(json)
            .with_context(|| format!("--answer {json:?} is not JSON"))?),
        (None, Some(message)) => Err(message.clone()),
        (None, None) => bail!("give --answer JSON or --reject MESSAGE"),
    };
    let record_file = args
        .record
        .as_deref()
        .map(RecordFile::prepare)
        .transpose()?;
    let request = CodeRunRequest::resume(continuation, answer).binding(coderun::demo::namespace());
    let result = runtime(&args.runtime)?.run(request).await?;
    report(result, record_file)
}

/// Where a record or continuation is written: a file beside the
/// destination, made before the run (so that a directory that cannot take
/// it fails the command before any binding is called) and renamed over the
/// destination when the run is done (so that a reader never sees half a
/// record).
struct RecordFile {
    destination: PathBuf,
    staging: PathBuf,
}

impl RecordFile {
    fn prepare(destination: &Path) -> anyhow::Result<Self> {
        if destination.is_dir() {
            bail!("--record {}: is a directory", destination.display());
        }
        let name = destination
            .file_name()
            .with_context(|| format!("--record {}: names no file", destination.display()))?;
        let mut staged = std::ffi::OsString::from(".");
        staged.push(name);
        staged.push(format!(".coderun-{}.tmp", std::process::id()));
        let staging = destination.with_file_name(staged);
        std::fs::File::create(&staging).with_context(|| {
            format!(
                "--record {}: cannot write beside it ({}), so the run was not started",
                destination.display(),
                staging.display()
            )
        })?;
        Ok(Self {
            destination: destination.to_owned(),
            staging,
        })
    }

    fn commit(&self, json: &str) -> std::io::Result<()> {
        std::fs::write(&self.staging, json)?;
        std::fs::rename(&self.staging, &self.destination)
    }
}

impl Drop for RecordFile {
    fn drop(&mut self) {
        // Gone after a commit; left over when the run wrote nothing.
        let _ = std::fs::remove_file(&self.staging);
    }
}

/// Prints the result (without its record or continuation, which go to
/// `record_file`) and picks the exit status. When the file cannot be
/// written, the record or continuation is printed in the output instead,
/// and the command fails after printing: nothing a run did is lost.
fn report(mut result: CodeRunResult, record_file: Option<RecordFile>) -> anyhow::Result<ExitCode> {
    let record = result.record.take();
    let mut printed = serde_json::to_value(&result)?;
    let mut unwritten = None;
    if let Some(file) = &record_file {
        let (what, json) = match &result.interrupted {
            Some(interrupted) => (
                "continuation",
                serde_json::to_string(&interrupted.continuation)?,
            ),
            // A run that ended before its program started has none.
            None => match &record {
                Some(record) => ("record", serde_json::to_string(record)?),
                None => ("", String::new()),
            },
        };
        if !what.is_empty() {
            let shown = file.destination.display().to_string();
            match file.commit(&json) {
                Ok(()) => {
                    if let Value::Object(map) = &mut printed {
                        map.insert(format!("{what}_file"), Value::from(shown));
                    }
                }
                Err(error) => {
                    if let Value::Object(map) = &mut printed {
                        map.insert(what.to_owned(), serde_json::from_str(&json)?);
                    }
                    unwritten = Some(format!(
                        "writing the {what} to {shown} failed ({error}): it is in the output above"
                    ));
                }
            }
        }
    }
    if let Some(interrupted) = printed
        .get_mut("interrupted")
        .and_then(Value::as_object_mut)
    {
        interrupted.remove("continuation");
    }
    print_stdout(&serde_json::to_string_pretty(&printed)?)?;
    if let Some(reason) = unwritten {
        bail!(reason);
    }
    Ok(if result.interrupted.is_some() {
        ExitCode::from(INTERRUPTED)
    } else if result.is_ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn read_file(path: &Path) -> anyhow::Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))
}

pub(crate) fn read_program(path: &Path) -> anyhow::Result<String> {
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
    read_file(path)
}
