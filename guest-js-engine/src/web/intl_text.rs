//! ECMA-402's text services for `web/intltext.js`, on ICU4X's compiled
//! data: list patterns (ListFormat), the Unicode Collation Algorithm's
//! root order (Collator, `localeCompare`) and Unicode text segmentation
//! (Segmenter).

use std::cell::RefCell;
use std::cmp::Ordering;
use std::fmt;

use icu_collator::options::{AlternateHandling, CaseLevel, CollatorOptions, Strength};
use icu_collator::preferences::{CollationCaseFirst, CollationNumericOrdering};
use icu_collator::provider::{
    CollationDiacriticsV1, CollationJamoV1, CollationMetadataV1, CollationReorderingV1,
    CollationRootV1, CollationSpecialPrimariesV1, CollationTailoringV1,
};
use icu_collator::{Collator, CollatorPreferences};
use icu_list::ListFormatter;
use icu_list::options::{ListFormatterOptions, ListLength};
use icu_normalizer::provider::{NormalizerNfdDataV1, NormalizerNfdTablesV1};
use icu_provider::{DataError, DataErrorKind, DataMarker, DataProvider, DataRequest, DataResponse};
use writeable::{Part, PartsWrite, Writeable};

use super::intl::locale;

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
