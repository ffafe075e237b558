//! How much of the catalog the SDK section spells out: every declaration
//! (`full`), or a listing of names and one-line summaries that programs
//! search from inside (`search`), or whichever fits (`auto`).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt::{self, Write as _};
use std::str::FromStr;

use serde::Serialize;

use crate::tool::Tool;

/// The SDK section's size budget: in mode [`Disclosure::Auto`] the full
/// declarations are used while the section fits it, and a search listing
/// is cut to fit it. 15 KiB leaves room for `run_code`'s own description
/// within 16 KiB.
pub const DEFAULT_SDK_BUDGET: usize = 15 * 1024;

/// The cap on the SDK section that declares every tool, in any
/// disclosure: past it, `full` gives way to `search`. 1 MiB is some
/// 250,000 tokens, more than any model's context holds.
pub const DEFAULT_MAX_SDK_BYTES: usize = 1024 * 1024;

/// How the SDK section discloses the tools.
///
/// ```
/// use coderun_code_mode::Disclosure;
///
/// assert_eq!("search".parse::<Disclosure>()?, Disclosure::Search);
/// assert_eq!(Disclosure::default(), Disclosure::Auto);
/// assert!("some".parse::<Disclosure>().is_err());
/// # Ok::<(), coderun_code_mode::DisclosureError>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Disclosure {
    /// Every tool's TypeScript declaration, up to the registry's
    /// `max_sdk_bytes`; past it, `search`.
    Full,
    /// The tools' names and one-line summaries, grouped (by server), within
    /// the budget; programs find signatures with `tools.$search`.
    Search,
    /// `full` while that section fits the budget, else `search`.
    #[default]
    Auto,
}

impl Disclosure {
    /// The name: `full`, `search` or `auto`.
    pub fn as_str(self) -> &'static str {
        match self {
            Disclosure::Full => "full",
            Disclosure::Search => "search",
            Disclosure::Auto => "auto",
        }
    }
}

impl fmt::Display for Disclosure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A disclosure name that is not `full`, `search` or `auto`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("disclosure must be one of full, search, auto (got {value:?})")]
#[non_exhaustive]
pub struct DisclosureError {
    /// The text that was given.
    pub value: String,
}

impl FromStr for Disclosure {
    type Err = DisclosureError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "full" => Ok(Disclosure::Full),
            "search" => Ok(Disclosure::Search),
            "auto" => Ok(Disclosure::Auto),
            _ => Err(DisclosureError {
                value: s.to_owned(),
            }),
        }
    }
}

/// How long a one-line summary may be at each level of detail, in chars;
/// `None`: names only. The listing takes the most detailed level that fits.
const SUMMARY_CHARS: [Option<usize>; 4] = [Some(120), Some(60), Some(30), None];

/// The tools by group (tools without one under `""`), names sorted, each
/// name shortened by its group's `<group>_` prefix when it has it.
fn grouped(tools: &[Tool]) -> BTreeMap<&str, Vec<(&str, &Tool)>> {
    let mut groups: BTreeMap<&str, Vec<(&str, &Tool)>> = BTreeMap::new();
    for tool in tools {
        let group = tool.get_group().unwrap_or_default();
        let short = tool
            .name()
            .strip_prefix(group)
            .and_then(|rest| rest.strip_prefix('_'))
            .filter(|rest| !group.is_empty() && !rest.is_empty())
            .unwrap_or(tool.name());
        groups.entry(group).or_default().push((short, tool));
    }
    for members in groups.values_mut() {
        members.sort_by(|a, b| a.1.name().cmp(b.1.name()));
    }
    groups
}

/// The search-mode listing of `tools` within `budget` bytes: per group a
/// heading and its tools with summaries, as detailed as fits; at worst the
/// groups and their sizes alone (cut at the budget).
pub(crate) fn listing(tools: &[Tool], budget: usize) -> String {
    let groups = grouped(tools);
    for summary in SUMMARY_CHARS {
        let text = render_listing(&groups, summary);
        if text.len() <= budget {
            return text;
        }
    }
    let mut text = String::new();
    for (group, members) in &groups {
        let _ = writeln!(text, "- {}: {} tools", group_label(group), members.len());
    }
    coderun_runtime::shorten(&text, budget)
}

fn group_label(group: &str) -> Cow<'_, str> {
    if group.is_empty() {
        Cow::Borrowed("(ungrouped)")
    } else {
        printable(group)
    }
}

/// `text` with its control characters (a newline in an upstream's tool
/// name) and line separators escaped, so that it stays on its line of the
/// listing and cannot start lines of its own in a tool's description.
pub(crate) fn printable(text: &str) -> Cow<'_, str> {
    let unsafe_char = |c: char| c.is_control() || c == '\u{2028}' || c == '\u{2029}';
    if !text.chars().any(unsafe_char) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if unsafe_char(c) {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

fn render_listing(groups: &BTreeMap<&str, Vec<(&str, &Tool)>>, summary: Option<usize>) -> String {
    let mut out = String::new();
    for (group, members) in groups {
        let prefixed = !group.is_empty() && members.iter().any(|(short, t)| *short != t.name());
        let _ = write!(out, "### {} ({} tools", group_label(group), members.len());
        if prefixed {
            let _ = write!(out, ", named `{}_<name>`", printable(group));
        }
        out.push_str(")\n");
        match summary {
            Some(chars) => {
                for (short, tool) in members {
                    let line = one_line(tool.description(), chars);
                    let short = printable(short);
                    if line.is_empty() {
                        let _ = writeln!(out, "- {short}");
                    } else {
                        let _ = writeln!(out, "- {short}: {line}");
                    }
                }
            }
            None => {
                let names: Vec<Cow<'_, str>> =
                    members.iter().map(|(short, _)| printable(short)).collect();
                let _ = writeln!(out, "{}", names.join(", "));
            }
        }
    }
    out
}

/// The first sentence of `description` on one line, at most `chars`
/// characters (cut with `…`).
pub(crate) fn one_line(description: &str, chars: usize) -> String {
    let flat: Vec<&str> = description.split_whitespace().collect();
    let flat = flat.join(" ");
    let sentence = match flat.find(". ") {
        Some(end) => &flat[..=end],
        None => flat.as_str(),
    };
    if sentence.chars().count() <= chars {
        return sentence.to_owned();
    }
    let mut cut: String = sentence.chars().take(chars.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::ToolResult;
    use serde_json::json;

    fn tool(name: &str, group: &str, description: &str) -> Tool {
        Tool::new(name, description, json!({}), |_, _| async {
            ToolResult::text("")
        })
        .group(group)
    }

    #[test]
    fn a_listing_groups_and_shortens_names() {
        let tools = [
            tool("fs_read", "fs", "Read a file. Then more."),
            tool("fs_list", "fs", ""),
            tool("mem_get", "mem", "Get."),
        ];
        assert_eq!(
            listing(&tools, 10_000),
            "### fs (2 tools, named `fs_<name>`)\n- list\n- read: Read a file.\n\
             ### mem (1 tools, named `mem_<name>`)\n- get: Get.\n"
        );
    }

    #[test]
    fn a_listing_loses_detail_to_fit_its_budget() {
        let tools: Vec<Tool> = (0..50)
            .map(|i| tool(&format!("g_tool{i}"), "g", &"word ".repeat(40)))
            .collect();
        let full = listing(&tools, 100_000);
        let small = listing(&tools, 1000);
        assert!(full.len() > 1000 && small.len() <= 1000, "{}", small.len());
        assert!(small.contains("tool49"), "{small}");
        assert!(listing(&tools, 10).len() <= 10);
    }

    #[test]
    fn one_line_takes_the_first_sentence_within_the_limit() {
        assert_eq!(one_line("Read it.  Then\nmore.", 50), "Read it.");
        assert_eq!(one_line("abcdef", 4), "abc…");
    }
}
