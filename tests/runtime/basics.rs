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

/// The host's script is the program's function, `(async function () {…})`,
/// and the guest parses it as that one function expression (the project's
/// QuickJS patch) rather than as a statement through the whole expression
/// grammar: the same function, for less. A cold `return 1 + 1` burns
/// about 46,000 units of fuel this way and 54,500 the general way; the
/// bound between them catches the general way coming back.
#[tokio::test]
async fn the_programs_function_is_parsed_directly_as_the_same_function() {
    let result = run(
        "return [this === globalThis, typeof arguments, arguments.length, \
         (async function () {}).constructor.name, String(await 2)]",
    )
    .await;
    assert_ok(&result);
    assert_eq!(
        result.value,
        Some(json!([true, "object", 0, "AsyncFunction", "2"]))
    );
    let cold = run("return 1 + 1").await;
    assert_ok(&cold);
    assert!(
        cold.fuel_consumed <= 50_000,
        "{} units of fuel for a cold `return 1 + 1`",
        cold.fuel_consumed
    );
}

/// Operators, their precedence and associativity, `in` and `#x in`,
/// identifiers with escapes, of other scripts and long, blanks of tabs and
/// spaces, keywords as property names: the project's QuickJS patch parses
/// binary expressions by precedence climbing and reads identifiers of
/// ASCII from the source's bytes. The expected value is Node v20's for the
/// same program.
#[tokio::test]
async fn expressions_parse_as_node_parses_them() {
    let program = r#"
const out = [];
out.push(1 + 2 * 3 - 4 / 2 % 3 << 1 >> 1 >>> 0 < 5 == true & 1 ^ 3 | 4);
out.push(2 ** 3 ** 2, (-2) ** 2, 10 - 3 - 2, 100 / 10 / 5, 7 % 4 * 3);
out.push('a' in {a:1} === true, 1 < 2 < 3, 3 > 2 > 1, 1 == 1 != 0, 1 === 1 !== false);
out.push(5 & 3 | 8 ^ 2, 1 | 2 & 3, (1 | 2) & 3, 6 >= 6 <= 1, [] instanceof Array == true);
const o = {a: 1}; let hits = 0;
for (var i = 0, k = ('a' in o) ? 1 : 2; i < k; i++) hits++;
for (const key in o) out.push(key);
out.push(hits);
class A { #x = 1; static has(v) { return #x in v; } static has2(v) { return #x in v === true; } static has3(v) { return 1 + 1 == 2 && #x in v } }
out.push(A.has(new A()), A.has({}), A.has2(new A()), A.has3(new A()));
const \u0061bc = 5; const café = 6; const $_ = 7; const a\u0062c2 = 8; const _ = 9;
out.push(abc, café, $_, abc2, _, \u0061bc + a\u0062c2);
	 	 const	tabbed =	 1  +	2;
out.push(tabbed);
const long_identifier_name_that_goes_on_and_on_for_a_while_123456789 = 3;
out.push(long_identifier_name_that_goes_on_and_on_for_a_while_123456789);
const obj = {if: 1, class: 2, null: 3, true: 4, of: 5, async: 6, await: 7, get: 8};
out.push(obj.if + obj.class + obj.null + obj.true + obj.of + obj.async + obj.await + obj.get);
let of = 1, async = 2, get = 3, set = 4, from = 5; out.push(of + async + get + set + from);
out.push(typeof undefined, void 0, typeof null, -(-1), +!0, ~~3.7, !!'');
let x = 1; x += 2 * 3; x -= 1; x **= 2; x %= 7; x <<= 2; x >>= 1; x |= 1; x &= 7; x ^= 2; out.push(x);
out.push(null ?? 'd', 0 || 'e', 1 && 'f', (null ?? 0) || 'g');
out.push([1,2,3].map((v) => v * 2 + 1).filter((v) => v > 3 && v < 9).reduce((a, b) => a + b, 0));
out.push(`t${1 + 2 * 3}x${'y' + 'z'}`);
label: for (const a of [1]) { for (const b of [2]) { if (a < b) continue label; } }
out.push(1 <
  2, 3
  * 4);
return out;
"#;
    returns(
        CodeRunRequest::new(program),
        json!([
            7,
            512,
            4,
            5,
            2,
            9,
            true,
            true,
            false,
            true,
            true,
            11,
            3,
            3,
            true,
            true,
            "a",
            1,
            true,
            false,
            true,
            true,
            5,
            6,
            7,
            8,
            9,
            13,
            3,
            3,
            36,
            15,
            "undefined",
            null,
            "object",
            1,
            1,
            3,
            false,
            1,
            "d",
            "e",
            "f",
            "g",
            12,
            "t7xyz",
            true,
            12
        ]),
    )
    .await;
}

/// What compiling a line of a program costs, in fuel: each program runs
/// its line 1,000 times after a `return`, so QuickJS compiles them and
/// runs none. The bounds sit between the readings with and without the
/// project's parser hunks (the QuickJS patch's README): 2,341 units a
/// `null;` before, 1,712 after (precedence climbing alone took 320); 41
/// units a space of indentation before, 21 after; 5,034 units for an
/// indented 16-letter name before, 3,412 after (the name read from the
/// source's bytes took about 800).
#[tokio::test]
async fn compiling_a_program_costs_little_per_token() {
    let per_line = |line: &str| format!("return 0;\n{}", line.repeat(1000));
    let empty = fuel_of("return 0;\n").await;
    let keyword = (fuel_of(&per_line("null;\n")).await - empty) / 1000.0;
    let indented =
        (fuel_of(&per_line(&format!("{}null;\n", " ".repeat(32)))).await - empty) / 1000.0;
    let name = (fuel_of(&per_line("                abcdefghijklmnop;\n")).await - empty) / 1000.0;
    assert!(keyword <= 1_900.0, "{keyword} units a `null;`");
    let per_space = (indented - keyword) / 32.0;
    assert!(per_space <= 30.0, "{per_space} units a space");
    assert!(name <= 3_800.0, "{name} units an indented 16-letter name");
    // An arrow function's parameters are read ahead twice: to tell them
    // from a group, then for an `=` among them; the second answers from
    // the first's note. 14,913 units a line without it, 13,814 with it.
    let arrow = (fuel_of(&per_line("((x) => x);\n")).await - empty) / 1000.0;
    assert!(arrow <= 14_400.0, "{arrow} units a `((x) => x);`");
}

/// Brackets inside brackets: destructuring in literals, arrow functions
/// (with defaults) as values, `await` and `yield` in parentheses, and
/// `await` as a name where it is one. QuickJS reads ahead from a bracket
/// to tell a literal from a pattern and a group from an arrow's
/// parameters, and the project's patch answers a bracket it already read
/// past from a note made in the same function. The expected value is
/// Node v20's for the same program.
#[tokio::test]
async fn nested_brackets_parse_as_node_parses_them() {
    let program = r#"
const out = [];
let a, b, c, d;
out.push([({a, b} = {a: 1, b: 2}), [c, d] = [3, 4]].length, a, b, c, d);
const f = { g: (x) => ({ h: [x, (y) => y * 2][1](x) }), k: [(z = {q: [1, 2]}) => z.q.length] };
out.push(f.g(5).h, f.k[0](), f.k[0]({q: [1]}));
const data = [{id: 1, tags: ['x', {deep: [1, [2, [3]]]}]}, {id: 2, fn: ({p = (1 + 2)} = {}) => p}];
out.push(data[0].tags[1].deep[1][1][0], data[1].fn(), data[1].fn({p: 7}));
out.push([...[1, 2], ...[3]].length, ((...r) => r.length)(1, 2, 3), [(1, 2), (3)]);
const g = { async m() { return [(await 1) / 1, { v: (await Promise.resolve(2)) }] } };
out.push(await g.m());
function* gen() { const r = [(yield 1), { y: (yield 2) }]; return r; }
const it = gen(); it.next(); it.next('A'); out.push(it.next('B').value);
const h = { w: function () { var await = 4; return [(await / 2 / 1), { v: (await) }]; } };
out.push(h.w());
out.push([{a: 1}, {b: [2, {c: 3}]}].map(({a, b}) => [a, b]), `x${[1, {y: [2]}].length}`);
for (const [k, {v}] of [[1, {v: 2}], [3, {v: 4}]]) out.push(k + v);
const o2 = {x: [1, 2]}; ({x: [a, b]} = o2); out.push(a, b);
out.push((({u}) => u)({u: [ (1), {t: 2} ]}));
return out;
"#;
    returns(
        CodeRunRequest::new(program),
        json!([
            2, 1, 2, 3, 4, 10, 2, 1, 3, 3, 7, 3, 3, [2, 3], [1, {"v": 2}], ["A", {"y": "B"}],
            [2, {"v": 4}], [[1, null], [null, [2, {"c": 3}]]], "x2", 3, 7, 1, 2, [1, {"t": 2}]
        ]),
    )
    .await;
}

/// An array of 50 objects three brackets deep, compiled and not run: each
/// inner bracket used to be read ahead again for each bracket around it,
/// 55,489 units of fuel an object; with the notes 37,299.
#[tokio::test]
async fn nested_literals_are_read_ahead_once() {
    let items: Vec<String> = (0..50)
        .map(|i| {
            format!("{{id: {i}, name: 'item{i}', tags: ['x', 'y'], meta: {{a: 1, b: [1, 2]}}}}")
        })
        .collect();
    let program = format!("return 0;\nconst data = [{}];\n", items.join(", "));
    let per_item = (fuel_of(&program).await - fuel_of("return 0;\n").await) / 50.0;
    assert!(per_item <= 45_000.0, "{per_item} units an object");
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
