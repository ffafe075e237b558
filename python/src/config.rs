//! `Runtime(...)`'s keyword options → `RuntimeConfig`. The Rust defaults
//! apply to every option left out, and `RuntimeConfig::validate` is the
//! one validator: its messages reach Python unchanged. What is checked
//! here is only what Rust's types cannot hold (a negative count, a
//! non-finite number of seconds).

use std::path::PathBuf;
use std::time::Duration;

use coderun_runtime::{RuntimeConfig, SigningKey};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::ConfigError;

const MIB: u64 = 1024 * 1024;

/// The options of `Runtime(...)`, each `None` when left to its default.
#[derive(Default)]
pub(crate) struct Options {
    pub(crate) fuel: Option<i128>,
    pub(crate) fuel_metering: Option<bool>,
    pub(crate) wall_clock: Option<f64>,
    pub(crate) max_memory_mib: Option<i128>,
    pub(crate) max_log_bytes: Option<i128>,
    pub(crate) max_value_bytes: Option<i128>,
    pub(crate) max_error_bytes: Option<i128>,
    pub(crate) max_program_bytes: Option<i128>,
    pub(crate) max_nesting_depth: Option<i128>,
    pub(crate) max_total_memory_mib: Option<i128>,
    pub(crate) max_concurrent_runs: Option<i128>,
    pub(crate) instance_pools: Option<i128>,
    pub(crate) max_pending_calls: Option<i128>,
    pub(crate) max_record_bytes: Option<i128>,
    pub(crate) continuation_ttl: Option<f64>,
    pub(crate) continuation_key: Option<Vec<u8>>,
    pub(crate) compile_cache_dir: Option<PathBuf>,
    pub(crate) network: Option<coderun_runtime::NetworkPolicy>,
}

fn config_error(message: String) -> PyErr {
    ConfigError::new_err(message)
}

/// `value` as a `T`, or an error naming `key` and `value`.
fn count<T: TryFrom<i128>>(key: &str, value: i128) -> PyResult<T> {
    if value < 0 {
        return Err(config_error(format!(
            "config.{key} must not be negative (got {value})"
        )));
    }
    T::try_from(value).map_err(|_| config_error(format!("config.{key} is too large (got {value})")))
}

fn seconds(key: &str, value: f64) -> PyResult<Duration> {
    Duration::try_from_secs_f64(value).map_err(|_| {
        config_error(format!(
            "config.{key} must be a finite, non-negative number of seconds (got {value})"
        ))
    })
}

/// Mebibytes as bytes; `from` is the option's name, for the message.
fn mebibytes(key: &str, value: i128) -> PyResult<u64> {
    let mib: u64 = count(key, value)?;
    mib.checked_mul(MIB)
        .ok_or_else(|| config_error(format!("config.{key} is too large (got {value})")))
}

impl Options {
    /// The configuration, validated.
    pub(crate) fn build(&self) -> PyResult<RuntimeConfig> {
        let mut config = RuntimeConfig::new();
        if let Some(fuel) = self.fuel {
            config.fuel(count("fuel", fuel)?);
        }
        if let Some(metering) = self.fuel_metering {
            config.fuel_metering(metering);
        }
        if let Some(wall_clock) = self.wall_clock {
            config.wall_clock(seconds("wall_clock", wall_clock)?);
        }
        if let Some(mib) = self.max_memory_mib {
            config.max_memory_bytes(mebibytes("max_memory_mib", mib)?);
        }
        if let Some(bytes) = self.max_log_bytes {
            config.max_log_bytes(count("max_log_bytes", bytes)?);
        }
        if let Some(bytes) = self.max_value_bytes {
            config.max_value_bytes(count("max_value_bytes", bytes)?);
        }
        if let Some(bytes) = self.max_error_bytes {
            config.max_error_bytes(count("max_error_bytes", bytes)?);
        }
        if let Some(bytes) = self.max_program_bytes {
            config.max_program_bytes(count("max_program_bytes", bytes)?);
        }
        if let Some(depth) = self.max_nesting_depth {
            config.max_nesting_depth(count("max_nesting_depth", depth)?);
        }
        if let Some(mib) = self.max_total_memory_mib {
            config.max_total_memory_bytes(Some(mebibytes("max_total_memory_mib", mib)?));
        }
        if let Some(runs) = self.max_concurrent_runs {
            config.max_concurrent_runs(count("max_concurrent_runs", runs)?);
        }
        if let Some(pools) = self.instance_pools {
            config.instance_pools(Some(count("instance_pools", pools)?));
        }
        if let Some(calls) = self.max_pending_calls {
            config.max_pending_calls(count("max_pending_calls", calls)?);
        }
        if let Some(bytes) = self.max_record_bytes {
            config.max_record_bytes(count("max_record_bytes", bytes)?);
        }
        if let Some(ttl) = self.continuation_ttl {
            config.continuation_ttl(seconds("continuation_ttl", ttl)?);
        }
        if let Some(key) = &self.continuation_key {
            config.continuation_key(Some(SigningKey::new(key.clone())));
        }
        if let Some(dir) = &self.compile_cache_dir {
            config.compile_cache_dir(Some(dir.clone()));
        }
        if let Some(policy) = &self.network {
            config.network(policy.clone());
        }
        config.validate().map_err(|error| {
            // A key set in MiB is validated in bytes: say which option it was.
            let given = match error.key() {
                "max_memory_bytes" => self.max_memory_mib.map(|v| ("max_memory_mib", v)),
                "max_total_memory_bytes" => self
                    .max_total_memory_mib
                    .map(|v| ("max_total_memory_mib", v)),
                _ => None,
            };
            match given {
                Some((option, value)) => config_error(format!("{error}, from {option}={value}")),
                None => config_error(error.to_string()),
            }
        })?;
        Ok(config)
    }
}

/// The configuration as Python sees it: durations in seconds, memory in
/// MiB, `None` where Rust has `None`.
pub(crate) fn describe<'py>(
    py: Python<'py>,
    config: &RuntimeConfig,
) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    dict.set_item("fuel", config.get_fuel())?;
    dict.set_item("fuel_metering", config.get_fuel_metering())?;
    dict.set_item("wall_clock", config.get_wall_clock().as_secs_f64())?;
    dict.set_item("max_memory_mib", config.get_max_memory_bytes() / MIB)?;
    dict.set_item("max_log_bytes", config.get_max_log_bytes())?;
    dict.set_item("max_value_bytes", config.get_max_value_bytes())?;
    dict.set_item("max_error_bytes", config.get_max_error_bytes())?;
    dict.set_item("max_program_bytes", config.get_max_program_bytes())?;
    dict.set_item("max_nesting_depth", config.get_max_nesting_depth())?;
    dict.set_item(
        "max_total_memory_mib",
        config.get_max_total_memory_bytes().map(|bytes| bytes / MIB),
    )?;
    dict.set_item("max_concurrent_runs", config.get_max_concurrent_runs())?;
    dict.set_item("instance_pools", config.get_instance_pools())?;
    dict.set_item("max_pending_calls", config.get_max_pending_calls())?;
    dict.set_item("max_record_bytes", config.get_max_record_bytes())?;
    dict.set_item(
        "continuation_ttl",
        config.get_continuation_ttl().as_secs_f64(),
    )?;
    dict.set_item("continuation_key", config.get_continuation_key().is_some())?;
    dict.set_item("compile_cache_dir", config.get_compile_cache_dir())?;
    Ok(dict)
}

/// The Rust library's defaults, as [`describe`] writes them.
#[pyfunction]
pub(crate) fn defaults(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    describe(py, &RuntimeConfig::default())
}
