//! How the registry's tools reach the model: natively, through `run_code`, or both.

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

/// Decides the wire tools a registry offers and whether it contributes an
/// SDK prompt section.
///
/// ```
/// use coderun_code_mode::Mode;
///
/// let mode: Mode = "code".parse()?;
/// assert_eq!(mode, Mode::Code);
/// assert_eq!(mode.to_string(), "code");
/// assert!("scripted".parse::<Mode>().is_err());
/// # Ok::<(), coderun_code_mode::ModeError>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Every tool as itself, exactly as the registry gives them; no SDK.
    #[default]
    Native,
    /// One tool, `run_code`, plus an SDK section declaring every tool as a
    /// TypeScript function.
    Code,
    /// Every tool as itself, plus `run_code` and the SDK section.
    Both,
}

impl Mode {
    /// The mode's name: `native`, `code` or `both`.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Native => "native",
            Mode::Code => "code",
            Mode::Both => "both",
        }
    }

    /// Whether the model sees each tool as itself.
    pub fn offers_native_tools(self) -> bool {
        matches!(self, Mode::Native | Mode::Both)
    }

    /// Whether the model sees `run_code` and the SDK section.
    pub fn offers_run_code(self) -> bool {
        matches!(self, Mode::Code | Mode::Both)
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A mode name that is not `native`, `code` or `both`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("mode must be one of native, code, both (got {value:?})")]
#[non_exhaustive]
pub struct ModeError {
    /// The text that was given.
    pub value: String,
}

impl FromStr for Mode {
    type Err = ModeError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "native" => Ok(Mode::Native),
            "code" => Ok(Mode::Code),
            "both" => Ok(Mode::Both),
            _ => Err(ModeError {
                value: s.to_owned(),
            }),
        }
    }
}
