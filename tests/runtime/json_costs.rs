//! What reading and writing JSON, and a program's end, cost in fuel: the
//! benchmark's 2,000 records (and 10,000 numbers) through `JSON.parse` and
//! `JSON.stringify` in a program, per byte of their text, and the records
//! left in a program's variables when it returns. Fuel is deterministic:
//! each bound moves only with the guest.

use serde_json::{Value, json};

use super::*;

/// The benchmark's 2,000 records, built into `value`.
const RECORDS: &str = "const value = []; for (let i = 0; i < 2000; i++) value.push({ id: i, \
                       name: `item-${i}`, tags: ['a', 'b'], owner: { login: `user${i % 10}`, \
                       admin: i % 2 === 0 } });";

/// The fuel per byte of `measured` over `baseline`, each after `build`
/// (both returning the length of the JSON text, the bytes counted).
async fn fuel_per_byte(build: &str, measured: &str, baseline: &str) -> f64 {
    let measured = run(&format!("{build} {measured}")).await;
    let baseline = run(&format!("{build} {baseline}")).await;
    fuel_per_counted_byte(&measured, &baseline, &measured)
}

/// The fuel `measured` burns over `baseline`, both successful, per byte
/// of the length `counted` returns.
fn fuel_per_counted_byte(
    measured: &CodeRunResult,
    baseline: &CodeRunResult,
    counted: &CodeRunResult,
) -> f64 {
    assert_ok(measured);
    assert_ok(baseline);
    let bytes = counted
        .value
        .as_ref()
        .and_then(Value::as_f64)
        .expect("a length");
    (measured.fuel_consumed - baseline.fuel_consumed) as f64 / bytes
}

/// `JSON.parse` of 2,000 records costs at most 110 units of fuel per byte
/// of the text: the native reader takes about 82 (87 before short ASCII
/// strings were made without a scan, 122 with serde_json's
/// reader, 159 while the records it made were also freed when the program
/// returned; QuickJS's own took about 348).
#[tokio::test]
async fn json_parse_of_records_costs_in_proportion_to_the_bytes() {
    let per_byte = fuel_per_byte(
        RECORDS,
        "const text = JSON.stringify(value); const v = JSON.parse(text); return text.length;",
        "const text = JSON.stringify(value); return text.length;",
    )
    .await;
    eprintln!("JSON.parse of records: {per_byte:.1} fuel per byte");
    assert!(per_byte <= 110.0, "{per_byte:.1} fuel per byte");
}

/// Returning JSON text as a string costs at most 55 units of fuel per
/// byte of the text: about 1.0, since the string leaves the guest as a
/// tape of its characters and the host writes its JSON, which escapes
/// every quote (about 44 when the guest wrote it, copying the runs of
/// ASCII between the quotes as they are; 87 transcoding each run as if it
/// could hold Latin-1).
#[tokio::test]
async fn a_returned_text_full_of_escapes_costs_in_proportion_to_the_bytes() {
    let build = format!("{RECORDS} const text = JSON.stringify(value);");
    let returned = run(&format!("{build} return text;")).await;
    let length = run(&format!("{build} return text.length;")).await;
    let per_byte = fuel_per_counted_byte(&returned, &length, &length);
    eprintln!("a returned JSON text: {per_byte:.1} fuel per byte");
    assert!(per_byte <= 55.0, "{per_byte:.1} fuel per byte");
}

/// `JSON.parse` of 10,000 numbers costs at most 68 units of fuel per byte
/// of the text: about 60, the digits read eight at a time and an array's
/// leading numbers in a loop of their own (about 70 a digit at a time,
/// through the reader's dispatch for each).
#[tokio::test]
async fn json_parse_of_numbers_costs_in_proportion_to_the_bytes() {
    let per_byte = fuel_per_byte(
        "const value = []; for (let i = 0; i < 10000; i++) value.push(i % 7 ? i * 1.5 : i); \
         const text = JSON.stringify(value);",
        "const v = JSON.parse(text); \
         if (v.length !== 10000 || v[9999] !== 14998.5) throw new Error('misread'); \
         return text.length;",
        "return text.length;",
    )
    .await;
    eprintln!("JSON.parse of numbers: {per_byte:.1} fuel per byte");
    assert!(per_byte <= 68.0, "{per_byte:.1} fuel per byte");
}

/// A program's data is not torn down when it returns or throws: the run
/// ends, and its instance goes with all its memory. 2,000 records left in
/// a variable cost at least 1,000 units of fuel a record less than the
/// same records emptied out of their array before the program returns
/// (about 2,170 a record, what freeing them costs), and functions that
/// outlive the program still read its variables.
#[tokio::test]
async fn a_programs_data_is_not_freed_when_it_returns() {
    let kept = fuel_of(&format!("{RECORDS} return 0;")).await;
    let freed = fuel_of(&format!("{RECORDS} value.length = 0; return 0;")).await;
    let thrown = run(&format!(
        "{RECORDS} throw new Error('after ' + value.length);"
    ))
    .await;
    assert_failure(&thrown, FailureKind::Exception, "after 2000");
    eprintln!(
        "freeing 2,000 records: {:.0} fuel a record",
        (freed - kept) / 2000.0
    );
    assert!(
        freed - kept >= 2_000_000.0,
        "kept {kept}, freed {freed}: the records were freed at the return"
    );
    let result = run(&format!(
        "{RECORDS} let calls = 0; const count = () => ++calls + value.length;          count(); return {{ get later() {{ return count(); }}, first: value[0] }};"
    ))
    .await;
    assert_ok(&result);
    assert_eq!(
        result.value,
        Some(
            json!({ "later": 2002, "first": { "id": 0, "name": "item-0", "tags": ["a", "b"], "owner": { "login": "user0", "admin": true } } })
        )
    );
}

/// A text `+` built (a rope, past 512 characters) is read natively too,
/// flattened first: `JSON.parse` of 2,000 records' text so made costs at
/// most 110 units of fuel per byte, as the flat text does (QuickJS's own
/// reader, which took it before, about 348).
#[tokio::test]
async fn json_parse_of_a_text_built_with_plus_costs_as_a_flat_one() {
    let per_byte = fuel_per_byte(
        RECORDS,
        "let text = '['; for (const r of value) text += (text.length > 1 ? ',' : '') + \
         JSON.stringify(r); text += ']'; const v = JSON.parse(text); \
         if (v.length !== 2000 || v[1999].name !== 'item-1999') throw new Error('misread'); \
         return text.length;",
        "let text = '['; for (const r of value) text += (text.length > 1 ? ',' : '') + \
         JSON.stringify(r); text += ']'; return text.length;",
    )
    .await;
    eprintln!("JSON.parse of a rope of records: {per_byte:.1} fuel per byte");
    assert!(per_byte <= 110.0, "{per_byte:.1} fuel per byte");
}

/// `JSON.stringify` of 2,000 records costs at most 60 units of fuel per
/// byte of the text: the renderer's JSON takes about 46 (64 before keys
/// were copied from their shape's JSON text and numbers written in line),
/// QuickJS's own about 440.
#[tokio::test]
async fn json_stringify_of_records_costs_in_proportion_to_the_bytes() {
    let per_byte = fuel_per_byte(
        RECORDS,
        "return JSON.stringify(value).length;",
        "return value.length;",
    )
    .await;
    eprintln!("JSON.stringify of records: {per_byte:.1} fuel per byte");
    assert!(per_byte <= 60.0, "{per_byte:.1} fuel per byte");
}

/// `JSON.stringify` of a small value costs little over its bytes: at most
/// 2,500 units of fuel for a number (about 2,000; 3,700 before the two
/// functions were QuickJS C functions, which skip the prototypes' check
/// for what is not an object) and 11,000 for an object of four keys with
/// an array and an object in it (about 10,200; 12,250 before). Fuel is
/// deterministic: the bounds move only with the guest.
#[tokio::test]
async fn json_stringify_of_a_small_value_costs_little() {
    let program = |each: &str| {
        format!(
            "const o = {{ id: 1, name: 'x', tags: ['a'], owner: {{ login: 'u' }} }}; \
             let f; for (let i = 0; i < 500; i++) {{ f = {each}; }} return 1;"
        )
    };
    let bare = fuel_of(&program("i")).await;
    let number = (fuel_of(&program("JSON.stringify(i)")).await - bare) / 500.0;
    let object = (fuel_of(&program("JSON.stringify(o)")).await - bare) / 500.0;
    eprintln!("JSON.stringify of a number: {number:.0} fuel; of a small object: {object:.0}");
    assert!(number <= 2_500.0, "{number:.0} fuel a number");
    assert!(object <= 11_000.0, "{object:.0} fuel an object");
}

/// Plain data passed to a binding costs the guest little over its bytes:
/// it is written as a tape of its values, which the host formats as JSON.
/// Per byte of the JSON: at most 12 units of fuel for 10,000 numbers
/// (about 8.2; 28 when the guest wrote their JSON) and 24 for 2,000
/// records (about 19; 37 as JSON).
#[tokio::test]
async fn plain_data_passed_to_a_binding_costs_in_proportion_to_the_bytes() {
    let tools = CodeBindingNamespace::new("tools").function("take", |_| async { Ok(json!(null)) });
    let numbers =
        "const value = []; for (let i = 0; i < 10000; i++) value.push(i % 7 ? i * 1.5 : i);";
    for (name, build, bound) in [("numbers", numbers, 12.0), ("records", RECORDS, 24.0)] {
        let fuel = |argument: &str| {
            let program = format!(
                "{build} await tools.take({argument}); return JSON.stringify(value).length;"
            );
            run_request(CodeRunRequest::new(program).binding(tools.clone()))
        };
        let (passed, baseline) = (fuel("value").await, fuel("null").await);
        let per_byte = fuel_per_counted_byte(&passed, &baseline, &passed);
        eprintln!("{name} passed to a binding: {per_byte:.1} fuel per byte");
        assert!(per_byte <= bound, "{name}: {per_byte:.1} fuel per byte");
    }
}
