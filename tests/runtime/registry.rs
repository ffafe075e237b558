//! A registry's bindings: what installing them costs every run, functions
//! made when the program first reads them, the names messages give them,
//! and namespaces whose names one handler answers.

use coderun_runtime::CodeBindingNames;
use serde_json::{Value, json};

use super::*;

/// Installing bindings costs a bounded amount of fuel per binding, on
/// every run (a registry of many tools pays it each time): about 1,050
/// units for each of 100, each function made only when the program first
/// reads it, the namespace's object sized for its functions at once, the
/// names sent as one string with a label only for a name that is not an
/// identifier, and each name's atom made from its bytes, hashed and
/// searched once; about 1,250 when each name crossed as a string of its
/// own, 1,600 when its atom was made through a string, 3,600 when every
/// function was made as it was installed, 4,800 when each name was looked
/// up twice and assigned, and 6,300 when each binding was a Rust closure
/// (benches/OPTIMISATIONS.md). Fuel is deterministic: the bound moves
/// only with the guest.
#[tokio::test]
async fn installing_bindings_costs_little_fuel_per_binding() {
    let names = (0..100).fold(CodeBindingNamespace::new("tools"), |names, i| {
        names.function(format!("tool_{i:03}"), |args| async move { Ok(args) })
    });
    let bare = run_request(CodeRunRequest::new("return 1")).await;
    let bound = run_request(CodeRunRequest::new("return 1").binding(names)).await;
    assert_ok(&bare);
    assert_ok(&bound);
    let per_binding = (bound.fuel_consumed - bare.fuel_consumed) / 100;
    eprintln!("installing a binding: {per_binding} units of fuel");
    assert!(
        per_binding <= 1_300,
        "{per_binding} units of fuel a binding"
    );
}

/// A binding's function is made when the program first reads it: a run
/// that lists a registry's names makes none of its functions, and one
/// that reads every function pays for each.
#[tokio::test]
async fn a_bindings_function_is_made_when_first_read() {
    let names = (0..100).fold(CodeBindingNamespace::new("tools"), |names, i| {
        names.function(format!("tool_{i:03}"), |args| async move { Ok(args) })
    });
    let run = |program: &'static str| {
        let names = names.clone();
        async move {
            let result = run_request(CodeRunRequest::new(program).binding(names)).await;
            assert_ok(&result);
            assert_eq!(result.value, Some(json!(100)));
            result.fuel_consumed
        }
    };
    let listed = run("return Object.keys(tools).length").await;
    let read = run("return Object.values(tools).length").await;
    let made = (read - listed) / 100;
    eprintln!("a binding's function read for the first time: {made} units of fuel");
    assert!(made >= 500, "{made} units of fuel a function read");
}

/// Bindings not read yet behave as the properties they will be: listed,
/// present, described, written, deleted, redefined and frozen, with the
/// same function read every way. The expected result is what Node gives
/// for the same program over a namespace of plain functions.
#[tokio::test]
async fn bindings_not_yet_read_are_the_properties_they_will_be() {
    let names = ["a", "b", "c", "d", "e", "f"]
        .into_iter()
        .fold(CodeBindingNamespace::new("tools"), |names, name| {
            names.function(name, move |args| async move { Ok(json!([name, args])) })
        });
    let program = r#"
const keysBefore = Object.keys(tools);
const has = ['a' in tools, Object.prototype.hasOwnProperty.call(tools, 'b'), Object.hasOwn(tools, 'zz')];
tools.c = 5;
delete tools.d;
Object.defineProperty(tools, 'e', { value: 'defined', enumerable: false });
const descF = Object.getOwnPropertyDescriptor(tools, 'f');
const first = tools.a;
const same = [first === tools.a, (({ a }) => a)(tools) === first,
              Object.values(tools)[0] === first, descF.value === tools.f];
const spread = Object.entries({ ...tools }).map(([k, v]) => [k, typeof v === 'function' ? v.name : v]);
const json = JSON.stringify(tools);
Object.freeze(tools);
const frozen = [Object.isFrozen(tools), Object.getOwnPropertyDescriptor(tools, 'b').writable];
let assigned;
try { tools.b = 1; assigned = tools.b === 1; } catch (e) { assigned = e.constructor.name; }
const calls = [await tools.a(1), await tools.b(2), await tools.f(3)];
const forIn = [];
for (const k in tools) forIn.push(k);
return {
  keysBefore, has, c: tools.c, dGone: !('d' in tools), e: [tools.e, Object.keys(tools)],
  descF: [typeof descF.value, descF.value.name, descF.value.length, descF.writable, descF.enumerable, descF.configurable],
  same, spread, json, frozen, assigned, calls, forIn,
};"#;
    returns(
        CodeRunRequest::new(program).binding(names.clone()),
        json!({
            "keysBefore": ["a", "b", "c", "d", "e", "f"],
            "has": [true, true, false],
            "c": 5,
            "dGone": true,
            "e": ["defined", ["a", "b", "c", "f"]],
            "descF": ["function", "f", 1, true, true, true],
            "same": [true, true, true, true],
            "spread": [["a", "a"], ["b", "b"], ["c", 5], ["f", "f"]],
            "json": "{\"c\":5}",
            "frozen": [true, false],
            "assigned": false,
            "calls": [["a", 1], ["b", 2], ["f", 3]],
            "forIn": ["a", "b", "c", "f"],
        }),
    )
    .await;
    let shown = run_request(CodeRunRequest::new("console.log(tools)").binding(names)).await;
    assert_ok(&shown);
    let lines: Vec<&str> = shown.logs.iter().map(|line| line.text.as_str()).collect();
    assert_eq!(
        lines,
        [
            "[Object: null prototype] {\n  a: [Function: a],\n  b: [Function: b],\n  \
          c: [Function: c],\n  d: [Function: d],\n  e: [Function: e],\n  f: [Function: f]\n}"
        ]
    );
}

/// A rejection names its binding by the host's identifier rule: the
/// global, a dot and the name for an identifier (which the guest writes
/// itself: the host sends no label for it), a quoted key for anything
/// else, a reserved word among them.
#[tokio::test]
async fn rejections_name_their_binding_as_the_program_would_write_it() {
    let names = ["record", "my-tool", "delete", "日本"]
        .into_iter()
        .fold(CodeBindingNamespace::new("tools"), |names, name| {
            names.function(name, |args| async move { Ok(args) })
        });
    let program = r#"
        const named = [];
        for (const name of Object.keys(tools)) {
            try { await tools[name]({ n: 1n }); named.push('dispatched'); }
            catch (e) { named.push(e.message.slice(0, e.message.indexOf(' is not'))); }
        }
        return named;
    "#;
    returns(
        CodeRunRequest::new(program).binding(names),
        json!([
            "the argument of tools[\"delete\"]",
            "the argument of tools[\"my-tool\"]",
            "the argument of tools.record",
            "the argument of tools.日本",
        ]),
    )
    .await;
}

/// The program that calls every function of `tools` with a number, and
/// then with a BigInt (which no JSON carries, so the call rejects naming
/// its binding), and returns what each gave.
const CALLS_EVERY_TOOL: &str = r#"
    const answers = [];
    for (const name of Object.keys(tools)) {
        answers.push(await tools[name](1));
        try { await tools[name](1n); }
        catch (e) { answers.push(e.message.slice(0, e.message.indexOf(' is not'))); }
    }
    return answers;
"#;

/// A namespace made by `dispatch` is a namespace of its names, each once,
/// in the order of their bytes, whose calls reach the run's handler with
/// the name called; rejections name them as the program writes them. Two
/// runs share the names (what the guest is sent is worked out once) and
/// each reaches its own handler.
#[tokio::test]
async fn a_dispatched_namespace_calls_its_handler_with_the_name_called() {
    let names = CodeBindingNames::new(
        "tools",
        ["search", "my-tool", "delete", "日本", "a\0b", "search"],
    );
    for run in ["first", "second"] {
        let tools = CodeBindingNamespace::dispatch(&names, move |name, args| {
            let answer = json!({ "run": run, "name": name, "args": args });
            async move { Ok(answer) }
        });
        let expected: Vec<Value> = ["a\0b", "delete", "my-tool", "search", "日本"]
            .into_iter()
            .flat_map(|name| {
                let label = coderun_runtime::property_access("tools", name);
                [
                    json!({ "run": run, "name": name, "args": 1 }),
                    json!(format!("the argument of {label}")),
                ]
            })
            .collect();
        returns(
            CodeRunRequest::new(CALLS_EVERY_TOOL).binding(tools),
            json!(expected),
        )
        .await;
    }
}

/// A function added to a namespace made by `dispatch` joins its names or
/// replaces one; the other names still reach the handler.
#[tokio::test]
async fn a_function_added_to_a_dispatched_namespace_joins_its_names() {
    let names = CodeBindingNames::new("tools", ["a", "b"]);
    let mut tools = CodeBindingNamespace::dispatch(&names, |name, _| {
        let answer = json!(format!("handler: {name}"));
        async move { Ok(answer) }
    })
    .function("c", |_| async { Ok(json!("c itself")) });
    tools.insert(
        "a",
        coderun_runtime::CodeBindingFunction::new(|_| async { Ok(json!("a itself")) }),
    );
    assert_eq!(tools.names().collect::<Vec<_>>(), ["a", "b", "c"]);
    returns(
        CodeRunRequest::new("return [await tools.a(), await tools.b(), await tools.c()]")
            .binding(tools),
        json!(["a itself", "handler: b", "c itself"]),
    )
    .await;
}

/// A run given a dispatched namespace records its calls by name, and the
/// record replays with no handler at all.
#[tokio::test]
async fn a_dispatched_namespace_records_and_replays() {
    let names = CodeBindingNames::new("tools", ["double", "my-tool"]);
    let tools = CodeBindingNamespace::dispatch(&names, |name, args| {
        let answer = match (name, args.as_i64()) {
            ("double", Some(n)) => Ok(json!(2 * n)),
            _ => Err(coderun_runtime::BindingError::new(format!(
                "{name} takes a number"
            ))),
        };
        async move { answer }
    });
    let program = r#"
        const doubled = await tools.double(21);
        const refused = await tools["my-tool"]("x").catch((e) => e.message);
        return { doubled, refused };
    "#;
    let recorded = run_request(CodeRunRequest::new(program).binding(tools).record(true)).await;
    assert_ok(&recorded);
    let expected = json!({ "doubled": 42, "refused": "my-tool takes a number" });
    assert_eq!(recorded.value, Some(expected.clone()));
    let record = recorded.record.expect("a record");
    assert_eq!(record.calls.len(), 2);
    returns(CodeRunRequest::replay(*record), expected).await;
}
