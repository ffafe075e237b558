//! The web platform's globals in the sandbox: URL, encoding, crypto, and
//! the small globals (`self`, `navigator`). Conformance in depth is the Web
//! Platform Tests' (`make wpt`); these pin the behaviour programs lean on
//! and the edges the sandbox adds (lone surrogates, huge inputs).

use serde_json::{Value, json};

use super::*;

/// The value `program` returns; the run must succeed.
async fn value_of(program: &str) -> Value {
    let result = run(program).await;
    assert_ok(&result);
    result.value.unwrap_or(Value::Null)
}

const HEX: &str = "const hex = (buf) => [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, '0')).join('');";

#[tokio::test]
async fn url_parses_against_a_base_and_exposes_every_component() {
    let value = value_of(
        "const u = new URL('../c/d?x=1&y=%20#frag', 'https://user:pw@EXAMPLE.com:8080/a/b/');
         return [u.href, u.origin, u.protocol, u.username, u.password, u.host, u.hostname,
                 u.port, u.pathname, u.search, u.hash, String(u), JSON.stringify({ u })];",
    )
    .await;
    let href = "https://user:pw@example.com:8080/a/c/d?x=1&y=%20#frag";
    assert_eq!(
        value,
        json!([
            href,
            "https://example.com:8080",
            "https:",
            "user",
            "pw",
            "example.com:8080",
            "example.com",
            "8080",
            "/a/c/d",
            "?x=1&y=%20",
            "#frag",
            href,
            format!("{{\"u\":\"{href}\"}}"),
        ])
    );
}

#[tokio::test]
async fn an_invalid_url_throws_a_type_error_that_a_program_can_catch() {
    let value = value_of(
        "let caught;
         try { new URL('not a url'); } catch (e) { caught = [e instanceof TypeError, e.message]; }
         return [caught, URL.canParse('/x'), URL.canParse('/x', 'https://a.example'),
                 URL.parse('nope'), URL.parse('b', 'https://a.example/').href];",
    )
    .await;
    assert_eq!(
        value,
        json!([
            [true, "Invalid URL: not a url"],
            false,
            true,
            null,
            "https://a.example/b"
        ])
    );
}

#[tokio::test]
async fn url_setters_and_search_params_stay_in_step() {
    let value = value_of(
        "const u = new URL('https://example.com/p?a=1&b=2');
         const params = u.searchParams;
         params.append('c', 'x y');
         params.delete('a');
         const afterParams = u.href;
         u.search = '?z=9';
         const seen = params.get('z');
         u.port = '8443';
         u.hostname = 'other.example';
         u.protocol = 'http';
         u.hash = 'top';
         return [afterParams, seen, u.href, params.size];",
    )
    .await;
    assert_eq!(
        value,
        json!([
            "https://example.com/p?b=2&c=x+y",
            "9",
            "http://other.example:8443/p?z=9#top",
            1
        ])
    );
}

#[tokio::test]
async fn url_search_params_parse_sort_iterate_and_serialise() {
    let value = value_of(
        "const p = new URLSearchParams('?q=a+b&z=%C3%A9&q=2&empty=');
         const fromRecord = new URLSearchParams({ b: '1', a: '2' });
         const fromPairs = new URLSearchParams([['k', 'v'], ['k', 'w']]);
         p.sort();
         fromPairs.set('k', 'only');
         return [p.toString(), p.getAll('q'), p.get('z'), p.has('empty'), p.has('missing'),
                 [...p.keys()], [...fromRecord], fromPairs.toString(), String(new URLSearchParams('a=b&c'))];",
    )
    .await;
    assert_eq!(
        value,
        json!([
            "empty=&q=a+b&q=2&z=%C3%A9",
            ["a b", "2"],
            "é",
            true,
            false,
            ["empty", "q", "q", "z"],
            [["b", "1"], ["a", "2"]],
            "k=only",
            "a=b&c="
        ])
    );
}

#[tokio::test]
async fn a_lone_surrogate_in_a_url_becomes_the_replacement_character() {
    let value = value_of("return new URL('https://example.com/\\uD800?\\uDC00').href;").await;
    assert_eq!(value, json!("https://example.com/%EF%BF%BD?%EF%BF%BD"));
}

#[tokio::test]
async fn text_encoder_writes_utf8_and_replaces_lone_surrogates() {
    let value = value_of(
        "const enc = new TextEncoder();
         const into = new Uint8Array(5);
         const { read, written } = enc.encodeInto('aé😀', into);
         return [enc.encoding, [...enc.encode('aé😀\\uD800')], read, written, [...into]];",
    )
    .await;
    assert_eq!(
        value,
        json!([
            "utf-8",
            [97, 195, 169, 240, 159, 152, 128, 239, 191, 189],
            2,
            3,
            [97, 195, 169, 0, 0]
        ])
    );
}

#[tokio::test]
async fn text_decoder_decodes_the_standard_encodings() {
    let value = value_of(
        "const bytes = (...b) => new Uint8Array(b);
         return [
           new TextDecoder().decode(bytes(0xEF, 0xBB, 0xBF, 0x68, 0xC3, 0xA9)),
           new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes(0xEF, 0xBB, 0xBF, 0x68)).length,
           new TextDecoder('utf-16le').decode(bytes(0x68, 0x00, 0x3D, 0xD8, 0x00, 0xDE)),
           new TextDecoder('UTF-16BE').decode(bytes(0x00, 0x68)),
           new TextDecoder('latin1').encoding,
           new TextDecoder('windows-1252').decode(bytes(0x80, 0xE9)),
           new TextDecoder('shift_jis').decode(bytes(0x82, 0xA0)),
           new TextDecoder().decode(bytes(0xFF, 0x61)),
           new TextDecoder().decode(new Uint8Array([0x61, 0x62, 0x63]).subarray(1)),
           new TextDecoder().decode(new Uint8Array([0x61]).buffer),
         ];",
    )
    .await;
    assert_eq!(
        value,
        json!([
            "hé",
            2,
            "h😀",
            "h",
            "windows-1252",
            "€é",
            "あ",
            "\u{FFFD}a",
            "bc",
            "a"
        ])
    );
}

#[tokio::test]
async fn text_decoder_streams_a_character_split_across_chunks() {
    let value = value_of(
        "const d = new TextDecoder();
         const euro = [0xE2, 0x82, 0xAC];
         const parts = [d.decode(new Uint8Array(euro.slice(0, 1)), { stream: true }),
                        d.decode(new Uint8Array(euro.slice(1)), { stream: true }),
                        d.decode(new Uint8Array([0xE2]), { stream: true }),
                        d.decode()];
         return parts;",
    )
    .await;
    assert_eq!(value, json!(["", "€", "", "\u{FFFD}"]));
}

#[tokio::test]
async fn text_decoder_errors_are_the_standards() {
    let value = value_of(
        "const name = (f) => { try { f(); return 'no error'; } catch (e) { return e.constructor.name; } };
         return [
           name(() => new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array([0xC3]))),
           name(() => new TextDecoder('no-such-encoding')),
           name(() => new TextDecoder('replacement')),
           name(() => new TextDecoder().decode('a string')),
           name(() => new TextEncoder().encodeInto('a', [])),
         ];",
    )
    .await;
    assert_eq!(
        value,
        json!([
            "TypeError",
            "RangeError",
            "RangeError",
            "TypeError",
            "TypeError"
        ])
    );
}

#[tokio::test]
async fn subtle_digest_gives_the_standard_vectors() {
    let program = format!(
        "{HEX}
         const abc = new TextEncoder().encode('abc');
         const out = [];
         for (const alg of ['SHA-1', 'sha-256', {{ name: 'SHA-384' }}, 'SHA-512']) {{
           out.push(hex(await crypto.subtle.digest(alg, abc)));
         }}
         try {{ await crypto.subtle.digest('MD5', abc); }} catch (e) {{ out.push(e.name); }}
         return out;"
    );
    let value = value_of(&program).await;
    assert_eq!(
        value,
        json!([
            "a9993e364706816aba3e25717850c26c9cd0d89d",
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
            "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7",
            "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
            "NotSupportedError"
        ])
    );
}

#[tokio::test]
async fn subtle_hmac_signs_and_verifies() {
    // RFC 4231, test case 2.
    let program = format!(
        "{HEX}
         const te = new TextEncoder();
         const key = await crypto.subtle.importKey('raw', te.encode('Jefe'),
           {{ name: 'HMAC', hash: 'SHA-256' }}, false, ['sign', 'verify']);
         const data = te.encode('what do ya want for nothing?');
         const tag = await crypto.subtle.sign('HMAC', key, data);
         const forged = new Uint8Array(tag.slice(0)); forged[0] ^= 1;
         let exported;
         try {{ await crypto.subtle.exportKey('raw', key); }} catch (e) {{ exported = e.name; }}
         return [hex(tag), await crypto.subtle.verify('HMAC', key, tag, data),
                 await crypto.subtle.verify('HMAC', key, forged, data),
                 key.type, key.algorithm.hash.name, key.algorithm.length, exported];"
    );
    let value = value_of(&program).await;
    assert_eq!(
        value,
        json!([
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
            true,
            false,
            "secret",
            "SHA-256",
            32,
            "InvalidAccessError"
        ])
    );
}

#[tokio::test]
async fn get_random_values_throws_the_specified_dom_exceptions() {
    let value = value_of(
        "const name = (f) => { try { f(); return 'no error'; } catch (e) { return e.name; } };
         return [name(() => crypto.getRandomValues(new Float64Array(1))),
                 name(() => crypto.getRandomValues(new Uint8Array(65537))),
                 crypto.getRandomValues(new Uint8Array(65536)).length,
                 /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(crypto.randomUUID())];",
    )
    .await;
    assert_eq!(
        value,
        json!(["TypeMismatchError", "QuotaExceededError", 65536, true])
    );
}

#[tokio::test]
async fn self_and_navigator_are_there() {
    let value = value_of(
        "return [self === globalThis, navigator.language, navigator.hardwareConcurrency,
                 typeof navigator.userAgent, Object.keys(globalThis).includes('URL')];",
    )
    .await;
    assert_eq!(value, json!([true, "en-US", 1, "string", false]));
}

#[tokio::test]
async fn megabytes_of_url_and_text_input_stay_within_the_budgets() {
    // Parsing and decoding are linear: a few megabytes is a bounded amount
    // of guest work, and the host does none of it.
    let value = value_of(
        "const long = 'https://example.com/' + 'a/'.repeat(1 << 20);
         const u = new URL(long);
         const bytes = new TextEncoder().encode('é'.repeat(1 << 20));
         const text = new TextDecoder().decode(bytes);
         let bad;
         try { new URL('http://' + 'x'.repeat(1 << 21) + ':99999'); } catch (e) { bad = e.constructor.name; }
         return [u.pathname.length, bytes.length, text.length, bad];",
    )
    .await;
    assert_eq!(
        value,
        json!([2 * (1 << 20) + 1, 2 << 20, 1 << 20, "TypeError"])
    );
}

#[tokio::test]
async fn a_deterministic_run_of_the_web_apis_repeats_byte_for_byte() {
    let program = format!(
        "{HEX}
         const u = new URL('/a?b=' + crypto.randomUUID(), 'https://example.com');
         u.searchParams.append('n', String(Math.random()));
         const bytes = crypto.getRandomValues(new Uint8Array(16));
         const digest = hex(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(u.href)));
         const key = await crypto.subtle.generateKey({{ name: 'HMAC', hash: 'SHA-256' }}, true, ['sign']);
         const raw = hex(await crypto.subtle.exportKey('raw', key));
         performance.mark('a');
         await new Promise((resolve) => setTimeout(resolve, 25));
         const measured = performance.measure('wait', 'a').duration;
         console.log(u.href, new TextDecoder().decode(bytes.subarray(0, 4)));
         return {{ href: u.href, bytes: hex(bytes), digest, raw, measured, origin: performance.timeOrigin }};"
    );
    let once =
        || run_request(CodeRunRequest::new(program.clone()).deterministic(7, 1_767_225_600_000));
    let first = once().await;
    assert_ok(&first);
    for _ in 0..99 {
        let again = once().await;
        assert_eq!(again.value, first.value);
        assert_eq!(again.value_display, first.value_display);
        assert_eq!(again.logs, first.logs);
        assert_eq!(again.fuel_consumed, first.fuel_consumed);
    }
    // The virtual clock advanced by the timer alone.
    assert_eq!(
        first.value.as_ref().map(|v| v["measured"].clone()),
        Some(json!(25))
    );
}

#[tokio::test]
async fn events_dispatch_in_order_and_a_listener_error_is_reported_not_thrown() {
    let result = run(
        "const target = new EventTarget();
         const seen = [];
         target.addEventListener('ping', (e) => seen.push(['first', e.type, e.detail]));
         target.addEventListener('ping', { handleEvent: () => { throw new Error('listener broke'); } });
         target.addEventListener('ping', () => seen.push(['once']), { once: true });
         const event = new CustomEvent('ping', { detail: 7, cancelable: true });
         target.addEventListener('ping', (e) => e.preventDefault());
         const notCancelled = target.dispatchEvent(event);
         target.dispatchEvent(new CustomEvent('ping', { detail: 8 }));
         return [seen, notCancelled, event.defaultPrevented, typeof addEventListener];",
    )
    .await;
    assert_ok(&result);
    assert_eq!(
        result.value,
        Some(json!([
            [["first", "ping", 7], ["once"], ["first", "ping", 8]],
            false,
            true,
            "function"
        ]))
    );
    assert_eq!(result.logs.len(), 2, "{:?}", result.logs);
    assert!(result.logs[0].text.starts_with("Error: listener broke"));
}

#[tokio::test]
async fn abort_signals_abort_time_out_on_the_run_clock_and_combine() {
    let result = run_request(
        CodeRunRequest::new(
            "const controller = new AbortController();
             const any = AbortSignal.any([controller.signal, AbortSignal.timeout(10_000)]);
             const reasons = [];
             any.addEventListener('abort', () => reasons.push(String(any.reason)));
             controller.abort('stop');
             let thrown;
             try { controller.signal.throwIfAborted(); } catch (e) { thrown = e; }
             const timeout = AbortSignal.timeout(50);
             const started = Date.now();
             await new Promise((resolve) => timeout.onabort = resolve);
             return [reasons, thrown, timeout.reason.name, Date.now() - started,
                     AbortSignal.abort().reason.name, new AbortController().signal.aborted];",
        )
        .deterministic(1, 1_767_225_600_000),
    )
    .await;
    assert_ok(&result);
    assert_eq!(
        result.value,
        Some(json!([
            ["stop"],
            "stop",
            "TimeoutError",
            50,
            "AbortError",
            false
        ]))
    );
}

#[tokio::test]
async fn structured_clone_keeps_types_cycles_and_shared_references() {
    let value = value_of(
        "const shared = { n: 1 };
         const source = { when: new Date(0), re: /a+/gi, map: new Map([[1, shared]]), set: new Set([shared]),
                          bytes: new Uint8Array([1, 2, 3]), big: 10n, err: new RangeError('r', { cause: shared }) };
         source.self = source;
         const copy = structuredClone(source);
         let refused;
         try { structuredClone({ f() {} }); } catch (e) { refused = [e.name, e instanceof DOMException]; }
         return [copy !== source, copy.self === copy, copy.when instanceof Date, copy.when.getTime(),
                 String(copy.re), copy.map.get(1) === [...copy.set][0], copy.map.get(1) !== shared,
                 [...copy.bytes], typeof copy.big, copy.err instanceof RangeError, copy.err.cause.n, refused];",
    )
    .await;
    assert_eq!(
        value,
        json!([
            true,
            true,
            true,
            0,
            "/a+/gi",
            true,
            true,
            [1, 2, 3],
            "bigint",
            true,
            1,
            ["DataCloneError", true]
        ])
    );
}

#[tokio::test]
async fn blob_and_file_hold_bytes_slice_and_clone() {
    let value = value_of(
        "const blob = new Blob(['héllo ', new Uint8Array([119, 111]), new Blob(['rld'])], { type: 'Text/Plain' });
         const file = new File([blob], 'greeting.txt', { lastModified: 42 });
         const cloned = structuredClone(file);
         return [blob.size, blob.type, await blob.text(), await blob.slice(-5, -2).text(),
                 await blob.slice(0.5, 3.5).text(), file.name, file.lastModified, file instanceof Blob,
                 cloned instanceof File, cloned.name, await cloned.text(), [...await new Blob(['ab']).bytes()]];",
    )
    .await;
    assert_eq!(
        value,
        json!([
            12,
            "text/plain",
            "héllo world",
            "wor",
            "hél",
            "greeting.txt",
            42,
            true,
            true,
            "greeting.txt",
            "héllo world",
            [97, 98]
        ])
    );
}

#[tokio::test]
async fn a_deeply_nested_clone_walks_a_work_list_not_the_stack() {
    // 10,000 levels is past what a recursive clone could take on the
    // guest's stack; the clone walks a work list instead.
    let value = value_of(
        "let deep = [];
         for (let i = 0; i < 10000; i++) deep = [deep];
         let copy = structuredClone(deep), depth = 0;
         while (copy.length) { copy = copy[0]; depth++; }
         return depth;",
    )
    .await;
    assert_eq!(value, json!(10000));
}

#[tokio::test]
async fn a_table_of_a_million_rows_prints_a_bounded_number_of_them() {
    let result = run("console.table(Array.from({ length: 1000000 }, (_, i) => ({ i })));").await;
    assert_ok(&result);
    let table = &result.logs[0].text;
    assert!(
        table.len() < 200_000 && table.contains("999000 more rows"),
        "{} bytes: …{}",
        table.len(),
        &table[table.len().saturating_sub(200)..]
    );
}

#[tokio::test]
async fn promise_any_rejects_with_nodes_message() {
    let result = run(
        "try { await Promise.any([Promise.reject(new Error('a')), Promise.reject(2)]); }
         catch (e) { return [e instanceof AggregateError, e.message, e.errors.length, String(e)]; }",
    )
    .await;
    assert_ok(&result);
    assert_eq!(
        result.value,
        Some(json!([
            true,
            "All promises were rejected",
            2,
            "AggregateError: All promises were rejected"
        ]))
    );
}

/// `Headers` as the Fetch Standard's data class: names compared without
/// case, values trimmed and validated, iteration sorted and combined with
/// each `set-cookie` apart, and the errors the standard names.
#[tokio::test]
async fn headers_follow_the_fetch_standard() {
    let result = run(r#"
        const h = new Headers({ 'Content-Type': ' text/plain\t', Accept: 'a' });
        h.append('accept', 'b');
        h.append('Set-Cookie', 'x=1');
        h.append('set-cookie', 'y=2');
        h.set('X-Trace', 'one');
        h.set('x-trace', 'two');
        const errors = [];
        for (const bad of [() => h.append('bad name', 'v'), () => h.set('x', 'a\nb'),
                           () => h.get('é\u0100'), () => new Headers([['only-one']]), () => new Headers(5)]) {
          try { bad(); errors.push('no error'); } catch (e) { errors.push(e.constructor.name); }
        }
        const copy = new Headers(h);
        copy.delete('ACCEPT');
        const seen = [];
        h.forEach((value, name) => seen.push(`${name}=${value}`));
        return {
          type: h.get('content-type'), accept: h.get('ACCEPT'), missing: h.get('none'),
          cookies: h.getSetCookie(), trace: h.get('x-trace'), has: [h.has('Accept'), copy.has('accept')],
          entries: [...h], keys: [...copy.keys()], seen, errors, tag: Object.prototype.toString.call(h),
        };
    "#)
    .await;
    assert_ok(&result);
    assert_eq!(
        result.value,
        Some(json!({
            "type": "text/plain", "accept": "a, b", "missing": null,
            "cookies": ["x=1", "y=2"], "trace": "two", "has": [true, false],
            "entries": [["accept", "a, b"], ["content-type", "text/plain"], ["set-cookie", "x=1"],
                        ["set-cookie", "y=2"], ["x-trace", "two"]],
            "keys": ["content-type", "set-cookie", "set-cookie", "x-trace"],
            "seen": ["accept=a, b", "content-type=text/plain", "set-cookie=x=1", "set-cookie=y=2", "x-trace=two"],
            "errors": ["TypeError", "TypeError", "TypeError", "TypeError", "TypeError"],
            "tag": "[object Headers]",
        }))
    );
}

/// Reading or setting a property of `null` or `undefined` throws Node's
/// message, which names the property (the project's QuickJS patch).
#[tokio::test(flavor = "multi_thread")]
async fn a_call_of_what_is_not_a_function_names_the_callee_as_v8_does() {
    // Each attempt fails at its last call; the callee is named as V8 names
    // it, rebuilt from the bytecode on the error path (QuickJS's own message
    // is a bare "not a function").
    let result = run(r#"
        const o = { a: {}, list: [1], n: 5 };
        function make() { return {}; }
        const arrow = () => 1;
        const messages = [];
        const attempts = [
          () => console.table2([1]),
          () => o.a.missing(1, 2),
          () => { const local = 5; local(); },
          () => { let u; u(); },
          (cb) => cb(),
          () => make().then(),
          () => o.list[0](),
          () => o["quoted"](),
          () => { const k = "key"; o[k](); },
          () => o?.missing(),
          () => o.missing(o.n ? [...o.list] : `${o.n}`, o.n && 2, o.n ?? 3),
          () => { for (const x of [1]) { if (x) o.inLoop(x); } },
          () => new arrow(),
          () => new o.a.Klass(),
          () => (o.n ? o.a : o.list)(),
          () => [1].map(undefined),
          () => [1].forEach(null),
          () => o.x.y.z.w.v.u.t.s.r.q.p.o.n.m(),
        ];
        o.x = [..."yzwvutsrqpon"].reduceRight((inner, key) => ({ [key]: inner }), {});
        for (const attempt of attempts) {
          try { attempt(); messages.push("no error"); }
          catch (e) { messages.push(`${e.name}: ${e.message}`); }
        }
        return messages;
    "#)
    .await;
    assert_ok(&result);
    assert_eq!(
        result.value,
        Some(json!([
            "TypeError: console.table2 is not a function",
            "TypeError: o.a.missing is not a function",
            "TypeError: local is not a function",
            "TypeError: u is not a function",
            "TypeError: cb is not a function",
            "TypeError: make(...).then is not a function",
            "TypeError: o.list[0] is not a function",
            "TypeError: o.quoted is not a function",
            "TypeError: o[k] is not a function",
            "TypeError: o.missing is not a function",
            "TypeError: o.missing is not a function",
            "TypeError: o.inLoop is not a function",
            "TypeError: arrow is not a constructor",
            "TypeError: o.a.Klass is not a constructor",
            // either arm may have run: no name rather than a wrong one
            "TypeError: not a function",
            "TypeError: undefined is not a function",
            "TypeError: null is not a function",
            "TypeError: o.x.y.z.w.v.u.t.s.r.q.p.o.n.m is not a function",
        ]))
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_callee_name_is_bounded_whatever_the_program_writes() {
    // A megabyte-long property name, a lone surrogate and a NUL: the name is
    // cut to 200 bytes on a character boundary and marked, and the message
    // stays well formed.
    let result = run(r#"
        const o = {};
        const long = "p".repeat(1 << 20);
        const messages = [];
        try { eval(`o.${long}()`); } catch (e) { messages.push(e.message); }
        try { o["\ud800"](); } catch (e) { messages.push(e.message); }
        try { o["a\u0000b"](); } catch (e) { messages.push(e.message); }
        return [messages[0].length, messages[0].slice(0, 6), messages[0].slice(-24),
                messages[1], messages[2]];
    "#)
    .await;
    assert_ok(&result);
    assert_eq!(
        result.value,
        Some(json!([
            219,
            "o.pppp",
            "ppppp\u{2026} is not a function",
            "o.\u{fffd} is not a function",
            "o.a is not a function",
        ]))
    );
}

#[tokio::test]
async fn a_property_of_undefined_is_named_as_node_names_it() {
    let result = run(r#"
        const messages = [];
        for (const attempt of [() => { const o = {}; return o.missing.inner; }, () => null.y,
                               () => { let u; u.x = 1; }, () => { null.z = 2; }]) {
          try { attempt(); } catch (e) { messages.push(`${e.name}: ${e.message}`); }
        }
        return messages;
    "#)
    .await;
    assert_ok(&result);
    assert_eq!(
        result.value,
        Some(json!([
            "TypeError: Cannot read properties of undefined (reading 'inner')",
            "TypeError: Cannot read properties of null (reading 'y')",
            "TypeError: Cannot set properties of undefined (setting 'x')",
            "TypeError: Cannot set properties of null (setting 'z')",
        ]))
    );
}

/// The platform's functions keep no source text (the snapshot would hold
/// each module's text once per nesting level): they print as native code,
/// its classes still as classes; a program's own functions keep theirs.
#[tokio::test]
async fn platform_functions_print_as_native_code() {
    let result = run(r#"
        class Mine { m() { return 1; } }
        return [String(URL), String(console.log), String(ReadableStream.prototype.getReader), String(Mine)];
    "#)
    .await;
    assert_ok(&result);
    assert_eq!(
        result.value,
        Some(json!([
            "class URL { [native code] }",
            "function log() {\n    [native code]\n}",
            "function getReader() {\n    [native code]\n}",
            "class Mine { m() { return 1; } }",
        ]))
    );
}

/// A PerformanceObserver sees the marks and measures made after it
/// observes, in a task of their own, and a buffered one those made before.
#[tokio::test]
async fn a_performance_observer_sees_marks_and_measures() {
    let result = run(r#"
        performance.mark('early');
        const seen = [];
        const done = new Promise((resolve) => {
          new PerformanceObserver((list, observer) => {
            seen.push(...list.getEntries().map((e) => `${e.entryType}:${e.name}`));
            if (seen.length >= 3) { observer.disconnect(); resolve(); }
          }).observe({ type: 'mark', buffered: true });
        });
        const measures = new PerformanceObserver((list) => seen.push(`measures:${list.getEntries().length}`));
        measures.observe({ entryTypes: ['measure'] });
        performance.mark('a');
        performance.mark('b');
        performance.measure('a-b', 'a', 'b');
        await done;
        let mixed;
        try { measures.observe({ type: 'mark' }); } catch (e) { mixed = e.name; }
        return { seen, mixed, types: PerformanceObserver.supportedEntryTypes };
    "#)
    .await;
    assert_ok(&result);
    assert_eq!(
        result.value,
        Some(json!({
            "seen": ["mark:early", "mark:a", "mark:b", "measures:1"],
            "mixed": "InvalidModificationError",
            "types": ["mark", "measure"],
        }))
    );
}
