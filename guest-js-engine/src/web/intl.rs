//! ECMA-402's locale-sensitive steps that need locale data or exact
//! decimal arithmetic, for the `web/intl*.js` modules: ICU4X (the Unicode
//! Consortium's Rust internationalisation library, with its compiled CLDR
//! data) formats numbers and selects plural categories. Time zones are in
//! `intl_zones.rs`; lists, collation and segmentation in `intl_text.rs`.
//!
//! The JavaScript side reads and validates the options as ECMA-402 says,
//! resolves the locale, and passes each native a locale tag it has already
//! canonicalised plus numbers for the options; a native that is given
//! something it cannot use returns `None`, and the module throws. Every
//! native's work is proportional to its input, which the module caps.

use fixed_decimal::{
    Decimal, FloatPrecision, RoundingIncrement, SignedRoundingMode, UnsignedRoundingMode,
};
use icu_decimal::DecimalFormatter;
use icu_decimal::options::{DecimalFormatterOptions, GroupingStrategy};
use icu_locale_core::Locale;
use icu_plurals::{PluralCategory, PluralRules};
use rquickjs::Value;
use writeable::Writeable;

/// The most digits a formatted number may carry (a BigInt's, or a decimal
/// string's): past this, `format` refuses.
const MAX_DIGITS: usize = 4096;

pub(super) fn locale(tag: &str) -> Option<Locale> {
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
