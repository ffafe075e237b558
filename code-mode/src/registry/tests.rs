//! The registry's own unit tests.

use super::*;
use serde_json::{Value, json};

fn tool(name: &str, schema: Value) -> Tool {
    Tool::new(name, "", schema, |_, _| async { ToolResult::text("") })
}

#[test]
fn duplicate_and_empty_names_are_refused() {
    let mut registry = ToolRegistry::new();
    registry.register(tool("a", json!({}))).unwrap();
    let error = registry.register(tool("a", json!({}))).unwrap_err();
    assert_eq!(
        error.to_string(),
        "tool name \"a\" is already registered; tool names must be unique"
    );
    assert_eq!(
        registry.register(tool("", json!({}))).unwrap_err(),
        RegistryError::EmptyName
    );
}

#[test]
fn clones_do_not_see_later_changes() {
    let mut registry = ToolRegistry::new();
    let before = registry.clone();
    registry.register(tool("a", json!({}))).unwrap();
    assert!(before.tools().is_empty());
    assert_eq!(registry.tools().len(), 1);
}
