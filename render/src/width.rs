//! The columns a terminal gives text, as Node measures them for
//! `util.inspect`'s layout (its `getStringWidth` with ICU): after NFC
//! normalisation, an East Asian wide or fullwidth character or an emoji
//! presented as one takes two, a mark (Mn, Me), a format character (Cf,
//! but the soft hyphen) or a control character (Cc) none, anything else
//! one. Both renderers measure with this (web/layout.js calls it as
//! `natives.stringWidth`): in JavaScript, a Unicode property class matched
//! per character cost about 10,000 units of fuel a character.
//!
//! The property tables are QuickJS's own (libunicode's, which its regular
//! expressions read), copied into sorted lists once, while the guest
//! initialises, so the width is the one those classes gave.

use std::cell::OnceCell;
use std::ffi::{c_char, c_int, c_void};

use super::qjs;
#[cfg(feature = "quickjs")]
use rquickjs::{Ctx, Exception};

use super::scan::{Chars, Held};
use super::width_tables::{EMOJI, ZERO};

/// East Asian wide and fullwidth ranges (ICU's, as Node measures them),
/// inclusive.
const WIDE: [(u32, u32); 21] = [
    (0x1100, 0x115f),
    (0x2329, 0x232a),
    (0x2630, 0x2637),
    (0x268a, 0x268f),
    (0x2e80, 0x303e),
    (0x3041, 0x3247),
    (0x3250, 0xa4c6),
    (0xa960, 0xa97c),
    (0xac00, 0xd7a3),
    (0xf900, 0xfaff),
    (0xfe10, 0xfe19),
    (0xfe30, 0xfe6b),
    (0xff01, 0xff60),
    (0xffe0, 0xffe6),
    (0x16fe0, 0x16fe4),
    (0x16ff0, 0x16ff6),
    (0x17000, 0x18df2),
    (0x1aff0, 0x1b2fb),
    (0x1d300, 0x1d376),
    (0x1f200, 0x1f265),
    (0x20000, 0x3fffd),
];

/// Code points NFC leaves as they are wherever they stand, inclusive: no
/// canonical decomposition that NFC keeps apart (no singleton, no
/// composition exclusion), a combining class of 0, and never the second of
/// a composed pair. Text made only of these skips the normalisation, which
/// costs thousands of units of fuel a character. Latin-1 and its
/// extensions below U+0300, Cyrillic but its combining marks, Latin
/// Extended Additional, general punctuation, arrows, technical and other
/// symbols (but U+2329, U+232A and U+2ADC), CJK punctuation (but its
/// tone marks U+302A to U+302F), kana (but the combining sound marks
/// U+3099 and U+309A), CJK ideographs, Hangul syllables (a trailing jamo,
/// which would compose with one, is not in here), fullwidth forms, and
/// the emoji and symbol planes.
const STABLE: [(u32, u32); 18] = [
    (0x0000, 0x02ff),
    (0x0400, 0x0482),
    (0x048a, 0x04ff),
    (0x1e00, 0x1eff),
    (0x2010, 0x2027),
    (0x2030, 0x205e),
    (0x2190, 0x2328),
    (0x232b, 0x2adb),
    (0x2add, 0x2bff),
    (0x3000, 0x3029),
    (0x3030, 0x3098),
    (0x309b, 0x30ff),
    (0x3400, 0x4dbf),
    (0x4e00, 0x9fff),
    (0xac00, 0xd7a3),
    (0xff01, 0xffee),
    (0x1f000, 0x1faff),
    (0x20000, 0x2a6df),
];

/// Whether NFC leaves `cp` as it is wherever it stands ([`STABLE`]).
fn stable(cp: u32) -> bool {
    let at = STABLE.partition_point(|&(from, _)| from <= cp);
    at > 0 && cp <= STABLE[at - 1].1
}

/// libunicode's set of code points: `len` bounds (even), each pair a
/// half-open range.
#[repr(C)]
#[cfg(feature = "quickjs")]
struct CharRange {
    len: c_int,
    size: c_int,
    points: *mut u32,
    mem_opaque: *mut c_void,
    realloc_func: Realloc,
}

#[cfg(feature = "quickjs")]
type Realloc = unsafe extern "C" fn(*mut c_void, *mut c_void, usize) -> *mut c_void;

#[cfg(feature = "quickjs")]
unsafe extern "C" {
    fn cr_init(cr: *mut CharRange, mem_opaque: *mut c_void, realloc_func: Realloc);
    fn cr_free(cr: *mut CharRange);
    fn unicode_prop(cr: *mut CharRange, name: *const c_char) -> c_int;
    fn unicode_general_category(cr: *mut CharRange, name: *const c_char) -> c_int;
    fn unicode_normalize(
        dst: *mut *mut u32,
        src: *const u32,
        len: c_int,
        form: c_int,
        opaque: *mut c_void,
        realloc_func: Realloc,
    ) -> c_int;
    /// QuickJS's allocator as libunicode takes it (`opaque` a context).
    fn lre_realloc(opaque: *mut c_void, ptr: *mut c_void, size: usize) -> *mut c_void;
}

/// libunicode's `UNICODE_NFC`.
#[cfg(feature = "quickjs")]
const NFC: c_int = 0;

/// The sets a width reads, as sorted bounds of half-open ranges.
struct Tables {
    /// Emoji_Presentation.
    emoji: Vec<u32>,
    /// Mn, Me, Cf and Cc, merged.
    zero: Vec<u32>,
}

thread_local! {
    /// Set once while the guest initialises (so in the snapshot).
    static TABLES: OnceCell<Tables> = const { OnceCell::new() };
}

/// The bounds of `class` (a property name, or a general category when
/// `category`), from libunicode.
#[cfg(feature = "quickjs")]
fn bounds(ctx: *mut qjs::JSContext, class: &std::ffi::CStr, category: bool) -> Vec<u32> {
    let mut range = CharRange {
        len: 0,
        size: 0,
        points: std::ptr::null_mut(),
        mem_opaque: std::ptr::null_mut(),
        realloc_func: lre_realloc,
    };
    // SAFETY: a range initialised for the live context's allocator, read
    // for its `len` points, and freed once.
    unsafe {
        cr_init(&mut range, ctx.cast(), lre_realloc);
        let found = if category {
            unicode_general_category(&mut range, class.as_ptr())
        } else {
            unicode_prop(&mut range, class.as_ptr())
        };
        assert!(found == 0, "libunicode has no class {class:?}");
        let points = if range.points.is_null() {
            Vec::new()
        } else {
            std::slice::from_raw_parts(range.points, range.len as usize).to_vec()
        };
        cr_free(&mut range);
        points
    }
}

/// Builds the tables; called once while the guest initialises.
#[cfg(feature = "quickjs")]
pub fn init(ctx: *mut qjs::JSContext) {
    let emoji = bounds(ctx, c"Emoji_Presentation", false);
    let mut ranges: Vec<(u32, u32)> = [c"Mn", c"Me", c"Cf", c"Cc"]
        .iter()
        .flat_map(|class| {
            let points = bounds(ctx, class, true);
            points
                .chunks_exact(2)
                .map(|pair| (pair[0], pair[1]))
                .collect::<Vec<_>>()
        })
        .collect();
    ranges.sort_unstable();
    let mut zero: Vec<u32> = Vec::with_capacity(ranges.len() * 2);
    for (start, end) in ranges {
        match zero.last_mut() {
            Some(last) if *last >= start => *last = (*last).max(end),
            _ => zero.extend([start, end]),
        }
    }
    // The host measures with the lists written out (width_tables.rs):
    // they must be these.
    assert!(
        emoji == EMOJI && zero == ZERO,
        "QuickJS's Unicode tables are not the ones in render/src/width_tables.rs: \
         Emoji_Presentation {emoji:#x?}, Mn, Me, Cf and Cc {zero:#x?}"
    );
    let tables = Tables { emoji, zero };
    assert!(
        (0..0x300).all(|cp| below_0300(cp) == by_tables(&tables, cp)),
        "the widths below U+0300 disagree with QuickJS's tables"
    );
    assert!(
        WIDE_STABLE
            .iter()
            .flat_map(|&(from, to)| from..=to)
            .all(|cp| stable(cp) && by_tables(&tables, cp) == 2),
        "the wide letters NFC leaves as they are disagree with the tables"
    );
    TABLES.with(|cell| {
        let _ = cell.set(tables);
    });
}

/// The tables on the host: the lists written out, which the guest checked
/// against libunicode.
#[cfg(not(feature = "quickjs"))]
pub(super) fn init() {
    TABLES.with(|cell| {
        cell.get_or_init(|| Tables {
            emoji: EMOJI.to_vec(),
            zero: ZERO.to_vec(),
        });
    });
}

/// Whether `bounds` (sorted, half-open pairs) hold `cp`.
fn holds(bounds: &[u32], cp: u32) -> bool {
    // The number of bounds at or below `cp` is odd inside a range.
    bounds.partition_point(|&bound| bound <= cp) % 2 == 1
}

/// One code point's columns.
fn char_width(tables: &Tables, cp: u32) -> usize {
    if cp < 0x300 {
        return below_0300(cp);
    }
    by_tables(tables, cp)
}

/// [`char_width`] below U+0300, without the tables: no wide character,
/// emoji or mark there; the controls (Cc) take none, and the one format
/// character, the soft hyphen, one. [`init`] checks this against the
/// tables.
fn below_0300(cp: u32) -> usize {
    usize::from(!(cp < 0x20 || (0x7f..=0x9f).contains(&cp)))
}

/// [`char_width`] from the tables.
fn by_tables(tables: &Tables, cp: u32) -> usize {
    if WIDE.iter().any(|&(from, to)| (from..=to).contains(&cp)) || holds(&tables.emoji, cp) {
        2
    } else if cp != 0xad && holds(&tables.zero, cp) {
        0
    } else {
        1
    }
}

/// Kana, CJK ideographs and Hangul syllables: two columns each, and in
/// [`STABLE`] ([`init`] checks both against the tables), so that most
/// East Asian text is measured without a lookup.
const WIDE_STABLE: [(u32, u32); 5] = [
    (0x3041, 0x3098),
    (0x309b, 0x30ff),
    (0x3400, 0x4dbf),
    (0x4e00, 0x9fff),
    (0xac00, 0xd7a3),
];

/// The columns of `points` when each is one NFC leaves as it is wherever
/// it stands ([`STABLE`]): the text is then its own normalisation, and
/// each is measured as it comes. `None` at the first that is not. Once
/// the count reaches `cap`, the count so far (the text is at least that
/// wide).
fn stable_width(tables: &Tables, points: impl Iterator<Item = u32>, cap: usize) -> Option<usize> {
    let mut columns = 0;
    for cp in points {
        if columns >= cap {
            break;
        }
        columns += if cp < 0x300 {
            below_0300(cp)
        } else if WIDE_STABLE
            .iter()
            .any(|&(from, to)| (from..=to).contains(&cp))
        {
            2
        } else if stable(cp) {
            by_tables(tables, cp)
        } else {
            return None;
        };
    }
    Some(columns)
}

/// [`width`] of UTF-8 text (an entry of the output), or a width of at
/// least `cap` when it is that wide: measured as it is read, up to `cap`,
/// when NFC leaves it as it is; else all of it, as UTF-16.
pub(super) fn width_of_text(ctx: *mut qjs::JSContext, text: &str, cap: usize) -> Option<usize> {
    let stable = TABLES.with(|tables| {
        let tables = tables.get()?;
        stable_width(tables, text.chars().map(u32::from), cap)
    });
    if stable.is_some() {
        return stable;
    }
    let units: Vec<u16> = text.encode_utf16().collect();
    width(ctx, Chars::Wide(&units))
}

/// The columns `chars` take (layout.js's `stringWidth`): ASCII one each
/// but its controls; from the first unit past ASCII on, measured by code
/// point as it comes while NFC leaves each as it is ([`stable_width`]),
/// else the rest normalised (NFC) and measured. `None` only when memory
/// for the normalised text cannot be had.
pub(super) fn width(ctx: *mut qjs::JSContext, chars: Chars<'_>) -> Option<usize> {
    let len = chars.len();
    let unit = |at: usize| match chars {
        Chars::Narrow(bytes) => u16::from(bytes[at]),
        Chars::Wide(units) => units[at],
    };
    let mut columns = 0;
    let mut at = 0;
    while at < len {
        let c = unit(at);
        if c >= 127 {
            break;
        }
        columns += usize::from(c >= 32);
        at += 1;
    }
    if at == len {
        return Some(columns);
    }
    let rest = match chars {
        Chars::Narrow(bytes) => TABLES.with(|tables| {
            stable_width(
                tables.get()?,
                bytes[at..].iter().map(|&b| u32::from(b)),
                usize::MAX,
            )
        }),
        Chars::Wide(units) => TABLES.with(|tables| {
            stable_width(
                tables.get()?,
                char::decode_utf16(units[at..].iter().copied())
                    .map(|c| c.map_or_else(|lone| u32::from(lone.unpaired_surrogate()), u32::from)),
                usize::MAX,
            )
        }),
    };
    if let Some(rest) = rest {
        return Some(columns + rest);
    }
    // The rest as code points (a lone surrogate as itself, as
    // `codePointAt` reads it).
    let mut points = Vec::with_capacity(len - at);
    let mut unchanged = true;
    while at < len {
        let c = unit(at);
        let next = if at + 1 < len { unit(at + 1) } else { 0 };
        let cp = if (0xd800..0xdc00).contains(&c) && (0xdc00..0xe000).contains(&next) {
            at += 1;
            0x10000 + ((u32::from(c) - 0xd800) << 10) + (u32::from(next) - 0xdc00)
        } else {
            u32::from(c)
        };
        unchanged &= stable(cp);
        points.push(cp);
        at += 1;
    }
    TABLES.with(|tables| {
        let tables = tables.get()?;
        if unchanged {
            return Some(
                columns
                    + points
                        .iter()
                        .map(|&cp| char_width(tables, cp))
                        .sum::<usize>(),
            );
        }
        columns += normalised_width(ctx, tables, &points)?;
        Some(columns)
    })
}

/// The columns of `points` once normalised (NFC), by libunicode with the
/// live context's allocator; `None` when memory for it cannot be had.
#[cfg(feature = "quickjs")]
fn normalised_width(ctx: *mut qjs::JSContext, tables: &Tables, points: &[u32]) -> Option<usize> {
    let mut normalised: *mut u32 = std::ptr::null_mut();
    let count = c_int::try_from(points.len()).ok()?;
    // SAFETY: `count` code points at `points`; the result is allocated
    // with the live context's allocator, read for its length, and freed
    // with it.
    unsafe {
        let made = unicode_normalize(
            &mut normalised,
            points.as_ptr(),
            count,
            NFC,
            ctx.cast(),
            lre_realloc,
        );
        if made < 0 {
            return None;
        }
        let mut columns = 0;
        if !normalised.is_null() {
            let text = std::slice::from_raw_parts(normalised, made as usize);
            columns = text.iter().map(|&cp| char_width(tables, cp)).sum::<usize>();
            lre_realloc(ctx.cast(), normalised.cast(), 0);
        }
        Some(columns)
    }
}

/// [`normalised_width`] on the host: NFC by `unicode-normalization`; a
/// lone surrogate (not a `char`) stays as itself.
#[cfg(not(feature = "quickjs"))]
fn normalised_width(_ctx: *mut qjs::JSContext, tables: &Tables, points: &[u32]) -> Option<usize> {
    use unicode_normalization::UnicodeNormalization as _;
    let mut columns = 0;
    let mut run = String::new();
    let flush = |run: &mut String, columns: &mut usize| {
        *columns += run
            .nfc()
            .map(|c| char_width(tables, u32::from(c)))
            .sum::<usize>();
        run.clear();
    };
    for &cp in points {
        match char::from_u32(cp) {
            Some(c) => run.push(c),
            None => {
                flush(&mut run, &mut columns);
                columns += char_width(tables, cp);
            }
        }
    }
    flush(&mut run, &mut columns);
    Some(columns)
}

/// `natives.stringWidth(text)`: layout.js's `stringWidth`, [`width`] of a
/// string.
#[cfg(feature = "quickjs")]
pub fn string_width<'js>(ctx: Ctx<'js>, text: rquickjs::String<'js>) -> rquickjs::Result<f64> {
    let raw = ctx.as_raw().as_ptr();
    let Some(held) = Held::of(raw, text.as_raw()) else {
        return Err(Exception::throw_internal(
            &ctx,
            "stringWidth: an unreadable string",
        ));
    };
    match width(raw, held.chars()) {
        Some(columns) => Ok(columns as f64),
        None => Err(Exception::throw_range(&ctx, "stringWidth: out of memory")),
    }
}
