//! `coderun run --record`, `coderun replay` and `coderun resume`, each in
//! its own process, through files as a user would keep them.

use std::path::Path;

use serde_json::{Value, json};

use super::{coderun, json_of};

/// Runs `coderun <args>` and returns its exit status and printed JSON.
fn coderun_json(args: &[&str]) -> (Option<i32>, Value) {
    let output = coderun().args(args).output().expect("coderun runs");
    let code = output.status.code();
    (code, json_of(&output))
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("writes the file");
    path.display().to_string()
}

const SUMMED: &str = "let total = 0;
for (let i = 0; i < 5; i++) total = await demo.add({ a: total, b: i });
await new Promise((r) => setTimeout(r, 1000));
return { total, when: Date.now(), roll: Math.floor(Math.random() * 1e9), id: crypto.randomUUID() };";

#[test]
fn a_recorded_deterministic_run_replays_identically_and_an_edit_diverges() {
    let dir = tempfile::tempdir().unwrap();
    let program = write(dir.path(), "sum.ts", SUMMED);
    let record = dir.path().join("run.json").display().to_string();
    let (code, first) = coderun_json(&[
        "run",
        &program,
        "--deterministic",
        "--seed",
        "7",
        "--epoch",
        "2025-01-01T00:00:00Z",
        "--record",
        &record,
    ]);
    assert_eq!(code, Some(0), "{first}");
    assert_eq!(first["value"]["total"], 10.0);
    // The virtual clock: the epoch, plus the one second the program waited.
    assert_eq!(first["value"]["when"], 1_735_689_601_000_u64);
    assert_eq!(first["record_file"], Value::from(record.clone()));
    assert!(first.get("record").is_none(), "the record goes to its file");

    let (code, replayed) = coderun_json(&["replay", &record]);
    assert_eq!(code, Some(0), "{replayed}");
    assert_eq!(replayed["value"], first["value"]);
    assert_eq!(replayed["fuel_consumed"], first["fuel_consumed"]);

    // The same seed in a fresh run gives the same randomness; another seed does not.
    let (_, again) = coderun_json(&[
        "run",
        &program,
        "--deterministic",
        "--seed",
        "7",
        "--epoch",
        "1735689600000",
    ]);
    assert_eq!(again["value"], first["value"]);
    let (_, other) = coderun_json(&[
        "run",
        &program,
        "--deterministic",
        "--seed",
        "8",
        "--epoch",
        "1735689600000",
    ]);
    assert_ne!(other["value"]["roll"], first["value"]["roll"]);

    let edited = write(dir.path(), "edited.ts", &SUMMED.replace("b: i", "b: i * 2"));
    let (code, diverged) = coderun_json(&["replay", &record, "--program", &edited]);
    assert_eq!(code, Some(1), "{diverged}");
    assert_eq!(diverged["error"]["kind"], "diverged");
    let message = diverged["error"]["message"].as_str().unwrap();
    // i = 0 adds 0 either way; i = 1 is the first call that differs.
    assert!(message.contains("at call 2"), "{message}");
    assert!(message.contains("demo.add"), "{message}");
}

const CONFIRMED: &str = "const sum = await demo.add({ a: 1, b: 2 });
try {
  const answer = await demo.confirm(`delete ${sum} files?`);
  return `answered ${answer}: ${await demo.add({ a: sum, b: 1 })}`;
} catch (e) {
  return `refused: ${(e as Error).message}`;
}";

#[test]
fn an_interrupted_run_exits_3_and_resumes_in_another_process() {
    let dir = tempfile::tempdir().unwrap();
    let program = write(dir.path(), "confirm.ts", CONFIRMED);
    let paused = dir.path().join("paused.json").display().to_string();
    let (code, first) = coderun_json(&["run", &program, "--record", &paused]);
    assert_eq!(code, Some(3), "{first}");
    assert_eq!(
        first["interrupted"]["payload"],
        json!({"confirm": "delete 3 files?"})
    );
    assert_eq!(first["interrupted"]["call"], "demo.confirm");
    assert!(
        first["interrupted"].get("continuation").is_none(),
        "it goes to its file"
    );
    assert_eq!(first["continuation_file"], Value::from(paused.clone()));

    let (code, approved) = coderun_json(&["resume", &paused, "--answer", "\"yes\""]);
    assert_eq!(code, Some(0), "{approved}");
    assert_eq!(approved["value"], "answered yes: 4");

    let (code, refused) = coderun_json(&["resume", &paused, "--reject", "not today"]);
    assert_eq!(code, Some(0), "{refused}");
    assert_eq!(refused["value"], "refused: not today");
}

#[test]
fn bad_durable_input_is_a_usage_error_with_a_message() {
    let dir = tempfile::tempdir().unwrap();
    let program = write(dir.path(), "p.ts", "return 1");
    let not_json = write(
        dir.path(),
        "bad.json",
        "{\"format\": \"coderun.run-record\"",
    );
    for (args, needle) in [
        (
            vec![
                "run",
                program.as_str(),
                "--deterministic",
                "--epoch",
                "yesterday",
            ],
            "--epoch \"yesterday\"",
        ),
        (
            vec!["run", program.as_str(), "--epoch", "0"],
            "--deterministic",
        ),
        (vec!["replay", not_json.as_str()], "bad.json"),
        (
            vec!["resume", not_json.as_str(), "--answer", "1"],
            "bad.json",
        ),
        (
            vec!["resume", program.as_str(), "--answer", "not json"],
            "p.ts",
        ),
    ] {
        let output = coderun().args(&args).output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
    }
}

/// `--record` into a directory that cannot take the file fails before the
/// run starts (no binding is called for a record that would be lost); a
/// file that cannot be written after the run keeps the record in the
/// printed output, and the command fails after printing it.
#[test]
fn a_record_that_cannot_be_written_is_never_lost() {
    let dir = tempfile::tempdir().unwrap();
    let program = write(
        dir.path(),
        "p.ts",
        "await demo.add({ a: 1, b: 2 }); return 'ran';",
    );
    let missing = dir
        .path()
        .join("no/such/dir/run.json")
        .display()
        .to_string();
    let output = coderun()
        .args(["run", &program, "--record", &missing, "--no-cache"])
        .output()
        .expect("coderun runs");
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty(), "nothing ran");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("so the run was not started"), "{stderr}");

    // The directory is removed while the program waits: the record cannot
    // be written, so it is printed.
    let doomed = tempfile::tempdir().unwrap();
    let record = doomed.path().join("run.json").display().to_string();
    let slow = write(
        dir.path(),
        "slow.ts",
        "await demo.add({ a: 1, b: 2 }); await demo.sleep({ ms: 1500 }); return 'ran';",
    );
    let child = coderun()
        .args(["run", &slow, "--record", &record, "--no-cache"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("coderun runs");
    std::thread::sleep(std::time::Duration::from_millis(500));
    let doomed_path = doomed.path().to_owned();
    drop(doomed);
    assert!(!doomed_path.exists());
    let output = child.wait_with_output().expect("coderun ends");
    assert_eq!(
        output.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let printed = json_of(&output);
    assert_eq!(printed["value"], "ran", "{printed}");
    assert_eq!(
        printed["record"]["calls"].as_array().map(Vec::len),
        Some(2),
        "{printed}"
    );
    assert!(String::from_utf8_lossy(&output.stderr).contains("it is in the output above"));
}

/// `--continuation-key-env` signs a paused run's continuation; resuming
/// with the key accepts it as written and refuses it altered or under
/// another key; a key too short or missing is a usage error.
#[test]
fn a_signed_continuation_resumes_only_as_signed() {
    const KEY: &str = "CODERUN_TEST_CONTINUATION_KEY";
    let dir = tempfile::tempdir().unwrap();
    let program = write(dir.path(), "confirm.ts", CONFIRMED);
    let paused = dir.path().join("paused.json").display().to_string();
    let with_key = |key: &str, args: &[&str]| {
        let output = coderun()
            .args(args)
            .args(["--continuation-key-env", KEY])
            .env(KEY, key)
            .output()
            .expect("coderun runs");
        (output.status.code(), output)
    };
    let key = "k3y-".repeat(10);
    let (code, output) = with_key(&key, &["run", &program, "--record", &paused]);
    assert_eq!(code, Some(3), "{}", String::from_utf8_lossy(&output.stdout));
    let written = std::fs::read_to_string(&paused).expect("the continuation");
    let signed: Value = serde_json::from_str(&written).expect("JSON");
    assert!(
        signed["signature"].as_str().is_some_and(|s| s.len() == 64),
        "{signed}"
    );

    let (code, output) = with_key(&key, &["resume", &paused, "--answer", "\"yes\""]);
    assert_eq!(code, Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(json_of(&output)["value"], "answered yes: 4");

    let altered = write(
        dir.path(),
        "altered.json",
        &written.replace("delete 3 files?", "delete 9 files?"),
    );
    assert_ne!(altered, paused);
    for (key, file) in [
        (key.as_str(), altered.as_str()),
        (&*"x".repeat(40), paused.as_str()),
    ] {
        let (code, output) = with_key(key, &["resume", file, "--answer", "\"yes\""]);
        assert_eq!(code, Some(2), "{}", String::from_utf8_lossy(&output.stdout));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("signature"), "{stderr}");
    }

    let (code, output) = with_key("short", &["resume", &paused, "--answer", "1"]);
    assert_eq!(code, Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("at least 32"));
    let output = coderun()
        .args([
            "resume",
            &paused,
            "--answer",
            "1",
            "--continuation-key-env",
            KEY,
        ])
        .env_remove(KEY)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("which is not set"));
}
