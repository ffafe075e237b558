//! How returned values cross the boundary.

use super::*;
use serde_json::json;

#[tokio::test]
async fn json_values_round_trip() {
    let result =
        run("return { s: 'x', n: 1.5, b: true, nil: null, list: [1, [2]], skipped: undefined }")
            .await;
    assert_ok(&result);
    assert_eq!(
        result.value,
        Some(json!({"s": "x", "n": 1.5, "b": true, "nil": null, "list": [1, [2]]}))
    );
}

#[tokio::test]
async fn primitive_results_keep_their_json_and_display() {
    for (program, json, display) in [
        ("return 2", json!(2), "2"),
        ("return -2147483648", json!(-2147483648), "-2147483648"),
        ("return 2147483648", json!(2147483648_i64), "2147483648"),
        ("return -0", json!(0), "-0"),
        ("return 0.5", json!(0.5), "0.5"),
        ("return 1e21", json!(1e21), "1e+21"),
        ("return true", json!(true), "true"),
        ("return false", json!(false), "false"),
        ("return null", json!(null), "null"),
    ] {
        let result = run(program).await;
        assert_ok(&result);
        assert_eq!(result.value, Some(json), "{program}");
        assert_eq!(result.value_display.as_deref(), Some(display), "{program}");
    }
}

#[tokio::test]
async fn values_json_cannot_carry_come_back_rendered() {
    let cases = [
        ("return { f: () => 1 }", "{ f: [Function: f] }"),
        ("return 10n", "10n"),
        ("return new Map([['a', 1]])", "Map(1) { 'a' => 1 }"),
        ("return new Set(['x'])", "Set(1) { 'x' }"),
        (
            "const c: any = { k: 1 }; c.c = c; return c",
            "<ref *1> { k: 1, c: [Circular *1] }",
        ),
        ("return Symbol('tag')", "Symbol(tag)"),
    ];
    for (program, rendered) in cases {
        let result = run(program).await;
        assert_ok(&result);
        assert_eq!(result.value, Some(json!(rendered)), "{program}");
    }
}

#[tokio::test]
async fn dates_come_back_as_iso_strings() {
    let result = run("return { at: new Date(Date.UTC(2024, 0, 2, 3, 4, 5)) }").await;
    assert_ok(&result);
    assert_eq!(
        result.value,
        Some(json!({"at": "2024-01-02T03:04:05.000Z"}))
    );
}

/// Every returned number is the double the program held, to the last bit
/// (the JSON is read back exactly), and its display is the text
/// `String(n)` gives: the renderer's short path for fractions with few
/// digits and Ryū for the rest agree with QuickJS's own Number::toString.
#[tokio::test]
async fn returned_numbers_keep_every_bit_and_print_as_string_does() {
    let result = run("
        let seed = 7;
        const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
        const nums = [0.1, 0.2, 0.1 + 0.2, 1.005, 2.675, 1e-6, 1.5e-6, 5e-7, 999999999.999999, 1e9 + 0.5,
          -1234.5678, 1 / 3, 28.848910331726074, 4.5700287818908695e-8, 67251431941.986084, 123456.789];
        for (let i = 0; i < 4000; i++) {
          const fraction = Math.floor(random() * 8);
          const v = Math.round(random() * 10 ** Math.floor(random() * 10)) / 10 ** fraction;
          nums.push((random() < 0.5 ? -v : v) || 0, random() * 10 ** (Math.floor(random() * 20) - 8));
        }
        return { nums, texts: nums.map(String) };
    ")
    .await;
    assert_ok(&result);
    let value = result.value.expect("a value");
    let nums = value["nums"].as_array().expect("numbers");
    let texts = value["texts"].as_array().expect("texts");
    assert_eq!(nums.len(), texts.len());
    for (n, text) in nums.iter().zip(texts) {
        let text = text.as_str().expect("a text");
        let expected: f64 = text.parse().expect("a number");
        assert_eq!(n.as_f64(), Some(expected), "{text} came back as {n}");
    }
    // The display lists the same texts (the list has no -0, which only
    // the display writes as such).
    let display = result.value_display.expect("a display");
    let start = display.find("nums: [").expect("the numbers") + "nums: [".len();
    let end = start + display[start..].find(']').expect("their end");
    let shown: Vec<&str> = display[start..end]
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|token| !token.is_empty())
        .collect();
    let expected: Vec<&str> = texts.iter().filter_map(|t| t.as_str()).collect();
    assert_eq!(shown, expected);
}

/// JSON.parse reads numbers exactly: small integers (which the guest reads
/// without the C library's strtod), negative zero, the nine- and ten-digit
/// boundary, fractions and exponents.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_parse_reads_numbers_exactly() {
    let result = run(r#"
        const texts = ['0', '-0', '7', '-7', '999999999', '-999999999', '1000000000', '2147483648',
          '-2147483649', '9007199254740993', '1.5', '1e3', '-0.0', '0.1', '123456789.5'];
        return texts.map((t) => {
          const n = JSON.parse(t);
          return [t, Object.is(n, -0) ? '-0' : String(n), typeof n, n === Number(t)];
        });
    "#)
    .await;
    let expected = json!([
        ["0", "0", "number", true],
        ["-0", "-0", "number", true],
        ["7", "7", "number", true],
        ["-7", "-7", "number", true],
        ["999999999", "999999999", "number", true],
        ["-999999999", "-999999999", "number", true],
        ["1000000000", "1000000000", "number", true],
        ["2147483648", "2147483648", "number", true],
        ["-2147483649", "-2147483649", "number", true],
        ["9007199254740993", "9007199254740992", "number", true],
        ["1.5", "1.5", "number", true],
        ["1e3", "1000", "number", true],
        ["-0.0", "-0", "number", true],
        ["0.1", "0.1", "number", true],
        ["123456789.5", "123456789.5", "number", true]
    ]);
    assert_eq!(result.value, Some(expected), "{:?}", result.error);
}

/// Objects an object literal makes alike share their shapes (the project's
/// QuickJS patch keeps the shapes on their way, see
/// guest-js-engine/patches/README.md), and each stays an object of its own:
/// one extended, one with a key deleted, one frozen, one with an attribute
/// changed and one whose nested object changed leave the others as they
/// were. Literals the shortcut leaves to QuickJS read as before: a repeated
/// key, `__proto__`, index keys (ordered first), an accessor, a spread;
/// and an object used as a dictionary grows by assignment, in order, and
/// loses keys.
#[tokio::test]
async fn objects_made_alike_stay_objects_of_their_own() {
    let result = run(r#"
        const made = [];
        for (let i = 0; i < 6; i++) made.push({ a: i, b: `b${i}`, c: [i], d: { e: i } });
        made[0].extra = 1;
        delete made[1].b;
        Object.freeze(made[2]);
        Object.defineProperty(made[3], 'a', { enumerable: false });
        made[4].d.e = 'changed';
        const odd = [];
        for (let i = 0; i < 3; i++) {
          const base = { a: i, b: i };
          const child = Object.create(base);
          base.c = i;
          odd.push([
            { a: 1, b: 2, a: 3 },
            { __proto__: null, a: i },
            { 1: 'one', 0: 'zero', z: i },
            { a: i, get g() { return this.a * 2; } },
            { ...base, d: i },
            child.c,
          ]);
        }
        const dictionary = {};
        for (let i = 0; i < 40; i++) dictionary[`k${i}`] = i;
        for (let i = 0; i < 40; i += 3) delete dictionary[`k${i}`];
        const keys = Object.keys(dictionary);
        const [dup, bare, indexed, accessor, spread, inherited] = odd[2];
        return {
          made: made.map((o) => [Object.keys(o).join(), o.a, o.b ?? null, o.d.e, Object.isFrozen(o)]),
          odd: [JSON.stringify(dup), Object.getPrototypeOf(bare), bare.a, Object.keys(indexed).join(),
                accessor.g, JSON.stringify(spread), inherited],
          dictionary: [keys.length, keys.slice(0, 4).join(), dictionary.k38],
        };
    "#)
    .await;
    assert_ok(&result);
    assert_eq!(
        result.value,
        Some(json!({
            "made": [
                ["a,b,c,d,extra", 0, "b0", 0, false],
                ["a,c,d", 1, null, 1, false],
                ["a,b,c,d", 2, "b2", 2, true],
                ["b,c,d", 3, "b3", 3, false],
                ["a,b,c,d", 4, "b4", "changed", false],
                ["a,b,c,d", 5, "b5", 5, false],
            ],
            "odd": ["{\"a\":3,\"b\":2}", null, 2, "0,1,z", 4, "{\"a\":2,\"b\":2,\"c\":2,\"d\":2}", 2],
            "dictionary": [26, "k1,k2,k4,k5", 38],
        }))
    );
}

/// `JSON.parse` and a binding's result share a short string among the
/// values that repeat it (parse/shared.rs): each value still behaves as a
/// string of its own. Growing one (`+=`, which QuickJS may do in place
/// when nothing else holds the string), using one as a key (which may make
/// it an atom) or changing the object holding it leaves the others as
/// they were, across more strings than the parse keeps.
#[tokio::test]
async fn strings_a_parse_repeats_stay_strings_of_their_own() {
    let host = CodeBindingNamespace::new("host").function("records", |_| async {
        Ok(json!(
            (0..100)
                .map(|i| json!({ "tag": "open", "kind": format!("k{}", i % 70), "n": i }))
                .collect::<Vec<_>>()
        ))
    });
    let program = r#"
        const text = JSON.stringify(Array.from({ length: 100 }, (_, i) => ({ tag: 'open', kind: `k${i % 70}`, n: i })));
        const check = (records) => {
          records[0].tag += '!';
          let grown = records[1].tag;
          grown += '?';
          const keyed = {};
          keyed[records[2].tag] = 1;
          records[3].tag = 'closed';
          records[4].kind += records[74].kind;
          return [
            records[0].tag, grown, Object.keys(keyed).join(), records[3].tag,
            records.slice(5).every((r) => r.tag === 'open' && r.tag.length === 4),
            records[4].kind, records[74].kind, records[75].kind,
            records.slice(5).every((r, i) => r.kind === `k${(i + 5) % 70}`),
          ];
        };
        return [check(JSON.parse(text)), check(await host.records())];
    "#;
    let result = run_request(CodeRunRequest::new(program).binding(host)).await;
    assert_ok(&result);
    let expected = json!([
        "open!", "open?", "open", "closed", true, "k4k4", "k4", "k5", true
    ]);
    assert_eq!(result.value, Some(json!([expected, expected])));
}

/// Making 2,000 objects of six properties with a literal costs at most
/// 5,800 units of fuel an object over a number, kept in a list or dropped
/// each turn (about 4,800 and 4,500; before the shapes on their way were
/// kept, QuickJS made each object's shapes again, about 8,600 and 8,300).
/// Fuel is deterministic: the bound moves only with the guest.
#[tokio::test]
async fn objects_made_alike_cost_no_new_shapes() {
    let object = "{ a: i, b: i, c: i, d: i, e: i, f: i }";
    let kept = |element: &str| {
        format!(
            "const made = []; for (let i = 0; i < 2000; i++) made.push({element}); return made.length;"
        )
    };
    let dropped = |element: &str| {
        format!(
            "let t = 0; for (let i = 0; i < 2000; i++) {{ const o = {element}; t += o.a ?? o; }} return t;"
        )
    };
    for (name, program) in [("kept", kept as fn(&str) -> String), ("dropped", dropped)] {
        let per_object = (fuel_of(&program(object)).await - fuel_of(&program("i")).await) / 2000.0;
        eprintln!("an object of six properties, {name}: {per_object:.0} fuel");
        assert!(
            per_object <= 5800.0,
            "{name}: {per_object:.0} fuel an object"
        );
    }
}

/// Number literals and `Number(text)` read every decimal exactly: short
/// ones (up to 15 digits, which the guest's QuickJS reads without its
/// multi-precision `js_atod`, see guest-js-engine/patches/README.md) and
/// longer ones alike, checked against Rust's own parse for 3,000 decimals
/// of 1 to 18 digits with the point anywhere, signs, negative zero and
/// the halfway cases that a reading digit by digit would round wrongly.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn number_literals_read_every_decimal_exactly() {
    let mut texts: Vec<String> = [
        "0",
        "-0",
        "0.0",
        "-0.0",
        "5.",
        ".5",
        "0.1",
        "0.2",
        "0.3",
        "1.1",
        "2.675",
        "1.005",
        "123.456",
        "999999999999999",
        "0.999999999999999",
        "100000000000000.1",
        "1234567890123456",
        "9007199254740993",
        "0.1234567890123456789",
        "3.14159",
        "2.718281828459045",
        "4.35",
        "0.000001",
        "1000000000000000",
    ]
    .iter()
    .map(|text| (*text).to_owned())
    .collect();
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move |below: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % below
    };
    while texts.len() < 3000 {
        let count = 1 + next(18) as usize;
        let mut digits: String = (0..count)
            .map(|_| char::from(b'0' + next(10) as u8))
            .collect();
        match next(3) {
            0 => {}
            1 => digits.insert(next(count as u64 + 1) as usize, '.'),
            _ => digits.insert_str(0, "0."),
        }
        if next(4) == 0 {
            digits.insert(0, '-');
        }
        texts.push(digits);
    }
    // Literals can not start with a sign or have leading zeros (legacy
    // octal): `-` applies to the literal, and `0x.` texts read as numbers
    // only through Number().
    let literal = |text: &str| {
        let unsigned = text.trim_start_matches('-');
        let trimmed = unsigned.trim_start_matches('0');
        let body = if trimmed.is_empty() || trimmed.starts_with('.') {
            format!("0{trimmed}")
        } else {
            trimmed.to_owned()
        };
        if text.starts_with('-') {
            format!("-{body}")
        } else {
            body
        }
    };
    let literals: Vec<String> = texts.iter().map(|text| literal(text)).collect();
    let program = format!(
        "const show = (n) => Object.is(n, -0) ? '-0' : String(n);
         const texts = {texts};
         return {{ literals: [{literals}].map(show), numbers: texts.map((t) => show(Number(t))) }};",
        texts = serde_json::to_string(&texts).expect("JSON"),
        literals = literals.join(", "),
    );
    let result = run(&program).await;
    assert_ok(&result);
    let value = result.value.expect("a value");
    for (kind, written) in [("literals", &literals), ("numbers", &texts)] {
        let shown = value[kind].as_array().expect("the numbers");
        assert_eq!(shown.len(), written.len());
        for (text, shown) in written.iter().zip(shown) {
            let shown = shown.as_str().expect("a text");
            let expected: f64 = text.parse().expect("Rust reads it");
            let got: f64 = shown.parse().expect("Rust reads the text");
            assert!(
                got.to_bits() == expected.to_bits(),
                "{kind}: {text} read as {shown}, not {expected}"
            );
        }
    }
}

/// Every function QuickJS makes gets `length`, then `name`, both
/// configurable and neither writable nor enumerable, before anything else
/// (the guest's QuickJS adds the two to a function it has just made without
/// `JS_DefineProperty`'s general path, see guest-js-engine/patches/README.md):
/// closures of every kind, a function `new Function` compiles, the platform's
/// C functions, a promise's resolving functions. A function whose name or
/// length is redefined or deleted behaves as the standard says.
#[tokio::test]
async fn functions_are_made_with_their_length_and_name() {
    let result = run(r#"
        const shape = (f) => Object.getOwnPropertyNames(f).map((key) => {
          const d = Object.getOwnPropertyDescriptor(f, key);
          const flags = `${d.writable ? 'w' : ''}${d.enumerable ? 'e' : ''}${d.configurable ? 'c' : ''}`;
          return key === 'prototype' ? `${key}:${flags}` : `${key}=${String(d.value)}:${flags}`;
        }).join(' ');
        let resolve;
        new Promise((res) => { resolve = res; });
        const made = new Function('a', 'b', 'return a + b');
        function declared(a, b = 1, ...rest) { return a; }
        const methods = { m(x) {}, async n() {}, *g(y, z) {} };
        const renamed = (x) => x;
        Object.defineProperty(renamed, 'name', { value: 'other' });
        const shortened = function (x, y) {};
        delete shortened.length;
        // Objects of a class whose empty shape is kept stay their own.
        const owned = [];
        for (let i = 0; i < 3; i++) {
          const promise = Promise.resolve(i);
          if (i === 1) promise.tag = i;
          const map = new Map();
          if (i === 2) map.extra = i;
          owned.push(Object.keys(promise).join() + '|' + Object.keys(map).join());
        }
        return {
          arrow: shape((x, y) => x),
          expression: shape(function named(x) {}),
          declared: shape(declared),
          async: shape(async (x) => x),
          methods: [shape(methods.m), shape(methods.n), shape(methods.g)],
          made: [shape(made), made(2, 3)],
          native: [shape(Math.max), shape(JSON.parse)],
          resolving: shape(resolve),
          renamed: [renamed.name, renamed(4), shape(renamed)],
          shortened: [shortened.length, Object.getOwnPropertyNames(shortened).join()],
          owned,
        };
    "#)
    .await;
    assert_ok(&result);
    assert_eq!(
        result.value,
        Some(json!({
            "arrow": "length=2:c name=:c",
            "expression": "length=1:c name=named:c prototype:w",
            "declared": "length=1:c name=declared:c prototype:w",
            "async": "length=1:c name=:c",
            "methods": ["length=1:c name=m:c", "length=0:c name=n:c", "length=2:c name=g:c prototype:w"],
            "made": ["length=2:c name=anonymous:c prototype:w", 5],
            "native": ["length=2:c name=max:c", "length=2:c name=parse:c"],
            "resolving": "length=1:c name=:c",
            "renamed": ["other", 4, "length=1:c name=other:c"],
            "shortened": [0, "name,prototype"],
            "owned": ["|", "tag|", "|extra"],
        }))
    );
}

/// Compiling a function of ten lines with three nested closures costs at
/// most 230,000 units of fuel (about 223,000; 267,000 before the guest's
/// QuickJS sized the compiler's buffers and arrays for what they hold, made
/// a function's `length` and `name` without `JS_DefineProperty`, and let a
/// nested function share its parent's file name), making a closure at most
/// 3,000 (about 2,800; 3,600 before, and 3,200 without the empty shapes
/// kept below), and calling an async function that returns at once at most
/// 6,500 (about 6,400 since a run's first arenas are small ones, 6,300
/// before them; 7,050 before the kept shapes): QuickJS made the empty shape of a
/// promise and of a function again for every one, since the snapshot's
/// objects hold none (see guest-js-engine/patches/README.md). Fuel is
/// deterministic: the bounds move only with the guest.
#[tokio::test]
async fn compiling_and_making_functions_costs_bounded_fuel() {
    let source = "function f(items, limit) { \
                    const kept = items.filter((item) => item.score > limit); \
                    const names = kept.map((item) => item.name.toUpperCase()); \
                    let total = 0; \
                    for (const item of kept) { total += item.score; } \
                    const average = kept.length ? total / kept.length : 0; \
                    names.sort((a, b) => a.localeCompare(b)); \
                    if (average > 10) { return { names, average, note: 'high' }; } \
                    return { names, average }; \
                  }";
    let compiles =
        |body: &str| format!("const e = eval; for (let i = 0; i < 50; i++) e({body:?}); return 1;");
    let per_compile = (fuel_of(&compiles(source)).await - fuel_of(&compiles("")).await) / 50.0;
    let closures =
        |made: &str| format!("let f; for (let i = 0; i < 2000; i++) {{ f = {made}; }} return 1;");
    let per_closure =
        (fuel_of(&closures("() => i")).await - fuel_of(&closures("i")).await) / 2000.0;
    let calls = |call: &str| {
        format!(
            "async function g() {{ return 1; }} let p; for (let i = 0; i < 2000; i++) {{ p = {call}; }} return 1;"
        )
    };
    let per_call = (fuel_of(&calls("g()")).await - fuel_of(&calls("i")).await) / 2000.0;
    eprintln!(
        "compiling a function: {per_compile:.0} fuel; making a closure: {per_closure:.0}; \
         calling an async function: {per_call:.0}"
    );
    assert!(per_compile <= 230_000.0, "{per_compile:.0} fuel a compile");
    assert!(per_closure <= 3_000.0, "{per_closure:.0} fuel a closure");
    assert!(per_call <= 6_500.0, "{per_call:.0} fuel an async call");
}

/// The arrays `map`, `filter`, `Array.from` and the like return get their
/// elements as the standard's CreateDataPropertyOrThrow defines them (the
/// guest's QuickJS appends the next element of a plain array at once, see
/// guest-js-engine/patches/README.md): own, writable, enumerable and
/// configurable data properties, holes kept, a species' own array type, a
/// species array that cannot grow refused with a TypeError, and index
/// properties on `Array.prototype` not in the way.
#[tokio::test]
async fn array_methods_define_their_elements_as_the_standard_says() {
    let result = run(r#"
        const describe = (a) => [a.length, Object.keys(a).join(),
          JSON.stringify(Object.getOwnPropertyDescriptor(a, 0))];
        class Tagged extends Array {}
        class Sealed extends Array {
          constructor(n) { super(n); Object.preventExtensions(this); }
        }
        const tagged = Tagged.from([1, 2, 3]).map((x) => x * 10);
        let refused;
        try { Sealed.from([1, 2]).map((x) => x); } catch (e) { refused = e.constructor.name; }
        Array.prototype[1] = 'inherited';
        const past = [5, 6].filter(() => true);
        delete Array.prototype[1];
        return {
          mapped: describe([1, 2, 3].map((x) => x + 1)),
          holes: describe([1, , 3].map((x) => x * 2)),
          filtered: describe([1, 2, 3, 4].filter((x) => x % 2 === 0)),
          from: describe(Array.from({ length: 2 }, (_, i) => `v${i}`)),
          keys: describe(Object.keys({ a: 1, b: 2 })),
          tagged: [tagged instanceof Tagged, tagged.join()],
          refused,
          past: [past.join(), Object.getOwnPropertyNames(past).join()],
        };
    "#)
    .await;
    assert_ok(&result);
    let data = r#"{"value":VALUE,"writable":true,"enumerable":true,"configurable":true}"#;
    assert_eq!(
        result.value,
        Some(json!({
            "mapped": [3, "0,1,2", data.replace("VALUE", "2")],
            "holes": [3, "0,2", data.replace("VALUE", "2")],
            "filtered": [2, "0,1", data.replace("VALUE", "2")],
            "from": [2, "0,1", data.replace("VALUE", "\"v0\"")],
            "keys": [2, "0,1", data.replace("VALUE", "\"a\"")],
            "tagged": [true, "10,20,30"],
            "refused": "TypeError",
            "past": ["5,6", "0,1,length"],
        }))
    );
}

/// Mapping an array of 100 numbers costs at most 85,000 units of fuel
/// (about 76,000; 98,000 before the guest's QuickJS appended each element
/// of the result at once), filtering it at most 90,000 (about 81,000;
/// 101,000 before). Fuel is deterministic: the bounds move only with the
/// guest.
#[tokio::test]
async fn mapping_and_filtering_an_array_costs_bounded_fuel() {
    let program = |each: &str| {
        format!(
            "const id = (x) => x; const big = Array.from({{ length: 100 }}, (_, i) => i); \
             let f; for (let i = 0; i < 200; i++) {{ f = {each}; }} return 1;"
        )
    };
    let bare = fuel_of(&program("i")).await;
    let mapped = (fuel_of(&program("big.map(id)")).await - bare) / 200.0;
    let filtered = (fuel_of(&program("big.filter(id)")).await - bare) / 200.0;
    eprintln!("mapping 100 numbers: {mapped:.0} fuel; filtering them: {filtered:.0}");
    assert!(mapped <= 85_000.0, "{mapped:.0} fuel a map");
    assert!(filtered <= 90_000.0, "{filtered:.0} fuel a filter");
}

/// `toLowerCase` and `toUpperCase` map every character as the standard's
/// case tables do: ASCII letter by letter (the guest's QuickJS maps ASCII
/// text without its Unicode tables, see guest-js-engine/patches/README.md),
/// and the rest as before: Latin-1 letters, `ß` to `SS`, `ÿ` to `Ÿ` (past
/// Latin-1), a final sigma, text in two-byte strings, and text with nothing
/// to change.
#[tokio::test]
async fn case_mapping_follows_the_case_tables() {
    let result = run(r#"
        const texts = ['', 'Hello, World 42!', 'already lower', 'ALREADY UPPER', '@[`{~',
                       'Ünïcödé Straße', 'ÿ', 'ΟΔΟΣ', '日本 Abc', 'a\u0000B'];
        return texts.map((t) => [t.toLowerCase(), t.toUpperCase()]);
    "#)
    .await;
    assert_ok(&result);
    assert_eq!(
        result.value,
        Some(json!([
            ["", ""],
            ["hello, world 42!", "HELLO, WORLD 42!"],
            ["already lower", "ALREADY LOWER"],
            ["already upper", "ALREADY UPPER"],
            ["@[`{~", "@[`{~"],
            ["ünïcödé straße", "ÜNÏCÖDÉ STRASSE"],
            ["ÿ", "Ÿ"],
            ["οδος", "ΟΔΟΣ"],
            ["日本 abc", "日本 ABC"],
            ["a\u{0}b", "A\u{0}B"],
        ]))
    );
}
