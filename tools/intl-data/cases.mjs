// Writes tests/runtime/fixtures/intl-node.json: Intl calls and what Node.js
// (with full ICU) returns for each, for tests/runtime/intl.rs to run in the
// sandbox and compare. Each case is one expression; its result is kept as
// JSON, or as `{ throws: <error name> }`. Run it with `make intl-data`.
import { writeFileSync } from 'node:fs';

const cases = [];
const add = (expr) => cases.push(expr);
const q = (v) => (typeof v === 'bigint' ? `${v}n` : Object.is(v, -0) ? '-0' : typeof v === 'number' && !Number.isFinite(v) ? String(v) : JSON.stringify(v));

// ---- numbers -----------------------------------------------------------------
const values = [0, -0, 1, -1, 0.5, 1.005, 2.675, 12.345, 999.9995, 1234.5, -1234.5678, 1234567.891, 0.000123456,
  1e21, 123456789012345680000, 999999, 1e-7, 1.5, 2.5, -2.5, NaN, Infinity, -Infinity, 42];
const numberOptions = [
  undefined,
  { maximumFractionDigits: 0 }, { maximumFractionDigits: 2 }, { minimumFractionDigits: 2 },
  { minimumFractionDigits: 2, maximumFractionDigits: 2 }, { maximumSignificantDigits: 3 },
  { minimumSignificantDigits: 5 }, { minimumIntegerDigits: 3 }, { useGrouping: false }, { useGrouping: 'min2' },
  { style: 'percent' }, { style: 'percent', maximumFractionDigits: 1 },
  { style: 'currency', currency: 'USD' }, { style: 'currency', currency: 'EUR' }, { style: 'currency', currency: 'JPY' },
  { style: 'currency', currency: 'GBP', currencyDisplay: 'code' }, { style: 'currency', currency: 'USD', currencyDisplay: 'name' },
  { style: 'currency', currency: 'USD', currencySign: 'accounting' }, { style: 'currency', currency: 'CAD' },
  { style: 'currency', currency: 'CAD', currencyDisplay: 'narrowSymbol' }, { style: 'currency', currency: 'CHF' },
  { style: 'currency', currency: 'KWD' },
  { style: 'unit', unit: 'kilometer' }, { style: 'unit', unit: 'kilometer', unitDisplay: 'long' },
  { style: 'unit', unit: 'megabyte', unitDisplay: 'narrow' }, { style: 'unit', unit: 'kilometer-per-hour' },
  { style: 'unit', unit: 'liter', unitDisplay: 'long' }, { style: 'unit', unit: 'percent' },
  { notation: 'compact' }, { notation: 'compact', compactDisplay: 'long' }, { notation: 'scientific' },
  { notation: 'engineering' }, { notation: 'compact', style: 'currency', currency: 'USD' },
  { signDisplay: 'always' }, { signDisplay: 'exceptZero' }, { signDisplay: 'never' }, { signDisplay: 'negative' },
  { roundingMode: 'floor', maximumFractionDigits: 1 }, { roundingMode: 'halfEven', maximumFractionDigits: 0 },
  { roundingMode: 'trunc', maximumSignificantDigits: 2 }, { roundingIncrement: 5, maximumFractionDigits: 2, minimumFractionDigits: 2 },
  { roundingIncrement: 25, maximumFractionDigits: 2, minimumFractionDigits: 2 },
  { maximumFractionDigits: 2, trailingZeroDisplay: 'stripIfInteger', minimumFractionDigits: 2 },
  { roundingPriority: 'morePrecision', maximumSignificantDigits: 2, maximumFractionDigits: 2 },
  { roundingPriority: 'lessPrecision', maximumSignificantDigits: 2, maximumFractionDigits: 2 },
];
for (const options of numberOptions) {
  for (const v of values) add(`new Intl.NumberFormat('en-US'${options ? ', ' + JSON.stringify(options) : ''}).format(${q(v)})`);
  add(`new Intl.NumberFormat('en-US'${options ? ', ' + JSON.stringify(options) : ''}).formatToParts(-1234.5)`);
  add(`new Intl.NumberFormat('en-US'${options ? ', ' + JSON.stringify(options) : ''}).resolvedOptions()`);
}
for (const v of [12345678901234567890n, -5n, 0n]) add(`${q(v)}.toLocaleString('en-US')`);
for (const s of ['"1234567890123456789.25"', '"  42  "', '"1e3"', '"0x10"', '""', '"abc"', '"-0"']) {
  add(`new Intl.NumberFormat('en-US', {maximumFractionDigits: 2}).format(${s})`);
}
for (const v of values) add(`(${q(v)}).toLocaleString()`);
add(`(1234.5).toLocaleString('en-US', {style: 'currency', currency: 'USD'})`);
add(`(1234.5).toLocaleString('de-DE')`.replace('de-DE', 'en'));
add(`new Intl.NumberFormat('en').formatRange(3, 5)`);
add(`new Intl.NumberFormat('en', {style: 'currency', currency: 'USD', maximumFractionDigits: 0}).formatRange(3, 3.2)`);

// Option errors, by the error's name.
for (const options of [{ style: 'currency' }, { style: 'bogus' }, { currency: 'US' }, { maximumFractionDigits: 101 },
  { minimumFractionDigits: 3, maximumFractionDigits: 1 }, { roundingIncrement: 3 }, { style: 'unit', unit: 'furlong' },
  { roundingIncrement: 5, maximumSignificantDigits: 2 }, { useGrouping: 'sometimes' }]) {
  add(`new Intl.NumberFormat('en', ${JSON.stringify(options)})`);
}
for (const locales of ["'en_US'", "''", "['en', 5]", 'null', "'x'", "'EN-us'", "['en-GB', 'en']", "'en-US-u-nu-latn'"]) {
  add(`Intl.getCanonicalLocales(${locales})`);
}

// ---- plural rules --------------------------------------------------------------
for (const type of ['cardinal', 'ordinal']) {
  for (const v of [0, 1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 1.5, '1.0', -1]) {
    add(`new Intl.PluralRules('en', {type: '${type}'}).select(${q(v)})`);
  }
  add(`new Intl.PluralRules('en', {type: '${type}'}).resolvedOptions()`);
}
add(`new Intl.PluralRules('en', {minimumFractionDigits: 1}).select(1)`);

// ---- dates ------------------------------------------------------------------------
const instants = [Date.UTC(2025, 0, 15, 17, 30, 5, 42), Date.UTC(2025, 6, 4, 0, 5, 0), Date.UTC(1999, 11, 31, 23, 59, 59, 999),
  Date.UTC(2024, 1, 29, 12, 0, 0), 0];
const zones = [undefined, 'UTC', 'America/New_York', 'America/Los_Angeles', 'Europe/Paris', 'Asia/Kolkata',
  'Australia/Sydney', 'Asia/Tokyo', 'America/Sao_Paulo'];
const dateOptions = [
  undefined, { dateStyle: 'full' }, { dateStyle: 'long' }, { dateStyle: 'medium' }, { dateStyle: 'short' },
  { timeStyle: 'full' }, { timeStyle: 'long' }, { timeStyle: 'medium' }, { timeStyle: 'short' },
  { dateStyle: 'medium', timeStyle: 'short' }, { dateStyle: 'full', timeStyle: 'full' }, { dateStyle: 'short', timeStyle: 'short', hour12: false },
  { year: 'numeric', month: 'long', day: 'numeric' }, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' },
  { weekday: 'long', hour: 'numeric', minute: '2-digit' }, { month: 'short', day: 'numeric' }, { year: 'numeric', month: '2-digit', day: '2-digit' },
  { hour: '2-digit', minute: '2-digit', hour12: false }, { hour: 'numeric', minute: '2-digit', second: '2-digit', timeZoneName: 'short' },
  { year: 'numeric', month: 'long', timeZoneName: 'long' }, { hour: 'numeric', hourCycle: 'h23' }, { hour: 'numeric', hourCycle: 'h11' },
  { hour: 'numeric', minute: 'numeric', hourCycle: 'h24' }, { minute: '2-digit', second: '2-digit' }, { fractionalSecondDigits: 3, second: 'numeric' },
  { weekday: 'short', year: 'numeric', month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit', second: '2-digit', timeZoneName: 'shortOffset' },
  { timeZoneName: 'longOffset' }, { timeZoneName: 'shortGeneric', hour: 'numeric' }, { timeZoneName: 'longGeneric' },
  { month: 'narrow' }, { weekday: 'narrow' }, { year: '2-digit' },
  { dayPeriod: 'short' }, { dayPeriod: 'long', hour: 'numeric' }, { dayPeriod: 'narrow', hour: 'numeric', minute: '2-digit' },
  { dayPeriod: 'long', year: 'numeric', month: 'short', day: 'numeric' },
  { year: 'numeric', era: 'short' }, { year: 'numeric', month: 'long', day: 'numeric', era: 'long' },
];
for (const options of dateOptions) {
  for (const zone of zones) {
    const o = { ...options, ...(zone ? { timeZone: zone } : {}) };
    for (const t of instants) add(`new Intl.DateTimeFormat('en-US', ${JSON.stringify(o)}).format(new Date(${t}))`);
  }
  add(`new Intl.DateTimeFormat('en-US', ${JSON.stringify(options || {})}).resolvedOptions()`);
  add(`new Intl.DateTimeFormat('en-US', ${JSON.stringify({ ...options, timeZone: 'America/New_York' })}).formatToParts(new Date(${instants[0]}))`);
}
for (const t of instants) {
  add(`new Date(${t}).toLocaleString('en-US', {timeZone: 'UTC'})`);
  add(`new Date(${t}).toLocaleDateString('en-US', {timeZone: 'UTC'})`);
  add(`new Date(${t}).toLocaleTimeString('en-US', {timeZone: 'UTC'})`);
  add(`new Date(${t}).toLocaleDateString('en-US', {timeZone: 'UTC', weekday: 'long', month: 'long', day: 'numeric'})`);
  add(`new Date(${t}).toLocaleTimeString('en-US', {timeZone: 'UTC', hour: '2-digit', minute: '2-digit'})`);
}
add(`new Date(NaN).toLocaleString('en-US')`);
for (const options of [{ timeZone: 'Mars/Olympus' }, { dateStyle: 'full', hour: 'numeric' }, { hour: 'bogus' }, { fractionalSecondDigits: 4 }]) {
  add(`new Intl.DateTimeFormat('en', ${JSON.stringify(options)})`);
}
add(`new Intl.DateTimeFormat('en', {timeZone: 'america/new_york'}).resolvedOptions().timeZone`);
add(`new Intl.DateTimeFormat('en', {timeZone: 'Etc/UTC'}).resolvedOptions().timeZone`);
add(`new Intl.DateTimeFormat('en').format(8.64e15 + 1)`);

// ---- relative time, lists, collation ------------------------------------------------
for (const style of ['long', 'short', 'narrow']) {
  for (const numeric of ['always', 'auto']) {
    for (const unit of ['second', 'minutes', 'hour', 'day', 'week', 'month', 'quarter', 'years']) {
      for (const v of [-2, -1, -0, 0, 1, 2, 1.5, -1234.5]) {
        add(`new Intl.RelativeTimeFormat('en', {style: '${style}', numeric: '${numeric}'}).format(${q(v)}, '${unit}')`);
      }
    }
  }
}
add(`new Intl.RelativeTimeFormat('en').formatToParts(-1234.5, 'day')`);
add(`new Intl.RelativeTimeFormat('en').format(1, 'fortnight')`);
for (const type of ['conjunction', 'disjunction', 'unit']) {
  for (const style of ['long', 'short', 'narrow']) {
    for (const list of [[], ['a'], ['a', 'b'], ['a', 'b', 'c'], ['one', 'two', 'three', 'four']]) {
      add(`new Intl.ListFormat('en', {type: '${type}', style: '${style}'}).format(${JSON.stringify(list)})`);
    }
  }
}
add(`new Intl.ListFormat('en').formatToParts(['x', 'y', 'z'])`);
add(`new Intl.ListFormat('en').format(['a', 1])`);
const words = ['a', 'A', 'b', 'B', 'á', 'Á', 'ä', 'z', 'Z', '1', '10', '2', 'résumé', 'resume', 'Resume', 'co-op', 'coop',
  'cote', 'côte', 'coté', 'côté', '', ' a', 'a b', 'ab', '_x', 'x_', 'Ångström', 'angstrom', 'ß', 'ss', 'œ', 'oe', '😀', 'éclair'];
add(`${JSON.stringify(words)}.sort((a, b) => a.localeCompare(b))`);
add(`${JSON.stringify(words)}.sort(new Intl.Collator('en', {numeric: true}).compare)`);
add(`${JSON.stringify(words)}.sort(new Intl.Collator('en', {caseFirst: 'upper'}).compare)`);
for (const sensitivity of ['base', 'accent', 'case', 'variant']) {
  add(`[['a', 'A'], ['a', 'á'], ['a', 'b'], ['résumé', 'Resume']].map(([x, y]) => new Intl.Collator('en', {sensitivity: '${sensitivity}'}).compare(x, y))`);
}
add(`['a-b', 'ab', 'a b', 'a.b'].map((x) => new Intl.Collator('en', {ignorePunctuation: true}).compare(x, 'ab'))`);
add(`new Intl.Collator('en').resolvedOptions()`);
add(`new Intl.Collator('en-u-kn-true').resolvedOptions()`);
add(`['item10', 'item9', 'item1'].sort(new Intl.Collator(undefined, {numeric: true}).compare)`);

// ---- segmentation ---------------------------------------------------------------
const texts = ['Hello, world! How are you?', 'e\u0301te\u0301 👨‍👩‍👧 🇫🇷 ok', "It's 3.14 o'clock. Mr. Smith left... Did he?", '', 'a\u0000bc',
  'naïve café—résumé; 1,234.5 items', 'Über   spaces\n\nnew line. Next'];
for (const granularity of ['grapheme', 'word', 'sentence']) {
  for (const text of texts) {
    add(`[...new Intl.Segmenter('en', {granularity: '${granularity}'}).segment(${JSON.stringify(text)})].map((s) => [s.segment, s.index, s.isWordLike])`);
  }
  add(`[0, 3, 7, 100, -1].map((i) => new Intl.Segmenter('en', {granularity: '${granularity}'}).segment(${JSON.stringify(texts[1])}).containing(i))`);
}
add(`new Intl.Segmenter('en', {granularity: 'word'}).resolvedOptions()`);

// ---- the object model ------------------------------------------------------------------
add(`Object.prototype.toString.call(Intl)`);
add(`[Intl.NumberFormat.length, Intl.NumberFormat.name, Intl.NumberFormat.supportedLocalesOf.length, typeof Intl.NumberFormat.prototype.format]`.replace('typeof Intl.NumberFormat.prototype.format', 'Intl.NumberFormat.prototype.formatToParts.length'));
add(`Object.prototype.toString.call(new Intl.DateTimeFormat())`);
add(`Intl.NumberFormat('en').format(5)`);
add(`Intl.NumberFormat.supportedLocalesOf(['en-US', 'de', 'en-GB'])`);
add(`Object.getOwnPropertyNames(Intl.NumberFormat.prototype).sort()`);
add(`Intl.DateTimeFormat().resolvedOptions().timeZone`);
add(`Intl.supportedValuesOf('unit')`);
add(`Intl.supportedValuesOf('currency')`);
add(`Intl.supportedValuesOf('bogus')`);

const results = [];
for (const expr of cases) {
  let expected;
  try {
    const value = (0, eval)(`(${expr})`);
    expected = { value: JSON.parse(JSON.stringify(value === undefined ? null : value)) };
  } catch (error) {
    expected = { throws: error.name };
  }
  results.push({ expr, ...expected });
}
const target = new URL('../../tests/runtime/fixtures/intl-node.json', import.meta.url);
writeFileSync(target, JSON.stringify({
  about: `Intl calls and what Node.js ${process.version} (ICU ${process.versions.icu}, CLDR ${process.versions.cldr}, tz ${process.versions.tz}) returned, from tools/intl-data/cases.mjs.`,
  cases: results,
}, null, 1) + '\n');
console.log(`wrote ${target.pathname}: ${results.length} cases`);
