//! The guest's hot functions, named before the table names the rest.
//!
//! wasmtime keeps, in each instance's `VMContext`, a 32-byte `VMFuncRef`
//! for every function of the module that can be called indirectly or from
//! outside, in the order the module first names them: imported functions,
//! then exported ones, then the table's elements. It writes an entry when
//! the function is first called through the table, and the `VMContext` is
//! allocated per instance, so per run. QuickJS's table holds some 700
//! functions, and the few dozen a run calls (`malloc` through rquickjs's
//! allocator, `js_call_c_function`, the promise jobs, the array methods...)
//! lie all along it: a parked run wrote two or three pages of its
//! `VMContext` for a dozen entries.
//!
//! [`export_hot`] exports the functions `guest-js-engine/hot-functions.txt`
//! lists, in its order, as `coderun:hot/0`, `coderun:hot/1`...: their
//! entries are then the first after the imports' and the exports', on the
//! `VMContext`'s first page. Nothing else changes: the component does not
//! export them, and the table and every function's index stay as they
//! are. The list is written by `make hot-functions` (see
//! `examples/hot_functions.rs`); a name the guest no longer has is
//! reported and skipped, except a Rust function's whose symbol hash moved
//! (a change to its crate), which is found by the rest of its name when
//! that is its own.

use anyhow::{Context as _, bail, ensure};

/// The preamble of a component binary (layer 1, version 0xd).
const COMPONENT_HEADER: &[u8] = b"\0asm\x0d\x00\x01\x00";
/// A component's core module section.
const COMPONENT_CORE_MODULE: u8 = 1;
const IMPORT_SECTION: u8 = 2;
const EXPORT_SECTION: u8 = 7;
const ELEMENT_SECTION: u8 = 9;
const CUSTOM_SECTION: u8 = 0;
/// The `name` section's subsection of function names.
const FUNCTION_NAMES: u8 = 1;
const FUNCTION_KIND: u8 = 0;

/// What [`export_hot`] did.
pub struct Report {
    pub exported: usize,
    pub missing: Vec<String>,
}

/// `component` with its largest core module (QuickJS's) exporting the
/// functions named in `list` (one name per line; `#` starts a comment).
pub fn export_hot(component: &[u8], list: &str) -> anyhow::Result<(Vec<u8>, Report)> {
    let (sections, at) = main_module(component)?;
    let module = &component[sections[at].body.clone()];
    let (rewritten, report) = module_exporting(module, list)?;
    let mut out = component[..8].to_vec();
    for (i, section) in sections.iter().enumerate() {
        if i == at {
            push_section(&mut out, COMPONENT_CORE_MODULE, &rewritten);
        } else {
            out.extend_from_slice(&component[section.whole.clone()]);
        }
    }
    Ok((out, report))
}

/// `component`'s sections, and which of them is its largest core module
/// (QuickJS's).
fn main_module(component: &[u8]) -> anyhow::Result<(Vec<Section>, usize)> {
    ensure!(
        component.get(..8) == Some(COMPONENT_HEADER),
        "the guest is not a component"
    );
    let sections = sections(component, 8)?;
    let at = (0..sections.len())
        .filter(|&i| sections[i].id == COMPONENT_CORE_MODULE)
        .max_by_key(|&i| sections[i].body.len())
        .context("the guest component holds no core module")?;
    Ok((sections, at))
}

fn module_exporting(module: &[u8], list: &str) -> anyhow::Result<(Vec<u8>, Report)> {
    ensure!(
        module.get(..8) == Some(b"\0asm\x01\x00\x00\x00"),
        "the guest's largest core module is not a core module"
    );
    let sections = sections(module, 8)?;
    let names = function_names(module, &sections)?;
    let exports = sections
        .iter()
        .find(|section| section.id == EXPORT_SECTION)
        .context("the guest's core module has no export section")?;
    let body = &module[exports.body.clone()];
    let (count, mut at) = leb(body, 0)?;
    let mut exported = std::collections::HashSet::new();
    for _ in 0..count {
        let (_, next) = name(body, at)?;
        let kind = *body.get(next).context("an export's kind")?;
        let (index, next) = leb(body, next + 1)?;
        if kind == FUNCTION_KIND {
            exported.insert(index);
        }
        at = next;
    }
    // A Rust function's symbol ends with a hash of its crate's build, which
    // moves when the crate changes: a listed name whose hash no longer
    // matches is taken for the one function whose name differs only there.
    let mut unhashed: std::collections::HashMap<&str, Option<u64>> =
        std::collections::HashMap::new();
    for (name, &index) in &names {
        if let Some(stem) = without_hash(name) {
            unhashed
                .entry(stem)
                .and_modify(|one| *one = None)
                .or_insert(Some(index));
        }
    }
    let mut added = Vec::new();
    let mut missing = Vec::new();
    for wanted in list
        .lines()
        .map(|line| line.split('#').next().unwrap_or_default().trim())
        .filter(|line| !line.is_empty())
    {
        let found = names.get(wanted).copied().or_else(|| {
            without_hash(wanted).and_then(|stem| unhashed.get(stem).copied().flatten())
        });
        match found.as_ref() {
            // Exported already (or listed twice): named early already.
            Some(&index) if !exported.insert(index) => {}
            Some(&index) => added.push(index),
            None => missing.push(wanted.to_owned()),
        }
    }
    let mut new_body = Vec::new();
    push_leb(&mut new_body, count + added.len() as u64);
    new_body.extend_from_slice(&body[leb(body, 0)?.1..]);
    for (n, index) in added.iter().enumerate() {
        let export = format!("coderun:hot/{n}");
        push_leb(&mut new_body, export.len() as u64);
        new_body.extend_from_slice(export.as_bytes());
        new_body.push(FUNCTION_KIND);
        push_leb(&mut new_body, *index);
    }
    let mut out = module[..8].to_vec();
    for section in &sections {
        if section.id == EXPORT_SECTION {
            push_section(&mut out, EXPORT_SECTION, &new_body);
        } else {
            out.extend_from_slice(&module[section.whole.clone()]);
        }
    }
    let report = Report {
        exported: added.len(),
        missing,
    };
    Ok((out, report))
}

/// A legacy-mangled Rust symbol (`_ZN...17h<16 hex digits>E`) without its
/// hash; `None` for any other name.
fn without_hash(name: &str) -> Option<&str> {
    let stem = name.strip_suffix('E')?;
    let (stem, hash) = stem.split_at_checked(stem.len().checked_sub(19)?)?;
    let digits = hash.strip_prefix("17h")?;
    (name.starts_with("_ZN") && digits.bytes().all(|b| b.is_ascii_hexdigit())).then_some(stem)
}

/// Function index by name, from the `name` section (which covers imported
/// and defined functions alike).
fn function_names<'a>(
    module: &'a [u8],
    sections: &[Section],
) -> anyhow::Result<std::collections::HashMap<&'a str, u64>> {
    let mut names = std::collections::HashMap::new();
    for section in sections
        .iter()
        .filter(|section| section.id == CUSTOM_SECTION)
    {
        let body = &module[section.body.clone()];
        let (section_name, mut at) = name(body, 0)?;
        if section_name != "name" {
            continue;
        }
        while at < body.len() {
            let id = body[at];
            let (start, end) = sized(body, at + 1, "a name subsection")?;
            if id == FUNCTION_NAMES {
                let (count, mut next) = leb(body, start)?;
                for _ in 0..count {
                    let (index, after) = leb(body, next)?;
                    let (function, after) = name(body, after)?;
                    names.insert(function, index);
                    next = after;
                }
            }
            at = end;
        }
    }
    if names.is_empty() {
        bail!("the guest's core module has no function names (a `name` section)");
    }
    Ok(names)
}

/// A section: its id, where its body is, and where it is whole (id and
/// size included).
struct Section {
    id: u8,
    body: std::ops::Range<usize>,
    whole: std::ops::Range<usize>,
}

fn sections(bytes: &[u8], from: usize) -> anyhow::Result<Vec<Section>> {
    let mut out = Vec::new();
    let mut at = from;
    while at < bytes.len() {
        let id = bytes[at];
        let (start, end) = sized(bytes, at + 1, "a section")?;
        out.push(Section {
            id,
            body: start..end,
            whole: at..end,
        });
        at = end;
    }
    Ok(out)
}

/// An unsigned LEB128 number at `at`, and where it ends.
fn leb(bytes: &[u8], mut at: usize) -> anyhow::Result<(u64, usize)> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *bytes.get(at).context("a number runs past the end")?;
        at += 1;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Ok((value, at));
        }
    }
    bail!("a number longer than 64 bits")
}

/// A length-prefixed UTF-8 name at `at`, and where it ends.
fn name(bytes: &[u8], at: usize) -> anyhow::Result<(&str, usize)> {
    let (start, end) = sized(bytes, at, "a name")?;
    Ok((std::str::from_utf8(&bytes[start..end])?, end))
}

/// The bytes a LEB128 length at `at` announces: where they start and end,
/// checked to lie within `bytes` (`what` names them in the error).
fn sized(bytes: &[u8], at: usize, what: &str) -> anyhow::Result<(usize, usize)> {
    let (len, start) = leb(bytes, at)?;
    let end = start
        .checked_add(usize::try_from(len)?)
        .filter(|&end| end <= bytes.len())
        .with_context(|| format!("{what} runs past the end of its bytes"))?;
    Ok((start, end))
}

fn push_leb(out: &mut Vec<u8>, mut value: u64) {
    loop {
        let byte = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

fn push_section(out: &mut Vec<u8>, id: u8, body: &[u8]) {
    out.push(id);
    push_leb(out, body.len() as u64);
    out.extend_from_slice(body);
}

/// The names of `component`'s largest core module's functions in the
/// order wasmtime gives their `VMFuncRef`s: imported functions, exported
/// ones, then the table's elements, each at its first mention. (A global
/// or table initialised with `ref.func` would come between; the guest has
/// none, and `examples/hot_functions.rs` checks the order it reads
/// against the exports a run does and does not call.)
pub fn escaped_names(component: &[u8]) -> anyhow::Result<Vec<String>> {
    let (sections, at) = main_module(component)?;
    let module = &component[sections[at].body.clone()];
    let sections = self::sections(module, 8)?;
    let by_index: std::collections::HashMap<u64, &str> = function_names(module, &sections)?
        .into_iter()
        .map(|(name, index)| (index, name))
        .collect();
    let mut order = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut escape = |index: u64| {
        if seen.insert(index) {
            order.push(index);
        }
    };
    for section in &sections {
        let body = &module[section.body.clone()];
        match section.id {
            IMPORT_SECTION => {
                let (count, mut at) = leb(body, 0)?;
                let mut function = 0;
                for _ in 0..count {
                    let (_, next) = name(body, at)?;
                    let (_, next) = name(body, next)?;
                    let kind = *body.get(next).context("an import's kind")?;
                    at = match kind {
                        FUNCTION_KIND => {
                            escape(function);
                            function += 1;
                            leb(body, next + 1)?.1
                        }
                        // A table: its element type, then its limits.
                        1 => limits(body, next + 2)?,
                        2 => limits(body, next + 1)?,
                        // A global: its value type and mutability.
                        3 => next + 3,
                        _ => bail!("an import of kind {kind} in the guest's core module"),
                    };
                }
            }
            EXPORT_SECTION => {
                let (count, mut at) = leb(body, 0)?;
                for _ in 0..count {
                    let (_, next) = name(body, at)?;
                    let kind = *body.get(next).context("an export's kind")?;
                    let (index, next) = leb(body, next + 1)?;
                    if kind == FUNCTION_KIND {
                        escape(index);
                    }
                    at = next;
                }
            }
            ELEMENT_SECTION => {
                let (count, mut at) = leb(body, 0)?;
                for _ in 0..count {
                    let (flags, next) = leb(body, at)?;
                    at = match flags {
                        0 => offset(body, next)?,
                        1 | 3 => next + 1,
                        2 => offset(body, leb(body, next)?.1)? + 1,
                        _ => {
                            bail!("an element segment of flags {flags} in the guest's core module")
                        }
                    };
                    let (functions, mut next) = leb(body, at)?;
                    for _ in 0..functions {
                        let (index, after) = leb(body, next)?;
                        escape(index);
                        next = after;
                    }
                    at = next;
                }
            }
            _ => {}
        }
    }
    Ok(order
        .into_iter()
        .map(|index| {
            by_index
                .get(&index)
                .map_or_else(|| format!("#{index}"), |name| (*name).to_owned())
        })
        .collect())
}

/// Where a table's or memory's limits starting at `at` end.
fn limits(bytes: &[u8], at: usize) -> anyhow::Result<usize> {
    let flags = *bytes.get(at).context("limits")?;
    let next = leb(bytes, at + 1)?.1;
    Ok(if flags & 1 == 1 {
        leb(bytes, next)?.1
    } else {
        next
    })
}

/// Where an element segment's offset expression starting at `at` ends: an
/// `i32.const` or a `global.get`, then `end`.
fn offset(bytes: &[u8], at: usize) -> anyhow::Result<usize> {
    let next = match bytes.get(at) {
        // i32.const takes a signed number; skipping its bytes is the same.
        Some(0x41 | 0x23) => leb(bytes, at + 1)?.1,
        _ => bail!("an element segment's offset is not a constant"),
    };
    ensure!(
        bytes.get(next) == Some(&0x0b),
        "an element segment's offset is not one instruction"
    );
    Ok(next + 1)
}

#[cfg(test)]
mod tests;
