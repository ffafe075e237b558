//! `JSON.stringify` written natively (the guest's json.rs and
//! render/indent.rs), against QuickJS's own, which an indent given as a
//! Number or String object still reaches: every kind of value, with and
//! without an indent, and every kind of indent.

use serde_json::json;

use super::plain_values::random_values;
use super::render::both_ways_on;
use super::*;

/// `JSON.stringify` of values of every kind, without an indent and with
/// one, writes what QuickJS's own writes (reached through an indent given
/// as a Number or String object, which writes the same text):
/// the same text, `undefined`, or the same error.
#[tokio::test]
async fn json_stringify_writes_every_value_as_quickjs_did() {
    let result = run(r#"
        const seed = { n: 7 };
        const rand = () => (seed.n = (seed.n * 1103515245 + 12345) % 2147483648) / 2147483648;
        const strings = ['', 'a', '"q"', '\\', '\n\t', '\u0001\u001f\u007f', 'é日本', '😀',
                         '\ud800', 'x\udc00y', '\u2028', '__proto__', '0', '10', '-1'];
        const numbers = [0, -0, 1.5, -2.25, 1e21, 1e-7, NaN, Infinity, -Infinity, 2 ** 53, 123456789];
        const pick = (xs) => xs[Math.floor(rand() * xs.length)];
        function value(depth) {
          const r = rand();
          if (depth > 4 || r < 0.35) return pick([null, true, false, undefined, pick(numbers), pick(strings)]);
          if (r < 0.65) return Array.from({ length: Math.floor(rand() * 6) }, () => value(depth + 1));
          const o = {};
          for (let i = Math.floor(rand() * 6); i > 0; i--) o[pick(strings)] = value(depth + 1);
          return o;
        }
        const cycle = {}; cycle.self = cycle;
        const hidden = Object.defineProperty({ a: 1 }, 'b', { value: 2, enumerable: false });
        const getter = { get g() { return 1; } };
        class Point { constructor() { this.x = 1; } }
        const sparse = [1, , 3];
        const extra = Object.assign([1, 2], { extra: 3 });
        const special = [
          undefined, () => 1, Symbol('s'), 10n, cycle, [cycle], hidden, getter, new Point(),
          sparse, extra, new Date(0), new Map([[1, 2]]), { toJSON() { return 'custom'; } },
          { toJSON: 1 }, new Proxy({ a: 1 }, {}), Object.create(null), Object.create({ p: 1 }),
          { [Symbol('k')]: 1, a: 1 }, new Number(1), new String('s'), [undefined, () => 1],
          { u: undefined, f() {}, s: Symbol('s') }, 'top', 5, -0, null, true,
        ];
        const outcome = (f) => { try { return { text: f() }; } catch (e) { return { error: `${e.name}: ${e.message}` }; } };
        const found = [];
        const check = (v, label) => {
          for (const [space, object] of [[undefined, new Number(0)], ['\t', new String('\t')], [3, new Number(3)]]) {
            const native = outcome(() => JSON.stringify(v, null, space));
            const quickjs = outcome(() => JSON.stringify(v, undefined, object));
            if (native.text !== quickjs.text || native.error !== quickjs.error) {
              found.push([`${label}, space ${JSON.stringify(space)}`, String(native.text ?? native.error).slice(0, 80),
                          String(quickjs.text ?? quickjs.error).slice(0, 80)]);
            }
          }
        };
        for (let i = 0; i < 300; i++) check(value(0), `random ${i}`);
        special.forEach((v, i) => check(v, `special ${i}`));
        Object.prototype.toJSON = function () { return 'changed'; };
        check({ a: 1 }, 'a toJSON on Object.prototype');
        delete Object.prototype.toJSON;
        check({ a: 1 }, 'Object.prototype restored');
        return found;
    "#)
    .await;
    assert_ok(&result);
    assert_eq!(result.value, Some(json!([])));
}

/// `JSON.stringify` with an indent writes what QuickJS's own writes, for
/// every kind of `space`: numbers (cut to an integer, at most ten; below
/// one, none), strings (their first ten characters), and what gives no
/// indent; a `null` replacer is no replacer. Those it declines (an object,
/// text that is not ASCII) go to QuickJS's own, as do all of them with the
/// prefix that makes the native writer decline.
#[tokio::test]
async fn json_with_an_indent_is_written_as_quickjs_writes_it() {
    let spaces = "[2, 4, 0, -1, 1.9, 0.5, 11, 1e9, Infinity, -Infinity, NaN, '', '\\t', '--',                   'abcdefghijklmn', true, null, undefined, new Number(3), new String('**'), '\\u00e9',                   'a\\ud83d\\ude00b']";
    for seed in [3, 17, 2024] {
        let program = format!(
            "{}\nconst spaces = {spaces};\n\
             return spaces.map((space, i) => i % 2 ? JSON.stringify(values, null, space) : \
             JSON.stringify(values, undefined, space)).join('\\n\\u0001\\n');",
            random_values(seed, 12)
        );
        // One string: an array of long texts that are not ASCII costs the
        // JavaScript renderer's display dearly (its `stringWidth`).
        let (native, javascript) = both_ways_on(shared(), &program).await;
        assert_ok(&native);
        assert_ok(&javascript);
        let texts = |result: &CodeRunResult| -> Vec<String> {
            let joined = result
                .value
                .as_ref()
                .and_then(|v| v.as_str())
                .expect("the texts");
            joined.split("\n\u{1}\n").map(str::to_owned).collect()
        };
        let (native, javascript) = (texts(&native), texts(&javascript));
        assert_eq!(native.len(), 22, "seed {seed}");
        for (i, (a, b)) in native.iter().zip(&javascript).enumerate() {
            assert!(a == b, "seed {seed}, space {i}: {a} against {b}");
        }
    }
    // What the layout looks like, and that it is the native writer's: its
    // fuel is a fraction of QuickJS's own (about a fifth).
    let build = "const value = []; for (let i = 0; i < 500; i++) value.push({ id: i, \
                 tags: ['a', 'b'], owner: { login: `user${i}`, admin: i % 2 === 0 }, none: {} });";
    let program = format!("{build} return JSON.stringify(value, null, 2);");
    let (native, javascript) = both_ways_on(shared(), &program).await;
    assert_eq!(native.value, javascript.value);
    let text = native
        .value
        .as_ref()
        .and_then(|v| v.as_str())
        .expect("a text");
    assert!(
        text.starts_with(
            "[\n  {\n    \"id\": 0,\n    \"tags\": [\n      \"a\",\n      \"b\"\n    ],\n    \
             \"owner\": {\n      \"login\": \"user0\",\n      \"admin\": true\n    },\n    \"none\": {}\n  },"
        ),
        "{}",
        &text[..200]
    );
    assert!(
        native.fuel_consumed * 2 < javascript.fuel_consumed,
        "native {} fuel, QuickJS's own {}",
        native.fuel_consumed,
        javascript.fuel_consumed
    );
}
