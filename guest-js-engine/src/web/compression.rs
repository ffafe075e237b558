//! The Compression Streams standard's codecs: `deflate` (zlib), `deflate-raw`
//! and `gzip`, compressing and decompressing with miniz_oxide (the Rust
//! DEFLATE implementation that flate2 builds on); the gzip member's header
//! and trailer (RFC 1952) are written and checked here.
//!
//! Each open codec keeps its state here, by id. `web/compression.js` pushes
//! the input a chunk at a time and pulls the output at most
//! [`OUTPUT_CHUNK`] bytes at a time, so that a small input that inflates to
//! gigabytes comes out piece by piece, every piece a JavaScript allocation
//! the run's memory cap bounds, and the codec itself never holds more than
//! one piece.

use std::cell::RefCell;

use miniz_oxide::deflate::core::CompressorOxide;
use miniz_oxide::inflate::stream::InflateState;
use miniz_oxide::{DataFormat, MZError, MZFlush, MZStatus};
use rquickjs::{Ctx, Exception, TypedArray};

/// The most output one pull hands out.
const OUTPUT_CHUNK: usize = 64 * 1024;
/// Codecs open at once, each up to a few hundred KiB of state (the memory
/// cap bounds them too; this says which limit a program hit).
const MAX_OPEN: usize = 64;
/// zlib's default level, which the standard's streams use.
const LEVEL: u8 = 6;

/// A gzip member's fixed header: no name, no time, OS unknown.
const GZIP_HEADER: [u8; 10] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];

enum Engine {
    Deflate(Box<CompressorOxide>),
    Inflate(Box<InflateState>),
}

struct Codec {
    engine: Engine,
    gzip: bool,
    /// Input pushed and not yet consumed: `input[offset..]`.
    input: Vec<u8>,
    offset: usize,
    /// gzip: the header is written (compressing) or read (decompressing).
    header_done: bool,
    crc: crc32fast::Hasher,
    size: u32,
    /// The DEFLATE stream has ended.
    ended: bool,
    /// Nothing more to hand out.
    done: bool,
    out: Vec<u8>,
}

thread_local! {
    static CODECS: RefCell<Vec<Option<Codec>>> = const { RefCell::new(Vec::new()) };
}

/// Opens a codec for `format`; its id, or -1 when [`MAX_OPEN`] are open
/// (the module says so), or -2 for a format it does not know.
pub fn open(format: String, decompress: bool) -> i32 {
    let (data_format, gzip) = match format.as_str() {
        "deflate" => (DataFormat::Zlib, false),
        "deflate-raw" => (DataFormat::Raw, false),
        "gzip" => (DataFormat::Raw, true),
        _ => return -2,
    };
    let engine = if decompress {
        Engine::Inflate(InflateState::new_boxed(data_format))
    } else {
        let mut compressor = Box::<CompressorOxide>::default();
        compressor.set_format_and_level(data_format, LEVEL);
        Engine::Deflate(compressor)
    };
    let codec = Codec {
        engine,
        gzip,
        input: Vec::new(),
        offset: 0,
        header_done: false,
        crc: crc32fast::Hasher::new(),
        size: 0,
        ended: false,
        done: false,
        out: Vec::new(),
    };
    CODECS.with(|codecs| {
        let mut codecs = codecs.borrow_mut();
        if codecs.iter().filter(|c| c.is_some()).count() >= MAX_OPEN {
            return -1;
        }
        match codecs.iter().position(Option::is_none) {
            Some(free) => {
                codecs[free] = Some(codec);
                free as i32
            }
            None => {
                codecs.push(Some(codec));
                codecs.len() as i32 - 1
            }
        }
    })
}

/// Adds a chunk of input to codec `id`.
pub fn push(ctx: Ctx<'_>, id: i32, chunk: TypedArray<'_, u8>) -> rquickjs::Result<()> {
    let bytes = super::bytes_of(&chunk);
    with_codec(&ctx, id, |codec| {
        if codec.offset > 0 && codec.offset == codec.input.len() {
            codec.input.clear();
            codec.offset = 0;
        }
        codec.input.extend_from_slice(&bytes);
        Ok(())
    })
}

/// The next piece of output of codec `id`, or `undefined` when it needs
/// more input (or, with `finish`, when it has handed out everything).
/// Corrupt, truncated or trailing input throws a TypeError.
pub fn pull<'js>(
    ctx: Ctx<'js>,
    id: i32,
    finish: bool,
) -> rquickjs::Result<Option<TypedArray<'js, u8>>> {
    let piece = with_codec(&ctx, id, |codec| match codec.engine {
        Engine::Deflate(_) => compress(codec, finish),
        Engine::Inflate(_) => decompress(codec, finish),
    })?;
    match piece {
        Some(bytes) => Ok(Some(TypedArray::new_copy(ctx, &bytes)?)),
        None => Ok(None),
    }
}

/// Frees codec `id` (finished, failed or canceled). Closing twice is a no-op.
pub fn close(id: i32) {
    CODECS.with(|codecs| {
        if let Some(slot) = usize::try_from(id)
            .ok()
            .and_then(|i| codecs.borrow_mut().get_mut(i).map(Option::take))
        {
            drop(slot);
        }
    });
}

fn with_codec<T>(
    ctx: &Ctx<'_>,
    id: i32,
    f: impl FnOnce(&mut Codec) -> Result<T, &'static str>,
) -> rquickjs::Result<T> {
    let result = CODECS.with(|codecs| {
        let mut codecs = codecs.borrow_mut();
        let codec = usize::try_from(id)
            .ok()
            .and_then(|i| codecs.get_mut(i))
            .and_then(Option::as_mut)
            .ok_or("the stream is already closed")?;
        f(codec)
    });
    result.map_err(|message| Exception::throw_type(ctx, message))
}

fn compress(codec: &mut Codec, finish: bool) -> Result<Option<Vec<u8>>, &'static str> {
    if codec.done {
        return Ok(None);
    }
    if codec.gzip && !codec.header_done {
        codec.header_done = true;
        return Ok(Some(GZIP_HEADER.to_vec()));
    }
    if codec.ended {
        // gzip's trailer: the CRC-32 and the size modulo 2^32, little-endian.
        codec.done = true;
        if !codec.gzip {
            return Ok(None);
        }
        let crc = std::mem::take(&mut codec.crc).finalize();
        let mut trailer = crc.to_le_bytes().to_vec();
        trailer.extend_from_slice(&codec.size.to_le_bytes());
        return Ok(Some(trailer));
    }
    let Engine::Deflate(compressor) = &mut codec.engine else {
        unreachable!("compress() is called for compressors only")
    };
    codec.out.resize(OUTPUT_CHUNK, 0);
    let input = &codec.input[codec.offset..];
    let flush = if finish {
        MZFlush::Finish
    } else {
        MZFlush::None
    };
    let result = miniz_oxide::deflate::stream::deflate(compressor, input, &mut codec.out, flush);
    let consumed = &input[..result.bytes_consumed];
    if codec.gzip {
        codec.crc.update(consumed);
        codec.size = codec.size.wrapping_add(consumed.len() as u32);
    }
    codec.offset += result.bytes_consumed;
    match result.status {
        Ok(MZStatus::StreamEnd) => codec.ended = true,
        Ok(_) | Err(MZError::Buf) => {}
        Err(_) => return Err("the compressor failed"),
    }
    if result.bytes_written > 0 {
        return Ok(Some(codec.out[..result.bytes_written].to_vec()));
    }
    if codec.ended {
        return compress(codec, finish);
    }
    Ok(None)
}

fn decompress(codec: &mut Codec, finish: bool) -> Result<Option<Vec<u8>>, &'static str> {
    if codec.done {
        if codec.offset < codec.input.len() {
            return Err("there is data after the end of the compressed stream");
        }
        return Ok(None);
    }
    if codec.gzip && !codec.header_done {
        match gzip_header(&codec.input[codec.offset..])? {
            Some(length) => {
                codec.offset += length;
                codec.header_done = true;
            }
            None if finish => return Err("the compressed data ends early (in the gzip header)"),
            None => return Ok(None),
        }
    }
    if codec.ended {
        // gzip's trailer, checked; then nothing may follow.
        if codec.gzip {
            let rest = &codec.input[codec.offset..];
            if rest.len() < 8 {
                return if finish {
                    Err("the compressed data ends early (in the gzip trailer)")
                } else {
                    Ok(None)
                };
            }
            let crc = u32::from_le_bytes([rest[0], rest[1], rest[2], rest[3]]);
            let size = u32::from_le_bytes([rest[4], rest[5], rest[6], rest[7]]);
            if crc != std::mem::take(&mut codec.crc).finalize() || size != codec.size {
                return Err("the gzip data is corrupt (its checksum or size does not match)");
            }
            codec.offset += 8;
        }
        codec.done = true;
        return decompress(codec, finish);
    }
    let Engine::Inflate(state) = &mut codec.engine else {
        unreachable!("decompress() is called for decompressors only")
    };
    codec.out.resize(OUTPUT_CHUNK, 0);
    let input = &codec.input[codec.offset..];
    let result = miniz_oxide::inflate::stream::inflate(state, input, &mut codec.out, MZFlush::None);
    codec.offset += result.bytes_consumed;
    let written = &codec.out[..result.bytes_written];
    if codec.gzip {
        codec.crc.update(written);
        codec.size = codec.size.wrapping_add(written.len() as u32);
    }
    match result.status {
        Ok(MZStatus::StreamEnd) => codec.ended = true,
        Ok(_) | Err(MZError::Buf) => {}
        Err(_) => return Err("the compressed data is corrupt"),
    }
    if result.bytes_written > 0 {
        return Ok(Some(written.to_vec()));
    }
    if codec.ended {
        return decompress(codec, finish);
    }
    if result.bytes_consumed == 0 && finish {
        return Err("the compressed data ends early");
    }
    if result.bytes_consumed > 0 {
        return decompress(codec, finish);
    }
    Ok(None)
}

/// The length of the gzip member header at the start of `bytes`, `None`
/// when more bytes are needed.
fn gzip_header(bytes: &[u8]) -> Result<Option<usize>, &'static str> {
    const FHCRC: u8 = 2;
    const FEXTRA: u8 = 4;
    const FNAME: u8 = 8;
    const FCOMMENT: u8 = 16;
    if bytes.len() < 10 {
        return Ok(None);
    }
    if bytes[0] != 0x1f || bytes[1] != 0x8b || bytes[2] != 8 {
        return Err("the data is not gzip (its header is wrong)");
    }
    let flags = bytes[3];
    if flags & 0xe0 != 0 {
        return Err("the gzip header has reserved flags set");
    }
    let mut at = 10;
    if flags & FEXTRA != 0 {
        let Some(length) = bytes.get(at..at + 2) else {
            return Ok(None);
        };
        at += 2 + usize::from(u16::from_le_bytes([length[0], length[1]]));
    }
    for flag in [FNAME, FCOMMENT] {
        if flags & flag != 0 {
            match bytes
                .get(at..)
                .and_then(|rest| rest.iter().position(|&b| b == 0))
            {
                Some(end) => at += end + 1,
                None => return Ok(None),
            }
        }
    }
    if flags & FHCRC != 0 {
        at += 2;
    }
    Ok((at <= bytes.len()).then_some(at))
}
