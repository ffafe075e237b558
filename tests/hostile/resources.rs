//! Cases that exhaust a budget: CPU, memory and the stack.

use super::{Case, Kind, case};

pub(super) fn cpu(cases: &mut Vec<Case>) {
    use Kind::*;
    cases.push(case(
        "cpu: empty endless loop",
        "for (;;) {}",
        Timeout,
        "fuel",
    ));
    cases.push(case(
        "cpu: endless while",
        "while (true) {}",
        Timeout,
        "fuel",
    ));
    cases.push(case(
        "cpu: loop swallowing exceptions",
        "for (;;) { try { throw 1 } catch {} }",
        Timeout,
        "fuel",
    ));
    // Every turn keeps a promise alive: memory runs out before fuel does.
    cases.push(case(
        "cpu: endless recursion through promises",
        "const f = () => Promise.resolve().then(f); f(); await new Promise(() => {})",
        WorkerExit,
        "memory cap",
    ));
    cases.push(case(
        "cpu: catastrophic regex backtracking",
        "return /^(a+)+$/.test('a'.repeat(40) + 'b')",
        Timeout,
        "fuel",
    ));
    cases.push(case(
        "cpu: deep JSON.stringify is quadratic, not a crash",
        "let a = []; for (let i = 0; i < 100000; i++) a = [a]; return JSON.stringify(a).length",
        Timeout,
        "fuel",
    ));
    cases.push(case(
        "cpu: sort with a comparator that loops",
        "return [3, 2, 1].sort(() => { for (;;) {} })",
        Timeout,
        "fuel",
    ));
    cases.push(case(
        "cpu: a getter that loops during the returned value's encoding",
        "return { get x() { for (;;) {} } }",
        Timeout,
        "fuel",
    ));
    cases.push(case(
        "cpu: toJSON that loops",
        "return { toJSON() { for (;;) {} } }",
        Timeout,
        "fuel",
    ));
    cases.push(case(
        "cpu: endless loop inside finally",
        "try { return 1 } finally { for (;;) {} }",
        Timeout,
        "fuel",
    ));
    cases.push(case(
        "cpu: generator that never ends, spread",
        "function* g() { for (;;) yield new Array(1000).fill(0) } return [...g()].length",
        WorkerExit,
        "memory cap",
    ));
}

pub(super) fn memory(cases: &mut Vec<Case>) {
    use Kind::*;
    cases.push(case(
        "memory: array growth",
        "const a = []; for (;;) a.push(new Array(1e5).fill(1))",
        WorkerExit,
        "memory cap",
    ));
    cases.push(case("memory: growth with the out-of-memory error swallowed", "const a = []; try { for (;;) a.push(new Array(1e5).fill(1)) } catch (e) { return 'swallowed' }", WorkerExit, "memory cap"));
    // Concatenation builds ropes: the length limit comes before the memory cap.
    cases.push(case(
        "memory: string doubling",
        "let s = 'x'; for (;;) s = s + s",
        Exception,
        "string too long",
    ));
    cases.push(case(
        "memory: string doubling caught in a loop",
        "let s = 'x'; for (;;) { try { s = s + s } catch (e) {} }",
        Timeout,
        "fuel",
    ));
    cases.push(case(
        "memory: string doubling, flattened",
        "let s = 'x'; for (;;) { s = s + s; s.charCodeAt(s.length - 1) }",
        WorkerExit,
        "memory cap",
    ));
    cases.push(case(
        "memory: one huge typed array",
        "return new Uint8Array(1024 * 1024 * 1024).length",
        WorkerExit,
        "memory cap",
    ));
    cases.push(case(
        "memory: many typed arrays",
        "const a = []; for (;;) a.push(new Uint8Array(1 << 20))",
        WorkerExit,
        "memory cap",
    ));
    cases.push(case(
        "memory: Map growth",
        "const m = new Map(); for (let i = 0; ; i++) m.set(i, new Array(1000).fill(i))",
        WorkerExit,
        "memory cap",
    ));
    cases.push(case(
        "memory: repeat past the string limit",
        "return 'x'.repeat(2 ** 30).length",
        Exception,
        "RangeError",
    ));
    cases.push(case(
        "memory: array length past the limit",
        "return new Array(2 ** 32).length",
        Exception,
        "RangeError",
    ));
    cases.push(case(
        "memory: closures kept alive",
        "const fs = []; for (;;) { const big = new Array(1e5).fill(0); fs.push(() => big) }",
        WorkerExit,
        "memory cap",
    ));
    cases.push(case(
        "memory: a small program keeps working after the others",
        "return 'fine'",
        Ok,
        "fine",
    ));
}

pub(super) fn stack(cases: &mut Vec<Case>) {
    use Kind::*;
    let catch = |name: &str, setup: &str| {
        case(
            format!("stack: {name}"),
            format!("{setup}\ntry {{ go() }} catch (e) {{ return String(e) }}"),
            Ok,
            "RangeError",
        )
    };
    cases.push(catch(
        "plain recursion",
        "function go() { return go() + 1 }",
    ));
    cases.push(catch(
        "recursion through map",
        "function go() { return [1].map(go)[0] }",
    ));
    cases.push(catch(
        "recursion through a getter",
        "const o = { get x() { return o.x } }; function go() { return o.x }",
    ));
    cases.push(catch(
        "recursion through toString",
        "const o = { toString() { return String(o) } }; function go() { return String(o) }",
    ));
    cases.push(catch(
        "recursion through sort",
        "function go() { return [2, 1].sort(() => go())[0] }",
    ));
    cases.push(catch(
        "recursion through replace",
        "function go() { return 'a'.replace('a', () => go()) }",
    ));
    cases.push(catch(
        "recursion through Reflect.apply",
        "function go() { return Reflect.apply(go, null, []) }",
    ));
    cases.push(catch(
        "recursion through a Proxy trap",
        "const p = new Proxy({}, { get() { return p.x } }); function go() { return p.x }",
    ));
    cases.push(catch(
        "recursion through call.call",
        "function go() { return go.call.call(go) }",
    ));
    cases.push(catch(
        "recursion through a generator",
        "function* g() { yield* g() } function go() { return [...g()] }",
    ));
    cases.push(catch(
        "recursion through a JSON.parse reviver",
        "function go() { return JSON.parse('[1]', () => go()) }",
    ));
    cases.push(catch(
        "recursion through constructors",
        "class A { constructor() { new A() } } function go() { return new A() }",
    ));
    cases.push(catch(
        "recursion through eval",
        "function go() { return eval('go()') }",
    ));
    cases.push(catch(
        "recursion through new Function",
        "function go() { return new Function('go', 'return go()')(go) }",
    ));
    cases.push(catch(
        "recursion through Symbol.toPrimitive",
        "function go() { return { [Symbol.toPrimitive]() { return go() } } + 1 }",
    ));
    cases.push(catch(
        "JSON.parse of 100k nested arrays",
        "function go() { return JSON.parse('['.repeat(100000) + ']'.repeat(100000)) }",
    ));
    cases.push(catch(
        "JSON.parse of 100k nested objects",
        "function go() { return JSON.parse('{\"a\":'.repeat(100000) + '1' + '}'.repeat(100000)) }",
    ));
    cases.push(catch(
        "eval of 100k parentheses",
        "function go() { return eval('('.repeat(100000) + '1' + ')'.repeat(100000)) }",
    ));
    cases.push(catch(
        "eval of 100k blocks",
        "function go() { return eval('{'.repeat(100000) + '}'.repeat(100000)) }",
    ));
    cases.push(catch(
        "eval of 100k negations",
        "function go() { return eval('!'.repeat(100000) + '1') }",
    ));
    cases.push(catch(
        "eval of 100k ifs",
        "function go() { return eval('if (1) '.repeat(100000) + '1') }",
    ));
    cases.push(catch(
        "eval of 50k template substitutions",
        "function go() { return eval('`${'.repeat(50000) + '1' + '}`'.repeat(50000)) }",
    ));
    cases.push(catch(
        "eval of 100k assignments",
        "function go() { return eval('a = '.repeat(100000) + '1') }",
    ));
    cases.push(catch("new Function of 100k brackets", "function go() { return new Function('return ' + '['.repeat(100000) + ']'.repeat(100000)) }"));
    cases.push(catch(
        "String() of a 100k-deep array",
        "let a = []; for (let i = 0; i < 100000; i++) a = [a]; function go() { return String(a) }",
    ));
    cases.push(catch("flat(Infinity) of a 100k-deep array", "let a = []; for (let i = 0; i < 100000; i++) a = [a]; function go() { return a.flat(Infinity) }"));
    cases.push(case("stack: a regular expression of 100k nested groups", "try { new RegExp('(?:'.repeat(100000) + 'a' + ')'.repeat(100000)) } catch (e) { return String(e) }", Ok, "SyntaxError"));
    cases.push(case("stack: a regular expression class of 100k nested classes", "try { new RegExp('[' + '[a'.repeat(100000) + ']'.repeat(100000), 'v') } catch (e) { return String(e) }", Ok, "SyntaxError"));
    cases.push(case(
        "stack: uncaught deep recursion is an exception",
        "function f() { return f() } return f()",
        Exception,
        "Maximum call stack size exceeded",
    ));
}
