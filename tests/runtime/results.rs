//! JSON read into the program's values natively (the guest's parse.rs): a
//! binding's result, checked against `JSON.parse` of the same text in the
//! same run, and `JSON.parse` itself, checked against QuickJS's own (which
//! a reviver still takes): type, value (`Object.is`, so `-0` too), key
//! order, property attributes and prototype, at every level, and the
//! same error for text that is not JSON. (`JSON.stringify`, written
//! natively too, is checked in stringify.rs.)

use serde_json::{Map, Number, Value, json};

use super::*;

/// The program: the binding's result, and `JSON.parse` of the text it was
/// sent as; returns `null` when they are the same throughout, else where
/// they first differ.
const COMPARE: &str = r#"
const given = await tools.give();
const parsed = JSON.parse(await tools.text());
return differs(given, parsed, '$');
"#;

/// Where two values first differ, or `null`.
const DIFFERS: &str = r#"
function differs(a, b, path) {
  if (typeof a !== typeof b) return `${path}: ${typeof a} against ${typeof b}`;
  if (typeof a === 'number') return Object.is(a, b) ? null : `${path}: ${a} against ${b}`;
  if (a === null || typeof a !== 'object') return a === b ? null : `${path}: ${a} against ${b}`;
  if (Array.isArray(a) !== Array.isArray(b)) return `${path}: an array and not`;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return `${path}: prototypes`;
  const ka = Reflect.ownKeys(a), kb = Reflect.ownKeys(b);
  if (ka.length !== kb.length || ka.some((k, i) => k !== kb[i])) {
    return `${path}: keys ${JSON.stringify(ka)} against ${JSON.stringify(kb)}`;
  }
  for (const k of ka) {
    const da = Object.getOwnPropertyDescriptor(a, k), db = Object.getOwnPropertyDescriptor(b, k);
    if (da.writable !== db.writable || da.enumerable !== db.enumerable
        || da.configurable !== db.configurable) return `${path}.${k}: attributes`;
    const d = differs(da.value, db.value, `${path}.${k}`);
    if (d) return d;
  }
  return null;
}
"#;

/// `tools.give` answers `value`; `tools.text` answers its JSON text as a
/// string; `tools.none` answers `null`.
fn giving(value: Value) -> CodeBindingNamespace {
    let text = Value::String(serde_json::to_string(&value).expect("JSON"));
    CodeBindingNamespace::new("tools")
        .function("none", |_| async { Ok(Value::Null) })
        .function("give", move |_| {
            let value = value.clone();
            async move { Ok(value) }
        })
        .function("text", move |_| {
            let text = text.clone();
            async move { Ok(text) }
        })
}

async fn assert_parsed_alike(value: Value) {
    let shown = serde_json::to_string(&value).expect("JSON");
    let program = format!("{DIFFERS}{COMPARE}");
    let result = run_request(CodeRunRequest::new(program).binding(giving(value))).await;
    assert_ok(&result);
    assert_eq!(
        result.value,
        Some(Value::Null),
        "the binding's result and JSON.parse of its text differ for {}",
        shown.chars().take(2000).collect::<String>()
    );
}

/// A seeded generator (xorshift): the values, and so a failure, repeat.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.below(from.len() as u64) as usize]
    }
}

const TEXTS: &[&str] = &[
    "",
    "a",
    "item-7",
    "__proto__",
    "0",
    "1",
    "01",
    "-1",
    "4294967294",
    "4294967295",
    "1e3",
    "constructor",
    "toString",
    "with \"quotes\" and \\",
    "line\nbreak\ttab",
    "\u{1}\u{1f}\u{7f}",
    "é",
    "日本語",
    "😀 astral",
    "\u{2028}\u{2029}",
    "\u{feff}",
];

fn number(random: &mut Random) -> Value {
    match random.below(8) {
        0 => json!(random.below(1000) as i64 - 500),
        1 => json!(random.next() as i64),
        2 => json!(random.next()),
        3 => json!(-0.0),
        4 => json!(
            [0.1, 1.5, -2.25, 1e21, 1e-7, 5e-324, 1.7976931348623157e308][random.below(7) as usize]
        ),
        _ => loop {
            let n = f64::from_bits(random.next());
            if n.is_finite() {
                break Value::Number(Number::from_f64(n).expect("finite"));
            }
        },
    }
}

fn value(random: &mut Random, depth: u32) -> Value {
    match random.below(if depth > 4 { 4 } else { 7 }) {
        0 => Value::Null,
        1 => Value::Bool(random.below(2) == 0),
        2 => number(random),
        3 => Value::String(random.pick(TEXTS).to_owned()),
        4 => Value::Array(
            (0..random.below(6))
                .map(|_| value(random, depth + 1))
                .collect(),
        ),
        _ => {
            let mut object = Map::new();
            for _ in 0..random.below(7) {
                object.insert(random.pick(TEXTS).to_owned(), value(random, depth + 1));
            }
            Value::Object(object)
        }
    }
}

#[tokio::test]
async fn random_results_read_as_json_parse_reads_their_text() {
    for seed in 1..=24u64 {
        let mut random = Random(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
        let values: Vec<Value> = (0..12).map(|_| value(&mut random, 0)).collect();
        assert_parsed_alike(Value::Array(values)).await;
    }
}

/// The corners: `-0`, integers past 2^53 and past 64 bits, the extreme
/// doubles, keys that are array indices (ordered first) or `__proto__`
/// (an own property, not the prototype), escapes, and a nesting deeper
/// than the native reader takes (JSON.parse reads that one).
#[tokio::test]
async fn corner_results_read_as_json_parse_reads_their_text() {
    let mut deep = json!("bottom");
    for _ in 0..300 {
        deep = json!([deep]);
    }
    let huge: Value = serde_json::from_str("123456789012345678901234567890").expect("a number");
    for value in [
        json!(-0.0),
        json!([
            0,
            -0.0,
            9007199254740993u64,
            u64::MAX,
            i64::MIN,
            5e-324,
            1.7976931348623157e308
        ]),
        huge,
        json!({"b": 1, "a": 2, "10": 3, "2": 4, "__proto__": {"polluted": true}, "": 5}),
        json!({"text": "\"\\/\u{8}\u{c}\n\r\t\u{0}\u{2028}😀"}),
        deep,
        json!([[[[]]], {}, [{}], {"": {"": []}}]),
    ] {
        assert_parsed_alike(value).await;
    }
}

/// Reading 2,000 records from a binding costs at most 82 units of fuel
/// per byte of their JSON: the native reader takes about 79 (84 while its
/// short ASCII strings went through QuickJS's byte-at-a-time UTF-8 scan
/// and the C library's memcpy, 126 with serde_json's reader and the
/// records freed when the program returned, 190 before records were made
/// from one shape), QuickJS's JSON.parse, which this would be without it,
/// about 336 (fuel is deterministic: the bound moves only with the guest).
#[tokio::test]
async fn a_result_of_records_is_read_in_proportion_to_its_bytes() {
    let records: Vec<Value> = (0..2000)
        .map(|i| {
            json!({"id": i, "name": format!("item-{i}"), "tags": ["a", "b"],
                   "owner": {"login": format!("user{}", i % 10), "admin": i % 2 == 0}})
        })
        .collect();
    let value = Value::Array(records);
    let bytes = serde_json::to_string(&value).expect("JSON").len() as f64;
    let tools = giving(value);
    let fuel = |program: &'static str| {
        let tools = tools.clone();
        async move {
            let result = run_request(CodeRunRequest::new(program).binding(tools)).await;
            assert_ok(&result);
            result.fuel_consumed as f64
        }
    };
    let read = fuel("const v = await tools.give(); return v.length;").await;
    let called = fuel("const v = await tools.none(); return 0;").await;
    let per_byte = (read - called) / bytes;
    eprintln!("a binding's result of records: {per_byte:.1} fuel per byte");
    assert!(per_byte <= 82.0, "{per_byte:.1} fuel per byte");
}

/// `JSON.parse` and `JSON.stringify` are still the standard's functions:
/// their names, lengths and attributes, not constructors, printed as
/// native code.
#[tokio::test]
async fn json_functions_keep_the_standards_shape() {
    let result = run(r#"
        return ['parse', 'stringify'].map((name) => {
          const f = JSON[name];
          const d = Object.getOwnPropertyDescriptor(JSON, name);
          let constructed;
          try { new f('1'); constructed = 'constructed'; } catch (e) { constructed = e.name; }
          return [f.name, f.length, d.writable, d.enumerable, d.configurable, typeof f, constructed,
                  Object.getPrototypeOf(f) === Function.prototype,
                  String(f).includes('[native code]'), Object.getOwnPropertyNames(f),
                  f.call(undefined, name === 'parse' ? '[1]' : [1])];
        });
    "#)
    .await;
    assert_ok(&result);
    assert_eq!(
        result.value,
        Some(json!([
            [
                "parse",
                2,
                true,
                false,
                true,
                "function",
                "TypeError",
                true,
                true,
                ["length", "name"],
                [1]
            ],
            [
                "stringify",
                3,
                true,
                false,
                true,
                "function",
                "TypeError",
                true,
                true,
                ["length", "name"],
                "[1]"
            ]
        ]))
    );
}

/// `JSON.parse` of texts at the edges of the grammar gives what QuickJS's
/// own gives (reached through an identity reviver, which it still takes):
/// the same value, or the same error.
#[tokio::test]
async fn json_parse_reads_every_text_as_quickjs_did() {
    let program = format!(
        "{DIFFERS}{}",
        r#"
        const texts = [
          '{"a":1,"a":2,"b":{"a":3}}', ' \t\n\r[1 , 2]\n', '"\\ud800"', '"\\ud83d\\ude00"',
          '"' + '\ud800' + '"', '"é日本"', '"é"', '-0', '[-0.0, 0e5, -1e-400]', '1e400', '-1e400',
          '123456789012345678901234567890', '0.1', '1E+2', '[' .repeat(1000) + ']'.repeat(1000),
          '{"__proto__": {"x": 1}}', '{"1": 1, "0": 0, "b": 2, "4294967295": 3}', '""', '{}', '[]',
          '', '{', '[1,]', '01', '"\u0001"', 'true ', ' null', 'nul', '1 2', '\ufeff1', '"\\x41"',
          '{"a" 1}', '[1 2]', '"abc', 'undefined', 'NaN', '-', '.5', '1.', '+1',
          '-01', '1e', '1e+', '1E-', '1.5e3', '2.5E-3', '-0e0', '0.0000001', '123.456e-7',
          '1e22', '1e23', '9007199254740993', '18446744073709551615', '18446744073709551616',
          '0.1e-22', '4.35', '2.2250738585072014e-308', '1.7976931348623157e309',
          '12345678901234567890.123', '0.00000000000000000000012345', '1e-1000000000000',
          '1e1000000000000', '0e9999999', '[0,-0,0.0,-0.0]', '{"a\\nb": 1, "\\u00e9": 2}',
          '{"\\ud83d\\ude00": "\\u00e9\\/\\t"}', '"\\u12"', '"\\uZZZZ"', '"\\ud800x"',
          '"\\udc00"', '"\\ud800\\u0041"', '"a\tb"', '{"a":1,}', '{,}', '[,1]', '{"a":1 "b":2}',
          'tru', 'nulll', 'falsey', '[true,false,null]', '{"a":[{"b":{"c":[1,{"d":"e"}]}}]}',
          '  "x"  ', '"\\"', '{"":""}', '[[[[[[]]]]]]', '{"a":{"a":{"a":{}}}}',
          '[1,"a",2]', '[1 , -2.5e3 ,\n[3], 4]', '[1,,2]', '[-]', '[1,-]', '[0,01]', '[1e5 ]',
          '[ 7]', '[12345678,123456789,1234567890123456,12345678901234567890]', '[1,]  ',
          '[1.5,true,null,{"a":1},2]', '[00000000000000001]', '[1.00000000000000000001]',
        ];
        // Strings of up to 17 bytes, of ASCII alone (a short one is made
        // without a scan, and copied as words) and with one character that
        // is not ASCII at each place.
        for (let n = 0; n < 18; n++) texts.push(JSON.stringify(['abcdefghijklmnopq'.slice(0, n)]));
        for (const c of ['\u00e9', '\u65e5', '\ud83d\ude00', '\u007f']) {
          for (let n = 1; n < 18; n++) {
            for (let at = 0; at < n; at++) {
              texts.push(JSON.stringify(['x'.repeat(at) + c + 'y'.repeat(n - at - 1)]));
            }
          }
        }
        const outcome = (f) => { try { return { value: f() }; } catch (e) { return { error: `${e.name}: ${e.message}` }; } };
        const found = [];
        for (const text of texts) {
          const native = outcome(() => JSON.parse(text));
          const quickjs = outcome(() => JSON.parse(text, (k, v) => v));
          const d = 'error' in native || 'error' in quickjs
            ? (native.error === quickjs.error ? null : `${native.error} against ${quickjs.error}`)
            : differs(native.value, quickjs.value, '$');
          if (d) found.push([text.slice(0, 40), d]);
        }
        for (const input of [123, true, null, { toString: () => '[7]' }, undefined]) {
          const native = outcome(() => JSON.parse(input));
          const quickjs = outcome(() => JSON.parse(input, (k, v) => v));
          const d = 'error' in native || 'error' in quickjs
            ? (native.error === quickjs.error ? null : `${native.error} against ${quickjs.error}`)
            : differs(native.value, quickjs.value, '$');
          if (d) found.push([String(input), d]);
        }
        return found;
    "#
    );
    let result = run(&program).await;
    assert_ok(&result);
    assert_eq!(result.value, Some(json!([])));
}

/// Numbers of every form `JSON.parse` reads give the same double as
/// QuickJS's own reader (reached through an identity reviver): integers
/// and fractions of up to 26 digits, with and without exponents, around the
/// powers of ten a double holds exactly and past them, where the native
/// reader leaves the exact fast path for `core`'s correctly rounded parser.
#[tokio::test]
async fn json_parse_reads_numbers_of_every_form_as_quickjs_does() {
    let result = run(r#"
        let seed = 7;
        const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
        const digits = (n) => { let t = ''; for (let i = 0; i < n; i++) t += next() % 10; return t; };
        const texts = [];
        for (let i = 0; i < 3000; i++) {
          let text = (next() % 2 ? '-' : '') + (next() % 4 ? String(1 + next() % 9) + digits(next() % 12) : '0');
          if (next() % 2) text += '.' + digits(1 + next() % 14);
          if (next() % 3 === 0) text += (next() % 2 ? 'e' : 'E') + ['', '+', '-'][next() % 3] + (next() % 40);
          texts.push(text);
        }
        const found = [];
        for (const text of texts) {
          const native = JSON.parse(text);
          const quickjs = JSON.parse(text, (k, v) => v);
          if (!Object.is(native, quickjs)) found.push([text, native, quickjs]);
        }
        const list = ['[', texts.join(','), ']'].join('');
        const all = JSON.parse(list);
        const each = JSON.parse(list, (k, v) => v);
        for (let i = 0; i < all.length; i++) {
          if (!Object.is(all[i], each[i])) found.push(['in an array', texts[i], all[i], each[i]]);
        }
        return [texts.length, found.slice(0, 5)];
    "#)
    .await;
    assert_ok(&result);
    assert_eq!(result.value, Some(json!([3000, []])));
}

/// Objects that repeat an earlier object's keys are made with its shape
/// at once (the guest's parse.rs): they read as QuickJS's own `JSON.parse`
/// reads them (a repeated key, `__proto__`, an index key, an escaped key,
/// the same keys in another order), and each stays an object of its own:
/// one extended, one with a key deleted, one frozen and one whose nested
/// object changed leave those that share their shapes as they were.
#[tokio::test]
async fn records_made_from_one_shape_read_as_quickjs_did_and_stay_their_own() {
    let program = format!(
        "{DIFFERS}{}",
        r#"
        const rows = [];
        for (let i = 0; i < 12; i++) {
          rows.push(`{"id":${i},"name":"n${i}","owner":{"login":"u${i % 3}","admin":${i % 2 === 0}},"tags":["a"]}`);
        }
        const text = '[' + rows.join(',') + ',{"a":1,"a":2},{"a":3,"a":4},'
          + '{"__proto__":{"x":1},"0":5,"b":6},{"__proto__":{"x":2},"0":7,"b":8},'
          + '{"b":1,"a":2},{"a":3,"b":4},{"a":5,"b":6},{"\\u0061":7,"b":8},{"a":9,"b":10}]';
        const native = JSON.parse(text);
        const quickjs = JSON.parse(text, (k, v) => v);
        const d = differs(native, quickjs, '$');
        if (d) return d;
        const [r0, r1, r2, r3, r4] = native;
        r0.extra = true;
        delete r1.name;
        r2.owner.admin = 'changed';
        Object.freeze(r3);
        r4.id = -1;
        return native.slice(0, 6).map((r) => [Object.keys(r).join(), r.id, r.name ?? null, r.owner.admin, Object.isFrozen(r)]);
    "#
    );
    let result = run(&program).await;
    assert_ok(&result);
    assert_eq!(
        result.value,
        Some(json!([
            ["id,name,owner,tags,extra", 0, "n0", true, false],
            ["id,owner,tags", 1, null, false, false],
            ["id,name,owner,tags", 2, "n2", "changed", false],
            ["id,name,owner,tags", 3, "n3", false, true],
            ["id,name,owner,tags", -1, "n4", true, false],
            ["id,name,owner,tags", 5, "n5", false, false],
        ]))
    );
}
