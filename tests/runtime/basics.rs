//! Programs, TypeScript, errors and console output.

use super::*;
use serde_json::json;

#[tokio::test]
async fn returns_the_value_of_a_top_level_return() {
    let result = run("return 1 + 1").await;
    assert_ok(&result);
    assert_eq!(result.value, Some(json!(2)));
    assert!(result.logs.is_empty());
}

#[tokio::test]
async fn a_program_without_return_has_no_value() {
    let result = run("const x = 1;").await;
    assert_ok(&result);
    assert_eq!(result.value, None);
}

#[tokio::test]
async fn top_level_await_works() {
    let result = run("const v = await Promise.resolve(41); return v + 1").await;
    assert_ok(&result);
    assert_eq!(result.value, Some(json!(42)));
}

#[tokio::test]
async fn typescript_types_are_stripped() {
    let program = r#"
        interface Item { name: string; price: number }
        type Pair<A, B> = [A, B];
        function first<T>(xs: T[]): T | undefined { return xs[0]; }
        const items: Item[] = [{ name: 'a', price: 2 }, { name: 'b', price: 3 }];
        const pair: Pair<string, number> = ['total', items.reduce((s: number, i: Item) => s + i.price, 0)];
        const raw = JSON.parse('{"n": 7}') as { n: number };
        return { first: first<Item>(items)!.name, pair, n: raw.n satisfies number };
    "#;
    let result = run(program).await;
    assert_ok(&result);
    assert_eq!(
        result.value,
        Some(json!({"first": "a", "pair": ["total", 5], "n": 7}))
    );
}

/// The `program.ts:L:C` a failure's message names.
#[track_caller]
fn failure_position(result: &CodeRunResult) -> String {
    let message = &result.error.as_ref().expect("a failure").message;
    let at = message.find("program.ts:").expect("a position");
    message[at..]
        .chars()
        .take_while(|c| *c != ')' && !c.is_whitespace())
        .collect()
}

#[tokio::test]
async fn erased_types_keep_every_position_as_written() {
    // The same program with and without its types: the types are erased
    // in place, so the failure is at the same line and column.
    let typed = "interface Box { n: number }\nconst b: Box = { n: 1 } as Box;\n\
                 function f<T>(x: T): T { return x }\nconst v: number = f<number>(b.n)!;\n   \
                 if (v) null!.x";
    let plain = "interface Box { n: number }\nconst b = { n: 1 };\n\
                 function f(x) { return x }\nconst v = f(b.n);\n   if (v) null.x";
    let typed = run(typed).await;
    assert_failure(&typed, FailureKind::Exception, "TypeError");
    let plain = run(&plain.replacen("interface Box { n: number }", "", 1)).await;
    assert_failure(&plain, FailureKind::Exception, "TypeError");
    assert!(failure_position(&typed).starts_with("program.ts:5:"));
    assert_eq!(failure_position(&typed), failure_position(&plain));
}

#[tokio::test]
async fn typescript_that_would_read_differently_once_blank_keeps_its_meaning() {
    for (program, expected) in [
        // Two statements: `b` is the array, not its first element.
        ("let a = [5]\nlet b = a as any\n[0]\nreturn b", json!([5])),
        // An erased declaration does not join the lines around it.
        ("let z = 1\ntype Q = string\n[z] = [2]\nreturn z", json!(2)),
        // Nor does an erased modifier join two class members.
        (
            "class F { x = 1\n  private ['y'] = 2 }\nreturn new F()",
            json!({"x": 1, "y": 2}),
        ),
        (
            "const f = (x: number):\n  number => x + 1\nreturn f(1)",
            json!(2),
        ),
        ("function f() { return <number>\n1 }\nreturn f()", json!(1)),
    ] {
        let result = run(program).await;
        assert_ok(&result);
        assert_eq!(result.value, Some(expected), "{program}");
    }
}

#[tokio::test]
async fn enums_and_namespaces_are_lowered() {
    let program = r#"
        enum Color { Red, Green = 5, Blue }
        namespace Geometry { export const unit = 2; export function area(r: number) { return unit * r; } }
        return [Color.Green, Color[6], Geometry.area(3)];
    "#;
    let result = run(program).await;
    assert_ok(&result);
    assert_eq!(result.value, Some(json!([5, "Blue", 6])));
}

#[tokio::test]
async fn a_syntax_error_names_the_line_as_written() {
    let result = run("const a = 1;\nconst b = 2;\nconst c = (a + ;\nreturn c;").await;
    assert_failure(&result, FailureKind::Exception, "program.ts:3:");
    assert_failure(&result, FailureKind::Exception, "SyntaxError");
}

#[tokio::test]
async fn a_thrown_error_carries_its_message_and_line() {
    let program = "type T = number;\nconst a: T = 1;\nconst b: T = 2;\nconsole.log(a + b);\nthrow new Error('kaboom');";
    let result = run(program).await;
    assert_failure(&result, FailureKind::Exception, "Error: kaboom");
    assert_failure(&result, FailureKind::Exception, "program.ts:5:");
    assert_eq!(result.logs, vec!["3"], "output before the failure is kept");
}

#[tokio::test]
async fn plain_javascript_runs_as_written_with_its_positions() {
    // No type syntax: the program skips the transform and runs as written.
    let result = run("const a = 1;\nthrow new Error('plain')").await;
    assert_failure(&result, FailureKind::Exception, "Error: plain");
    assert_failure(&result, FailureKind::Exception, "program.ts:2:");
    // The first line shares the script's line with the wrapper's head.
    let result = run("const o = null; return o.x").await;
    assert_failure(&result, FailureKind::Exception, "program.ts:1:");
    assert_failure(&result, FailureKind::Exception, "TypeError");
}

#[tokio::test]
async fn javascript_that_reads_differently_as_typescript_runs_as_typescript() {
    // A call with a type argument in TypeScript; two comparisons in
    // JavaScript (which would throw: `number` is not defined).
    let result = run("function f(x) { return x }\nreturn f<number>(2)").await;
    assert_ok(&result);
    assert_eq!(result.value, Some(json!(2)));
    // In a module `<!--` is not a comment: `1 < !(--b)`.
    let result = run("let b = 2;\nreturn 1 <!--b").await;
    assert_ok(&result);
    assert_eq!(result.value, Some(json!(false)));
}

#[tokio::test]
async fn a_thrown_string_is_rendered_as_text() {
    let result = run("throw 'raw'").await;
    assert_failure(&result, FailureKind::Exception, "raw");
}

#[tokio::test]
async fn a_rejected_await_is_an_exception() {
    let result = run("await Promise.reject(new TypeError('bad input'))").await;
    assert_failure(&result, FailureKind::Exception, "TypeError: bad input");
}

#[tokio::test]
async fn console_lines_are_captured_in_order() {
    let program =
        "console.log('point', {x: 1, y: 2});\nconsole.warn('w');\nconsole.error(new Error('e'));";
    let result = run(program).await;
    assert_ok(&result);
    assert_eq!(result.logs.len(), 3, "{:?}", result.logs);
    assert_eq!(result.logs[0], "point { x: 1, y: 2 }");
    assert_eq!(result.logs[1], "w");
    assert!(
        result.logs[2].text.starts_with("Error: e\n    at "),
        "{:?}",
        result.logs[2]
    );
    assert!(
        result.logs[2].text.contains("program.ts:3:"),
        "{:?}",
        result.logs[2]
    );
}

#[tokio::test]
async fn console_renders_like_node() {
    let program = r#"
        console.info([1, 'a', null, undefined, [2, [3, [4, [5]]]]]);
        console.debug(new Map([['k', 1]]), new Set([1]), 10n, Symbol('s'), () => 1);
        console.log('%s is %d years', 'Ada', 36, 'extra');
        console.log({ 'my-key': 'v', nested: { deep: { deeper: { deepest: 1 } } } });
        const cyclic: any = { name: 'c' }; cyclic.self = cyclic; console.log(cyclic);
    "#;
    let result = run(program).await;
    assert_ok(&result);
    assert_eq!(
        result.logs,
        vec![
            "[ 1, 'a', null, undefined, [ 2, [ 3, [Array] ] ] ]",
            "Map(1) { 'k' => 1 } Set(1) { 1 } 10n Symbol(s) [Function (anonymous)]",
            "Ada is 36 years extra",
            "{ 'my-key': 'v', nested: { deep: { deeper: [Object] } } }",
            "<ref *1> { name: 'c', self: [Circular *1] }",
        ]
    );
}

#[tokio::test]
async fn the_guest_sees_no_host_capabilities() {
    // `fetch` exists, and reaches only what the host's network policy
    // allows (tests/runtime/egress.rs); by default, nothing.
    let program =
        "return [typeof require, typeof process, typeof std, typeof os, typeof Deno, typeof Bun]";
    let result = run(program).await;
    assert_ok(&result);
    assert_eq!(result.value, Some(json!(vec!["undefined"; 6])));
}

#[tokio::test]
async fn static_import_fails_as_an_exception() {
    let result = run("import fs from 'fs';\nreturn 1").await;
    assert_failure(
        &result,
        FailureKind::Exception,
        "import and export declarations are not available",
    );
}

#[tokio::test]
async fn dynamic_import_rejects_as_an_exception() {
    let result = run("const m = await import('fs');\nreturn m").await;
    let error = result.error.expect("dynamic import must fail");
    assert_eq!(error.kind, FailureKind::Exception, "{}", error.message);
}

/// A preamble defining `n` functions and setting `globalThis.made` to `n`.
fn preamble_of(n: usize) -> String {
    let mut text = String::from("{");
    for i in 0..n {
        text.push_str(&format!("const f{i}=function(a){{return a+{i}}};"));
    }
    text.push_str(&format!("globalThis.made=f{}(1);}}", n - 1));
    text
}

#[tokio::test]
async fn a_preamble_runs_before_the_program_and_is_not_charged_its_compile() {
    let runtime = runtime_with(|_| {});
    let preamble = preamble_of(20);
    let program = "return globalThis.made";
    let request = || CodeRunRequest::new(program).preamble(preamble.clone());
    // The first run compiles the preamble, the second finds it compiled:
    // the same fuel either way.
    let first = runtime.run(request()).await.expect("a run");
    let second = runtime.run(request()).await.expect("a run");
    assert_ok(&first);
    assert_eq!(first.value, Some(json!(20)));
    assert_eq!(first.fuel_consumed, second.fuel_consumed);
    // The same text in the program is compiled by the run, and costs more.
    let inline = runtime
        .run(CodeRunRequest::new(format!("{preamble}\n{program}")))
        .await
        .expect("a run");
    assert_ok(&inline);
    assert_eq!(inline.value, Some(json!(20)));
    assert!(
        first.fuel_consumed < inline.fuel_consumed,
        "a preamble's compile was charged to the run: {} with the preamble, {} inline",
        first.fuel_consumed,
        inline.fuel_consumed
    );
}

#[tokio::test]
async fn a_preamble_that_does_not_compile_or_throws_fails_the_run_saying_so() {
    let broken = run_request(CodeRunRequest::new("return 1").preamble("{const = 1}")).await;
    assert_failure(
        &broken,
        FailureKind::Exception,
        "the request's preamble does not compile: SyntaxError",
    );
    let nul = run_request(CodeRunRequest::new("return 1").preamble("1;\0")).await;
    assert_failure(
        &nul,
        FailureKind::Exception,
        "the request's preamble does not compile: it holds a NUL byte at byte 2",
    );
    let throwing = run_request(
        CodeRunRequest::new("return 1").preamble("throw new TypeError('no tools here')"),
    )
    .await;
    assert_failure(
        &throwing,
        FailureKind::Exception,
        "TypeError: no tools here",
    );
    assert_failure(&throwing, FailureKind::Exception, "preamble.js:1:");
    // A program with a syntax error still reports its own position.
    let program_error = run_request(CodeRunRequest::new("return )").preamble("{}")).await;
    assert_failure(&program_error, FailureKind::Exception, "SyntaxError");
    assert_eq!(failure_position(&program_error), "program.ts:1:8");
}

/// TypeScript's parser refuses some valid JavaScript for rules of its own
/// (a setter's parameter with a default: TS1052). Such a program runs as
/// JavaScript; a program that is not valid JavaScript either keeps
/// TypeScript's message.
#[tokio::test]
async fn valid_javascript_that_typescript_refuses_runs() {
    let result = run(r#"
        class Box { set value(v = 7) { this.v = v; } }
        const box = new Box();
        box.value = undefined;
        const literal = { set x(v = 'default') { this.seen = v; } };
        literal.x = undefined;
        return [box.v, literal.seen];
    "#)
    .await;
    assert_ok(&result);
    assert_eq!(result.value, Some(serde_json::json!([7, "default"])));
    let typed = run("class Box { set value(v: number = 7) {} }; return 1").await;
    assert_failure(
        &typed,
        FailureKind::Exception,
        "A 'set' accessor cannot have an initializer",
    );
}

/// Every kind of function has its own `length` and `name`, first, each
/// configurable and neither writable nor enumerable: closures, bound and
/// built-in functions, classes, and the functions promises make (the
/// executor's resolving functions, `Promise.all`'s for each element). The
/// guest's QuickJS gives a function made with the same empty shape as the
/// one named before it the shape the two led to at once; a property added
/// to one function, or its `name` deleted, stays its own.
#[tokio::test]
async fn functions_have_their_own_length_and_name() {
    let program = r#"
const made = [
  ['arrow', [(a, b) => 0][0]],
  ['function', function named(a) {}],
  ['async', async function av(a, b, c) {}],
  ['bound', function bb(a, b) {}.bind(null, 1)],
  ['method', ({ m(x) {} }).m],
  ['builtin', Array.prototype.map],
  ['class', class K { constructor(a) {} }],
];
let resolvers;
new Promise((resolve, reject) => { resolvers = [resolve, reject]; });
made.push(['resolve', resolvers[0]], ['reject', resolvers[1]]);
let element;
Promise.all([{ then(resolve) { element = resolve; } }]);
await null; await null; await null;
made.push(['element', element]);
const rows = made.map(([what, f]) => [what, Object.getOwnPropertyNames(f).slice(0, 2).join(),
  f.length, f.name, JSON.stringify(Object.getOwnPropertyDescriptor(f, 'length')),
  Object.getOwnPropertyDescriptor(f, 'name').configurable]);
const a = () => 0, b = () => 1, c = () => 2;
a.extra = 1;
delete b.name;
rows.push([Object.getOwnPropertyNames(a).join(), Object.getOwnPropertyNames(b).join(), b.name,
  Object.getOwnPropertyNames(c).join(), c.name]);
return rows;"#;
    let result = run(program).await;
    assert_ok(&result);
    let descriptor = |n: u32| {
        format!(r#"{{"value":{n},"writable":false,"enumerable":false,"configurable":true}}"#)
    };
    let row =
        |what: &str, n: u32, name: &str| json!([what, "length,name", n, name, descriptor(n), true]);
    assert_eq!(
        result.value,
        Some(json!([
            row("arrow", 2, ""),
            row("function", 1, "named"),
            row("async", 3, "av"),
            row("bound", 1, "bound bb"),
            row("method", 1, "m"),
            row("builtin", 1, "map"),
            row("class", 1, "K"),
            row("resolve", 1, ""),
            row("reject", 1, ""),
            row("element", 1, ""),
            ["length,name,extra", "length", "", "length,name", "c"],
        ]))
    );
}
