//! The Fetch Standard's data classes in the sandbox: Request, Response and
//! FormData, with the Body mixin. `fetch` itself is egress (the host's
//! policy decides), so these build and read payloads only. Conformance in
//! depth is WPT's `fetch/api` and `xhr/formdata` (tests/wpt).

use serde_json::json;

use super::*;

/// Bodies of every kind read back as the standard packages them, with the
/// Content-Type each kind implies, and a body reads only once.
#[tokio::test]
async fn bodies_read_back_as_their_kind_says() {
    let result = run(r#"
        const form = new FormData();
        form.append('name', 'Ada');
        form.append('file', new Blob(['hello'], { type: 'text/plain' }), 'hello.txt');
        const request = new Request('https://api.example.com/items', { method: 'post', body: form });
        const parsed = await request.clone().formData();
        const response = new Response(new URLSearchParams({ q: 'a b' }), { status: 201, statusText: 'Created' });
        const type = response.headers.get('content-type');
        const text = await response.text();
        let again;
        try { await response.text(); } catch (e) { again = e.constructor.name; }
        const fromStream = await new Response(ReadableStream.from([new Uint8Array([104, 105])])).text();
        return {
          method: request.method, multipart: request.headers.get('content-type').startsWith('multipart/form-data; boundary='),
          parsed: [...parsed].map(([k, v]) => [k, typeof v === 'string' ? v : `${v.name} ${v.type} ${v.size}`]),
          type, text, again, used: response.bodyUsed, fromStream,
          json: await Response.json({ a: [1] }).json(),
          bytes: [...await new Response(new Uint8Array([1, 2])).bytes()],
          blob: (await new Response('x', { headers: { 'content-type': 'text/x' } }).blob()).type,
        };
    "#)
    .await;
    assert_ok(&result);
    assert_eq!(
        result.value,
        Some(json!({
            "method": "POST", "multipart": true,
            "parsed": [["name", "Ada"], ["file", "hello.txt text/plain 5"]],
            "type": "application/x-www-form-urlencoded;charset=UTF-8", "text": "q=a+b",
            "again": "TypeError", "used": true, "fromStream": "hi", "json": { "a": [1] },
            "bytes": [1, 2], "blob": "text/x",
        }))
    );
}

/// The errors the standard names, each a TypeError or RangeError with a
/// message that says what to fix.
#[tokio::test]
async fn requests_and_responses_refuse_what_the_standard_refuses() {
    let result = run(r#"
        const attempts = [
          () => new Request('/relative'),
          () => new Request('https://user:pw@example.com/'),
          () => new Request('https://example.com/', { method: 'TRACE' }),
          () => new Request('https://example.com/', { method: 'GET', body: 'x' }),
          () => new Response('x', { status: 99 }),
          () => new Response('x', { status: 204 }),
          () => Response.redirect('https://example.com/', 200),
          () => Response.error().headers.set('a', 'b'),
          () => new FormData().append('f', 'not a blob', 'name.txt'),
        ];
        return attempts.map((attempt) => {
          try { attempt(); return 'no error'; } catch (e) { return e.constructor.name; }
        });
    "#)
    .await;
    assert_ok(&result);
    assert_eq!(
        result.value,
        Some(json!([
            "TypeError",
            "TypeError",
            "TypeError",
            "TypeError",
            "RangeError",
            "TypeError",
            "RangeError",
            "TypeError",
            "TypeError",
        ]))
    );
}

/// `clone()` tees a body as the standards tee a stream, not through
/// `ReadableStream.prototype.tee`, which a program may replace: both the
/// original and the clone read the whole body.
#[tokio::test]
async fn a_clone_does_not_call_a_replaced_public_tee() {
    let result = run(r#"
        ReadableStream.prototype.tee = () => { throw new Error('the replaced tee'); };
        const response = new Response('body text');
        const copy = response.clone();
        const request = new Request('https://example.com/', { method: 'POST', body: 'sent' });
        const again = request.clone();
        return [await response.text(), await copy.text(), await request.text(), await again.text()];
    "#)
    .await;
    assert_ok(&result);
    assert_eq!(
        result.value,
        Some(json!(["body text", "body text", "sent", "sent"]))
    );
}

/// A body read whole before its stream was made (read without one) is used
/// as a streamed one is: `bodyUsed`, a second read and `clone()` refuse,
/// a request built from it refuses, and its `body` is a stream that was
/// read to its end.
#[tokio::test]
async fn a_body_read_whole_is_used_up_as_a_streamed_one_is() {
    let result = run(r#"
        const response = new Response('abc');
        const text = await response.text();
        const again = await response.text().then(() => 'read', (e) => e.name);
        let clone;
        try { response.clone(); clone = 'cloned'; } catch (e) { clone = e.name; }
        const stream = response.body;
        const end = await stream.getReader().read();
        const request = new Request('https://example.com/', { method: 'POST', body: 'x' });
        await request.arrayBuffer();
        let rebuilt;
        try { new Request(request); rebuilt = 'built'; } catch (e) { rebuilt = e.name; }
        const blob = new Blob(['hi']);
        const bytes = await new Response(blob).bytes();
        bytes[0] = 0;
        return { text, used: response.bodyUsed, again, clone, end: end.done, rebuilt,
                 blob: await blob.text() };
    "#)
    .await;
    assert_ok(&result);
    assert_eq!(
        result.value,
        Some(json!({
            "text": "abc", "used": true, "again": "TypeError", "clone": "TypeError",
            "end": true, "rebuilt": "TypeError", "blob": "hi"
        }))
    );
}
