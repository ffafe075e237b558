//! The `limits` section of the configuration: the budgets of programs and
//! of upstream calls, and the caps on what `coderun mcp` reads.

use std::time::Duration;

use coderun_code_mode::Disclosure;
use coderun_runtime::RuntimeConfig;
use serde::Deserialize;

use super::{
    DEFAULT_CALL_TIMEOUT, DEFAULT_MAX_MESSAGE_BYTES, DEFAULT_STARTUP_TIMEOUT, optional_seconds,
};

/// Budgets; every field has a documented default.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Limits {
    /// Fuel budget of one program (the runtime's default when absent).
    pub fuel: Option<u64>,
    /// Wall-clock budget of one program (the runtime's default, 30 s, when absent).
    pub wall_clock: Option<Duration>,
    /// Memory cap of one program, in MiB (the runtime's default, 128, when absent).
    pub max_memory_mib: Option<u64>,
    /// Cap on a program's console output, in bytes.
    pub max_log_bytes: Option<usize>,
    /// Cap on a program's returned value, in bytes of JSON.
    pub max_value_bytes: Option<usize>,
    /// Cap on a program's failure message, in bytes.
    pub max_error_bytes: Option<usize>,
    /// The longest program accepted, in bytes.
    pub max_program_bytes: Option<usize>,
    /// The deepest nesting of syntax accepted.
    pub max_nesting_depth: Option<usize>,
    /// Linear memory all concurrent programs may hold together, in MiB
    /// (half the machine's memory when absent).
    pub max_total_memory_mib: Option<u64>,
    /// Time an upstream has to start and list its tools
    /// ([`DEFAULT_STARTUP_TIMEOUT`] when absent).
    pub startup_timeout: Option<Duration>,
    /// Time an upstream has to answer one call ([`DEFAULT_CALL_TIMEOUT`]
    /// when absent); a call it has not answered by then rejects in the
    /// program with a message naming the upstream.
    pub call_timeout: Option<Duration>,
    /// Cap on one incoming MCP message, in bytes: a line on stdio, a
    /// request body over HTTP ([`DEFAULT_MAX_MESSAGE_BYTES`] when absent).
    pub max_message_bytes: Option<usize>,
    /// The budget of one `run_code` result's text, in bytes (Code Mode's
    /// default, 24 KiB, when absent).
    pub max_output_bytes: Option<usize>,
    /// The budget of the SDK in `run_code`'s description, in bytes (Code
    /// Mode's default, 15 KiB, when absent).
    pub sdk_budget_bytes: Option<usize>,
    /// The cap on the SDK declaring every tool, in bytes, in any disclosure
    /// (Code Mode's default, 1 MiB, when absent).
    pub max_sdk_bytes: Option<usize>,
    /// Caps on each upstream's `tools/list`: pages read, tools taken and
    /// bytes of definitions (100, 10,000 and 16 MiB when absent).
    pub max_listing_pages: Option<usize>,
    /// See [`max_listing_pages`](Self::max_listing_pages).
    pub max_listed_tools: Option<usize>,
    /// See [`max_listing_pages`](Self::max_listing_pages).
    pub max_listing_bytes: Option<usize>,
    /// How much of the catalog the description declares (`auto` when
    /// absent).
    pub disclosure: Option<Disclosure>,
    /// Whether each run's trace is logged as one JSON line (off when
    /// absent).
    pub trace: Option<bool>,
}

impl Limits {
    /// These limits with every value `overrides` sets replacing this one's.
    pub fn overridden_by(&self, overrides: &Limits) -> Limits {
        Limits {
            fuel: overrides.fuel.or(self.fuel),
            wall_clock: overrides.wall_clock.or(self.wall_clock),
            max_memory_mib: overrides.max_memory_mib.or(self.max_memory_mib),
            max_log_bytes: overrides.max_log_bytes.or(self.max_log_bytes),
            max_value_bytes: overrides.max_value_bytes.or(self.max_value_bytes),
            max_error_bytes: overrides.max_error_bytes.or(self.max_error_bytes),
            max_program_bytes: overrides.max_program_bytes.or(self.max_program_bytes),
            max_nesting_depth: overrides.max_nesting_depth.or(self.max_nesting_depth),
            max_total_memory_mib: overrides.max_total_memory_mib.or(self.max_total_memory_mib),
            startup_timeout: overrides.startup_timeout.or(self.startup_timeout),
            call_timeout: overrides.call_timeout.or(self.call_timeout),
            max_message_bytes: overrides.max_message_bytes.or(self.max_message_bytes),
            max_output_bytes: overrides.max_output_bytes.or(self.max_output_bytes),
            sdk_budget_bytes: overrides.sdk_budget_bytes.or(self.sdk_budget_bytes),
            max_sdk_bytes: overrides.max_sdk_bytes.or(self.max_sdk_bytes),
            max_listing_pages: overrides.max_listing_pages.or(self.max_listing_pages),
            max_listed_tools: overrides.max_listed_tools.or(self.max_listed_tools),
            max_listing_bytes: overrides.max_listing_bytes.or(self.max_listing_bytes),
            disclosure: overrides.disclosure.or(self.disclosure),
            trace: overrides.trace.or(self.trace),
        }
    }

    /// The runtime configuration these limits describe.
    pub fn runtime_config(&self) -> RuntimeConfig {
        let mut config = RuntimeConfig::new();
        if let Some(fuel) = self.fuel {
            config.fuel(fuel);
        }
        if let Some(wall_clock) = self.wall_clock {
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
        if let Some(bytes) = self.max_error_bytes {
            config.max_error_bytes(bytes);
        }
        if let Some(bytes) = self.max_program_bytes {
            config.max_program_bytes(bytes);
        }
        if let Some(depth) = self.max_nesting_depth {
            config.max_nesting_depth(depth);
        }
        if let Some(mib) = self.max_total_memory_mib {
            config.max_total_memory_bytes(Some(mib.saturating_mul(1024 * 1024)));
        }
        config
    }

    /// The startup timeout in effect.
    pub fn startup_timeout(&self) -> Duration {
        self.startup_timeout.unwrap_or(DEFAULT_STARTUP_TIMEOUT)
    }

    /// The call timeout in effect.
    pub fn call_timeout(&self) -> Duration {
        self.call_timeout.unwrap_or(DEFAULT_CALL_TIMEOUT)
    }

    /// The caps on each upstream's `tools/list` in effect.
    pub fn listing_caps(&self) -> crate::upstream::ListingCaps {
        let defaults = crate::upstream::ListingCaps::default();
        crate::upstream::ListingCaps {
            pages: self.max_listing_pages.unwrap_or(defaults.pages),
            tools: self.max_listed_tools.unwrap_or(defaults.tools),
            bytes: self.max_listing_bytes.unwrap_or(defaults.bytes),
        }
    }

    /// The cap on one incoming message in effect.
    pub fn max_message_bytes(&self) -> usize {
        self.max_message_bytes.unwrap_or(DEFAULT_MAX_MESSAGE_BYTES)
    }
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(super) struct RawLimits {
    fuel: Option<u64>,
    wall_clock_seconds: Option<f64>,
    max_memory_mib: Option<u64>,
    max_log_bytes: Option<usize>,
    max_value_bytes: Option<usize>,
    max_error_bytes: Option<usize>,
    max_program_bytes: Option<usize>,
    max_nesting_depth: Option<usize>,
    max_total_memory_mib: Option<u64>,
    startup_timeout_seconds: Option<f64>,
    call_timeout_seconds: Option<f64>,
    max_message_bytes: Option<usize>,
    max_output_bytes: Option<usize>,
    sdk_budget_bytes: Option<usize>,
    max_sdk_bytes: Option<usize>,
    max_listing_pages: Option<usize>,
    max_listed_tools: Option<usize>,
    max_listing_bytes: Option<usize>,
}

/// The limits as written. The budgets are checked where every budget is,
/// by `RuntimeConfig::validate` when the runtime is built.
pub(super) fn limits(raw: RawLimits) -> Result<Limits, String> {
    if raw.max_message_bytes == Some(0) {
        return Err("maxMessageBytes must be positive (got 0)".to_owned());
    }
    Ok(Limits {
        fuel: raw.fuel,
        wall_clock: optional_seconds("wallClockSeconds", raw.wall_clock_seconds)?,
        max_memory_mib: raw.max_memory_mib,
        max_log_bytes: raw.max_log_bytes,
        max_value_bytes: raw.max_value_bytes,
        max_error_bytes: raw.max_error_bytes,
        max_program_bytes: raw.max_program_bytes,
        max_nesting_depth: raw.max_nesting_depth,
        max_total_memory_mib: raw.max_total_memory_mib,
        startup_timeout: optional_seconds("startupTimeoutSeconds", raw.startup_timeout_seconds)?,
        call_timeout: optional_seconds("callTimeoutSeconds", raw.call_timeout_seconds)?,
        max_message_bytes: raw.max_message_bytes,
        max_output_bytes: positive("maxOutputBytes", raw.max_output_bytes)?,
        sdk_budget_bytes: raw.sdk_budget_bytes,
        max_sdk_bytes: raw.max_sdk_bytes,
        max_listing_pages: positive("maxListingPages", raw.max_listing_pages)?,
        max_listed_tools: positive("maxListedTools", raw.max_listed_tools)?,
        max_listing_bytes: positive("maxListingBytes", raw.max_listing_bytes)?,
        disclosure: None,
        trace: None,
    })
}

fn positive(key: &str, value: Option<usize>) -> Result<Option<usize>, String> {
    match value {
        Some(0) => Err(format!("{key} must be positive (got 0)")),
        other => Ok(other),
    }
}
