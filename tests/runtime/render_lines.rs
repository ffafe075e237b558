//! Console lines and text that is not ASCII, written natively: a line of
//! objects against the JavaScript renderer's, the columns wide text takes,
//! and two-byte strings with lone surrogates.

use super::console::JAVASCRIPT_RENDERER;
use super::render::{both_ways_on, rendered_both_ways};
use super::*;

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
/// of an object cost under a quarter of the same lines through `format`
/// and the JavaScript renderer (about a seventh), where `inspect`'s context
/// and the call into the renderer each cost twelve times a word's line.
#[tokio::test]
async fn a_console_line_of_a_small_object_is_written_natively() {
    let base = fuel_of("for (let i = 0; i < 100; i++) {} return 0;").await;
    let line = "for (let i = 0; i < 100; i++) console.log({ a: 1, b: [1, 2] }); return 0;";
    let native = fuel_of(line).await - base;
    let javascript = fuel_of(&format!("{JAVASCRIPT_RENDERER}{line}")).await - base;
    eprintln!("a hundred lines of an object: {native} fuel, through format {javascript}");
    assert!(
        4.0 * native < javascript,
        "a hundred lines of an object cost {native} fuel, through format {javascript}"
    );
}

/// Text that is not ASCII is measured for the column layout natively
/// (render/src/width.rs, on QuickJS's Unicode tables): returning seven
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

/// A two-byte string is transcoded 65,536 units at a time, and a pair at
/// the end of a chunk stays whole: Node's display (a pair as its
/// character, a lone surrogate as its lower-case escape) and the JSON (a
/// lone surrogate U+FFFD on the host) either side of the chunk's end. (A
/// string this long is written natively by both renderers, so this checks
/// the text itself.)
#[tokio::test]
async fn a_surrogate_pair_at_a_chunks_end_stays_whole() {
    let cases = [
        ("'😀'", "😀", "😀"),
        ("'\\ud800'", "\\ud800", "\u{fffd}"),
        ("'\\ud800😀'", "\\ud800😀", "\u{fffd}😀"),
        ("'x\\ud83d'", "x\\ud83d", "x\u{fffd}"),
    ];
    let body = "a".repeat(65534);
    let tail = |text: &str| text.chars().rev().take(30).collect::<Vec<_>>();
    for (end, shown, read) in cases {
        let result = run(&format!(
            "return ['日' + 'a'.repeat(65534) + {end} + 'bb'];"
        ))
        .await;
        assert_ok(&result);
        let display = result.value_display.expect("a display");
        let expected = format!("[\n  '日{body}{shown}bb'\n]");
        assert!(
            display == expected,
            "{end}: the display ends {:?}",
            tail(&display)
        );
        let value = result.value.expect("a value");
        let text = value[0].as_str().expect("a string");
        assert!(
            text == format!("日{body}{read}bb"),
            "{end}: the JSON ends {:?}",
            tail(text)
        );
    }
}
