//! The Streams Standard in the sandbox: readable, byte, writable and
//! transform streams, piping, and the platform's streams (Blob.stream(),
//! TextEncoderStream, TextDecoderStream). Conformance in depth is WPT's
//! `streams/` (tests/wpt); these pin the behaviours programs lean on.

use serde_json::json;

use super::*;

/// A pipe chain: a stream from an iterable, through a transform, into a
/// sink; async iteration; tee; the queuing strategies.
#[tokio::test]
async fn a_pipe_chain_moves_every_chunk_in_order() {
    let result = run(r#"
        const written = [];
        const upper = new TransformStream({
          transform(chunk, controller) { controller.enqueue(chunk.toUpperCase()); },
          flush(controller) { controller.enqueue('!'); },
        });
        await ReadableStream.from(['a', 'b', 'c']).pipeThrough(upper)
          .pipeTo(new WritableStream({ write(chunk) { written.push(chunk); } }));
        const [left, right] = new ReadableStream({
          start(c) { c.enqueue(1); c.enqueue(2); c.close(); },
        }).tee();
        const both = [];
        for await (const x of left) both.push(x);
        for await (const x of right) both.push(x * 10);
        const strategy = new ByteLengthQueuingStrategy({ highWaterMark: 16 });
        return { written, both, size: strategy.size(new Uint8Array(5)), hwm: strategy.highWaterMark };
    "#)
    .await;
    assert_ok(&result);
    assert_eq!(
        result.value,
        Some(
            json!({ "written": ["A", "B", "C", "!"], "both": [1, 2, 10, 20], "size": 5, "hwm": 16 })
        )
    );
}

/// The tee of a byte stream: both branches read every byte, the second
/// branch a copy (what is written into one branch's chunk is not in the
/// other's), and a branch read with a BYOB reader and `min` waits for
/// enough bytes across the source's chunks.
#[tokio::test]
async fn a_byte_stream_tees_into_branches_of_their_own_bytes() {
    let result = run(r#"
        const source = new ReadableStream({
          type: 'bytes',
          start(c) {
            c.enqueue(new Uint8Array([1, 2, 3]));
            c.enqueue(new Uint8Array([4, 5]));
            c.close();
          },
        });
        const [left, right] = source.tee();
        const reader = left.getReader();
        const first = await reader.read();
        first.value[0] = 99;
        const byob = right.getReader({ mode: 'byob' });
        const filled = await byob.read(new Uint8Array(8), { min: 5 });
        const second = await reader.read();
        const end = await reader.read();
        return { first: [...first.value], right: [...filled.value], second: [...second.value],
                 done: end.done, kinds: [left.constructor.name, right.constructor.name] };
    "#)
    .await;
    assert_ok(&result);
    assert_eq!(
        result.value,
        Some(json!({
            "first": [99, 2, 3], "right": [1, 2, 3, 4, 5], "second": [4, 5], "done": true,
            "kinds": ["ReadableStream", "ReadableStream"],
        }))
    );
}

/// A tee's branches end together, for a default and for a byte stream:
/// cancelling one branch leaves the source alone and its promise pending;
/// cancelling the other cancels the source once, with both reasons, and
/// settles both. A source that errors errors both branches, and settles a
/// cancel that was waiting for the other branch.
#[tokio::test]
async fn a_tees_branches_cancel_and_error_together() {
    let result = run(r#"
        const outcome = {};
        for (const type of [undefined, 'bytes']) {
          const reasons = [];
          const source = new ReadableStream({ type, cancel(reason) { reasons.push(reason); } });
          const [left, right] = source.tee();
          let leftDone = false;
          const leftCancel = left.cancel('one').then(() => { leftDone = true; });
          await Promise.resolve();
          const before = { leftDone, reasons: reasons.length };
          await right.cancel('two');
          await leftCancel;

          let fail;
          const failing = new ReadableStream({ type, start(c) { fail = (e) => c.error(e); } });
          const [a, b] = failing.tee();
          const aCancel = a.cancel('only a');
          fail(new TypeError('broken'));
          await aCancel;
          const errors = [await b.getReader().read().then(() => 'read', (e) => e.message)];
          outcome[type ?? 'default'] = { before, reasons, leftDone, errors };
        }
        return outcome;
    "#)
    .await;
    assert_ok(&result);
    let each = json!({
        "before": { "leftDone": false, "reasons": 0 },
        "reasons": [["one", "two"]],
        "leftDone": true,
        "errors": ["broken"],
    });
    assert_eq!(
        result.value,
        Some(json!({ "default": each.clone(), "bytes": each }))
    );
}

/// Backpressure: a writer's desiredSize and ready follow the sink, and a
/// source is pulled only while its queue is below the high-water mark.
#[tokio::test]
async fn backpressure_holds_writers_and_sources_back() {
    let result = run(r#"
        let release;
        const ws = new WritableStream({
          write() { return new Promise((resolve) => { release = resolve; }); },
        }, new CountQueuingStrategy({ highWaterMark: 2 }));
        const writer = ws.getWriter();
        const sizes = [writer.desiredSize];
        writer.write('a');
        writer.write('b');
        sizes.push(writer.desiredSize);
        await Promise.resolve();
        release();
        await new Promise((resolve) => setTimeout(resolve, 0));
        sizes.push(writer.desiredSize);
        let pulls = 0;
        const rs = new ReadableStream({ pull(c) { pulls++; c.enqueue(pulls); } },
                                      new CountQueuingStrategy({ highWaterMark: 3 }));
        await new Promise((resolve) => setTimeout(resolve, 0));
        const before = pulls;
        await rs.getReader().read();
        await new Promise((resolve) => setTimeout(resolve, 0));
        return { sizes, before, after: pulls };
    "#)
    .await;
    assert_ok(&result);
    assert_eq!(
        result.value,
        Some(json!({ "sizes": [2, 0, 1], "before": 3, "after": 4 }))
    );
}

/// Byte streams: a BYOB reader fills the caller's view, the view's buffer
/// changes hands, and `min` waits for enough bytes.
#[tokio::test]
async fn a_byob_reader_fills_the_callers_buffer() {
    let result = run(r#"
        let n = 0;
        const stream = new ReadableStream({
          type: 'bytes',
          pull(c) { n++; c.enqueue(new Uint8Array([n])); if (n === 5) c.close(); },
        });
        const reader = stream.getReader({ mode: 'byob' });
        const buffer = new ArrayBuffer(8);
        const first = await reader.read(new Uint8Array(buffer), { min: 3 });
        const firstBytes = [...first.value];
        // The view handed back is reused for the next read: its buffer moves on.
        const rest = await reader.read(new Uint8Array(first.value.buffer, 3, 5));
        const last = await reader.read(new Uint8Array(4));
        const end = await reader.read(new Uint8Array(4));
        const blob = [];
        for await (const chunk of new Blob(['hé']).stream()) blob.push(...chunk);
        return {
          first: firstBytes, detached: buffer.detached, rest: [...rest.value], last: [...last.value],
          done: end.done, blob,
        };
    "#)
    .await;
    assert_ok(&result);
    assert_eq!(
        result.value,
        Some(json!({
            "first": [1, 2, 3], "detached": true, "rest": [4], "last": [5], "done": true, "blob": [104, 195, 169],
        }))
    );
}

/// Text streams keep a character split across chunks whole, both ways.
#[tokio::test]
async fn text_streams_keep_split_characters_whole() {
    let result = run(r#"
        const decoded = [];
        const bytes = [new Uint8Array([0xe2, 0x82]), new Uint8Array([0xac, 0x41]), new Uint8Array([0xf0])];
        for await (const text of ReadableStream.from(bytes).pipeThrough(new TextDecoderStream())) decoded.push(text);
        const encoded = [];
        for await (const chunk of ReadableStream.from(['a\ud83d', '\ude00', '\ud800'])
            .pipeThrough(new TextEncoderStream())) encoded.push([...chunk]);
        let fatal;
        try {
          for await (const _ of ReadableStream.from([new Uint8Array([0xff])])
              .pipeThrough(new TextDecoderStream('utf-8', { fatal: true }))) {}
        } catch (e) { fatal = e.name; }
        return { decoded, encoded, fatal };
    "#)
    .await;
    assert_ok(&result);
    assert_eq!(
        result.value,
        Some(json!({
            "decoded": ["€A", "\u{fffd}"],
            "encoded": [[97], [240, 159, 152, 128], [239, 191, 189]],
            "fatal": "TypeError",
        }))
    );
}

/// Errors and aborts travel the pipe: a signal aborts both ends with its
/// reason, an erroring sink cancels the source.
#[tokio::test]
async fn a_pipe_carries_errors_and_aborts_both_ways() {
    let result = run(r#"
        const controller = new AbortController();
        let canceled;
        const source = new ReadableStream({ pull(c) { c.enqueue('x'); }, cancel(r) { canceled = r; } });
        const piped = source.pipeTo(new WritableStream(), { signal: controller.signal });
        controller.abort(new Error('stop'));
        let aborted;
        try { await piped; } catch (e) { aborted = e.message; }
        let sourceCanceled;
        const failing = new WritableStream({ write() { throw new Error('sink broke'); } });
        let piping;
        try {
          await new ReadableStream({ pull(c) { c.enqueue(1); }, cancel(r) { sourceCanceled = r.message; } })
            .pipeTo(failing);
        } catch (e) { piping = e.message; }
        return { aborted, canceled: canceled.message, piping, sourceCanceled };
    "#)
    .await;
    assert_ok(&result);
    assert_eq!(
        result.value,
        Some(
            json!({ "aborted": "stop", "canceled": "stop", "piping": "sink broke", "sourceCanceled": "sink broke" })
        )
    );
}

/// A program that queues without reading holds memory the run's cap
/// bounds: the run fails with a clear error, the host stays up.
#[tokio::test]
async fn an_endless_queue_ends_at_the_memory_cap() {
    let runtime = runtime_with(|config| {
        config.max_memory_bytes(32 << 20);
    });
    let result = runtime
        .run(CodeRunRequest::new(
            r#"
            const rs = new ReadableStream({ start(c) { for (;;) c.enqueue(new Uint8Array(65536)); } });
            return 1;
        "#,
        ))
        .await
        .expect("no misuse");
    let error = result.error.expect("the run fails");
    assert!(
        error.message.contains("memory") || error.message.contains("out of memory"),
        "{error}"
    );
}

/// Compression streams round-trip in every format, and a gzip member
/// carries its CRC-32 and size: a flipped bit or a cut-off end is a
/// TypeError, and so is data after the end.
#[tokio::test]
async fn compression_streams_round_trip_and_refuse_damage() {
    let result = run(r#"
        async function collect(stream) {
          const chunks = [];
          for await (const chunk of stream) chunks.push(...chunk);
          return new Uint8Array(chunks);
        }
        const text = 'hello '.repeat(1000);
        const input = new TextEncoder().encode(text);
        const sizes = {};
        const back = {};
        for (const format of ['gzip', 'deflate', 'deflate-raw']) {
          const packed = await collect(ReadableStream.from([input]).pipeThrough(new CompressionStream(format)));
          sizes[format] = packed.length < 200;
          back[format] = new TextDecoder().decode(
            await collect(ReadableStream.from([packed]).pipeThrough(new DecompressionStream(format)))) === text;
        }
        const gz = await collect(ReadableStream.from([input]).pipeThrough(new CompressionStream('gzip')));
        const damaged = gz.slice(); damaged[damaged.length - 6] ^= 1;
        const errors = [];
        for (const bad of [damaged, gz.slice(0, gz.length - 3), new Uint8Array([...gz, 0])]) {
          try { await collect(ReadableStream.from([bad]).pipeThrough(new DecompressionStream('gzip'))); errors.push('none'); }
          catch (e) { errors.push(e.constructor.name); }
        }
        let format;
        try { new CompressionStream('brotli'); } catch (e) { format = e.constructor.name; }
        return { sizes, back, errors, format, header: [...gz.slice(0, 3)] };
    "#)
    .await;
    assert_ok(&result);
    assert_eq!(
        result.value,
        Some(json!({
            "sizes": { "gzip": true, "deflate": true, "deflate-raw": true },
            "back": { "gzip": true, "deflate": true, "deflate-raw": true },
            "errors": ["TypeError", "TypeError", "TypeError"],
            "format": "TypeError",
            "header": [31, 139, 8],
        }))
    );
}

/// A decompression bomb (12 MiB from 80 KiB, a raw DEFLATE stream of one
/// literal and then copies of 258 bytes, written by hand) read piece by
/// piece stays within a 16 MiB memory cap (the codec waits while the
/// readable side is full); kept whole, it ends at the cap with a clear
/// error.
#[tokio::test]
async fn a_decompression_bomb_is_bounded_by_backpressure_and_the_cap() {
    let runtime = runtime_with(|config| {
        config.max_memory_bytes(16 << 20);
    });
    let bomb = |keep: bool| {
        format!(
            r#"
            function bomb(total) {{
              const bytes = [];
              let acc = 0, n = 0;
              const bit = (b) => {{ acc |= b << n; if (++n === 8) {{ bytes.push(acc); acc = 0; n = 0; }} }};
              const code = (value, count) => {{ for (let i = count - 1; i >= 0; i--) bit((value >> i) & 1); }};
              bit(1); bit(1); bit(0);          // the last block, fixed Huffman codes
              code(0x30, 8);                   // a literal 0
              let left = total - 1;
              for (; left >= 258; left -= 258) {{ code(0xc5, 8); code(0, 5); }}  // length 258, distance 1
              for (; left > 0; left--) code(0x30, 8);
              code(0, 7);                      // the end of the block
              if (n > 0) bytes.push(acc);
              return new Uint8Array(bytes);
            }}
            let total = 0;
            const kept = [];
            const packed = bomb(12 << 20);
            for await (const piece of ReadableStream.from([packed]).pipeThrough(new DecompressionStream('deflate-raw'))) {{
              total += piece.length;
              if ({keep}) kept.push(piece);
            }}
            return total;
        "#
        )
    };
    let streamed = runtime
        .run(CodeRunRequest::new(bomb(false)))
        .await
        .expect("no misuse");
    assert_ok(&streamed);
    assert_eq!(streamed.value, Some(json!(12 << 20)));
    let kept = runtime
        .run(CodeRunRequest::new(bomb(true)))
        .await
        .expect("no misuse");
    let error = kept.error.expect("keeping 12 MiB under a 16 MiB cap fails");
    assert!(error.message.contains("memory"), "{error}");
}
