//! The plan the guest is given for a run's bindings, and the names a
//! record keeps of them.

use std::collections::HashSet;
use std::sync::Arc;

use super::identifiers::{check_global, is_identifier, property_access};
use super::{BindingError, Callees, CodeBindingNames, CodeBindingNamespace, Functions};
use crate::durable::RecordedNamespace;
use crate::error::MisuseError;
use crate::guest::{Label, Namespace};

/// What the guest is told about the bindings, and the functions behind them
/// in the same order.
pub(crate) struct BindingPlan {
    /// Shared by the guest's call and the run's calls (which name each
    /// binding from them), not copied.
    pub(crate) namespaces: Arc<[Namespace]>,
    pub(crate) functions: Vec<Callees>,
}

/// The namespaces and function names, as a record keeps them.
pub(crate) fn recorded(namespaces: &[Namespace]) -> Vec<RecordedNamespace> {
    namespaces
        .iter()
        .map(|namespace| RecordedNamespace {
            global: namespace.global.clone(),
            functions: (0..namespace.ends.len())
                .filter_map(|index| function_name(namespace, index))
                .map(str::to_owned)
                .collect(),
        })
        .collect()
}

/// The name of `namespace`'s function `index` (its names lie one after the
/// other in one string, the WIT's `namespace.names`).
pub(crate) fn function_name(namespace: &Namespace, index: usize) -> Option<&str> {
    let end = *namespace.ends.get(index)? as usize;
    let start = match index {
        0 => 0,
        _ => namespace.ends[index - 1] as usize,
    };
    namespace.names.get(start..end)
}

/// Namespaces with the recorded globals and function names, for a replay:
/// the record answers every call, so no function is ever called.
pub(crate) fn recorded_namespaces(recorded: &[RecordedNamespace]) -> Vec<CodeBindingNamespace> {
    recorded
        .iter()
        .map(|namespace| {
            let names = CodeBindingNames::new(namespace.global.clone(), &namespace.functions);
            CodeBindingNamespace::dispatch(&names, |_, _| async {
                Err(BindingError::new("a replay calls no binding"))
            })
        })
        .collect()
}

pub(crate) fn plan(bindings: &[CodeBindingNamespace]) -> Result<BindingPlan, MisuseError> {
    let mut seen = HashSet::new();
    let mut namespaces = Vec::with_capacity(bindings.len());
    let mut functions = Vec::with_capacity(bindings.len());
    for binding in bindings {
        let global = binding.global();
        check_global(global)?;
        if !seen.insert(global) {
            return Err(MisuseError::DuplicateBindingGlobal {
                global: crate::output::shorten(global, 128),
            });
        }
        match &binding.functions {
            Functions::Each(each) => {
                namespaces.push(declare(global, each.keys().map(String::as_str))?);
                functions.push(Callees::Each(each.values().cloned().collect()));
            }
            Functions::Dispatched(names, handler) => {
                namespaces.push(names.declared()?.clone());
                functions.push(Callees::Dispatched(Arc::clone(handler)));
            }
        }
    }
    Ok(BindingPlan {
        namespaces: namespaces.into(),
        functions,
    })
}

/// What the guest is told about a namespace of `names` (in the order it
/// indexes them) under `global`: the names as one string with their
/// ends, and the labels of those that are not identifiers.
pub(super) fn declare<'a>(
    global: &str,
    declared: impl ExactSizeIterator<Item = &'a str> + Clone,
) -> Result<Namespace, MisuseError> {
    let mut names = String::with_capacity(declared.clone().map(str::len).sum());
    let mut ends = Vec::with_capacity(declared.len());
    let mut labels = Vec::new();
    for (index, name) in declared.enumerate() {
        names.push_str(name);
        let end = u32::try_from(names.len()).map_err(|_| MisuseError::InvalidBindingGlobal {
            global: crate::output::shorten(global, 128),
            reason: "its functions' names add up to more than 4 GiB",
        })?;
        ends.push(end);
        if !is_identifier(name) {
            labels.push(Label {
                function: index as u32,
                label: property_access(global, name),
            });
        }
    }
    Ok(Namespace {
        global: global.to_owned(),
        names,
        ends,
        labels,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names cross as one string with their ends, and the labels of
    /// the names that are not identifiers alone: each name and each label
    /// reads back as the one declared, in the order calls index them.
    #[test]
    fn a_plan_sends_each_name_and_the_labels_it_needs() {
        let names = ["", "a\0b", "delete", "my-tool", "search", "é", "日本", "𝒳"];
        let namespace = names
            .iter()
            .fold(CodeBindingNamespace::new("tools"), |ns, name| {
                ns.function(*name, |args| async move { Ok(args) })
            });
        let plan = plan(std::slice::from_ref(&namespace)).expect("a valid namespace");
        let sent = &plan.namespaces[0];
        let declared: Vec<&str> = namespace.names().collect();
        assert_eq!(sent.ends.len(), declared.len());
        for (index, name) in declared.iter().enumerate() {
            assert_eq!(function_name(sent, index), Some(*name), "name {index}");
        }
        assert_eq!(function_name(sent, declared.len()), None);
        let labelled: Vec<(u32, String)> = sent
            .labels
            .iter()
            .map(|label| (label.function, label.label.clone()))
            .collect();
        let expected: Vec<(u32, String)> = declared
            .iter()
            .enumerate()
            .filter(|(_, name)| !is_identifier(name))
            .map(|(index, name)| (index as u32, property_access("tools", name)))
            .collect();
        assert_eq!(
            labelled, expected,
            "labels only where a name is not an identifier"
        );
        assert_eq!(recorded(&plan.namespaces)[0].functions, declared);
    }
}
