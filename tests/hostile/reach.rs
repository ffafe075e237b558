//! Cases that reach for the host: through the bindings, and out of the
//! sandbox.

use super::{Case, Kind, case, dispatching};

pub(super) fn bindings(cases: &mut Vec<Case>) {
    use Kind::*;
    let caught = |name: &str, call: &str, needle: &'static str| {
        case(
            format!("bindings: {name}"),
            format!("try {{ await {call} }} catch (e) {{ return String(e) }}"),
            Ok,
            needle,
        )
    };
    cases.push(caught("a BigInt argument", "tools.echo(1n)", "BigInt"));
    cases.push(caught(
        "a cyclic argument",
        "(() => { const a = {}; a.a = a; return tools.echo(a) })()",
        "not JSON-serialisable",
    ));
    cases.push(caught(
        "a function argument",
        "tools.echo({ f() {} })",
        "function",
    ));
    cases.push(caught(
        "a symbol argument",
        "tools.echo(Symbol('s'))",
        "symbol",
    ));
    cases.push(caught(
        "an argument 2,000 levels deep",
        "(() => { let a = 1; for (let i = 0; i < 2000; i++) a = [a]; return tools.echo(a) })()",
        "1000 levels",
    ));
    cases.push(caught(
        "an argument of 2 MB",
        "tools.echo('a'.repeat(2_000_000))",
        "config.max_value_bytes",
    ));
    cases.push(caught(
        "an argument whose toJSON throws",
        "tools.echo({ toJSON() { throw new Error('no json') } })",
        "no json",
    ));
    cases.push(caught(
        "an argument with a throwing getter",
        "tools.echo({ get a() { throw new Error('getter') } })",
        "getter",
    ));
    cases.push(Case {
        dispatches: true,
        ..caught("a rejected binding", "tools.fail()", "Error")
    });
    cases.push(dispatching("bindings: an argument 900 levels deep round-trips", "let a = 1; for (let i = 0; i < 900; i++) a = [a]; let r = await tools.echo(a); let d = 0; while (Array.isArray(r)) { r = r[0]; d++ } return d", Ok, "900"));
    cases.push(dispatching(
        "bindings: a Proxy argument",
        "return await tools.echo(new Proxy({ a: 1 }, {}))",
        Ok,
        "\"a\":1",
    ));
    cases.push(dispatching("bindings: thousands of calls in flight", "const ps = []; for (let i = 0; i < 5000; i++) ps.push(tools.echo(i).catch(e => 'refused')); const r = await Promise.all(ps); return r.filter(x => x === 'refused').length > 0", Ok, "true"));
    cases.push(case(
        "bindings: an unknown function",
        "return await tools.nope()",
        Exception,
        "not a",
    ));
    cases.push(case(
        "bindings: the namespace has no prototype",
        "return [Object.getPrototypeOf(tools), 'hasOwnProperty' in tools]",
        Ok,
        "[null,false]",
    ));
    cases.push(case(
        "bindings: a replaced namespace does not reach the host",
        "globalThis.tools = { echo: () => 'fake' }; return tools.echo(1)",
        Ok,
        "fake",
    ));
    cases.push(dispatching(
        "bindings: a thenable argument is sent as data",
        "return await tools.echo({ then: 1 })",
        Ok,
        "then",
    ));
    cases.push(dispatching(
        "bindings: a binding called with too many arguments",
        "return await tools.echo(1, 2, 3)",
        Ok,
        "1",
    ));
}

pub(super) fn escapes(cases: &mut Vec<Case>) {
    use Kind::*;
    cases.push(case(
        "escape: require",
        "return typeof require",
        Ok,
        "undefined",
    ));
    cases.push(case(
        "escape: process",
        "return typeof process",
        Ok,
        "undefined",
    ));
    // The runtime's default network policy allows nothing: the metadata
    // service and every other address are out of reach.
    cases.push(case(
        "escape: fetch",
        "try { await fetch('http://169.254.169.254/latest/meta-data/'); return 'reached' } \
         catch (e) { return `${e.name}: ${e.message}` }",
        Ok,
        "TypeError: fetch GET http://169.254.169.254/latest/meta-data/: refused by the network \
         policy: it allows no network access",
    ));
    // Refused requests count: a loop of them ends at maxRequests (50).
    cases.push(case(
        "escape: fetch in a loop",
        "let last; for (let i = 0; i < 1000; i++) { try { await fetch('https://example.com/' + i) } \
         catch (e) { last = e.message } } return last",
        Ok,
        "this run has made its maximum of 50 requests",
    ));
    cases.push(case(
        "escape: WebAssembly",
        "return typeof WebAssembly",
        Ok,
        "undefined",
    ));
    cases.push(case(
        "escape: std and os modules",
        "return [typeof std, typeof os, typeof scriptArgs].join()",
        Ok,
        "undefined,undefined,undefined",
    ));
    cases.push(case("escape: the prelude's natives are unreachable", "return ['hostLog', 'hostCall', 'natives', 'internals', 'installBindings', 'callBinding', 'failedCall', 'encodeResult', 'renderThrown', 'hostError'].filter(n => n in globalThis)", Ok, "[]"));
    cases.push(dispatching(
        "escape: a patched JSON.stringify does not change what a binding receives",
        "JSON.stringify = () => '\"forged\"'; return await tools.echo([1, 2])",
        Ok,
        "[1,2]",
    ));
    cases.push(case("escape: a patched Object.prototype.toJSON fails only the program's own call", "Object.prototype.toJSON = () => { throw new Error('patched') }; return await tools.echo([1, 2])", Exception, "patched"));
    cases.push(case("escape: patched array methods do not break console.log", "Array.prototype.push = null; Array.prototype.join = null; console.log([1, { a: 2 }]); return 'still logging'", Ok, "still logging"));
    cases.push(case(
        "escape: replacing console",
        "console = null; return 'console replaced'",
        Ok,
        "console replaced",
    ));
    cases.push(case(
        "escape: Function constructor to global",
        "return typeof Function('return this')()",
        Ok,
        "object",
    ));
    cases.push(case(
        "escape: a promise that never settles",
        "await new Promise(() => {})",
        Exception,
        "can never settle",
    ));
    cases.push(case(
        "escape: Date is the host's clock",
        "return typeof Date.now()",
        Ok,
        "number",
    ));
    cases.push(case("escape: Atomics.wait cannot block the host", "try { return Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10) } catch (e) { return String(e) }", Ok, ""));
}
