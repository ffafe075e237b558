//! The hot functions' export, against the committed guest.

use super::*;

fn committed() -> Vec<u8> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../coderun-guest/coderun-guest.wasm"
    );
    std::fs::read(path).expect("the committed guest")
}

fn listed() -> Vec<String> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../",
        "guest-js-engine/hot-functions.txt"
    );
    std::fs::read_to_string(path)
        .expect("the hot list")
        .lines()
        .map(|line| line.split('#').next().unwrap_or_default().trim().to_owned())
        .filter(|line| !line.is_empty())
        .collect()
}

/// In the committed guest, the listed functions are named, in the list's
/// order, right after the imports and the component's own exports.
#[test]
fn the_committed_guest_names_its_hot_functions_before_the_table() {
    let names = escaped_names(&committed()).expect("the escape order");
    let listed = listed();
    assert!(listed.len() >= 10, "a list of {} functions", listed.len());
    let first = names
        .iter()
        .position(|name| listed.contains(name))
        .expect("a listed function");
    assert_eq!(names[first..first + listed.len()], listed[..]);
    assert!(
        first < 40,
        "{first} functions named before the hot ones: {:?}",
        &names[..first]
    );
}

#[test]
fn exporting_the_list_again_changes_nothing_and_names_what_is_missing() {
    let guest = committed();
    let list = format!(
        "# a comment\n{}\nno_such_function # gone\n",
        listed().join("\n")
    );
    let (bytes, report) = export_hot(&guest, &list).expect("exported");
    assert_eq!(report.exported, 0);
    assert_eq!(report.missing, ["no_such_function"]);
    assert!(bytes == guest, "the component changed");
}

#[test]
fn functions_added_to_the_list_are_named_next_in_its_order() {
    let guest = committed();
    let names = escaped_names(&guest).expect("the escape order");
    // The table's last two functions: named last until exported.
    let extra = [&names[names.len() - 1], &names[names.len() - 2]];
    let list = format!("{}\n{}\n", extra[0], extra[1]);
    let (bytes, report) = export_hot(&guest, &list).expect("exported");
    assert_eq!(report.exported, 2);
    let after = escaped_names(&bytes).expect("the escape order");
    assert_eq!(after.len(), names.len());
    let at = after
        .iter()
        .position(|name| name == extra[0])
        .expect("exported");
    assert_eq!(after[at + 1], *extra[1]);
    let listed = listed();
    assert_eq!(after[at - 1], *listed.last().expect("a list"));
}

#[test]
fn a_rust_name_whose_hash_moved_is_found_by_the_rest() {
    let guest = committed();
    let (sections, at) = main_module(&guest).expect("a core module");
    let module = &guest[sections[at].body.clone()];
    let all = function_names(module, &self::sections(module, 8).expect("sections")).expect("names");
    let stems: Vec<&str> = all.keys().filter_map(|name| without_hash(name)).collect();
    let listed = listed();
    // A Rust function of the table, not listed, the only one of its
    // name without the hash.
    let names = escaped_names(&guest).expect("the escape order");
    let name = names
        .iter()
        .rev()
        .find(|name| {
            !listed.contains(name)
                && without_hash(name)
                    .is_some_and(|stem| stems.iter().filter(|s| **s == stem).count() == 1)
        })
        .expect("such a function");
    let moved = format!(
        "{}17h0123456789abcdefE",
        without_hash(name).expect("a stem")
    );
    let (_, report) = export_hot(&guest, &moved).expect("exported");
    assert_eq!(report.exported, 1, "{moved}");
    assert!(report.missing.is_empty());
    assert_eq!(without_hash("js_call_c_function"), None);
    assert_eq!(without_hash("_ZN3foo17hnothexdigitsnoE"), None);
}

#[test]
fn a_malformed_binary_is_an_error() {
    let guest = committed();
    for bytes in [
        &b""[..],
        b"\0asm\x01\x00\x00\x00",
        b"\0asm\x0d\x00\x01\x00",
        b"\0asm\x0d\x00\x01\x00\x01\xff\xff\xff\xff\x0f",
        &guest[..guest.len() / 2],
    ] {
        assert!(export_hot(bytes, "js_call_c_function").is_err());
        assert!(escaped_names(bytes).is_err());
    }
}
