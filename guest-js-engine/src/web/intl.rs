//! ECMA-402's locale-sensitive steps that need locale data or exact
//! decimal arithmetic, for `web/intl.js`: ICU4X (the Unicode Consortium's
//! Rust internationalisation library, with its compiled CLDR data) formats
//! numbers, selects plural categories, joins lists and collates; jiff's
//! bundled IANA database gives a time zone's offset at an instant.
//!
//! The JavaScript side reads and validates the options as ECMA-402 says,
//! resolves the locale, and passes each native a locale tag it has already
//! canonicalised plus numbers for the options; a native that is given
//! something it cannot use returns `None`, and the module throws. Every
//! native's work is proportional to its input, which the module caps.

use std::cell::RefCell;
use std::cmp::Ordering;
use std::fmt;

use fixed_decimal::{
    Decimal, FloatPrecision, RoundingIncrement, SignedRoundingMode, UnsignedRoundingMode,
};
use icu_collator::options::{AlternateHandling, CaseLevel, CollatorOptions, Strength};
use icu_collator::preferences::{CollationCaseFirst, CollationNumericOrdering};
use icu_collator::provider::{
    CollationDiacriticsV1, CollationJamoV1, CollationMetadataV1, CollationReorderingV1,
    CollationRootV1, CollationSpecialPrimariesV1, CollationTailoringV1,
};
use icu_collator::{Collator, CollatorPreferences};
use icu_decimal::DecimalFormatter;
use icu_decimal::options::{DecimalFormatterOptions, GroupingStrategy};
use icu_list::ListFormatter;
use icu_list::options::{ListFormatterOptions, ListLength};
use icu_locale_core::Locale;
use icu_normalizer::provider::{NormalizerNfdDataV1, NormalizerNfdTablesV1};
use icu_plurals::{PluralCategory, PluralRules};
use icu_provider::{DataError, DataErrorKind, DataMarker, DataProvider, DataRequest, DataResponse};
use rquickjs::Value;
use writeable::{Part, PartsWrite, Writeable};

/// The most digits a formatted number may carry (a BigInt's, or a decimal
/// string's): past this, `format` refuses.
const MAX_DIGITS: usize = 4096;

fn locale(tag: &str) -> Option<Locale> {
    Locale::try_from_str(tag).ok()
}

// ---- numbers ------------------------------------------------------------------

/// How `numberFormat`'s options array is laid out (`numberSpec` in
/// intl.js writes it, in this order).
struct NumberSpec {
    min_integer: i16,
    min_fraction: i16,
    max_fraction: i16,
    min_significant: i16,
    max_significant: i16,
    /// 0 fraction digits, 1 significant digits, 2 more precision, 3 less.
    rounding_type: u8,
    rounding_mode: SignedRoundingMode,
    increment: u32,
    strip_if_integer: bool,
    /// 0 standard, 1 scientific, 2 engineering, 3 compact.
    notation: u8,
    /// The power of ten the value is multiplied by first (2 for percent).
    scale: i16,
}

impl NumberSpec {
    fn read(spec: &[f64]) -> Option<NumberSpec> {
        let at = |i: usize| spec.get(i).copied().filter(|n| n.is_finite());
        let small = |i: usize| at(i).map(|n| n as i16);
        let rounding_mode = match at(6)? as u8 {
            0 => SignedRoundingMode::Ceil,
            1 => SignedRoundingMode::Floor,
            2 => SignedRoundingMode::Unsigned(UnsignedRoundingMode::Expand),
            3 => SignedRoundingMode::Unsigned(UnsignedRoundingMode::Trunc),
            4 => SignedRoundingMode::HalfCeil,
            5 => SignedRoundingMode::HalfFloor,
            6 => SignedRoundingMode::Unsigned(UnsignedRoundingMode::HalfExpand),
            7 => SignedRoundingMode::Unsigned(UnsignedRoundingMode::HalfTrunc),
            _ => SignedRoundingMode::Unsigned(UnsignedRoundingMode::HalfEven),
        };
        Some(NumberSpec {
            min_integer: small(0)?.clamp(1, 21),
            min_fraction: small(1)?.clamp(0, 100),
            max_fraction: small(2)?.clamp(0, 100),
            min_significant: small(3)?.clamp(1, 21),
            max_significant: small(4)?.clamp(1, 21),
            rounding_type: at(5)? as u8,
            rounding_mode,
            increment: at(7)? as u32,
            strip_if_integer: at(8)? != 0.0,
            notation: at(9)? as u8,
            scale: small(10)?,
        })
    }

    /// ToRawPrecision: rounded to `max_significant` digits, then trailing
    /// zeros dropped down to `min_significant`; and its rounding magnitude.
    fn precision(&self, x: &Decimal) -> (Decimal, i16) {
        let mut d = x.clone();
        let top = d.absolute.nonzero_magnitude_start();
        d.round_with_mode(top - self.max_significant + 1, self.rounding_mode);
        let top = d.absolute.nonzero_magnitude_start();
        d.absolute.trim_end();
        d.absolute.pad_end(top - self.min_significant + 1);
        (d, top - self.max_significant + 1)
    }

    /// ToRawFixed: rounded at `max_fraction` digits (in steps of the
    /// rounding increment), then trailing zeros dropped down to
    /// `min_fraction`; and its rounding magnitude.
    fn fixed(&self, x: &Decimal) -> (Decimal, i16) {
        let mut d = x.clone();
        // An increment is 1, 2, 5 or 25 times a power of ten.
        let (mut factor, mut shift) = (self.increment.max(1), 0i16);
        while factor % 10 == 0 {
            factor /= 10;
            shift += 1;
        }
        let increment = match factor {
            2 => RoundingIncrement::MultiplesOf2,
            5 => RoundingIncrement::MultiplesOf5,
            25 => RoundingIncrement::MultiplesOf25,
            _ => RoundingIncrement::MultiplesOf1,
        };
        d.round_with_mode_and_increment(-self.max_fraction + shift, self.rounding_mode, increment);
        d.absolute.trim_end();
        d.absolute.pad_end(-self.min_fraction);
        (d, -self.max_fraction)
    }

    /// FormatNumericToString's rounding, for the rounding type.
    fn round(&self, x: &Decimal) -> Decimal {
        let mut d = match self.rounding_type {
            0 => self.fixed(x).0,
            1 => self.precision(x).0,
            more_or_less => {
                let (s, s_magnitude) = self.precision(x);
                let (f, f_magnitude) = self.fixed(x);
                let fixed_is_more_precise = if more_or_less == 2 {
                    s_magnitude > f_magnitude
                } else {
                    s_magnitude <= f_magnitude
                };
                if fixed_is_more_precise { f } else { s }
            }
        };
        if self.strip_if_integer {
            d.absolute.trim_end_if_integer();
        }
        d.absolute.pad_start(self.min_integer);
        d
    }
}

/// The exponent compact notation uses for a magnitude, in English (the
/// CLDR patterns run from thousands to hundreds of trillions).
fn compact_exponent(magnitude: i16) -> i16 {
    if magnitude < 3 {
        0
    } else {
        (magnitude / 3 * 3).min(12)
    }
}

/// `value` (a Number, or the decimal digits of a BigInt or of a string
/// Intl.NumberFormat accepts) as a `Decimal`; `None` for what is not a
/// finite decimal within the limit.
fn decimal_of(value: &Value<'_>) -> Option<Decimal> {
    if let Some(n) = value.as_number() {
        return Decimal::try_from_f64(n, FloatPrecision::RoundTrip).ok();
    }
    let text = value.as_string()?.to_string().ok()?;
    if text.len() > MAX_DIGITS {
        return None;
    }
    Decimal::try_from_str(&text).ok()
}

/// `numberFormat(locale, value, spec, grouping)`: the value rounded and
/// written as ECMA-402's FormatNumericToString and PartitionNumberPattern
/// say, as `[digits, negative, zero, exponent]`: `digits` is the absolute
/// value with the locale's separators, `negative` and `zero` ("1" or "")
/// describe the rounded value, and `exponent` is the power of ten taken out
/// by scientific, engineering or compact notation ("" when none).
/// `grouping` is 0 (never), 1 (always), 2 (auto) or 3 (min2).
pub fn number_format(
    tag: String,
    value: Value<'_>,
    spec: Vec<f64>,
    grouping: f64,
) -> Option<Vec<String>> {
    let spec = NumberSpec::read(&spec)?;
    let mut x = decimal_of(&value)?;
    x.absolute.multiply_pow10(spec.scale);
    let magnitude = x.absolute.nonzero_magnitude_start();
    let exponent_for = |magnitude: i16| match spec.notation {
        1 => magnitude,
        2 => magnitude.div_euclid(3) * 3,
        3 => compact_exponent(magnitude),
        _ => 0,
    };
    let scaled = |exponent: i16| {
        let mut scaled = x.clone();
        scaled.absolute.multiply_pow10(-exponent);
        spec.round(&scaled)
    };
    let mut exponent = if x.absolute.is_zero() {
        0
    } else {
        exponent_for(magnitude)
    };
    let mut rounded = scaled(exponent);
    // Rounding up can carry into the next magnitude (999,999 → "1M", 9.99
    // → "1E1"): ComputeExponent's second pass.
    if spec.notation != 0
        && !rounded.absolute.is_zero()
        && rounded.absolute.nonzero_magnitude_start() != magnitude - exponent
    {
        let next = exponent_for(magnitude + 1);
        if next != exponent {
            exponent = next;
            rounded = scaled(exponent);
        }
    }
    if rounded.absolute.magnitude_range().count() > MAX_DIGITS {
        return None;
    }
    let negative = rounded.sign == fixed_decimal::Sign::Negative;
    let zero = rounded.absolute.is_zero();
    rounded.sign = fixed_decimal::Sign::None;
    let mut options = DecimalFormatterOptions::default();
    options.grouping_strategy = Some(match grouping as u8 {
        0 => GroupingStrategy::Never,
        1 => GroupingStrategy::Always,
        3 => GroupingStrategy::Min2,
        _ => GroupingStrategy::Auto,
    });
    let locale = locale(&tag)?;
    let formatter = DecimalFormatter::try_new((&locale).into(), options).ok()?;
    let digits = formatter.format(&rounded).write_to_string().into_owned();
    let flag = |b: bool| if b { "1" } else { "" }.to_owned();
    let exponent = if spec.notation == 0 {
        String::new()
    } else {
        exponent.to_string()
    };
    Some(vec![digits, flag(negative), flag(zero), exponent])
}

/// `pluralSelect(locale, value, spec, ordinal)`: the plural category of
/// the value as the number format `spec` rounds it.
pub fn plural_select(
    tag: String,
    value: Value<'_>,
    spec: Vec<f64>,
    ordinal: bool,
) -> Option<String> {
    let spec = NumberSpec::read(&spec)?;
    let x = decimal_of(&value)?;
    let rounded = spec.round(&x);
    let rules = plural_rules(&tag, ordinal)?;
    Some(category_name(rules.category_for(&rounded)).to_owned())
}

/// `pluralCategories(locale, ordinal)`: the categories the locale's rules
/// use.
pub fn plural_categories(tag: String, ordinal: bool) -> Option<Vec<String>> {
    let rules = plural_rules(&tag, ordinal)?;
    Some(
        rules
            .categories()
            .map(|category| category_name(category).to_owned())
            .collect(),
    )
}

fn plural_rules(tag: &str, ordinal: bool) -> Option<PluralRules> {
    let locale = locale(tag)?;
    if ordinal {
        PluralRules::try_new_ordinal((&locale).into()).ok()
    } else {
        PluralRules::try_new_cardinal((&locale).into()).ok()
    }
}

fn category_name(category: PluralCategory) -> &'static str {
    match category {
        PluralCategory::Zero => "zero",
        PluralCategory::One => "one",
        PluralCategory::Two => "two",
        PluralCategory::Few => "few",
        PluralCategory::Many => "many",
        PluralCategory::Other => "other",
    }
}

// ---- lists --------------------------------------------------------------------

/// Records which stretches of the written text are list elements.
#[derive(Default)]
struct PartsRecorder {
    text: String,
    /// `(start, end)` of each element, in bytes.
    elements: Vec<(usize, usize)>,
}

impl fmt::Write for PartsRecorder {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.text.push_str(s);
        Ok(())
    }
}

impl PartsWrite for PartsRecorder {
    type SubPartsWrite = PartsRecorder;

    fn with_part(
        &mut self,
        part: Part,
        mut f: impl FnMut(&mut Self::SubPartsWrite) -> fmt::Result,
    ) -> fmt::Result {
        let start = self.text.len();
        f(self)?;
        if part == icu_list::parts::ELEMENT {
            self.elements.push((start, self.text.len()));
        }
        Ok(())
    }
}

/// `listFormat(locale, items, type, style, whole)`: the list joined as the
/// locale's patterns say: `[text]` when `whole`, else alternating `[kind,
/// text, ...]` parts where kind is "element" or "literal". `type` is 0
/// conjunction, 1 disjunction, 2 unit; `style` 0 long, 1 short, 2 narrow.
pub fn list_format(
    tag: String,
    items: Vec<String>,
    kind: f64,
    style: f64,
    whole: bool,
) -> Option<Vec<String>> {
    let locale = locale(&tag)?;
    let length = match style as u8 {
        1 => ListLength::Short,
        2 => ListLength::Narrow,
        _ => ListLength::Wide,
    };
    let options = ListFormatterOptions::default().with_length(length);
    let formatter = match kind as u8 {
        1 => ListFormatter::try_new_or((&locale).into(), options),
        2 => ListFormatter::try_new_unit((&locale).into(), options),
        _ => ListFormatter::try_new_and((&locale).into(), options),
    }
    .ok()?;
    let list = formatter.format(items.iter().map(String::as_str));
    if whole {
        return Some(vec![list.write_to_string().into_owned()]);
    }
    let mut recorder = PartsRecorder::default();
    list.write_to_parts(&mut recorder).ok()?;
    let mut parts = Vec::with_capacity(items.len() * 4);
    let mut at = 0;
    for &(start, end) in &recorder.elements {
        if start > at {
            parts.push("literal".to_owned());
            parts.push(recorder.text[at..start].to_owned());
        }
        parts.push("element".to_owned());
        parts.push(recorder.text[start..end].to_owned());
        at = end;
    }
    if at < recorder.text.len() {
        parts.push("literal".to_owned());
        parts.push(recorder.text[at..].to_owned());
    }
    Some(parts)
}

// ---- collation ----------------------------------------------------------------

/// The options of a collator: `[strength, ignorePunctuation, numeric,
/// caseFirst]`, with strength 0 base, 1 accent, 2 case, 3 variant and
/// caseFirst 0 false, 1 upper, 2 lower.
type CollatorKey = (String, [u8; 4]);

thread_local! {
    /// The collators made so far (a program uses one or two option sets).
    static COLLATORS: RefCell<Vec<(CollatorKey, Collator)>> = const { RefCell::new(Vec::new()) };
}

/// The root collation (the Unicode Collation Algorithm's default order,
/// which is English's) without the other locales' tailorings: ICU4X's
/// compiled data for the markers the root order needs, and "not found" for
/// tailorings and script reorderings, which the root's metadata never asks
/// for. Linking the tailorings of every locale would cost 0.9 MB.
struct RootCollation;

macro_rules! from_compiled {
    ($baked:path => $($marker:ty),+) => {$(
        impl DataProvider<$marker> for RootCollation {
            fn load(&self, request: DataRequest<'_>) -> Result<DataResponse<$marker>, DataError> {
                $baked.load(request)
            }
        }
    )+};
}

from_compiled!(icu_collator::provider::Baked => CollationRootV1, CollationJamoV1,
    CollationSpecialPrimariesV1, CollationDiacriticsV1, CollationMetadataV1);
from_compiled!(icu_normalizer::provider::Baked => NormalizerNfdDataV1, NormalizerNfdTablesV1);

macro_rules! not_shipped {
    ($($marker:ty),+) => {$(
        impl DataProvider<$marker> for RootCollation {
            fn load(&self, request: DataRequest<'_>) -> Result<DataResponse<$marker>, DataError> {
                Err(DataErrorKind::IdentifierNotFound.with_req(<$marker as DataMarker>::INFO, request))
            }
        }
    )+};
}

not_shipped!(CollationTailoringV1, CollationReorderingV1);

/// The most collators kept; past it, the oldest is dropped.
const MAX_COLLATORS: usize = 8;

fn collator(tag: &str, key: [u8; 4]) -> Option<Collator> {
    let locale = locale(tag)?;
    let mut prefs = CollatorPreferences::from(&locale);
    prefs.numeric_ordering = Some(if key[2] != 0 {
        CollationNumericOrdering::True
    } else {
        CollationNumericOrdering::False
    });
    prefs.case_first = Some(match key[3] {
        1 => CollationCaseFirst::Upper,
        2 => CollationCaseFirst::Lower,
        _ => CollationCaseFirst::False,
    });
    let mut options = CollatorOptions::default();
    options.strength = Some(match key[0] {
        0 | 2 => Strength::Primary,
        1 => Strength::Secondary,
        _ => Strength::Tertiary,
    });
    options.case_level = Some(if key[0] == 2 {
        CaseLevel::On
    } else {
        CaseLevel::Off
    });
    options.alternate_handling = Some(if key[1] != 0 {
        AlternateHandling::Shifted
    } else {
        AlternateHandling::NonIgnorable
    });
    Collator::try_new_unstable(&RootCollation, prefs, options).ok()
}

/// `collate(locale, a, b, options)`: -1, 0 or 1 as the locale's collation
/// with the options orders `a` and `b` (compared as UTF-16, so a lone
/// surrogate compares as the replacement character, never fails).
pub fn collate(
    tag: String,
    a: rquickjs::String<'_>,
    b: rquickjs::String<'_>,
    options: Vec<f64>,
) -> Option<i32> {
    let mut key = [0u8; 4];
    for (slot, value) in key.iter_mut().zip(&options) {
        *slot = *value as u8;
    }
    let a: Vec<u16> = a.to_string().ok()?.encode_utf16().collect();
    let b: Vec<u16> = b.to_string().ok()?.encode_utf16().collect();
    COLLATORS.with(|collators| {
        let mut collators = collators.borrow_mut();
        let found = collators
            .iter()
            .position(|((t, k), _)| *t == tag && *k == key);
        let index = match found {
            Some(index) => index,
            None => {
                if collators.len() >= MAX_COLLATORS {
                    collators.remove(0);
                }
                collators.push(((tag.clone(), key), collator(&tag, key)?));
                collators.len() - 1
            }
        };
        Some(
            match collators[index].1.as_borrowed().compare_utf16(&a, &b) {
                Ordering::Less => -1,
                Ordering::Equal => 0,
                Ordering::Greater => 1,
            },
        )
    })
}

// ---- segmentation -------------------------------------------------------------

/// `segment(text, granularity)`: where `text` breaks into graphemes (0),
/// words (1) or sentences (2), by Unicode's segmentation rules (UAX #29,
/// without the dictionaries of the scripts written without spaces), as
/// `[breaks, wordLike]`: the UTF-16 offsets from 0 to the text's length,
/// and for words, 1 or 0 for each segment as it is word-like or not.
pub fn segment(text: rquickjs::String<'_>, granularity: f64) -> Option<Vec<Vec<u32>>> {
    use icu_segmenter::options::{SentenceBreakInvariantOptions, WordBreakInvariantOptions};
    use icu_segmenter::{GraphemeClusterSegmenter, SentenceSegmenter, WordSegmenter};
    let units: Vec<u16> = text.to_string().ok()?.encode_utf16().collect();
    let offset = |at: usize| u32::try_from(at).ok();
    let mut breaks = Vec::new();
    let mut word_like = Vec::new();
    match granularity as u8 {
        0 => {
            for at in GraphemeClusterSegmenter::new().segment_utf16(&units) {
                breaks.push(offset(at)?);
            }
        }
        1 => {
            let mut iter =
                WordSegmenter::new_for_non_complex_scripts(WordBreakInvariantOptions::default())
                    .segment_utf16(&units);
            while let Some(at) = iter.next() {
                if !breaks.is_empty() {
                    word_like.push(u32::from(iter.is_word_like()));
                }
                breaks.push(offset(at)?);
            }
        }
        _ => {
            for at in SentenceSegmenter::new(SentenceBreakInvariantOptions::default())
                .segment_utf16(&units)
            {
                breaks.push(offset(at)?);
            }
        }
    }
    Some(vec![breaks, word_like])
}

// ---- locales and time zones ---------------------------------------------------

/// `canonicalLocale(tag)`: the tag in canonical form (case and order of
/// its subtags, as UTS 35 writes them), or `None` when it is not a
/// well-formed Unicode BCP 47 locale identifier.
pub fn canonical_locale(tag: String) -> Option<String> {
    if tag.len() > 256 {
        return None;
    }
    let locale = Locale::try_from_str(&tag).ok()?;
    Some(locale.to_string())
}

/// `timeZone(name)`: the IANA zone's canonical name (its case as the
/// database writes it), or `None` for a zone the database lacks.
pub fn time_zone(name: String) -> Option<String> {
    if name.len() > 256 {
        return None;
    }
    let zone = jiff::tz::db().get(&name).ok()?;
    zone.iana_name().map(str::to_owned)
}

/// The areas of the IANA database's geographic zone names ("Europe/Paris");
/// the others are old aliases ("US/Eastern", "Etc/GMT+5", "EST5EDT").
const ZONE_AREAS: [&str; 10] = [
    "Africa",
    "America",
    "Antarctica",
    "Arctic",
    "Asia",
    "Atlantic",
    "Australia",
    "Europe",
    "Indian",
    "Pacific",
];

/// `supportedValues(key)`: the currencies with English data, or the
/// geographic time zone names the bundled database knows (links
/// included, each of which `timeZone` gives back as it is), sorted.
pub fn supported_values(key: String) -> Option<Vec<String>> {
    use super::intl_data as data;
    let mut values: Vec<String> = match key.as_str() {
        "currency" => data::CURRENCIES
            .iter()
            .map(|(code, _, _)| (*code).to_owned())
            .collect(),
        "timeZone" => jiff::tz::db()
            .available()
            .map(|name| name.as_str().to_owned())
            .filter(|name| {
                name.split_once('/')
                    .is_some_and(|(area, _)| ZONE_AREAS.contains(&area))
            })
            .collect(),
        _ => return None,
    };
    values.sort_unstable();
    values.dedup();
    Some(values)
}

/// `timeZoneOffset(name, epochMs)`: `[offset in seconds, abbreviation,
/// dst]` of the zone at the instant, or `None` when either is out of range.
pub fn time_zone_offset(name: String, epoch_ms: f64) -> Option<Vec<String>> {
    if !epoch_ms.is_finite() {
        return None;
    }
    let zone = jiff::tz::db().get(&name).ok()?;
    let instant = jiff::Timestamp::from_millisecond(epoch_ms as i64).ok()?;
    let info = zone.to_offset_info(instant);
    Some(vec![
        info.offset().seconds().to_string(),
        info.abbreviation().to_owned(),
        if info.dst().is_dst() { "1" } else { "" }.to_owned(),
    ])
}

// ---- English patterns -----------------------------------------------------------

fn find<'a, T>(rows: &'a [(&'static str, T)], key: &str) -> Option<&'a T> {
    rows.binary_search_by(|(k, _)| (*k).cmp(key))
        .ok()
        .map(|at| &rows[at].1)
}

/// `pattern(table, key)`: a row of the English tables of
/// `intl_data.rs` (generated from CLDR by tools/intl-data), as strings:
/// `date` → `[pattern, glue]`, `time`, `whole`, `style` and `relative` →
/// `[pattern]`, `zone` → its six names, `currency` → `[digits, symbol,
/// narrow, code, name one, name other]`, `unit` and `compound` → six
/// patterns, `per` → a denominator's three suffixes.
pub fn pattern(table: String, key: String) -> Option<Vec<String>> {
    use super::intl_data as data;
    let strings = |row: &[&str]| row.iter().map(|s| (*s).to_owned()).collect();
    match table.as_str() {
        "date" => {
            let at = data::DATES
                .binary_search_by(|(k, _, _)| (*k).cmp(key.as_str()))
                .ok()?;
            let (_, pattern, glue) = data::DATES[at];
            Some(strings(&[pattern, glue]))
        }
        "time" => find(data::TIMES, &key).map(|p| strings(&[p])),
        "whole" => find(data::WHOLE, &key).map(|p| strings(&[p])),
        "style" => find(data::STYLES, &key).map(|p| strings(&[p])),
        "relative" => find(data::RELATIVE, &key).map(|p| strings(&[p])),
        "zone" => find(data::ZONES, &key).map(|names| strings(names)),
        "unit" => find(data::UNITS, &key).map(|patterns| strings(patterns)),
        "per" => find(data::PER, &key).map(|suffixes| strings(suffixes)),
        "compound" => find(data::COMPOUNDS, &key).map(|patterns| strings(patterns)),
        "currency" => {
            let at = data::CURRENCIES
                .binary_search_by(|(k, _, _)| (*k).cmp(key.as_str()))
                .ok()?;
            let (_, digits, patterns) = &data::CURRENCIES[at];
            let mut row = vec![digits.to_string()];
            row.extend(patterns.iter().map(|s| (*s).to_owned()));
            Some(row)
        }
        _ => None,
    }
}
