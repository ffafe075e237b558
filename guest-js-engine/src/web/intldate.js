// Intl, part two: DateTimeFormat, RelativeTimeFormat and
// `Date.prototype.toLocale{,Date,Time}String`.
// Spec: https://tc39.es/ecma402/#datetimeformat-objects,
// https://tc39.es/ecma402/#relativetimeformat-objects
//
// A run's time zone is UTC unless a format asks for another; a zone's
// offset at an instant comes from the IANA database bundled in the guest
// (web/intl.rs), never from the host. English patterns for each
// combination of fields are CLDR's, generated into web/intl_data.rs with
// the date before the time, joined by the date's glue, and the zone name
// last.
(function (host) {
  'use strict';
  const { timeZone: zoneNamed, timeZoneOffset, localTimeZone, intlPattern, pluralSelect } = host.natives;
  const {
    methods, tag, service, slots, bound, typeOption, canonicalizeLocaleList, resolveLocale, coerceOptions,
    getOption, getNumberOption,
  } = host.intl.shared;
  const { numberParts, initNumberFormat, joinParts } = host.intlnumber;
  const { Intl } = host.intl;
  const TypeErrorCtor = TypeError;
  const RangeErrorCtor = RangeError;
  const NumberCtor = Number;
  const StringCtor = String;
  const DateCtor = Date;
  const dateNow = Date.now;
  const timeValueOf = Date.prototype.getTime;
  const defineProperty = Object.defineProperty;

  const WEEKDAYS = {
    long: ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'],
    short: ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'],
    narrow: ['S', 'M', 'T', 'W', 'T', 'F', 'S'],
  };
  const MONTHS = {
    long: ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October',
      'November', 'December'],
    short: ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'],
    narrow: ['J', 'F', 'M', 'A', 'M', 'J', 'J', 'A', 'S', 'O', 'N', 'D'],
  };
  const ERAS = { long: ['Before Christ', 'Anno Domini'], short: ['BC', 'AD'], narrow: ['B', 'A'] };

  // ---- time zones ---------------------------------------------------------------

  const UTC_NAMES = ['utc', 'etc/utc', 'etc/gmt', 'gmt', 'etc/uct', 'uct', 'etc/universal', 'universal', 'etc/zulu',
    'zulu', 'etc/greenwich', 'greenwich', 'gmt0', 'etc/gmt0', 'gmt+0', 'gmt-0', 'etc/gmt+0', 'etc/gmt-0'];
  const OFFSET_ZONE = /^([+-])([01]\d|2[0-3])(?::?([0-5]\d))?$/;
  // The zone's canonical name ("UTC", "America/New_York", "+05:30"), or a
  // RangeError.
  function canonicalZone(value) {
    const name = StringCtor(value);
    if (UTC_NAMES.includes(name.toLowerCase())) return 'UTC';
    const offset = OFFSET_ZONE.exec(name);
    if (offset) {
      const minutes = offset[3] === undefined ? '00' : offset[3];
      return `${offset[1]}${offset[2]}:${minutes}`;
    }
    const canonical = name.length <= 256 && /^[\x21-\x7e]+$/.test(name) ? zoneNamed(name) : undefined;
    if (canonical === undefined) throw new RangeErrorCtor(`Invalid time zone specified: ${name.slice(0, 64)}`);
    return canonical;
  }
  // The offset in minutes and whether it is daylight time, at `time`.
  function offsetAt(zone, time) {
    if (zone === 'UTC') return { minutes: 0, dst: false };
    const offset = OFFSET_ZONE.exec(zone);
    if (offset) {
      const minutes = NumberCtor(offset[2]) * 60 + NumberCtor(offset[3] || 0);
      return { minutes: offset[1] === '-' ? -minutes : minutes, dst: false };
    }
    const info = timeZoneOffset(zone, time);
    if (info === undefined) throw new RangeErrorCtor('Invalid time value');
    return { minutes: NumberCtor(info[0]) / 60, dst: info[2] === '1' };
  }
  // "GMT-5", "GMT+5:30" (short) or "GMT-05:00" (long); a zero offset is
  // plain "GMT" only where a short name stands in for a missing one.
  function offsetName(minutes, long, bare) {
    if (minutes === 0 && bare) return 'GMT';
    const sign = minutes < 0 ? '-' : '+';
    const abs = Math.abs(minutes);
    const hours = Math.floor(abs / 60);
    const rest = abs % 60;
    if (long) return `GMT${sign}${pad(hours, 2)}:${pad(rest, 2)}`;
    return `GMT${sign}${hours}${rest ? ':' + pad(rest, 2) : ''}`;
  }
  function observesDaylight(zone, time) {
    const year = new DateCtor(time).getUTCFullYear();
    const january = timeZoneOffset(zone, DateCtor.UTC(year, 0, 1));
    const july = timeZoneOffset(zone, DateCtor.UTC(year, 6, 1));
    return january !== undefined && july !== undefined && january[0] !== july[0];
  }
  function zoneName(zone, style, offset, time) {
    if (style === 'shortOffset') return offsetName(offset.minutes, false, false);
    if (style === 'longOffset') return offsetName(offset.minutes, true, false);
    const names = OFFSET_ZONE.test(zone) ? undefined : intlPattern('zone', zone);
    let name = '';
    if (names !== undefined) {
      let column = { short: 0, long: 2, shortGeneric: 4, longGeneric: 5 }[style];
      // A zone that keeps one offset all year is called by its standard
      // name, as CLDR's generic names say ("Central European Standard
      // Time" in 1970).
      const standard = column === 4 ? 0 : 2;
      if (column >= 4 && names[column] && names[standard] && !observesDaylight(zone, time)) column = standard;
      name = names[column < 4 && offset.dst ? column + 1 : column];
    }
    if (name) return name;
    return offsetName(offset.minutes, style === 'long' || style === 'longGeneric', style === 'short');
  }
  // The text of formatted parts. CLDR puts a narrow no-break space before
  // "AM"/"PM"; as V8 does for the web's sake, `format` writes a plain
  // space there and only `formatToParts` keeps CLDR's.
  function joinText(parts) {
    return joinParts(parts).replace(/\u202f/g, ' ');
  }
  function pad(n, width) {
    return StringCtor(n).padStart(width, '0');
  }

  // ---- DateTimeFormat -------------------------------------------------------------

  const dateTimeFormats = slots('Intl.DateTimeFormat');
  const OWNER = 'Intl.DateTimeFormat';
  const COMPONENTS = [
    ['weekday', ['narrow', 'short', 'long']],
    ['era', ['narrow', 'short', 'long']],
    ['year', ['2-digit', 'numeric']],
    ['month', ['2-digit', 'numeric', 'narrow', 'short', 'long']],
    ['day', ['2-digit', 'numeric']],
    ['dayPeriod', ['narrow', 'short', 'long']],
    ['hour', ['2-digit', 'numeric']],
    ['minute', ['2-digit', 'numeric']],
    ['second', ['2-digit', 'numeric']],
    ['fractionalSecondDigits', null],
    ['timeZoneName', ['short', 'long', 'shortOffset', 'longOffset', 'shortGeneric', 'longGeneric']],
  ];
  const DATE_FIELDS = ['weekday', 'year', 'month', 'day'];
  const TIME_FIELDS = ['dayPeriod', 'hour', 'minute', 'second', 'fractionalSecondDigits'];
  const STYLES = ['full', 'long', 'medium', 'short'];

  // CreateDateTimeFormat, with `required` and `defaults` ("date", "time",
  // "any"; "date", "time", "all") as the caller asks.
  function initDateTimeFormat(locales, options, required, defaults) {
    const requested = canonicalizeLocaleList(locales);
    options = coerceOptions(options);
    getOption(options, 'localeMatcher', 'string', ['lookup', 'best fit'], 'best fit', OWNER);
    const calendar = typeOption(getOption(options, 'calendar', 'string', undefined, undefined, OWNER), 'calendar');
    const numberingSystem = typeOption(
      getOption(options, 'numberingSystem', 'string', undefined, undefined, OWNER), 'numberingSystem');
    const hour12 = getOption(options, 'hour12', 'boolean', undefined, undefined, OWNER);
    let hourCycle = getOption(options, 'hourCycle', 'string', ['h11', 'h12', 'h23', 'h24'], undefined, OWNER);
    if (hour12 !== undefined) hourCycle = null;
    const resolved = resolveLocale(requested, { ca: calendar, nu: numberingSystem, hc: hourCycle }, ['ca', 'hc', 'nu'],
      (key, value) => (key === 'ca' ? value === 'gregory' : key === 'nu' ? value === 'latn'
        : ['h11', 'h12', 'h23', 'h24'].includes(value)));
    const state = { locale: resolved.locale, calendar: 'gregory', numberingSystem: 'latn' };
    let zone = options.timeZone;
    // The default is the run's zone of local time: the request's, else UTC.
    zone = zone === undefined ? localTimeZone() : canonicalZone(zone);
    state.timeZone = zone;
    const fields = {};
    let any = false;
    for (const [name, values] of COMPONENTS) {
      const value = values === null
        ? getNumberOption(options, name, 1, 3, undefined)
        : getOption(options, name, 'string', values, undefined, OWNER);
      if (value !== undefined) {
        fields[name] = value;
        any = true;
      }
    }
    getOption(options, 'formatMatcher', 'string', ['basic', 'best fit'], 'best fit', OWNER);
    const dateStyle = getOption(options, 'dateStyle', 'string', STYLES, undefined, OWNER);
    const timeStyle = getOption(options, 'timeStyle', 'string', STYLES, undefined, OWNER);
    if (dateStyle !== undefined || timeStyle !== undefined) {
      if (any) {
        const name = Object.keys(fields)[0];
        throw new TypeErrorCtor(`Can't set option ${name} when ${dateStyle !== undefined ? 'dateStyle' : 'timeStyle'} is used`);
      }
      if (required === 'date' && dateStyle === undefined) throw new TypeErrorCtor('Invalid option : timeStyle');
      if (required === 'time' && timeStyle === undefined) throw new TypeErrorCtor('Invalid option : dateStyle');
      state.dateStyle = dateStyle;
      state.timeStyle = timeStyle;
    } else {
      let needDefaults = true;
      const relevant = required === 'date' ? DATE_FIELDS : required === 'time' ? TIME_FIELDS
        : [...DATE_FIELDS, ...TIME_FIELDS];
      for (const name of relevant) if (fields[name] !== undefined) needDefaults = false;
      if (needDefaults && (defaults === 'date' || defaults === 'all')) {
        fields.year = fields.month = fields.day = 'numeric';
      }
      if (needDefaults && (defaults === 'time' || defaults === 'all')) {
        fields.hour = fields.minute = fields.second = 'numeric';
      }
    }
    const hasHour = fields.hour !== undefined || timeStyle !== undefined;
    if (hasHour) {
      let cycle = hourCycle === null ? undefined : hourCycle;
      if (cycle === undefined) cycle = resolved.hc;
      if (hour12 !== undefined) cycle = hour12 ? 'h12' : 'h23';
      if (cycle === undefined) cycle = 'h12';
      state.hourCycle = cycle;
    }
    state.fields = fields;
    state.pattern = datePattern(state);
    return state;
  }

  // The pattern of the format's fields: `{field:width}` tokens between
  // literal text.
  function datePattern(state) {
    const cycle = state.hourCycle || 'h12';
    if (state.dateStyle !== undefined || state.timeStyle !== undefined) {
      return intlPattern('style', `${state.dateStyle || '-'},${state.timeStyle || '-'},${state.timeStyle ? cycle : 'h12'}`)[0];
    }
    const f = state.fields;
    const width = (name) => (f[name] === undefined ? '-' : StringCtor(f[name]));
    const dateKey = DATE_FIELDS.map(width).join(',');
    const hasTime = f.hour !== undefined || f.minute !== undefined || f.second !== undefined
      || f.fractionalSecondDigits !== undefined;
    const timeKey = `${cycle};${['hour', 'minute', 'second', 'fractionalSecondDigits'].map(width).join(',')}`;
    const zone = f.timeZoneName;
    const whole = intlPattern('whole', `${dateKey};${timeKey};${zone || '-'}`);
    let pattern;
    if (whole !== undefined && cycle === 'h12') {
      pattern = whole[0];
    } else {
      const date = dateKey !== '-,-,-,-' ? intlPattern('date', dateKey) : undefined;
      const time = hasTime ? intlPattern('time', timeKey) : undefined;
      pattern = date ? date[0] : '';
      if (time) pattern += (date ? date[1] : '') + time[0];
      if (zone) pattern += (time ? ' ' : date ? date[1] : '') + `{timeZoneName:${zone}}`;
    }
    // A `dayPeriod` asked for is CLDR's flexible one ("in the afternoon"),
    // in the place of AM/PM, or after the date when there is no time.
    if (f.dayPeriod !== undefined) {
      const flexible = `{flexibleDayPeriod:${f.dayPeriod}}`;
      if (pattern.includes('{dayPeriod:')) pattern = pattern.replace(/\u202f?\{dayPeriod:[^}]*\}/, ' ' + flexible);
      else if (!hasTime) {
        const date = dateKey !== '-,-,-,-' ? intlPattern('date', dateKey) : undefined;
        pattern = date ? pattern.replace(date[0], date[0] + date[1] + flexible) : flexible + pattern;
      }
    }
    if (f.era !== undefined) {
      pattern = pattern.includes('{year:')
        ? pattern.replace(/\{year:[^}]*\}/, (year) => `${year} {era:${f.era}}`)
        : pattern + ` {era:${f.era}}`;
    }
    return pattern;
  }

  const TOKEN = /\{(\w+):([\w-]+)\}/g;
  function dateParts(state, date) {
    let time;
    if (date === undefined) time = dateNow();
    else time = NumberCtor(date instanceof DateCtor ? timeValueOf.call(date) : date);
    if (!Number.isFinite(time) || Math.abs(time) > 8.64e15) throw new RangeErrorCtor('Invalid time value');
    time = Math.trunc(time) + 0;
    const offset = offsetAt(state.timeZone, time);
    const local = new DateCtor(time + offset.minutes * 60000);
    const hour = local.getUTCHours();
    const year = local.getUTCFullYear();
    const parts = [];
    const pattern = state.pattern;
    let at = 0;
    TOKEN.lastIndex = 0;
    for (let match = TOKEN.exec(pattern); match !== null; match = TOKEN.exec(pattern)) {
      if (match.index > at) parts.push({ type: 'literal', value: pattern.slice(at, match.index) });
      at = match.index + match[0].length;
      const [, field, width] = match;
      let value;
      switch (field) {
        case 'weekday': value = WEEKDAYS[width][local.getUTCDay()]; break;
        case 'era': value = ERAS[width][year > 0 ? 1 : 0]; break;
        case 'year': {
          const shown = year > 0 || state.fields.era === undefined ? year : 1 - year;
          value = width === '2-digit' ? pad(Math.abs(shown) % 100, 2) : StringCtor(shown);
          break;
        }
        case 'month': {
          const month = local.getUTCMonth();
          value = width === 'numeric' ? StringCtor(month + 1) : width === '2-digit' ? pad(month + 1, 2) : MONTHS[width][month];
          break;
        }
        case 'day': value = width === '2-digit' ? pad(local.getUTCDate(), 2) : StringCtor(local.getUTCDate()); break;
        case 'hour': {
          const cycle = state.hourCycle || 'h12';
          const shown = cycle === 'h12' ? hour % 12 || 12 : cycle === 'h11' ? hour % 12 : cycle === 'h24' ? hour || 24 : hour;
          value = width === '2-digit' ? pad(shown, 2) : StringCtor(shown);
          break;
        }
        case 'minute': value = width === '2-digit' ? pad(local.getUTCMinutes(), 2) : StringCtor(local.getUTCMinutes()); break;
        case 'second': value = width === '2-digit' ? pad(local.getUTCSeconds(), 2) : StringCtor(local.getUTCSeconds()); break;
        case 'fractionalSecond': value = pad(local.getUTCMilliseconds(), 3).slice(0, NumberCtor(width)); break;
        case 'dayPeriod': value = hour < 12 ? 'AM' : 'PM'; break;
        case 'flexibleDayPeriod': {
          // Noon is 12:00 as shown: minutes and seconds the pattern
          // leaves out do not count.
          const noon = hour === 12 && (!pattern.includes('{minute:') || local.getUTCMinutes() === 0)
            && (!pattern.includes('{second:') || local.getUTCSeconds() === 0);
          value = noon ? (width === 'narrow' ? 'n' : 'noon') : hour < 12 ? 'in the morning'
            : hour < 18 ? 'in the afternoon' : hour < 21 ? 'in the evening' : 'at night';
          parts.push({ type: 'dayPeriod', value });
          continue;
        }
        case 'timeZoneName': value = zoneName(state.timeZone, width, offset, time); break;
        default: value = '';
      }
      parts.push({ type: field, value });
    }
    if (at < pattern.length) parts.push({ type: 'literal', value: pattern.slice(at) });
    return parts;
  }

  function DateTimeFormat(locales, options) {
    if (new.target === undefined) return new DateTimeFormat(locales, options);
    dateTimeFormats.set(this, initDateTimeFormat(locales, options, 'any', 'date'));
  }
  service(DateTimeFormat, 'DateTimeFormat', 0);
  methods(DateTimeFormat.prototype, {
    get format() {
      const state = dateTimeFormats.get(this, 'format');
      return bound(state, (date) => joinText(dateParts(state, date)));
    },
    formatToParts(date) {
      return dateParts(dateTimeFormats.get(this, 'formatToParts'), date);
    },
    formatRange(start, end) {
      return joinText(dateRangeParts(dateTimeFormats.get(this, 'formatRange'), start, end));
    },
    formatRangeToParts(start, end) {
      return dateRangeParts(dateTimeFormats.get(this, 'formatRangeToParts'), start, end);
    },
    resolvedOptions() {
      const state = dateTimeFormats.get(this, 'resolvedOptions');
      const result = {
        locale: state.locale, calendar: state.calendar, numberingSystem: state.numberingSystem,
        timeZone: state.timeZone,
      };
      if (state.hourCycle !== undefined) {
        result.hourCycle = state.hourCycle;
        result.hour12 = state.hourCycle === 'h11' || state.hourCycle === 'h12';
      }
      // The widths the pattern shows (a minute next to an hour is always
      // two digits).
      const shown = {};
      TOKEN.lastIndex = 0;
      for (let match = TOKEN.exec(state.pattern); match !== null; match = TOKEN.exec(state.pattern)) {
        shown[match[1] === 'fractionalSecond' ? 'fractionalSecondDigits' : match[1]] = match[2];
      }
      if (state.dateStyle === undefined && state.timeStyle === undefined) {
        for (const [name] of COMPONENTS) {
          if (state.fields[name] === undefined) continue;
          result[name] = name === 'fractionalSecondDigits' ? state.fields[name] : shown[name] || state.fields[name];
        }
      } else {
        if (state.dateStyle !== undefined) result.dateStyle = state.dateStyle;
        if (state.timeStyle !== undefined) result.timeStyle = state.timeStyle;
      }
      return result;
    },
  });
  tag(DateTimeFormat.prototype, 'Intl.DateTimeFormat');

  function dateRangeParts(state, start, end) {
    if (start === undefined || end === undefined) throw new TypeErrorCtor('startDate and endDate are required');
    const first = dateParts(state, start);
    const second = dateParts(state, end);
    if (joinParts(first) === joinParts(second)) return first.map((part) => ({ ...part, source: 'shared' }));
    return [
      ...first.map((part) => ({ ...part, source: 'startRange' })),
      { type: 'literal', value: ' – ', source: 'shared' },
      ...second.map((part) => ({ ...part, source: 'endRange' })),
    ];
  }

  // ---- RelativeTimeFormat ---------------------------------------------------------

  const relativeTimeFormats = slots('Intl.RelativeTimeFormat');
  const UNITS = ['second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year'];
  function RelativeTimeFormat(locales, options) {
    if (new.target === undefined) throw new TypeErrorCtor("Constructor Intl.RelativeTimeFormat requires 'new'");
    const requested = canonicalizeLocaleList(locales);
    options = coerceOptions(options);
    const owner = 'Intl.RelativeTimeFormat';
    getOption(options, 'localeMatcher', 'string', ['lookup', 'best fit'], 'best fit', owner);
    const numberingSystem = typeOption(
      getOption(options, 'numberingSystem', 'string', undefined, undefined, owner), 'numberingSystem');
    const resolved = resolveLocale(requested, { nu: numberingSystem }, ['nu'], (key, value) => value === 'latn');
    const style = getOption(options, 'style', 'string', ['long', 'short', 'narrow'], 'long', owner);
    const numeric = getOption(options, 'numeric', 'string', ['always', 'auto'], 'always', owner);
    const number = initNumberFormat(resolved.dataLocale, undefined);
    relativeTimeFormats.set(this, {
      locale: resolved.locale, dataLocale: resolved.dataLocale, style, numeric, numberingSystem: 'latn', number,
    });
  }
  service(RelativeTimeFormat, 'RelativeTimeFormat', 0);
  function relativeParts(state, value, unit) {
    value = NumberCtor(value);
    unit = StringCtor(unit);
    if (!Number.isFinite(value)) throw new RangeErrorCtor('Invalid value: must be a finite number');
    const singular = unit.endsWith('s') ? unit.slice(0, -1) : unit;
    if (!UNITS.includes(singular)) throw new RangeErrorCtor(`Invalid unit argument for format() '${unit}'`);
    if (state.numeric === 'auto' && Number.isInteger(value) && Math.abs(value) <= 2) {
      const words = intlPattern('relative', `${singular},${state.style},auto,${Object.is(value, -0) ? 0 : value}`);
      if (words !== undefined) return [{ type: 'literal', value: words[0] }];
    }
    const past = value < 0 || Object.is(value, -0);
    const magnitude = Math.abs(value);
    const plural = pluralSelect(state.dataLocale, magnitude, state.number.spec, false);
    const pattern = intlPattern('relative', `${singular},${state.style},${past ? 'past' : 'future'},${plural === 'one' ? 'one' : 'other'}`)[0];
    const at = pattern.indexOf('{0}');
    const parts = [];
    if (at > 0) parts.push({ type: 'literal', value: pattern.slice(0, at) });
    for (const part of numberParts(state.number, magnitude)) parts.push({ ...part, unit: singular });
    if (at + 3 < pattern.length) parts.push({ type: 'literal', value: pattern.slice(at + 3) });
    return parts;
  }
  methods(RelativeTimeFormat.prototype, {
    format(value, unit) {
      return joinParts(relativeParts(relativeTimeFormats.get(this, 'format'), value, unit));
    },
    formatToParts(value, unit) {
      return relativeParts(relativeTimeFormats.get(this, 'formatToParts'), value, unit);
    },
    resolvedOptions() {
      const state = relativeTimeFormats.get(this, 'resolvedOptions');
      return { locale: state.locale, style: state.style, numeric: state.numeric, numberingSystem: state.numberingSystem };
    },
  });
  tag(RelativeTimeFormat.prototype, 'Intl.RelativeTimeFormat');

  defineProperty(Intl, 'DateTimeFormat', { value: DateTimeFormat, writable: true, configurable: true });
  defineProperty(Intl, 'RelativeTimeFormat', { value: RelativeTimeFormat, writable: true, configurable: true });

  // ---- Date.prototype.toLocale*String -------------------------------------------

  const plain = {};
  function toLocaleDate(date, locales, options, required, defaults) {
    const time = timeValueOf.call(date);
    if (Number.isNaN(time)) return 'Invalid Date';
    let state;
    if (locales === undefined && options === undefined) {
      state = plain[required] || (plain[required] = initDateTimeFormat(undefined, undefined, required, defaults));
    } else {
      state = initDateTimeFormat(locales, options, required, defaults);
    }
    return joinText(dateParts(state, time));
  }
  methods(Date.prototype, {
    toLocaleString(locales = undefined, options = undefined) {
      return toLocaleDate(this, locales, options, 'any', 'all');
    },
    toLocaleDateString(locales = undefined, options = undefined) {
      return toLocaleDate(this, locales, options, 'date', 'date');
    },
    toLocaleTimeString(locales = undefined, options = undefined) {
      return toLocaleDate(this, locales, options, 'time', 'time');
    },
  });

  // ---- Date.prototype.toString, toTimeString --------------------------------------

  // Both end with the zone's long name in brackets, as V8 writes them:
  // "GMT-0500 (Eastern Standard Time)", "GMT+0000 (Coordinated Universal
  // Time)"; QuickJS stops at the offset.
  const dateToString = Date.prototype.toString;
  const dateToTimeString = Date.prototype.toTimeString;
  function withZoneName(date, text) {
    const time = timeValueOf.call(date);
    if (Number.isNaN(time)) return text;
    const zone = localTimeZone();
    return `${text} (${zoneName(zone, 'long', offsetAt(zone, time), time)})`;
  }
  methods(Date.prototype, {
    toString() {
      return withZoneName(this, dateToString.call(this));
    },
    toTimeString() {
      return withZoneName(this, dateToTimeString.call(this));
    },
  });

  return { DateTimeFormat, RelativeTimeFormat };
})
