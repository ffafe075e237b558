//! One identifier rule: a tool's name is written the same way in the SDK
//! the model reads and in the errors the guest raises for its calls.

use coderun_code_mode::{Tool, ToolResult, is_identifier};

use crate::{code_registry, open_schema, returned, run_code};

/// Names on each side of the rule: identifiers (Unicode and `$` included)
/// are bare, reserved words and anything else are quoted.
const NAMES: &[(&str, bool)] = &[
    ("search", true),
    ("$fetch", true),
    ("_private", true),
    ("délai", true),
    ("日本語", true),
    ("delete", false),
    ("class", false),
    ("my-tool", false),
    ("1st", false),
    ("a b", false),
    ("quote\"d", false),
];

fn failing_tool(name: &str) -> Tool {
    Tool::new(name, "Always fails.", open_schema(), |_, _| async {
        ToolResult::error("it should not have been called")
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sdk_and_the_guest_spell_each_name_alike() {
    for &(name, bare) in NAMES {
        assert_eq!(is_identifier(name), bare, "{name:?}");
        let (registry, _) = code_registry([failing_tool(name)]);
        let declarations = registry.sdk_declarations();
        let quoted = serde_json::to_string(name).expect("a string");
        let (key, access) = if bare {
            (name.to_owned(), format!("tools.{name}"))
        } else {
            (quoted.clone(), format!("tools[{quoted}]"))
        };
        assert!(
            declarations.contains(&format!("\n  {key}(")),
            "{name:?} is declared as {key}: {declarations}"
        );
        // The guest names the binding when it refuses an argument.
        let program = format!(
            "try {{ await tools[{quoted}]({{ n: 1n }}); return 'sent'; }} catch (e) {{ return e.message; }}"
        );
        let message = returned(&run_code(&registry, &program).await);
        let message = message.as_str().expect("a message");
        assert!(
            message.starts_with(&format!(
                "the argument of {access} is not JSON-serialisable"
            )),
            "{name:?}: {message}"
        );
    }
}
