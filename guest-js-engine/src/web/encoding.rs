//! The Encoding Standard (https://encoding.spec.whatwg.org/) through
//! `encoding_rs`, Firefox's implementation of it: label resolution, and
//! decoding in every encoding the standard defines for `TextDecoder`,
//! streaming included. UTF-8 is encoded for `TextEncoder` by the
//! renderer's blocks, and UTF-8 decoded in one call is checked by
//! `web/utf8.rs`, leaving `encoding_rs` the text with errors.

use std::cell::RefCell;
use std::collections::HashMap;

use encoding_rs::{CoderResult, Decoder, DecoderResult, Encoding};
use rquickjs::{Array, ArrayBuffer, Ctx, Exception, TypedArray, Value};

use super::utf8::is_utf8;
use crate::render::{Text, ascii_len, well_formed, with_utf8};

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
) -> rquickjs::Result<Option<Text>> {
    let Some(encoding) = Encoding::for_label(encoding.as_bytes()) else {
        return Err(Exception::throw_range(&ctx, "unknown encoding"));
    };
    let mut input = super::bytes_of(&bytes);
    // UTF-8 decoded in one call (a response's body, most often) is itself
    // when it is well formed, but for a byte order mark: its ASCII found
    // sixteen bytes at a time, the rest checked so (web/utf8.rs).
    // encoding_rs checks a byte at a time on wasm; it is left the text
    // with errors, which it replaces (or, `fatal`, refuses).
    if encoding == encoding_rs::UTF_8 && !more && stream_is_new(stream) {
        let ascii = ascii_len(&input);
        if ascii == input.len() || is_utf8(&input[ascii..]) {
            if !ignore_bom && input.starts_with(b"\xef\xbb\xbf") {
                input.drain(..3);
            }
            // SAFETY: checked to be UTF-8, and the mark is a whole
            // character.
            return Ok(Some(Text(unsafe { String::from_utf8_unchecked(input) })));
        }
    }
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
    Ok(Some(Text(output)))
}

/// `text` encoded as UTF-8 for `TextEncoder.encode`, each lone surrogate
/// as U+FFFD (the USVString the standard converts it to first): written
/// in blocks (render/transcode.rs), and handed to the buffer without a
/// copy. rquickjs's conversion to a `String` and a walk of its characters,
/// after `toWellFormed`'s copy, cost about 48 units of fuel a character of
/// ASCII.
pub fn encode<'js>(ctx: Ctx<'js>, text: Value<'js>) -> rquickjs::Result<ArrayBuffer<'js>> {
    let Some(text) = well_formed(&ctx, &text) else {
        return Err(Exception::throw_type(&ctx, "TextEncoder: not a string"));
    };
    ArrayBuffer::new(ctx, text.into_bytes())
}

/// Whether the `TextDecoder` of id `stream` is not in the middle of a
/// stream.
fn stream_is_new(stream: u32) -> bool {
    STREAMS.with(|streams| !streams.borrow().contains_key(&stream))
}

/// `source` encoded as UTF-8, as many whole characters as fit in
/// `capacity` bytes: `[the UTF-16 code units read, the bytes]`. All of it
/// when it fits, without a walk of its characters.
pub fn encode_into<'js>(
    ctx: Ctx<'js>,
    source: Value<'js>,
    capacity: f64,
) -> rquickjs::Result<Array<'js>> {
    let encoded = with_utf8(&ctx, &source, |source| {
        let (mut written, mut read) = (source.len(), 0usize);
        if written as f64 > capacity {
            written = 0;
            for ch in source.chars() {
                if (written + ch.len_utf8()) as f64 > capacity {
                    break;
                }
                written += ch.len_utf8();
                read += ch.len_utf16();
            }
        } else {
            read = source.encode_utf16().count();
        }
        (
            read,
            ArrayBuffer::new_copy(ctx.clone(), &source.as_bytes()[..written]),
        )
    });
    let Some((read, bytes)) = encoded else {
        return Err(Exception::throw_type(
            &ctx,
            "TextEncoder: not a well-formed string",
        ));
    };
    let result = Array::new(ctx.clone())?;
    result.set(0, read as f64)?;
    result.set(1, bytes?)?;
    Ok(result)
}
