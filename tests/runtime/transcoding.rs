//! Text that is not ASCII through every way text leaves or enters a run:
//! returned (JSON and display), printed, `JSON.stringify` and
//! `JSON.parse`, `TextEncoder` and `TextDecoder`, a binding's argument and
//! its result. QuickJS keeps text
//! whose characters are all below U+0100 (Latin-1: most Western European
//! text) a byte a character, other text as UTF-16; the guest transcodes
//! both sixteen bytes at a time (render/transcode.rs), so the cases put
//! characters of one, two, three and four bytes of UTF-8 on every side of
//! a block's edges, and a character past U+00FF after Latin-1 text that
//! may have been decoded already. The expected text is written here, by
//! Rust. (Lone surrogates, which Rust's strings cannot hold, are tested
//! with the renderers in render.rs.)

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use super::*;

/// The cases, as lists of code points.
fn cases() -> Vec<Vec<u32>> {
    let a = |n: usize| vec![u32::from(b'a'); n];
    let mut cases = Vec::new();
    // One accented letter at every offset of two blocks.
    for k in 0..=40 {
        cases.push([a(k), vec![0xe9], a(17)].concat());
    }
    // Every character below U+0100 but the line break (a long string is
    // broken at line breaks in the display), shifted across a block.
    let all: Vec<u32> = (0..256).filter(|&c| c != 0x0a).collect();
    for k in 0..=17 {
        cases.push([a(k), all.clone(), a(k)].concat());
    }
    // Runs of non-ASCII letters, long and short.
    for k in [1, 7, 8, 9, 15, 16, 17, 23, 24, 33] {
        cases.push([vec![0xe9; k], a(3), vec![0xff; k], vec![0x80; k]].concat());
    }
    // A character past U+00FF after Latin-1 text: read as a whole string
    // of two-byte characters.
    for k in [0, 5, 7, 8, 9, 15, 16, 31] {
        cases.push([vec![0xe0; 20], a(k), vec![0x20ac], vec![0xfc; 5]].concat());
    }
    // Two-byte strings: characters of one, two and three bytes of UTF-8
    // mixed in every order, and four (a surrogate pair) at every offset
    // of two blocks of eight units.
    let mixed = [
        0x65e5, 0x3042, 0x436, 0xe9, 0x20, 0xac00, 0x7ff, 0x800, 0xffff, 0x80, 0x7f,
    ];
    for k in 0..=17 {
        cases.push([a(k), mixed.to_vec(), mixed.to_vec(), a(3)].concat());
        cases.push([a(k), vec![0x1f600], mixed.to_vec(), vec![0x10ffff], a(9)].concat());
        cases.push([vec![0x65e5; k], vec![0x30c6; 17], a(1), vec![0x436; k]].concat());
    }
    // Words of Cyrillic and Korean between spaces, and CJK with its own
    // punctuation, long enough for many blocks.
    let words: Vec<u32> =
        "Съешь же ещё этих мягких булок 다람쥐 헌 쳇바퀴에 타고파 日本語のテキスト、です。"
            .chars()
            .map(u32::from)
            .collect();
    cases.push(words.repeat(7));
    // Runs of characters of one, two, three and four bytes, of random
    // lengths, from each range's ends and between (seeded): the decoder
    // takes runs of two and of three bytes whole, sixteen bytes at a time,
    // and other text eight bytes at a time.
    let mut next = seeded(0x9e37_79b9_7f4a_7c15);
    let ranges: [(u32, u32); 5] = [
        (0x20, 0x7e),
        (0x80, 0x7ff),
        (0x800, 0xd7ff),
        (0xe000, 0xffff),
        (0x10000, 0x10ffff),
    ];
    for _ in 0..12 {
        let mut codes = Vec::new();
        while codes.len() < 160 {
            let (low, high) = ranges[next(5) as usize];
            for _ in 0..1 + next(24) {
                let code = match next(4) {
                    0 => low,
                    1 => high,
                    _ => low + next(u64::from(high - low + 1)) as u32,
                };
                codes.push(code);
            }
        }
        cases.push(codes);
    }
    cases
}

/// Numbers below the bound each call is given, from a xorshift generator
/// started at `seed`: the same every run.
fn seeded(mut seed: u64) -> impl FnMut(u64) -> u64 {
    move |below| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % below
    }
}

fn text(codes: &[u32]) -> String {
    codes
        .iter()
        .map(|&c| char::from_u32(c).expect("a character"))
        .collect()
}

/// Code that makes `texts` from the cases' code points, a character at a
/// time, as the engine stores them (8-bit when all fit).
fn texts_program(cases: &[Vec<u32>]) -> String {
    format!(
        "const texts = {}.map((codes) => codes.map((c) => String.fromCodePoint(c)).join(''));\n",
        serde_json::to_string(cases).expect("JSON")
    )
}

/// `text` as `util.inspect` writes a string (Node's `strEscape`): in
/// single quotes unless it holds one (then double quotes, or backticks),
/// controls and U+007F to U+009F as `\xHH`.
fn literal(text: &str) -> String {
    let quote = if !text.contains('\'') {
        '\''
    } else if !text.contains('"') {
        '"'
    } else if !text.contains('`') && !text.contains("${") {
        '`'
    } else {
        '\''
    };
    let mut out = String::from(quote);
    for c in text.chars() {
        match c {
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            '\\' => out.push_str("\\\\"),
            '\'' if quote == '\'' => out.push_str("\\'"),
            c if (c as u32) < 0x20 || (0x7f..=0x9f).contains(&(c as u32)) => {
                out.push_str(&format!("\\x{:02X}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// `[text]` as `console.log` and a returned value's display write it: on
/// one line when it fits in Node's 80 columns (the brackets, spaces and
/// the 10 columns `reduceToSingleString` keeps), else on three.
fn in_brackets(text: &str) -> String {
    let literal = literal(text);
    if literal.encode_utf16().count() + 13 <= 80 {
        format!("[ {literal} ]")
    } else {
        format!("[\n  {literal}\n]")
    }
}

#[tokio::test]
async fn text_is_returned_and_printed_as_written() {
    let cases = cases();
    let program = format!(
        "{}for (const t of texts) {{ console.log(t); console.log([t]); }}\nreturn texts;",
        texts_program(&cases)
    );
    let result = run(&program).await;
    assert_ok(&result);
    let texts: Vec<String> = cases.iter().map(|codes| text(codes)).collect();
    assert_eq!(result.value, Some(json!(texts)), "the returned JSON");
    assert_eq!(result.logs.len(), 2 * texts.len());
    for (i, t) in texts.iter().enumerate() {
        assert_eq!(&result.logs[2 * i].text, t, "case {i} printed");
        assert_eq!(
            result.logs[2 * i + 1].text,
            in_brackets(t),
            "case {i} printed in an array"
        );
    }
    // Each alone: a returned string displays as it is, in an array as a
    // literal.
    for (i, t) in texts.iter().enumerate().step_by(5) {
        let one = format!("{}return texts[{i}];", texts_program(&cases));
        let result = run(&one).await;
        assert_ok(&result);
        assert_eq!(result.value, Some(json!(t)), "case {i} returned");
        assert_eq!(result.value_display.as_deref(), Some(t.as_str()));
        let wrapped = format!("{}return [texts[{i}]];", texts_program(&cases));
        let result = run(&wrapped).await;
        assert_ok(&result);
        assert_eq!(result.value_display, Some(in_brackets(t)), "case {i}");
    }
}

#[tokio::test]
async fn text_crosses_json_stringify_and_parse() {
    let cases = cases();
    let program = format!(
        "{}return texts.map((t) => {{
  const json = JSON.stringify(t);
  const back = JSON.parse(json);
  const record = JSON.parse(JSON.stringify({{ t, n: [t, 1] }}));
  return [json, back === t, record.t === t && record.n[0] === t, back.length === t.length];
}});",
        texts_program(&cases)
    );
    each_case_returns(
        &program,
        &cases,
        |text| serde_json::to_string(text).expect("JSON"),
        "JSON.stringify's text, and JSON.parse's string back",
    )
    .await;
}

#[tokio::test]
async fn text_crosses_text_encoder_and_decoder() {
    let cases = cases();
    let program = format!(
        "{}const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
return texts.map((t) => {{
  const bytes = new TextEncoder().encode(t);
  const into = new Uint8Array(bytes.length);
  const {{ read, written }} = new TextEncoder().encodeInto(t, into);
  return [hex(bytes), new TextDecoder().decode(bytes) === t, read === t.length && written === bytes.length,
    new TextDecoder('utf-8', {{ fatal: true }}).decode(bytes) === t];
}});",
        texts_program(&cases)
    );
    each_case_returns(
        &program,
        &cases,
        |text| text.bytes().map(|b| format!("{b:02x}")).collect(),
        "TextEncoder's bytes, and TextDecoder's text back",
    )
    .await;
}

/// Runs `program`, which returns a row for each case: `[a text, true,
/// true, true]`, the text the one `expected` makes of the case's text.
async fn each_case_returns(
    program: &str,
    cases: &[Vec<u32>],
    expected: impl Fn(&str) -> String,
    what: &str,
) {
    let result = run(program).await;
    assert_ok(&result);
    let Some(Value::Array(rows)) = result.value else {
        panic!("an array: {:?}", result.value);
    };
    assert_eq!(rows.len(), cases.len(), "a row for each case");
    for (i, (row, codes)) in rows.iter().zip(cases).enumerate() {
        assert_eq!(
            row,
            &json!([expected(&text(codes)), true, true, true]),
            "case {i}: {what}"
        );
    }
}

#[tokio::test]
async fn text_crosses_to_a_binding_and_back() {
    let cases = cases();
    let received = Arc::new(Mutex::new(Vec::new()));
    let kept = received.clone();
    let host = CodeBindingNamespace::new("host").function("echo", move |args| {
        kept.lock().expect("the list").push(args.clone());
        async move { Ok(args) }
    });
    let program = format!(
        "{}const back = [];
for (const t of texts) back.push(await host.echo(t));
const together = await host.echo(texts);
return texts.map((t, i) => back[i] === t && together[i] === t && back[i].length === t.length);",
        texts_program(&cases)
    );
    let result = run_request(CodeRunRequest::new(program).binding(host)).await;
    assert_ok(&result);
    let texts: Vec<String> = cases.iter().map(|codes| text(codes)).collect();
    assert_eq!(
        result.value,
        Some(json!(vec![true; texts.len()])),
        "each text came back from the host as it went"
    );
    let received = received.lock().expect("the list");
    assert_eq!(received.len(), texts.len() + 1);
    for (i, t) in texts.iter().enumerate() {
        assert_eq!(received[i], json!(t), "case {i} as the host received it");
    }
    assert_eq!(received[texts.len()], json!(texts));
}

/// `TextDecoder` of UTF-8, well formed or not, at every offset of the
/// sixteen-byte blocks it is checked in (web/utf8.rs), after ASCII and
/// after CJK text: the text is Rust's lossy decoding (each maximal
/// ill-formed part a U+FFFD, as the Encoding Standard has it), and `fatal`
/// refuses exactly what Rust's check refuses. Seeded random bytes shaped
/// like UTF-8 too. A leading byte order mark is dropped unless `ignoreBOM`.
#[tokio::test]
async fn text_decoder_checks_utf8_at_every_offset() {
    let patterns: [&[u8]; 37] = [
        // Ill formed: overlong, surrogates, past U+10FFFF, bytes that
        // never occur, stray continuations, cut characters.
        b"\xc0\x80",
        b"\xc1\xbf",
        b"\xe0\x80\x80",
        b"\xe0\x9f\xbf",
        b"\xed\xa0\x80",
        b"\xed\xbf\xbf",
        b"\xf0\x80\x80\x80",
        b"\xf0\x8f\xbf\xbf",
        b"\xf4\x90\x80\x80",
        b"\xf5\x80\x80\x80",
        b"\xf8\x88\x80\x80\x80",
        b"\xff",
        b"\xfe",
        b"\x80",
        b"\xbf\xbf",
        b"\xc2",
        b"\xe2\x82",
        b"\xf0\x9f\x98",
        b"\xc2\x41",
        b"\xe2\x41\x82",
        b"\xe2\x82\x41",
        b"\xf0\x9f\x41\x80",
        b"\xe2\x82\xac\x80",
        b"\xf0\x9f\x98\x80\x80",
        b"\xc2\xc2\x80",
        // Well formed, at each range's ends.
        b"\xc2\x80",
        b"\xdf\xbf",
        b"\xe0\xa0\x80",
        b"\xed\x9f\xbf",
        b"\xee\x80\x80",
        b"\xef\xbf\xbf",
        b"\xf0\x90\x80\x80",
        b"\xf4\x8f\xbf\xbf",
        b"\xef\xbb\xbf",
        b"\x00",
        b"\xe6\x97\xa5\xe6\x97\xa5\xe6\x97\xa5",
        b"\xd0\x96\xf0\x9f\x98\x80",
    ];
    let mut inputs: Vec<Vec<u8>> = Vec::new();
    for pattern in patterns {
        for context in ["a", "日"] {
            for offset in 0..=33 {
                let lead: Vec<u8> = context.repeat(offset).bytes().take(offset + 2).collect();
                let lead = String::from_utf8_lossy(&lead)
                    .trim_end_matches('\u{fffd}')
                    .to_owned();
                for tail in [0, 20] {
                    inputs.push([lead.as_bytes(), pattern, &b"b".repeat(tail)].concat());
                }
            }
        }
    }
    let mut next = seeded(0x2545_f491_4f6c_dd1d);
    for _ in 0..400 {
        let len = 1 + next(70) as usize;
        let bytes = (0..len)
            .map(|_| match next(6) {
                0 | 1 => b'a' + next(26) as u8,
                2 | 3 => 0x80 + next(0x40) as u8,
                4 => 0xc0 + next(0x40) as u8,
                _ => next(256) as u8,
            })
            .collect();
        inputs.push(bytes);
    }
    let with_mark = [b"\xef\xbb\xbf".as_slice(), "日本".as_bytes()].concat();
    inputs.push(with_mark.clone());
    let expected: Vec<(String, bool)> = inputs
        .iter()
        .map(|bytes| {
            let lossy = String::from_utf8_lossy(bytes);
            let text = lossy.strip_prefix('\u{feff}').unwrap_or(&lossy).to_owned();
            (text, std::str::from_utf8(bytes).is_ok())
        })
        .collect();
    let program = format!(
        "const inputs = {};
const expected = {};
const wrong = [];
inputs.forEach((bytes, i) => {{
  const input = new Uint8Array(bytes);
  const text = new TextDecoder().decode(input);
  let fatal = true;
  try {{ new TextDecoder('utf-8', {{ fatal: true }}).decode(input); }} catch {{ fatal = false; }}
  if (text !== expected[i][0] || fatal !== expected[i][1]) wrong.push([i, text, fatal]);
}});
const marked = new TextDecoder('utf-8', {{ ignoreBOM: true }}).decode(new Uint8Array(inputs.at(-1)));
return {{ wrong: wrong.slice(0, 5), count: inputs.length, marked }};",
        serde_json::to_string(&inputs).expect("JSON"),
        serde_json::to_string(&expected).expect("JSON"),
    );
    let result = run(&program).await;
    assert_ok(&result);
    let value = result.value.expect("a value");
    assert_eq!(
        value["wrong"],
        json!([]),
        "decodings that differ: [case, text, fatal accepted]"
    );
    assert_eq!(value["count"], json!(inputs.len()));
    assert_eq!(
        value["marked"],
        json!("\u{feff}日本"),
        "ignoreBOM keeps the mark"
    );
    assert!(expected.iter().any(|(_, ok)| *ok) && expected.iter().any(|(_, ok)| !*ok));
}

/// A name that is not ASCII is the characters its UTF-8 spells, wherever
/// QuickJS makes it a property key from bytes: an identifier or a key in
/// the program's text, a key of `JSON.parse`'s or of a binding's result,
/// a binding's own name. QuickJS looked such bytes up as if each were a
/// character, so once the run held a key of the characters those bytes
/// are ("Ã©", U+00C3 U+00A9, is the two bytes of "é" read as Latin-1), the
/// name "é" became that key: two keys merged into one. The keys are
/// checked by their code points, and the same programs must give Node's
/// result.
#[tokio::test]
async fn names_that_are_not_ascii_are_the_characters_they_spell() {
    let host = CodeBindingNamespace::new("host")
        .function("echo", |args| async move { Ok(args) })
        .function("é", |_| async { Ok(json!("é")) })
        .function("Ã©", |_| async { Ok(json!("Ã©")) })
        .function("日本", |_| async { Ok(json!("日本")) })
        .function("æ—¥æœ¬", |_| async { Ok(json!("æ—¥æœ¬")) });
    let program = r#"
const codes = (key) => [...key].map((c) => c.codePointAt(0).toString(16)).join(" ");
const keys = (object) => Object.keys(object).map(codes);
// Keys of the characters that the UTF-8 of "é" and "日本" are, one a byte.
const planted = { "\u00c3\u00a9": 1, "\u00e6\u0097\u00a5\u00e6\u009c\u00ac": 2 };
const é = "identifier";
const written = { é, 日本: 3, "é": 4 };
const parsed = JSON.parse('{"é": 5, "日本": 6}');
const received = await host.echo({ "é": 7, "日本": 8 });
return {
  planted: keys(planted),
  identifier: é,
  written: keys(written),
  parsed: keys(parsed),
  received: keys(received),
  readBack: [written.é, parsed["é"], received.é, received["日本"], planted["Ã©"]],
  bindings: keys(host),
  called: [await host["é"](), await host["Ã©"](), await host["日本"](), await host["æ—¥æœ¬"]()],
};"#;
    returns(
        CodeRunRequest::new(program).binding(host),
        json!({
            "planted": ["c3 a9", "e6 97 a5 e6 9c ac"],
            "identifier": "identifier",
            "written": ["e9", "65e5 672c"],
            "parsed": ["e9", "65e5 672c"],
            "received": ["e9", "65e5 672c"],
            "readBack": [4, 5, 7, 8, 1],
            "bindings": ["65 63 68 6f", "c3 a9", "e6 2014 a5 e6 153 ac", "e9", "65e5 672c"],
            "called": ["é", "Ã©", "日本", "æ—¥æœ¬"],
        }),
    )
    .await;
}
