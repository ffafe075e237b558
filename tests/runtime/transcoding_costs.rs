//! What text that is not ASCII costs, against ASCII text of as many
//! characters, each way it crosses (the cases that check it crosses as
//! written are in transcoding.rs). Fuel is deterministic; these bound the
//! ratios the guest's blocks of eight and sixteen bring, which the
//! character-at-a-time code they replaced fails by a wide margin.

use super::*;

/// Text that is not ASCII costs a small multiple of what ASCII text of as
/// many characters does, written and read (ASCII is copied as it is; other
/// text is transcoded, and `JSON.stringify`'s both ways). Latin-1 text
/// (an accented letter in ten) costs 1.1 to 3.3 times ASCII's; two-byte
/// text (a CJK character in ten) 2.8 to 6.6 times. A character at a time,
/// they cost 8 to 17 and 11 to 25 times as much. (`TextEncoder` is here;
/// `TextDecoder` of UTF-8 that is not ASCII goes through encoding_rs.)
#[tokio::test]
async fn text_costs_a_small_multiple_of_ascii() {
    let build = |letter: &str| {
        format!(
            "const s = 'Le caf{letter} de la gare, pr{letter}s du march{letter}: o{letter} {letter}tes-vous? '.repeat(2000);"
        )
    };
    // The two-byte text's bound on each path: tighter where its UTF-8 is
    // decoded back (a CJK character in ten decoded through the blocks of
    // denser text cost 7.6 times ASCII to stringify; each alone, 6.1).
    for (what, tail, wide_bound) in [
        ("returned", "return [s];", 8.0),
        ("printed", "console.log(s); return 0;", 8.0),
        ("stringified", "return JSON.stringify(s).length;", 7.0),
        (
            "parsed",
            "return JSON.parse(JSON.stringify(s)).length;",
            7.0,
        ),
        ("encoded", "return new TextEncoder().encode(s).length;", 8.0),
    ] {
        let cost = async |letter: &str| {
            fuel_of(&format!("{} {tail}", build(letter))).await
                - fuel_of(&format!("{} return 0;", build(letter))).await
        };
        let (latin1, wide, ascii) = (cost("é").await, cost("日").await, cost("e").await);
        assert!(
            latin1 < 4.0 * ascii,
            "{what}: Latin-1 text cost {latin1} units of fuel, ASCII {ascii}"
        );
        assert!(
            wide < wide_bound * ascii,
            "{what}: two-byte text cost {wide} units of fuel, ASCII {ascii}"
        );
    }
}

/// Text wholly in another script, or with emoji, costs a small multiple
/// of ASCII text of as many UTF-16 units, each way it crosses. CJK text (a
/// character of three bytes of UTF-8 each) and Cyrillic words between
/// spaces (two bytes a letter) are decoded from UTF-8 (`JSON.stringify`'s
/// result, `JSON.parse`'s strings, a binding's result) in blocks of
/// sixteen bytes: a character at a time, that cost 16 to 25 times
/// ASCII's. An emoji (a surrogate pair, four bytes of UTF-8) is written
/// within its block of eight units: the units from it to the next block
/// went one at a time, and printing text with an emoji in ten units cost
/// 17.6 times ASCII's. `TextDecoder` checks UTF-8 sixteen bytes at a time
/// (web/utf8.rs); encoding_rs's check cost CJK text 17.5 times ASCII's.
#[tokio::test]
async fn text_of_other_scripts_costs_a_small_multiple_of_ascii() {
    let echo = CodeBindingNamespace::new("host").function("echo", |args| async move { Ok(args) });
    let fuel = async |program: String| {
        let result = run_request(CodeRunRequest::new(program).binding(echo.clone())).await;
        assert_ok(&result);
        result.fuel_consumed as f64
    };
    let build = |words: &str| format!("const s = '{words}'.repeat(2000).slice(0, 40000);");
    let encoded = "const b = new TextEncoder().encode(s);";
    for (what, tail, before) in [
        ("returned", "return [s];", ""),
        ("printed", "console.log(s); return 0;", ""),
        ("stringified", "return JSON.stringify(s).length;", ""),
        ("parsed", "return JSON.parse(JSON.stringify(s)).length;", ""),
        ("encoded", "return new TextEncoder().encode(s).length;", ""),
        ("echoed", "return (await host.echo(s)).length;", ""),
        (
            "decoded",
            "return new TextDecoder().decode(b).length;",
            encoded,
        ),
    ] {
        // What the path costs beyond building the text (and, to decode,
        // encoding it).
        let cost = async |words: &str| {
            fuel(format!("{} {before} {tail}", build(words))).await
                - fuel(format!("{} {before} return 0;", build(words))).await
        };
        let ascii = cost("Lorem ipsum dolor sit amet").await;
        for (script, words) in [
            ("CJK", "日本語のテキストです。カタカナ、漢字"),
            ("Cyrillic", "Съешь же ещё этих мягких"),
            ("emoji", "Great job 👍 thanks 🎉 see you 😀 "),
        ] {
            let other = cost(words).await;
            assert!(
                other < 13.0 * ascii,
                "{what}: {script} text cost {other} units of fuel, ASCII {ascii}"
            );
        }
    }
}
