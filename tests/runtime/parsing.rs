//! How programs are parsed: QuickJS's compiler as the project's patch
//! changes it, checked against Node's results for the same programs, and
//! what compiling costs in fuel.

use super::*;
use serde_json::json;

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
    // the first's note. 14,913 units a line without it, 13,814 with it,
    // 13,195 once the group around the function stopped being read ahead
    // (below).
    let arrow = (fuel_of(&per_line("((x) => x);\n")).await - empty) / 1000.0;
    assert!(arrow <= 13_700.0, "{arrow} units a `((x) => x);`");
}

/// What a bracket that cannot begin a parameter list or an assignment
/// pattern costs to compile. QuickJS reads ahead to the `)` of a group for
/// a `=>`, and to the `}` or `]` of a literal for a `=`; the project's
/// patch stops at the first token that rules them out, and the parser
/// reads the bracket once. Each line 1,000 times after a `return`: a call
/// with an object argument, 22,971 units before, 18,963 after; a group,
/// 10,775 before, 9,848 after. And `let` with a name after it on its line,
/// read as a declaration without reading the name ahead: 200 of them,
/// 12,149 units each before, 10,635 after.
#[tokio::test]
async fn brackets_that_are_no_pattern_are_read_once() {
    let per_line = |line: &str| format!("return 0;\n{}", line.repeat(1000));
    let empty = fuel_of("return 0;\n").await;
    let call = (fuel_of(&per_line(
        "g({ q: \"x\", limit: 5, tags: [\"a\", \"b\"] });\n",
    ))
    .await
        - empty)
        / 1000.0;
    assert!(call <= 21_000.0, "{call} units a call with an object");
    let group = (fuel_of(&per_line("y = (x + 1) * 2;\n")).await - empty) / 1000.0;
    assert!(group <= 10_300.0, "{group} units a group");
    let lets: String = (0..200).map(|i| format!("let v{i} = 1;\n")).collect();
    let declaration = (fuel_of(&format!("return 0;\n{lets}")).await - empty) / 200.0;
    assert!(declaration <= 11_400.0, "{declaration} units a `let`");
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

/// Assignment patterns and arrow functions' parameters of every form next
/// to literals and groups that only begin like them: a literal's member as
/// a target (`/=x/.lastIndex`), holes, rests, defaults holding operators,
/// calls and arrows, methods and getters, computed and quoted keys, `async`
/// as a name and as a modifier. The project's patch stops reading ahead
/// from a bracket at the first token that rules a pattern or a parameter
/// list out; a wrong stop would read a valid pattern as a literal. The
/// expected value is Node v20's for the same program.
#[tokio::test]
async fn patterns_and_parameters_parse_as_node_parses_them() {
    let program = r#"
const out = [];
let a, b, c, d, e, f;
const o = { x: 1, y: [2, 3], z: { w: 4 }, s: "str", "q-r": 5, 7: "seven" };
// assignment patterns, read whole
({ x: a, y: [b, c] } = o); out.push([a, b, c]);
({ x: a = 9, nope: b = 10, ...c } = o); out.push([a, b, c]);
({ z: { w: a }, s: b } = o); out.push([a, b]);
({ "q-r": a, 7: b, ["x"]: c } = o); out.push([a, b, c]);
({ a, b = 2 } = { a: 1 }); out.push([a, b]);
const t = {}; const arr = [];
({ x: t.p, y: t["q"], s: arr[0] } = o); out.push([t.p, t.q, arr[0]]);
({ x: (d) } = o); out.push(d);
({ x: /=x/.lastIndex } = o); out.push(/=x/.lastIndex);
({ x: `${a}`.length } = { x: 1 }).x; out.push("template member ok");
[a, , b = 5, ...c] = [1, 2, undefined, 4, 5]; out.push([a, b, c]);
[a, [b, c] = [8, 9], { d } = { d: 6 }] = [1]; out.push([a, b, c, d]);
[t.m, arr[1], (e)] = ["m", "n", "e"]; out.push([t.m, arr[1], e]);
[a = 1 + 2 * 3, b = a > 2 ? "big" : "small", c = (x => x * 2)(4)] = []; out.push([a, b, c]);
[a, b] = [b, a]; out.push([a, b]);
({ x: a } = { x: [1, 2] }.x.length > 1 ? { x: "long" } : { x: "short" }); out.push(a);
// literals that are not patterns
out.push({ a: 1 + 2, b: typeof (f => f), c: a?.length ?? 0, d: !0, e: -1, g: `t${1}`, h: new Array(2).length });
out.push({ get g() { return "getter"; }, m() { return "method"; }, async am() {}, *gen() {} }.g);
out.push({ x: "s", y: 1, z: null, w: true, v: this === undefined, u: String(1), k: [1, 2].map(n => n + 1) });
out.push([1, "two", `three`, null, true, false, [4], { five: 5 }, (6), 7 * 8, /re/.source]);
out.push([(a), a + 1, typeof a, a in o, a instanceof Object, void 0]);
out.push({ "q": 1, 2: "n", [1 + 1]: "c", ...{ spread: 1 } });
out.push({ x: a = 3 }, a);
// arrow functions and groups
const g1 = (x, y = 2, { z } = { z: 3 }, [w] = [4], ...rest) => [x, y, z, w, rest];
out.push(g1(1), g1(1, 5, { z: 6 }, [7], 8, 9));
const g2 = () => "none"; const g3 = (x,) => x; const g4 = ({ a, b: [c] }) => a + c;
const g5 = (x = (1, 2), y = { k: [1, 2] }, z = () => 3) => [x, y.k, z()];
out.push(g2(), g3(3), g4({ a: 1, b: [2] }), g5());
const g6 = async (x) => x * 2; out.push(await g6(21));
const g7 = async (x, { y } = {}) => [x, y]; out.push(await g7(1, { y: 2 }));
const async = (x) => x + 1; out.push(async(1), async((2)));
out.push((1, 2), (a + 1) * 2, (o.x), (o["y"])[0], (await g6(1)), (x => x)(5), ((x) => x)(6));
out.push(((a, b) => a + b)(1, 2), ((...xs) => xs.length)(1, 2, 3), (/x/).source, (`t`), (function () { return "f"; })());
out.push([1, 2, 3].map((x, i) => x * i), [1, 2].reduce((s, n) => s + n, 0), ((a)) + 1);
const h = (x) =>
  x + 1;
out.push(h(1));
return out;
"#;
    let expected: serde_json::Value = serde_json::from_str(
        r#"[[1,2,3],[1,10,{"7":"seven","y":[2,3],"z":{"w":4},"s":"str","q-r":5}],[4,"str"],[5,"seven",1],[1,2],[1,[2,3],"str"],1,0,"template member ok",[1,5,[4,5]],[1,8,9,6],["m","n","e"],[7,"big",8],["big",7],"long",{"a":3,"b":"function","c":4,"d":true,"e":-1,"g":"t1","h":2},"getter",{"x":"s","y":1,"z":null,"w":true,"v":false,"u":"1","k":[2,3]},[1,"two","three",null,true,false,[4],{"five":5},6,56,"re"],["long","long1","string",false,false,null],{"2":"c","q":1,"spread":1},{"x":3},3,[1,2,3,4,[]],[1,5,6,7,[8,9]],"none",3,3,[2,[1,2],3],42,[1,2],2,3,2,8,1,2,2,5,6,3,3,"x","t","f",[0,2,6],3,4,2]"#,
    )
    .expect("Node's result");
    returns(CodeRunRequest::new(program), expected).await;
}

/// `let` as a declaration (a name, `[` or `{` after it, on its line or the
/// next, after tabs, comments and escapes, names past ASCII) and, in
/// sloppy code, as a name (`let instanceof`, `let in`). The project's
/// patch reads a declaration from the bytes after `let` when it can tell
/// at a glance. The expected value is Node v20's for the same program.
#[tokio::test]
async fn let_parses_as_node_parses_it() {
    let program = r#"
const seen = [];
let
[p1, p2] = [1, 2];
let
q1 = 3;
let	q2 = 4;
let/* comment */q3 = 5;
let q4 = 6, $q5 = 7, _q6 = 8;
let [r1] = [9], { r2 } = { r2: 10 };
let \u0071\u0037 = 11;
let qé = 12;
let yieldish = 13, awaited = 14, ofs = 15, lets = 16, instanceofs = 17, ins = 18;
for (let i = 0, j = 2; i < j; i++) seen.push(i);
for (let [k, v] of [[1, 2]]) seen.push(k + v);
for (let k in { z: 1 }) seen.push(k);
{ let inner = 19; seen.push(inner); }
seen.push(p1 + p2, q1, q2, q3, q4, $q5, _q6, r1, r2, q7, qé, yieldish, awaited, ofs, lets, instanceofs, ins);
let threw;
try { new Function("var let = [1]; let\n[0] = 2; return let;"); } catch (e) { threw = e.name; }
const sloppy2 = new Function("var let = { a: 1 }; var out = []; let instanceof Object && out.push('instanceof'); let in { a: 0 } && out.push('in'); return out;");
seen.push(threw, sloppy2());
return seen;
"#;
    let expected: serde_json::Value = serde_json::from_str(
        r#"[0,1,3,"z",19,3,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,"SyntaxError",["instanceof"]]"#,
    )
    .expect("Node's result");
    returns(CodeRunRequest::new(program), expected).await;
}

/// Groups that are no parameter list before `=>`, and literals that are
/// no pattern before `=`, compiled by `new Function`: each a
/// `SyntaxError`, as in Node.
#[tokio::test]
async fn brackets_that_are_no_pattern_before_an_arrow_or_assignment_are_syntax_errors() {
    let sources = json!([
        "const f = (a + 1) => a;",
        "const f = (1) => 2;",
        "const f = ((a)) => a;",
        "const f = (a, b + 1) => a;",
        "const f = (a.b) => a;",
        "const f = (a = 1, 2) => a;",
        "const f = async (a + 1) => a;",
        "let o = {}; ({ a: 1 } = o);",
        "let o = {}; ({ a: f() } = o);",
        "let o = {}; ({ a() {} } = o);",
        "let o = {}; ({ get a() { return 1; } } = o);",
        "let o = {}; ({ a: b + 1 } = o);",
        "let o = {}; ({ a: b?.c } = o);",
        "let o = {}; ({ 'a' } = o);",
        "let o = {}; ({ a: `t` } = o);",
        "let o = {}; ({ a: this } = o);",
        "let o = {}; ({ a: new X() } = o);",
        "let o = []; [1] = o;",
        "let o = []; [a + 1] = o;",
        "let o = []; [f()] = o;",
        "let o = []; [a, \"s\"] = o;",
        "let o = []; [x => x] = o;",
        "let o = []; [a ? b : c] = o;",
        "let o = []; [a += 1] = o;",
        "let o = []; [!a] = o;",
        "let o = []; [a++] = o;"
    ]);
    let program = format!(
        "const r = []; for (const src of {sources}) {{ try {{ new Function(src); r.push('ok'); }} \
         catch (e) {{ r.push(e.name); }} }} return r;"
    );
    let expected = vec!["SyntaxError"; 26];
    returns(CodeRunRequest::new(program), json!(expected)).await;
}
