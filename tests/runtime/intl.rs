//! Intl against Node's: every case of `fixtures/intl-node.json` (an Intl
//! call and what Node v20 with full ICU returned for it, recorded by
//! tools/intl-data/cases.mjs) runs in the sandbox and must return the same
//! value, or throw an error of the same name. The differences below are
//! the only ones allowed, each with its reason; one that starts to match
//! fails the test, so the list only shrinks.

use serde_json::{Value, json};

use super::*;

/// Cases where coderun departs from Node v20 on purpose.
const DIFFERENCES: &[(&str, &str)] = &[
    (
        "Intl.NumberFormat.supportedLocalesOf(['en-US', 'de', 'en-GB'])",
        "English is the one locale shipped: `de` is not supported",
    ),
    (
        "new Intl.PluralRules('en', {type: 'cardinal'}).resolvedOptions()",
        "ECMA-402 2024 adds the rounding options and orders pluralCategories; Node v20 predates it",
    ),
    (
        "new Intl.PluralRules('en', {type: 'ordinal'}).resolvedOptions()",
        "ECMA-402 2024 adds the rounding options and orders pluralCategories; Node v20 predates it",
    ),
];

/// Expressions whose prefix marks a family of differences.
const DIFFERENT_FAMILIES: &[(&str, &str)] = &[
    (
        "\"hour12\":false",
        "ECMA-402 2024: `hour12: false` is the locale's 24-hour cycle, h23 (00:05); V8 still takes h24 (24:05)",
    ),
    (
        "\"timeZone\":\"America/Sao_Paulo\"}).format(new Date(946684799999))",
        "names a zone's historical daylight time by its current CLDR name (Brasília has had no DST since 2019)",
    ),
];

fn allowed(expr: &str) -> bool {
    DIFFERENCES.iter().any(|(e, _)| *e == expr)
        || DIFFERENT_FAMILIES
            .iter()
            .any(|(needle, _)| expr.contains(needle))
}

/// What one expression gives: `{ value }` or `{ throws }`.
const EVALUATE: &str = "return exprs.map((e) => {
    try {
        const v = new Function('return (' + e + ')')();
        return { value: JSON.parse(JSON.stringify(v === undefined ? null : v)) };
    } catch (error) {
        return { throws: error.name, message: String(error.message) };
    }
});";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn intl_returns_what_node_returns() {
    let fixture: Value =
        serde_json::from_str(include_str!("fixtures/intl-node.json")).expect("the fixture");
    let cases = fixture["cases"].as_array().expect("cases");
    assert!(cases.len() > 3000, "the fixture lost its cases");
    let runtime = runtime_with(|c| {
        c.fuel(50_000_000_000)
            .wall_clock(std::time::Duration::from_secs(300))
            .max_value_bytes(64 << 20);
    });
    let mut wrong = Vec::new();
    let mut stale = Vec::new();
    for chunk in cases.chunks(300) {
        let exprs: Vec<&str> = chunk
            .iter()
            .map(|case| case["expr"].as_str().expect("an expression"))
            .collect();
        let program = format!("const exprs = {};\n{EVALUATE}", json!(exprs));
        let result = runtime
            .run(CodeRunRequest::new(program))
            .await
            .expect("no misuse");
        assert_ok(&result);
        let got = result.value.expect("results");
        for (case, got) in chunk.iter().zip(got.as_array().expect("an array")) {
            let expr = case["expr"].as_str().unwrap_or_default();
            let same = match (&case["throws"], &case["value"]) {
                (Value::String(name), _) => got["throws"] == *name,
                (_, value) => got.get("throws").is_none() && got["value"] == *value,
            };
            match (same, allowed(expr)) {
                (false, false) => wrong.push(format!(
                    "{expr}\n  node:    {}\n  coderun: {got}",
                    case.get("value").unwrap_or(&case["throws"])
                )),
                (true, true) if DIFFERENCES.iter().any(|(e, _)| *e == expr) => {
                    stale.push(expr.to_owned());
                }
                _ => {}
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} cases differ from Node:\n{}",
        wrong.len(),
        cases.len(),
        wrong.join("\n")
    );
    assert!(
        stale.is_empty(),
        "listed as different but now the same (remove them from DIFFERENCES): {stale:?}"
    );
}

/// The issue's own examples, and a zone's offset from the guest's IANA
/// database, never the host's.
#[tokio::test]
async fn locale_formatting_matches_the_examples() {
    let result = run("return [
        (1234567.891).toLocaleString('en-US'),
        new Intl.NumberFormat('en-US', {style: 'currency', currency: 'EUR'}).format(12.5),
        new Date(Date.UTC(2025, 2, 9, 6, 59)).toLocaleString('en-US', {timeZone: 'America/New_York', timeZoneName: 'short'}),
        new Date(Date.UTC(2025, 2, 9, 7, 0)).toLocaleString('en-US', {timeZone: 'America/New_York', timeZoneName: 'short'}),
        new Date(0).toLocaleString(),
        Intl.DateTimeFormat().resolvedOptions().timeZone,
    ];")
    .await;
    assert_ok(&result);
    assert_eq!(
        result.value,
        Some(json!([
            "1,234,567.891",
            "€12.50",
            "3/9/2025, 1:59:00 AM EST",
            "3/9/2025, 3:00:00 AM EDT",
            "1/1/1970, 12:00:00 AM",
            "UTC",
        ]))
    );
}

/// ECMA-402 2024's offset time zones ("+05:30"), which Node v20 lacks.
#[tokio::test]
async fn offset_time_zones_format_at_their_offset() {
    let result = run("const f = new Intl.DateTimeFormat('en-US', {timeZone: '+0530', timeStyle: 'long'});
        return [f.format(0), f.resolvedOptions().timeZone,
          new Date(0).toLocaleTimeString('en-US', {timeZone: '-03:00', timeZoneName: 'longOffset'})];")
        .await;
    assert_ok(&result);
    assert_eq!(
        result.value,
        Some(json!([
            "5:30:00 AM GMT+5:30",
            "+05:30",
            "9:00:00 PM GMT-03:00"
        ]))
    );
}

/// Bad input to Intl is a precise error in the program, never a host
/// failure: invalid locales and options, huge inputs, lone surrogates.
#[tokio::test]
async fn intl_refuses_bad_input_with_errors_a_program_can_catch() {
    let result = run(r#"
        const errors = [];
        const attempt = (f) => { try { f(); errors.push('none'); } catch (e) { errors.push(`${e.name}: ${e.message}`.slice(0, 120)); } };
        attempt(() => new Intl.NumberFormat('en_US'));
        attempt(() => new Intl.NumberFormat('x'.repeat(1 << 20)));
        attempt(() => new Intl.NumberFormat('en', { style: 'currency' }));
        attempt(() => new Intl.NumberFormat('en', { maximumFractionDigits: 1e9 }));
        attempt(() => new Intl.DateTimeFormat('en', { timeZone: 'Z'.repeat(1 << 20) }));
        attempt(() => new Intl.DateTimeFormat('en', { get year() { throw new Error('getter'); } }));
        attempt(() => (10n ** 5000n).toLocaleString());
        attempt(() => new Intl.ListFormat('en').format(['a', 1]));
        attempt(() => new Intl.RelativeTimeFormat('en').format(Infinity, 'day'));
        attempt(() => new Intl.DateTimeFormat('en').format(8.64e15 + 1));
        attempt(() => Intl.getCanonicalLocales({ length: 3, 0: 'en', 1: {}, 2: 'de' }));
        const sorted = ['b\uD800', 'a\u0000b', '\uDFFFz', 'a'].sort(new Intl.Collator('en').compare);
        const big = new Intl.ListFormat('en').format(Array.from({ length: 100000 }, (_, i) => 'w' + i)).length;
        const long = ('9'.repeat(4000) + '.5');
        return { errors, sorted, big, long: new Intl.NumberFormat('en').format(long).length };
    "#)
    .await;
    assert_ok(&result);
    let value = result.value.expect("a value");
    let errors: Vec<&str> = value["errors"]
        .as_array()
        .expect("errors")
        .iter()
        .map(|e| e.as_str().unwrap_or_default())
        .collect();
    let expect = [
        "RangeError: Incorrect locale information provided",
        "RangeError: Incorrect locale information provided",
        "TypeError: Currency code is required with currency style.",
        "RangeError: maximumFractionDigits value is out of range.",
        "RangeError: Invalid time zone specified: ZZZZ",
        "Error: getter",
        "RangeError: The number has too many digits to format",
        "TypeError: Iterable yielded 1 which is not a string",
        "RangeError: Invalid value: must be a finite number",
        "RangeError: Invalid time value",
        "RangeError: Incorrect locale information provided",
    ];
    assert_eq!(errors.len(), expect.len(), "{errors:?}");
    for (got, want) in errors.iter().zip(expect) {
        assert!(
            got.starts_with(want),
            "{got:?} does not start with {want:?}"
        );
    }
    assert_eq!(value["sorted"].as_array().map(Vec::len), Some(4));
    assert!(value["big"].as_u64().is_some_and(|n| n > 700_000));
    // 4,000 nines grouped in threes, the decimal point and the 5.
    assert_eq!(value["long"], json!(4000 + 1333 + 2));
}

/// `Intl.supportedValuesOf`: what this implementation supports, each
/// value usable as it is listed.
#[tokio::test]
async fn supported_values_are_usable_as_listed() {
    let result = run("const zones = Intl.supportedValuesOf('timeZone');
        const unusable = zones.filter((zone) =>
          new Intl.DateTimeFormat('en', { timeZone: zone }).resolvedOptions().timeZone !== zone);
        return {
          zones: zones.length, unusable, sorted: zones.join() === [...zones].sort().join(),
          newYork: zones.includes('America/New_York'),
          calendars: Intl.supportedValuesOf('calendar'),
          numbering: Intl.supportedValuesOf('numberingSystem'),
          currencies: Intl.supportedValuesOf('currency').every((code) =>
            new Intl.NumberFormat('en', { style: 'currency', currency: code }).format(1).length > 0),
        };")
    .await;
    assert_ok(&result);
    let value = result.value.expect("a value");
    assert!(value["zones"].as_u64().is_some_and(|n| n > 400), "{value}");
    assert_eq!(value["unusable"], json!([]));
    assert_eq!(value["sorted"], json!(true));
    assert_eq!(value["newYork"], json!(true));
    assert_eq!(value["calendars"], json!(["gregory"]));
    assert_eq!(value["numbering"], json!(["latn"]));
    assert_eq!(value["currencies"], json!(true));
}

/// A request's time zone is the zone of local time: `Date`'s local fields,
/// its `toString` and `toTimeString` (with the zone's long name, as V8
/// writes it), `toLocaleString` and `Intl.DateTimeFormat`'s default. The
/// expected texts are Node's (20.20) for the same program with `TZ` set.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_time_zone_is_the_zone_of_local_time() {
    const PROGRAM: &str = "const d = new Date(Date.UTC(2026, 0, 15, 12, 30)), \
        s = new Date(Date.UTC(2026, 6, 15, 12, 30)); \
        return [d.toString(), s.toString(), d.toTimeString(), `${s}`, d.getHours(), \
        d.getTimezoneOffset(), new Intl.DateTimeFormat().resolvedOptions().timeZone, \
        d.toLocaleString('en-US'), new Date(2026, 6, 4, 9, 0).toISOString()];";
    let cases = [
        (
            None,
            json!([
                "Thu Jan 15 2026 12:30:00 GMT+0000 (Coordinated Universal Time)",
                "Wed Jul 15 2026 12:30:00 GMT+0000 (Coordinated Universal Time)",
                "12:30:00 GMT+0000 (Coordinated Universal Time)",
                "Wed Jul 15 2026 12:30:00 GMT+0000 (Coordinated Universal Time)",
                12,
                0,
                "UTC",
                "1/15/2026, 12:30:00 PM",
                "2026-07-04T09:00:00.000Z"
            ]),
        ),
        (
            Some("America/New_York"),
            json!([
                "Thu Jan 15 2026 07:30:00 GMT-0500 (Eastern Standard Time)",
                "Wed Jul 15 2026 08:30:00 GMT-0400 (Eastern Daylight Time)",
                "07:30:00 GMT-0500 (Eastern Standard Time)",
                "Wed Jul 15 2026 08:30:00 GMT-0400 (Eastern Daylight Time)",
                7,
                300,
                "America/New_York",
                "1/15/2026, 7:30:00 AM",
                "2026-07-04T13:00:00.000Z"
            ]),
        ),
        (
            Some("Europe/Paris"),
            json!([
                "Thu Jan 15 2026 13:30:00 GMT+0100 (Central European Standard Time)",
                "Wed Jul 15 2026 14:30:00 GMT+0200 (Central European Summer Time)",
                "13:30:00 GMT+0100 (Central European Standard Time)",
                "Wed Jul 15 2026 14:30:00 GMT+0200 (Central European Summer Time)",
                13,
                -60,
                "Europe/Paris",
                "1/15/2026, 1:30:00 PM",
                "2026-07-04T07:00:00.000Z"
            ]),
        ),
        (
            // An offset, which `Intl` takes as a zone (V8 does not).
            Some("+05:30"),
            json!([
                "Thu Jan 15 2026 18:00:00 GMT+0530 (GMT+05:30)",
                "Wed Jul 15 2026 18:00:00 GMT+0530 (GMT+05:30)",
                "18:00:00 GMT+0530 (GMT+05:30)",
                "Wed Jul 15 2026 18:00:00 GMT+0530 (GMT+05:30)",
                18,
                -330,
                "+05:30",
                "1/15/2026, 6:00:00 PM",
                "2026-07-04T03:30:00.000Z"
            ]),
        ),
    ];
    for (zone, expected) in cases {
        let mut request = CodeRunRequest::new(PROGRAM);
        request.time_zone = zone.map(str::to_owned);
        let result = run_request(request).await;
        assert_eq!(result.value, Some(expected), "{zone:?}: {:?}", result.error);
    }
}

/// A time zone the guest's database lacks ends the run as an exception
/// naming it (cut at 64 characters), before the program runs; a 100 MB
/// name crosses to the guest cut.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_request_time_zone_is_refused_with_a_clear_error() {
    for zone in [
        "Mars/Olympus",
        "+25:00",
        "",
        &"x".repeat(100 << 20),
        "UTC\0",
    ] {
        let result =
            run_request(CodeRunRequest::new("globalThis.ran = 1; return 1").time_zone(zone)).await;
        let error = result.error.expect("an error");
        assert_eq!(error.kind, FailureKind::Exception, "{zone:?}");
        assert!(
            error
                .message
                .starts_with("RangeError: the request's time zone")
                && error.message.len() < 512,
            "{}",
            error.message
        );
    }
}

/// A recorded run keeps its time zone: the replay sees the same local time
/// whatever zone the replaying request asks for.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_record_keeps_its_time_zone() {
    let program = "return new Date(0).toString()";
    let mut request = CodeRunRequest::new(program)
        .record(true)
        .time_zone("Asia/Tokyo");
    request.seed = Some(1);
    let recorded = run_request(request).await;
    let expected = json!("Thu Jan 01 1970 09:00:00 GMT+0900 (Japan Standard Time)");
    assert_eq!(recorded.value, Some(expected.clone()));
    let record = *recorded.record.expect("a record");
    assert_eq!(record.time_zone.as_deref(), Some("Asia/Tokyo"));
    let mut replay = CodeRunRequest::replay(record);
    replay.time_zone = Some("UTC".into());
    let replayed = run_request(replay).await;
    assert_eq!(replayed.value, Some(expected), "{:?}", replayed.error);
}
