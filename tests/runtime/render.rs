//! The native renderer (guest-js-engine/src/render/) against the
//! JavaScript one it stands in for: seeded random plain data, printed and
//! returned both ways, must give the same text byte for byte; and what it
//! is for, returning data at a few units of fuel per byte.

use super::console::JAVASCRIPT_RENDERER;
use super::*;

/// `program` run as it is and with [`JAVASCRIPT_RENDERER`] forcing the
/// JavaScript renderer: both succeed, and return the same JSON and the same
/// display. Both results, for the caller's further checks.
async fn rendered_both_ways(program: &str) -> (CodeRunResult, CodeRunResult) {
    let (native, javascript) = both_ways_on(shared(), program).await;
    assert_ok(&native);
    assert_ok(&javascript);
    assert_eq!(native.value, javascript.value, "the JSON differs");
    assert_eq!(
        native.value_display, javascript.value_display,
        "the display differs"
    );
    (native, javascript)
}

/// `program` run on `runtime` as it is and with [`JAVASCRIPT_RENDERER`].
async fn both_ways_on(runtime: &WasmCodeRuntime, program: &str) -> (CodeRunResult, CodeRunResult) {
    let run = |source: String| async move {
        runtime
            .run(CodeRunRequest::new(source))
            .await
            .expect("a run")
    };
    (
        run(program.to_owned()).await,
        run(format!("{JAVASCRIPT_RENDERER}{program}")).await,
    )
}

/// A program that builds `count` random plain values from `seed` (see
/// [`random_values`]), logs each, logs them all, and returns them all.
fn random_values_program(seed: u32, count: u32) -> String {
    format!(
        "{}
for (const v of values) console.log(v);
console.log(values);
console.log('%s|%j', values.slice(0, 3), values.slice(0, 3));
return values;
",
        random_values(seed, count)
    )
}

/// Code that builds `values`: `count` random plain values from `seed`
/// (strings with quotes, breaks, controls, non-ASCII and lone surrogates;
/// every kind of number; arrays that group into columns, long arrays, deep
/// nesting, keys that need quoting).
fn random_values(seed: u32, count: u32) -> String {
    format!(
        r#"
let seed = {seed};
const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const pick = (xs) => xs[Math.floor(rand() * xs.length)];
const strings = ['', 'a', 'plain text', "it's", 'say "hi"', `both ' and "`, "all ' \" `", 'tpl ${{x}} \' "',
  'line\nbreak', 'tab\there', '\u0000\u0001\u007f\u0085\u009f', 'back\\slash', 'café', '日本語テキスト',
  '😀 emoji', '\ud800 lone', 'x'.repeat(100), ('word '.repeat(30) + '\n').repeat(3), 'é'.repeat(40),
  '\u00ff\u00a0', 'sixteen chars!!!', 'seventeen chars!!'];
const keys = ['a', 'b_2', '_x', 'with space', 'kebab-key', '1abc', 'ünï', '__proto__x', '', 'constructor',
  'length', 'Z9', "q'uote", '\ud800x', 'a\u0000b', '0', '42', '4294967295', '😀'];
const numbers = [0, -0, 1, -1, 1.5, 0.1, 1e21, 1e-7, 123456789, -2147483648, 2147483648, NaN, Infinity,
  -Infinity, 4294967295.5, 2 ** 53, -1e-300];
function primitive() {{
  const r = rand();
  if (r < 0.45) return pick(strings);
  if (r < 0.85) return pick(numbers);
  return pick([true, false, null, undefined]);
}}
function value(depth) {{
  const r = rand();
  if (depth > 5 || r < 0.3) return primitive();
  if (r < 0.45) {{
    const n = pick([7, 12, 30, 101, 150]);
    const a = [];
    // Mostly numbers the display lays out from the JSON's text; some with
    // one it writes otherwise (-0, NaN, Infinity) or one too wide for
    // columns, which the general path takes.
    const special = rand() < 0.3;
    for (let i = 0; i < n; i++) {{
      const r = rand();
      if (special && r < 0.05) a.push(pick(numbers));
      else if (r < 0.2) a.push(-Math.floor(rand() * 1e6) / pick([1, 7, 100]));
      else a.push(r < 0.6 ? Math.floor(rand() * 100000) / pick([1, 10, 1000]) : Math.floor(rand() * 10));
    }}
    return a;
  }}
  if (r < 0.55) {{
    const n = pick([7, 9, 26]);
    const a = [];
    for (let i = 0; i < n; i++) a.push(pick(['a', 'bb', 'ccc', 'dddd', 'e f', "g'h"]));
    return a;
  }}
  if (r < 0.75) {{
    const n = pick([0, 1, 2, 3, 5, 8]);
    const a = [];
    for (let i = 0; i < n; i++) a.push(value(depth + 1));
    return a;
  }}
  const o = {{}};
  const n = pick([0, 1, 2, 4, 6]);
  for (let i = 0; i < n; i++) o[pick(keys) + (rand() < 0.3 ? i : '')] = value(depth + 1);
  return o;
}}
const values = [JSON.parse('{{"__proto__": 1, "a": [1, 2]}}')];
for (let i = 0; i < {count}; i++) values.push(value(0));
"#
    )
}

#[tokio::test]
async fn the_native_renderer_writes_what_the_javascript_renderer_writes() {
    for seed in [1, 7, 42, 1234, 99991] {
        let program = random_values_program(seed, 40);
        let (native, javascript) = both_ways_on(shared(), &program).await;
        assert_ok(&native);
        assert_ok(&javascript);
        // The prefix did force the JavaScript renderer, and the native one
        // did the work without it.
        assert!(
            native.fuel_consumed * 3 < javascript.fuel_consumed,
            "seed {seed}: native {} fuel, JavaScript {} fuel",
            native.fuel_consumed,
            javascript.fuel_consumed
        );
        assert_eq!(
            native.logs.len(),
            javascript.logs.len(),
            "seed {seed}: a different number of lines"
        );
        for (i, (a, b)) in native.logs.iter().zip(&javascript.logs).enumerate() {
            assert_eq!(
                a.text, b.text,
                "seed {seed}, line {i}: native and JavaScript renderings differ"
            );
        }
        assert_eq!(
            native.value, javascript.value,
            "seed {seed}: the JSON differs"
        );
        assert_eq!(
            native.value_display, javascript.value_display,
            "seed {seed}: the display differs"
        );
    }
}

/// Strings of every length up to three blocks of the scan (sixteen bytes),
/// with a character that stops it at each place around a block's edges,
/// as values and as keys (after a property JSON skips): both renderers,
/// and QuickJS's own `JSON.stringify`, write the same text.
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

#[tokio::test]
async fn an_escape_anywhere_around_the_scans_blocks_is_found() {
    let program = r#"
        const stops = ['"', "'", '\\', '\n', '\u0001', '\u007f', 'é', '\ud800'];
        const strings = [];
        for (let len = 0; len <= 49; len++) {
          strings.push('k'.repeat(len));
          const places = new Set([0, 1, 7, 8, 14, 15, 16, 17, 30, 31, 32, 33, 47, 48, len - 1]);
          for (const at of places) {
            if (at < 0 || at >= len) continue;
            for (const stop of stops) strings.push('k'.repeat(at) + stop + 'k'.repeat(len - at - 1));
          }
        }
        const keyed = { skipped: undefined };
        strings.forEach((s, i) => { keyed[s] = i; });
        const value = { strings, keyed };
        const native = JSON.stringify(value);
        const quickjs = JSON.stringify(value, undefined, new Number(0));
        if (native !== quickjs) throw new Error('JSON.stringify differs from QuickJS');
        return value;
    "#;
    let (native, javascript) = rendered_both_ways(program).await;
    assert!(native.fuel_consumed * 3 < javascript.fuel_consumed);
}

/// Arrays that Node groups into columns, and arrays just outside what it
/// groups (the first, seven entries that stay on one line, is the one
/// list of more than six that is joined after its entries are written),
/// laid out by the native renderer as by the JavaScript one:
/// short strings and other entries left-aligned, numbers it does not note
/// (`-0`, `NaN`) right-aligned, wide characters (measured by their
/// terminal width), entries holding a line break (never grouped), an
/// entry too wide for three columns, `... more items` after the columns,
/// and all of these nested (indented) and in a returned value's display.
#[tokio::test]
async fn grouped_arrays_are_laid_out_as_the_javascript_renderer_lays_them_out() {
    let program = r#"
const cases = [
  Array.from({ length: 7 }, (_, i) => 'x'.repeat(i)),
  Array.from({ length: 30 }, (_, i) => ['a', 'bb', null, true, undefined, {}, []][i % 7]),
  Array.from({ length: 26 }, (_, i) => (i % 5 ? i * 1.5 : i % 2 ? -0 : NaN)),
  Array.from({ length: 12 }, (_, i) => '日本'.repeat(i % 3) + 'é'),
  Array.from({ length: 9 }, (_, i) => (i === 4 ? 'x'.repeat(30) : 'y')),
  Array.from({ length: 9 }, (_, i) => (i === 4 ? 'line\nbreak'.repeat(3) : 'y')),
  Array.from({ length: 150 }, (_, i) => 's' + (i % 13)),
  Array.from({ length: 8 }, (_, i) => ({ k: i })),
  Array.from({ length: 8 }, (_, i) => [i]),
];
const nested = { deeper: { still: cases.slice(0, 4) } };
for (const c of cases) console.log(c);
console.log(nested);
return [cases, nested];
"#;
    let (native, javascript) = both_ways_on(shared(), program).await;
    assert_ok(&native);
    assert_ok(&javascript);
    assert_eq!(native.logs.len(), javascript.logs.len());
    for (i, (a, b)) in native.logs.iter().zip(&javascript.logs).enumerate() {
        assert_eq!(
            a.text, b.text,
            "line {i}: native and JavaScript layouts differ"
        );
    }
    assert_eq!(native.value_display, javascript.value_display);
    // The cases do group (a layout in columns, not one entry a line).
    let mixed = &native.logs[1].text;
    assert!(mixed.contains("\n  'a',       'bb',      null,"), "{mixed}");
    let wide = &native.logs[3].text;
    assert!(wide.contains("\n  '日本日本é', 'é',\n"), "{wide}");
    assert!(
        native.logs[6].text.ends_with("... 50 more items\n]"),
        "{}",
        native.logs[6].text
    );
}

/// Arrays of numbers written by the JSON walk's run over leading numbers,
/// and arrays where that run stops: at `-0` (JSON's `0`, the display's
/// `-0`), `NaN` and the infinities (JSON's `null`), a string, `undefined`,
/// an object, and numbers of every size after a break. The JSON and the
/// display are the JavaScript renderer's (which the native walk did
/// write: the run burns a fraction of the JavaScript one's fuel), and
/// `JSON.stringify` writes the same JSON.
#[tokio::test]
async fn arrays_that_start_with_numbers_are_written_as_javascript_writes_them() {
    let program = r#"
const seven = [0, 1.5, -2, 1e21, 123456789012, -0.000001, 2 ** 31];
const cases = [
  seven,
  [...seven, -0, 8],
  [...seven, NaN, Infinity, -Infinity, 9],
  [...seven, 'x', 10],
  [...seven, undefined, 11],
  [...seven, { n: 12 }, [13]],
  [1, 2, 3],
  [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25],
  Array.from({ length: 40 }, (_, i) => (i < 30 ? i * 0.1 : i === 30 ? -0 : i)),
  // Numbers are written in blocks of 256 elements: the first other value
  // on either side of a block's edge, and far past it, after numbers of
  // every path (integers, short decimals, Ryū's thirds).
  ...[255, 256, 257, 600].map((at) =>
    Array.from({ length: at + 3 }, (_, i) => (i === at ? 'x' : i % 3 ? i / 3 : i % 2 ? i / 4 : i))),
];
console.log(JSON.stringify(cases));
return cases;
"#;
    let (native, javascript) = rendered_both_ways(program).await;
    assert!(native.fuel_consumed * 2 < javascript.fuel_consumed);
    // The returned JSON is the text `JSON.stringify` wrote (logged).
    let stringified: serde_json::Value =
        serde_json::from_str(&native.logs[0].text).expect("JSON.stringify's text");
    assert_eq!(native.value.as_ref(), Some(&stringified));
    let display = native.value_display.as_deref().expect("a display");
    assert!(display.contains("-0"), "{display}");
    assert!(display.contains("NaN"), "{display}");
}

/// Numbers of every length of digits, written as `Number.prototype.toString`
/// writes them: integers of 1 to 20 digits (each group of four the digit
/// table writes, and every boundary between them), negative and not,
/// integral doubles up to 2^64, and fractions of 1 to 6 digits (leading
/// zeros, and none) with whole parts of every length, in the JSON (`JSON.stringify`, native) and in
/// the display (as the JavaScript renderer writes it).
#[tokio::test]
async fn numbers_of_every_length_are_written_as_to_string_writes_them() {
    let program = r#"
const nums = [];
for (let digits = 1; digits <= 20; digits++) {
  const top = 10 ** digits;
  for (const n of [top / 10, top - 1, Math.floor(top / 7), top / 10 + 1]) {
    if (digits === 1 && n === 1) nums.push(0);
    nums.push(n, -n);
  }
}
nums.push(2 ** 31 - 1, -(2 ** 31), 2 ** 53, 2 ** 63, 2 ** 64, 1e15, 1e15 + 0.5);
const fractions = [0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.123456, 0.65432, 0.9876,
  0.1, 0.01, 0.001, 0.0001, 0.00001, 0.000001, 0.000031, 0.00402, 0.987654];
for (const fraction of fractions) {
  for (const whole of [0, 7, 42, 999, 1234, 98765, 123456, 9999999, 123456789]) {
    nums.push(whole + fraction, -(whole + fraction));
  }
}
const texts = '[' + nums.map(String).join(',') + ']';
return { same: JSON.stringify(nums) === texts, nums };
"#;
    let (native, _) = rendered_both_ways(program).await;
    assert_eq!(
        native.value.as_ref().and_then(|v| v.get("same")),
        Some(&serde_json::json!(true)),
        "JSON.stringify wrote a number unlike toString"
    );
}

/// A rendering cut short by its room (a console line's megabyte): the
/// `...` that ends each list out of room, at every place in lists that go
/// on one line, is placed as the JavaScript renderer places it.
#[tokio::test]
async fn a_rendering_out_of_room_ends_its_lists_as_the_javascript_renderer_does() {
    // 104 strings of 10,000 characters and their keys leave 8,062 units
    // of the room; the tail leaves 16 down to 0 of them for `last`.
    let program = "const o = {};
        for (let i = 0; i < 104; i++) o['k' + i] = 'x'.repeat(10000);
        for (let tail = 8044; tail <= 8056; tail++) {
          o.tail = 'y'.repeat(tail);
          o.last = { a: 1, b: 2, c: [3, 4, 5], d: { e: 6, f: 7 } };
          console.log(o);
        }";
    let runtime = runtime_with(|c| {
        c.max_log_bytes(64 << 20);
    });
    let (native, javascript) = both_ways_on(&runtime, program).await;
    assert_ok(&native);
    assert_ok(&javascript);
    assert_eq!(native.logs.len(), 13);
    assert_eq!(javascript.logs.len(), 13);
    let mut lasts = Vec::new();
    for (i, (a, b)) in native.logs.iter().zip(&javascript.logs).enumerate() {
        assert!(
            a.text == b.text,
            "line {i}: native and JavaScript renderings differ"
        );
        lasts.push(
            a.text
                .rsplit("last: ")
                .next()
                .unwrap_or_default()
                .to_owned(),
        );
    }
    for cut in [
        "{ a: 1, b: 2, c: [ 3, 4, 5 ], d: { e: 6, ... } }\n}",
        "{ a: 1, b: 2, c: [ 3, 4, ... ], ... }\n}",
        "{ a: 1, b: 2, c: [ 3, ... ], ... }\n}",
        "{ a: 1, ... }\n}",
    ] {
        assert!(
            lasts.iter().any(|last| last == cut),
            "no {cut:?} in {lasts:?}"
        );
    }
}

/// A string is written whole by the native renderer's shortest path only
/// when it fits both its length limit and the room: strings either side of
/// `maxStringLength`, 8-bit and wide, plain and with a character to
/// escape, and a returned string at every length around the room's end,
/// print as the JavaScript renderer prints them.
#[tokio::test]
async fn strings_at_the_length_limit_and_the_room_print_as_javascript_prints_them() {
    let program = r#"
for (const s of ['x'.repeat(9), 'x'.repeat(10), 'x'.repeat(11), "it's ten!!", 'tab\there.', 'ten chars\u00e9', '\u65e5'.repeat(10), '']) {
  console.dir([s, { s }], { maxStringLength: 10 });
}
return ['x'.repeat(9), "it's"];
"#;
    let (native, javascript) = rendered_both_ways(program).await;
    assert_eq!(native.logs.len(), javascript.logs.len());
    for (i, (a, b)) in native.logs.iter().zip(&javascript.logs).enumerate() {
        assert_eq!(
            a.text, b.text,
            "line {i}: native and JavaScript renderings differ"
        );
    }
    assert!(
        native.logs[0].text.contains("'xxxxxxxxx'"),
        "{}",
        native.logs[0].text
    );
    assert!(
        native.logs[2].text.contains("... 1 more character"),
        "{}",
        native.logs[2].text
    );
    // A returned value's room is `max_value_bytes` units: the second
    // string meets its end at one of these lengths.
    let runtime = runtime_with(|c| {
        c.max_value_bytes(200);
    });
    let (mut whole, mut cut) = (0, 0);
    for n in 10..=40 {
        let program = format!("return ['x'.repeat(170), 'z'.repeat({n})];");
        let (native, javascript) = both_ways_on(&runtime, &program).await;
        assert_eq!(
            native.value_display, javascript.value_display,
            "{n} characters"
        );
        let display = native.value_display.unwrap_or_default();
        if display.contains(&format!("'{}'", "z".repeat(n))) {
            whole += 1;
        } else {
            cut += 1;
        }
    }
    assert!(
        whole > 0 && cut > 0,
        "{whole} whole, {cut} cut: the room's end was not met"
    );
}

/// A console line of several arguments, objects among them, is written
/// natively as the JavaScript renderer writes it: `format` gives each
/// object the room that the texts before it left of its 2^20 units, so an
/// object after a long string is cut there. The text before it is counted
/// in UTF-16 units: a Latin-1 character is one unit (and two bytes), a
/// lone surrogate one unit (and U+FFFD's three bytes on the host).
#[tokio::test]
async fn a_console_line_of_objects_shares_its_room_as_the_javascript_renderer_does() {
    let runtime = runtime_with(|config| {
        config.max_log_bytes(16 << 20);
    });
    let object = "const o = { a: 'y'.repeat(30), b: [1, 2, 3], c: { d: true, e: null } };";
    let lines = [
        "'x'.repeat(1048500), o, o, [o]",
        "'\\u00e9'.repeat(1048500), o, o",
        "'\\ud800'.repeat(1048500), o, o",
        "1.5, -0, null, undefined, true, 'x'.repeat(1048450), o, o",
        "'x'.repeat(1048576), o",
        "'x'.repeat(2000000), o",
        "o, 'x'.repeat(1048500), o",
        "'a', o, [o, [o, [o, [o]]]], 12",
    ];
    for line in lines {
        let program = format!("{object}\nconsole.log({line});\nreturn 0;");
        let (native, javascript) = both_ways_on(&runtime, &program).await;
        assert_ok(&native);
        assert_ok(&javascript);
        let texts = |result: &CodeRunResult| -> Vec<String> {
            result.logs.iter().map(|line| line.text.clone()).collect()
        };
        let (native_text, javascript_text) = (texts(&native), texts(&javascript));
        assert_eq!(native_text.len(), 1, "{line}");
        let tail = |text: &str| text.chars().rev().take(300).collect::<String>();
        assert!(
            native_text == javascript_text,
            "{line}: native ...{} against JavaScript ...{}",
            tail(&native_text[0]),
            tail(&javascript_text[0])
        );
    }
    // The room did cut: after 1,048,472 units of text and the first
    // object's 70, the second has 34 left.
    let program = format!(
        "{object}\nconsole.log(1.5, -0, null, undefined, true, 'x'.repeat(1048450), o, o);\nreturn 0;"
    );
    let result = runtime
        .run(CodeRunRequest::new(program))
        .await
        .expect("a run");
    let text = &result.logs[0].text;
    assert!(
        text.ends_with("} { a: 'yyyyyyyyyyyyyyyyyy'... 12 more characters, ... }"),
        "{}",
        &text[1048450..]
    );
}

/// A console line of small objects is written natively: a hundred lines
/// of an object cost under four times a hundred lines of a word (about
/// twice). Through `format`, `inspect`'s context and the call into the
/// renderer each cost twelve times a word's line.
#[tokio::test]
async fn a_console_line_of_a_small_object_costs_about_a_line_of_text() {
    let base = fuel_of("for (let i = 0; i < 100; i++) {} return 0;").await;
    let words = fuel_of("for (let i = 0; i < 100; i++) console.log('word'); return 0;").await;
    let objects =
        fuel_of("for (let i = 0; i < 100; i++) console.log({ a: 1, b: [1, 2] }); return 0;").await;
    let (words, objects) = (words - base, objects - base);
    eprintln!("a hundred lines: of a word {words} fuel, of an object {objects}");
    assert!(
        objects < 4.0 * words,
        "a hundred lines of an object cost {objects} fuel, of a word {words}"
    );
}

/// Text that is not ASCII is measured for the column layout natively
/// (src/render/width.rs, on QuickJS's Unicode tables): returning seven
/// strings of 2,000 CJK characters costs under 2,000 units of fuel a
/// character (about 1,000), where matching Unicode property classes per
/// character in JavaScript cost 17,000, and Latin-1 text the same. Node's
/// own layouts of such text are among the golden console cases.
#[tokio::test]
async fn measuring_text_that_is_not_ascii_costs_a_bounded_fuel_a_character() {
    for text in ["'日本'.repeat(1000)", "'\\u00e9'.repeat(2000)"] {
        let build = format!("const a = Array.from({{ length: 7 }}, (_, i) => {text} + i);");
        let built = fuel_of(&format!("{build} return a.length;")).await;
        let returned = fuel_of(&format!("{build} return a;")).await;
        let per_char = (returned - built) / 14_000.0;
        eprintln!("{text}: {per_char} fuel a character");
        assert!(per_char < 2_000.0, "{text}: {per_char} fuel a character");
    }
}

/// A string of two-byte characters is written as UTF-8 natively, a lone
/// surrogate anywhere as its escape (in the display) or U+FFFD (in the
/// JSON, on the host), as the JavaScript renderer writes them: lone
/// surrogates first, last, in a row and between pairs.
#[tokio::test]
async fn two_byte_strings_with_lone_surrogates_render_as_javascript_renders_them() {
    rendered_both_ways(
        "const s = '\\ud800\\ud800日\\udc00x😀\\udbff\\udfff\\ud83d'.repeat(300);
         return [s, '\\udc00' + s + '\\ud800', { [s.slice(0, 40)]: s.slice(3, 50) }, '\\u0100\\u07ff\\u0800\\uffff'];",
    )
    .await;
}

/// Plain data that is nested deeper than the native renderer takes, or
/// cyclic, or mixed with what it declines (a Map, a class instance, a
/// hole), still renders, by the JavaScript renderer, as before.
#[tokio::test]
async fn what_the_native_renderer_declines_is_rendered_in_javascript() {
    let result = run("let deep = 1; for (let i = 0; i < 300; i++) deep = [deep];
         const cyclic = { name: 'c', list: [1, 2] }; cyclic.self = cyclic;
         class Point { constructor() { this.x = 1; } }
         return [cyclic, new Map([['k', { v: [1, , 3] }]]), new Point(), deep];")
    .await;
    assert_ok(&result);
    let display = result.value_display.expect("a display");
    assert!(
        display.starts_with(
            "[\n  <ref *1> { name: 'c', list: [ 1, 2 ], self: [Circular *1] },\n  \
             Map(1) { 'k' => { v: [ 1, <1 empty item>, 3 ] } },\n  Point { x: 1 },"
        ),
        "{display}"
    );
    assert!(
        display.contains("[Array]"),
        "the deep array is cut at depth 64: {display}"
    );
}

/// Returning 10,000 numbers costs at most 90 units of fuel per byte of
/// JSON (about 45): each is formatted once, for the JSON, and the display
/// lays their texts out in columns from there (formatting them again cost
/// 180). The display is the one the JavaScript renderer writes.
#[tokio::test]
async fn returning_an_array_of_numbers_formats_each_number_once() {
    let build = "const a = []; for (let i = 1; i <= 10000; i++) a.push(i % 7 ? i * 1.5 : -i);";
    let built = run(&format!("{build} return a.length;")).await;
    let returned = run(&format!("{build} return a;")).await;
    let javascript = run(&format!("{JAVASCRIPT_RENDERER}{build} return a;")).await;
    assert_ok(&returned);
    assert_ok(&javascript);
    assert_eq!(returned.value, javascript.value);
    assert_eq!(returned.value_display, javascript.value_display);
    let display = returned.value_display.as_deref().expect("a display");
    assert!(
        display.starts_with("[\n      1.5,     3,     4.5,     6,"),
        "{}",
        &display[..100]
    );
    let bytes = serde_json::to_string(&returned.value).expect("JSON").len() as u64;
    let per_byte = (returned.fuel_consumed - built.fuel_consumed) / bytes;
    eprintln!("returning numbers: {per_byte} fuel per byte");
    assert!(per_byte <= 90, "returning cost {per_byte} fuel per byte");
}

/// Returning the benchmark's 2,000 records costs at most 130 units of fuel
/// per byte of JSON, for the JSON and the display both (about 116). Since
/// neither run frees the program's data when it returns, that is the
/// rendering alone; it read 91 while the baseline still paid for freeing
/// the records, which the returning run, whose value is not freed, skipped
/// (155 before the walks wrote scalars in line and read slots from the
/// shape).
#[tokio::test]
async fn returning_records_costs_in_proportion_to_the_bytes() {
    let build = "const a = []; for (let i = 0; i < 2000; i++) a.push({ id: i, name: `item-${i}`, \
                 tags: ['a', 'b'], owner: { login: `user${i % 10}`, admin: i % 2 === 0 } });";
    let built = run(&format!("{build} return a.length;")).await;
    let returned = run(&format!("{build} return a;")).await;
    assert_ok(&returned);
    let bytes = serde_json::to_string(&returned.value).expect("JSON").len() as u64;
    let per_byte = (returned.fuel_consumed - built.fuel_consumed) / bytes;
    eprintln!("returning records: {per_byte} fuel per byte");
    assert!(per_byte <= 130, "returning cost {per_byte} fuel per byte");
}

/// Returning ten 100 KB strings costs at most 20 units of fuel per byte of
/// JSON (issue 27 asks ≤ 20 M for the run; building them is counted too).
/// Fuel is deterministic, so this is a bound on work, not on time.
#[tokio::test]
async fn returning_a_megabyte_of_strings_costs_at_most_twenty_fuel_per_byte() {
    let build = "const s = 'x'.repeat(100000); const a = [s, s, s, s, s, s, s, s, s, s];";
    let built = run(&format!("{build} return a.length;")).await;
    let returned = run(&format!("{build} return a;")).await;
    assert_ok(&returned);
    assert_eq!(
        returned
            .value
            .as_ref()
            .and_then(|v| v.as_array())
            .map(Vec::len),
        Some(10)
    );
    assert!(
        returned.fuel_consumed <= 20_000_000,
        "the run used {} fuel",
        returned.fuel_consumed
    );
    let bytes = serde_json::to_string(&returned.value).expect("JSON").len() as u64;
    let per_byte = (returned.fuel_consumed - built.fuel_consumed) / bytes;
    assert!(per_byte <= 20, "returning cost {per_byte} fuel per byte");
}
