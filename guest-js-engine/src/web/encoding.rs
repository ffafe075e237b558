//! The Encoding Standard (https://encoding.spec.whatwg.org/) through
//! `encoding_rs`, Firefox's implementation of it: label resolution, UTF-8
//! encoding for `TextEncoder`, and decoding in every encoding the standard
//! defines for `TextDecoder`, streaming included.

use std::cell::RefCell;
use std::collections::HashMap;

use encoding_rs::{CoderResult, Decoder, DecoderResult, Encoding};
use rquickjs::{Array, ArrayBuffer, Ctx, Exception, TypedArray};

thread_local! {
    /// The decoders of `TextDecoder`s in the middle of a stream (the last
    /// `decode` passed `stream: true`), by the id the module gave them.
    /// A call that ends the stream removes its decoder.
    static STREAMS: RefCell<HashMap<u32, Decoder>> = RefCell::new(HashMap::new());
}

/// The lowercase name of the encoding `label` names, or `None` for no
/// encoding or for `replacement`, which `TextDecoder` refuses.
pub fn name(label: String) -> Option<String> {
    let encoding = Encoding::for_label(label.as_bytes())?;
    (encoding != encoding_rs::REPLACEMENT).then(|| encoding.name().to_ascii_lowercase())
}

/// `bytes` decoded from `encoding` (a name `name` returned). `stream` is the
/// id of the `TextDecoder` (its decoder carries over to its next call when
/// `more` is true). `Ok(None)` when `fatal` and the input is malformed.
pub fn decode<'js>(
    ctx: Ctx<'js>,
    encoding: String,
    bytes: TypedArray<'js, u8>,
    fatal: bool,
    ignore_bom: bool,
    stream: u32,
    more: bool,
) -> rquickjs::Result<Option<String>> {
    let Some(encoding) = Encoding::for_label(encoding.as_bytes()) else {
        return Err(Exception::throw_range(&ctx, "unknown encoding"));
    };
    let input = super::bytes_of(&bytes);
    let mut decoder = STREAMS
        .with(|streams| streams.borrow_mut().remove(&stream))
        .unwrap_or_else(|| {
            if ignore_bom {
                encoding.new_decoder_without_bom_handling()
            } else {
                encoding.new_decoder_with_bom_removal()
            }
        });
    let Some(capacity) = decoder.max_utf8_buffer_length(input.len()) else {
        return Err(Exception::throw_range(
            &ctx,
            "the input is too large to decode",
        ));
    };
    let mut output = String::with_capacity(capacity);
    let last = !more;
    let mut read = 0;
    loop {
        if fatal {
            let (result, consumed) =
                decoder.decode_to_string_without_replacement(&input[read..], &mut output, last);
            read += consumed;
            match result {
                DecoderResult::InputEmpty => break,
                DecoderResult::OutputFull => output.reserve(capacity.max(16)),
                DecoderResult::Malformed(..) => return Ok(None),
            }
        } else {
            let (result, consumed, _) = decoder.decode_to_string(&input[read..], &mut output, last);
            read += consumed;
            match result {
                CoderResult::InputEmpty => break,
                CoderResult::OutputFull => output.reserve(capacity.max(16)),
            }
        }
    }
    if more {
        STREAMS.with(|streams| streams.borrow_mut().insert(stream, decoder));
    }
    Ok(Some(output))
}

/// `source` encoded as UTF-8, as many whole characters as fit in
/// `capacity` bytes: `[the UTF-16 code units read, the bytes]`.
pub fn encode_into<'js>(
    ctx: Ctx<'js>,
    source: String,
    capacity: f64,
) -> rquickjs::Result<Array<'js>> {
    let mut written = 0usize;
    let mut read = 0usize;
    for ch in source.chars() {
        if (written + ch.len_utf8()) as f64 > capacity {
            break;
        }
        written += ch.len_utf8();
        read += ch.len_utf16();
    }
    let mut bytes = source.into_bytes();
    bytes.truncate(written);
    let result = Array::new(ctx.clone())?;
    result.set(0, read as f64)?;
    result.set(1, ArrayBuffer::new(ctx, bytes)?)?;
    Ok(result)
}
