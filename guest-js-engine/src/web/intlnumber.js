// Intl, numbers: NumberFormat and PluralRules, `Intl.supportedValuesOf`,
// and `Number`/`BigInt.prototype.toLocaleString`.
// Spec: https://tc39.es/ecma402/#numberformat-objects,
// https://tc39.es/ecma402/#pluralrules-objects
//
// Decimal arithmetic, grouping and plural rules are ICU4X's (natives in
// web/intl.rs); the English currency and unit patterns come from CLDR
// (web/intl_data.rs).
(function (host) {
  'use strict';
  const { numberFormat, pluralSelect, pluralCategories, intlPattern, supportedValues } = host.natives;
  const {
    methods, tag, service, slots, bound, typeOption, canonicalizeLocaleList, resolveLocale, coerceOptions,
    getOption, getNumberOption, defaultNumberOption,
  } = host.intl.shared;
  const { Intl } = host.intl;
  const TypeErrorCtor = TypeError;
  const RangeErrorCtor = RangeError;
  const StringCtor = String;
  const NumberCtor = Number;
  const defineProperty = Object.defineProperty;
  const isNaN = Number.isNaN;
  const numberValueOf = Number.prototype.valueOf;
  const bigintValueOf = typeof BigInt === 'function' ? BigInt.prototype.valueOf : undefined;

  // ---- digits -------------------------------------------------------------------

  const ROUNDING_MODES = ['ceil', 'floor', 'expand', 'trunc', 'halfCeil', 'halfFloor', 'halfExpand', 'halfTrunc', 'halfEven'];
  const INCREMENTS = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 2500, 5000];

  // SetNumberFormatDigitOptions.
  function digitOptions(state, options, minFractionDefault, maxFractionDefault, notation, owner) {
    const minInteger = getNumberOption(options, 'minimumIntegerDigits', 1, 21, 1);
    let minFraction = options.minimumFractionDigits;
    let maxFraction = options.maximumFractionDigits;
    let minSignificant = options.minimumSignificantDigits;
    let maxSignificant = options.maximumSignificantDigits;
    state.minimumIntegerDigits = minInteger;
    const increment = getNumberOption(options, 'roundingIncrement', 1, 5000, 1);
    if (!INCREMENTS.includes(increment)) throw new RangeErrorCtor('roundingIncrement value is out of range.');
    const roundingMode = getOption(options, 'roundingMode', 'string', ROUNDING_MODES, 'halfExpand', owner);
    const priority = getOption(options, 'roundingPriority', 'string', ['auto', 'morePrecision', 'lessPrecision'], 'auto', owner);
    const trailingZeroDisplay = getOption(options, 'trailingZeroDisplay', 'string', ['auto', 'stripIfInteger'], 'auto', owner);
    if (increment !== 1) maxFractionDefault = minFractionDefault;
    state.roundingIncrement = increment;
    state.roundingMode = roundingMode;
    state.trailingZeroDisplay = trailingZeroDisplay;
    const hasSignificant = minSignificant !== undefined || maxSignificant !== undefined;
    const hasFraction = minFraction !== undefined || maxFraction !== undefined;
    let needSignificant = true;
    let needFraction = true;
    if (priority === 'auto') {
      needSignificant = hasSignificant;
      if (needSignificant || (!hasFraction && notation === 'compact')) needFraction = false;
    }
    if (needSignificant) {
      if (hasSignificant) {
        minSignificant = defaultNumberOption(minSignificant, 1, 21, 1, 'minimumSignificantDigits');
        maxSignificant = defaultNumberOption(maxSignificant, minSignificant, 21, 21, 'maximumSignificantDigits');
        state.minimumSignificantDigits = minSignificant;
        state.maximumSignificantDigits = maxSignificant;
      } else {
        state.minimumSignificantDigits = 1;
        state.maximumSignificantDigits = 21;
      }
    }
    if (needFraction) {
      if (hasFraction) {
        minFraction = defaultNumberOption(minFraction, 0, 100, undefined, 'minimumFractionDigits');
        maxFraction = defaultNumberOption(maxFraction, 0, 100, undefined, 'maximumFractionDigits');
        if (minFraction === undefined) minFraction = Math.min(minFractionDefault, maxFraction);
        else if (maxFraction === undefined) maxFraction = Math.max(maxFractionDefault, minFraction);
        else if (minFraction > maxFraction) throw new RangeErrorCtor('maximumFractionDigits value is out of range.');
        state.minimumFractionDigits = minFraction;
        state.maximumFractionDigits = maxFraction;
      } else {
        state.minimumFractionDigits = minFractionDefault;
        state.maximumFractionDigits = maxFractionDefault;
      }
    }
    if (!needSignificant && !needFraction) {
      state.minimumFractionDigits = 0;
      state.maximumFractionDigits = 0;
      state.minimumSignificantDigits = 1;
      state.maximumSignificantDigits = 2;
      state.roundingType = 'morePrecision';
      state.roundingPriority = 'morePrecision';
    } else if (priority === 'auto') {
      state.roundingType = hasSignificant ? 'significantDigits' : 'fractionDigits';
      state.roundingPriority = 'auto';
    } else {
      state.roundingType = priority;
      state.roundingPriority = priority;
    }
    if (increment !== 1) {
      if (state.roundingType !== 'fractionDigits') {
        throw new TypeErrorCtor('roundingIncrement requires fraction digits rounding (no significant digits)');
      }
      if (state.maximumFractionDigits !== state.minimumFractionDigits) {
        throw new RangeErrorCtor('roundingIncrement requires maximumFractionDigits to equal minimumFractionDigits');
      }
    }
  }

  const ROUNDING_TYPES = ['fractionDigits', 'significantDigits', 'morePrecision', 'lessPrecision'];
  const NOTATIONS = ['standard', 'scientific', 'engineering', 'compact'];
  // The numbers web/intl.rs reads (NumberSpec::read), in its order.
  function numberSpec(state, scale) {
    return [
      state.minimumIntegerDigits,
      state.minimumFractionDigits === undefined ? 0 : state.minimumFractionDigits,
      state.maximumFractionDigits === undefined ? 0 : state.maximumFractionDigits,
      state.minimumSignificantDigits === undefined ? 1 : state.minimumSignificantDigits,
      state.maximumSignificantDigits === undefined ? 21 : state.maximumSignificantDigits,
      ROUNDING_TYPES.indexOf(state.roundingType),
      ROUNDING_MODES.indexOf(state.roundingMode),
      state.roundingIncrement,
      state.trailingZeroDisplay === 'stripIfInteger' ? 1 : 0,
      NOTATIONS.indexOf(state.notation === undefined ? 'standard' : state.notation),
      scale,
    ];
  }

  // ToIntlMathematicalValue: a Number, or the exact decimal text of a
  // BigInt or of a numeric string (formatted without going through a
  // double), with its sign.
  const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
  const MAX_DECIMAL_CHARS = 4096;
  function mathematicalValue(value) {
    let primitive = value;
    if (typeof primitive === 'object' && primitive !== null) primitive = toPrimitiveNumber(primitive);
    if (typeof primitive === 'bigint') {
      return { value: primitive.toString(), negative: primitive < 0n, finite: true };
    }
    if (typeof primitive === 'string') {
      const text = primitive.trim();
      if (DECIMAL.test(text) && text.length <= MAX_DECIMAL_CHARS) {
        const unsigned = text[0] === '+' || text[0] === '-' ? text.slice(1) : text;
        const negative = text[0] === '-';
        const normal = (unsigned[0] === '.' ? '0' + unsigned : unsigned).replace(/\.(?=[eE]|$)/, '');
        // A huge exponent is the double it rounds to (Infinity or 0).
        const exponent = /[eE]([+-]?\d+)$/.exec(normal);
        if (!exponent || Math.abs(NumberCtor(exponent[1])) < 1000) {
          return { value: (negative ? '-' : '') + normal, negative, finite: true };
        }
      }
    }
    const n = NumberCtor(primitive);
    return { value: n, negative: n < 0 || Object.is(n, -0), finite: Number.isFinite(n), nan: isNaN(n) };
  }
  function toPrimitiveNumber(object) {
    const exotic = object[Symbol.toPrimitive];
    if (exotic !== undefined && exotic !== null) {
      const result = exotic.call(object, 'number');
      if (typeof result !== 'object' || result === null) return result;
      throw new TypeErrorCtor('Cannot convert object to primitive value');
    }
    for (const name of ['valueOf', 'toString']) {
      const method = object[name];
      if (typeof method === 'function') {
        const result = method.call(object);
        if (typeof result !== 'object' || result === null) return result;
      }
    }
    throw new TypeErrorCtor('Cannot convert object to primitive value');
  }

  // ---- NumberFormat ---------------------------------------------------------------

  const numberFormats = slots('Intl.NumberFormat');
  const STYLE_OWNER = 'Intl.NumberFormat';
  const SIMPLE_UNITS = new Set(['acre', 'bit', 'byte', 'celsius', 'centimeter', 'day', 'degree', 'fahrenheit',
    'fluid-ounce', 'foot', 'gallon', 'gigabit', 'gigabyte', 'gram', 'hectare', 'hour', 'inch', 'kilobit', 'kilobyte',
    'kilogram', 'kilometer', 'liter', 'megabit', 'megabyte', 'meter', 'microsecond', 'mile', 'mile-scandinavian',
    'milliliter', 'millimeter', 'millisecond', 'minute', 'month', 'nanosecond', 'ounce', 'percent', 'petabyte',
    'pound', 'second', 'stone', 'terabit', 'terabyte', 'week', 'yard', 'year']);
  function wellFormedUnit(unit) {
    if (SIMPLE_UNITS.has(unit)) return true;
    const at = unit.indexOf('-per-');
    return at > 0 && SIMPLE_UNITS.has(unit.slice(0, at)) && SIMPLE_UNITS.has(unit.slice(at + 5));
  }

  // InitializeNumberFormat.
  function initNumberFormat(locales, options) {
    const requested = canonicalizeLocaleList(locales);
    options = coerceOptions(options);
    const state = {};
    getOption(options, 'localeMatcher', 'string', ['lookup', 'best fit'], 'best fit', STYLE_OWNER);
    const numberingSystem = getOption(options, 'numberingSystem', 'string', undefined, undefined, STYLE_OWNER);
    typeOption(numberingSystem, 'numberingSystem');
    const resolved = resolveLocale(requested, { nu: numberingSystem }, ['nu'], (key, value) => value === 'latn');
    state.locale = resolved.locale;
    state.dataLocale = resolved.dataLocale;
    state.numberingSystem = 'latn';
    // SetNumberFormatUnitOptions.
    const style = getOption(options, 'style', 'string', ['decimal', 'percent', 'currency', 'unit'], 'decimal', STYLE_OWNER);
    state.style = style;
    const currency = getOption(options, 'currency', 'string', undefined, undefined, STYLE_OWNER);
    if (currency === undefined) {
      if (style === 'currency') throw new TypeErrorCtor('Currency code is required with currency style.');
    } else if (!/^[a-zA-Z]{3}$/.test(currency)) {
      throw new RangeErrorCtor(`Invalid currency code : ${currency}`);
    }
    const currencyDisplay = getOption(options, 'currencyDisplay', 'string', ['code', 'symbol', 'narrowSymbol', 'name'], 'symbol', STYLE_OWNER);
    const currencySign = getOption(options, 'currencySign', 'string', ['standard', 'accounting'], 'standard', STYLE_OWNER);
    const unit = getOption(options, 'unit', 'string', undefined, undefined, STYLE_OWNER);
    if (unit === undefined) {
      if (style === 'unit') throw new TypeErrorCtor('Unit is required with unit style.');
    } else if (!wellFormedUnit(unit)) {
      throw new RangeErrorCtor(`Invalid unit argument for Intl.NumberFormat() '${unit}'`);
    }
    const unitDisplay = getOption(options, 'unitDisplay', 'string', ['short', 'narrow', 'long'], 'short', STYLE_OWNER);
    let minFractionDefault = 0;
    let maxFractionDefault = style === 'percent' ? 0 : 3;
    if (style === 'currency') {
      state.currency = currency.toUpperCase();
      state.currencyDisplay = currencyDisplay;
      state.currencySign = currencySign;
      const row = intlPattern('currency', state.currency);
      state.currencyPatterns = row;
      const digits = row === undefined ? 2 : NumberCtor(row[0]);
      minFractionDefault = digits;
      maxFractionDefault = digits;
    }
    if (style === 'unit') {
      state.unit = unit;
      state.unitDisplay = unitDisplay;
    }
    const notation = getOption(options, 'notation', 'string', NOTATIONS, 'standard', STYLE_OWNER);
    state.notation = notation;
    digitOptions(state, options, minFractionDefault, maxFractionDefault, notation, STYLE_OWNER);
    const compactDisplay = getOption(options, 'compactDisplay', 'string', ['short', 'long'], 'short', STYLE_OWNER);
    if (notation === 'compact') state.compactDisplay = compactDisplay;
    state.useGrouping = groupingOption(options, notation === 'compact' ? 'min2' : 'auto');
    state.signDisplay = getOption(options, 'signDisplay', 'string', ['auto', 'never', 'always', 'exceptZero', 'negative'], 'auto', STYLE_OWNER);
    state.spec = numberSpec(state, style === 'percent' ? 2 : 0);
    return state;
  }
  // GetBooleanOrStringNumberFormatOption for useGrouping.
  function groupingOption(options, fallback) {
    const value = options.useGrouping;
    if (value === undefined) return fallback;
    if (value === true) return 'always';
    if (!value) return false;
    const text = StringCtor(value);
    if (text === 'true' || text === 'false') return fallback;
    if (!['min2', 'auto', 'always'].includes(text)) {
      throw new RangeErrorCtor(`Value ${text} out of range for Intl.NumberFormat options property useGrouping`);
    }
    return text;
  }
  const GROUPING = { false: 0, always: 1, auto: 2, min2: 3 };

  const COMPACT = {
    short: { 3: 'K', 6: 'M', 9: 'B', 12: 'T' },
    long: { 3: 'thousand', 6: 'million', 9: 'billion', 12: 'trillion' },
  };

  // The parts of a formatted number (PartitionNumberPattern).
  function numberParts(state, input) {
    const x = mathematicalValue(input);
    let numeric;
    let zero = false;
    let oneForm = false;
    if (x.nan) {
      numeric = [{ type: 'nan', value: 'NaN' }];
    } else if (!x.finite) {
      numeric = [{ type: 'infinity', value: '∞' }];
    } else {
      const result = numberFormat(state.dataLocale, x.value, state.spec, GROUPING[state.useGrouping]);
      if (result === undefined) throw new RangeErrorCtor('The number has too many digits to format');
      const [digits, , isZero, exponent] = result;
      zero = isZero === '1';
      oneForm = digits === '1';
      numeric = digitParts(digits);
      if (exponent !== '') {
        if (state.notation === 'compact') {
          const word = COMPACT[state.compactDisplay][exponent];
          if (word !== undefined) {
            if (state.compactDisplay === 'long') numeric.push({ type: 'literal', value: ' ' });
            numeric.push({ type: 'compact', value: word });
          }
        } else {
          numeric.push({ type: 'exponentSeparator', value: 'E' });
          if (exponent[0] === '-') numeric.push({ type: 'exponentMinusSign', value: '-' });
          numeric.push({ type: 'exponentInteger', value: exponent.replace('-', '') });
        }
      }
    }
    const negative = x.negative && !x.nan;
    let sign = '';
    switch (state.signDisplay) {
      case 'auto': sign = negative ? '-' : ''; break;
      case 'always': sign = negative ? '-' : '+'; break;
      case 'exceptZero': sign = zero || x.nan ? '' : negative ? '-' : '+'; break;
      case 'negative': sign = negative && !zero ? '-' : ''; break;
      default: sign = '';
    }
    const parts = [];
    const accounting = state.style === 'currency' && state.currencySign === 'accounting' && sign === '-';
    if (accounting) parts.push({ type: 'literal', value: '(' });
    else if (sign) parts.push({ type: sign === '-' ? 'minusSign' : 'plusSign', value: sign });
    switch (state.style) {
      case 'percent':
        parts.push(...numeric, { type: 'percentSign', value: '%' });
        break;
      case 'currency':
        // CLDR's currency spacing puts a space between a letter and a
        // digit only: "CHF 5", "CHFNaN".
        parts.push(...affixed(numeric, x.finite || state.currencyDisplay === 'name' ? currencyPattern(state, oneForm)
          : currencyPattern(state, oneForm).replace(/\s*\{0\}\s*/, '{0}'), 'currency'));
        break;
      case 'unit':
        parts.push(...unitParts(state, numeric, oneForm));
        break;
      default:
        parts.push(...numeric);
    }
    if (accounting) parts.push({ type: 'literal', value: ')' });
    return parts;
  }
  function digitParts(digits) {
    const parts = [];
    const point = digits.indexOf('.');
    const integer = point < 0 ? digits : digits.slice(0, point);
    const groups = integer.split(',');
    groups.forEach((group, i) => {
      if (i > 0) parts.push({ type: 'group', value: ',' });
      parts.push({ type: 'integer', value: group });
    });
    if (point >= 0) {
      parts.push({ type: 'decimal', value: '.' }, { type: 'fraction', value: digits.slice(point + 1) });
    }
    return parts;
  }
  // The number's parts placed in a `{0}` pattern, the rest of which is
  // `kind` (the currency or the unit) and the spaces around it, literal.
  function affixed(numeric, pattern, kind) {
    const at = pattern.indexOf('{0}');
    const parts = [];
    const text = (s) => {
      const match = /^(\s*)(.*?)(\s*)$/.exec(s);
      if (match[1]) parts.push({ type: 'literal', value: match[1] });
      if (match[2]) parts.push({ type: kind, value: match[2] });
      if (match[3]) parts.push({ type: 'literal', value: match[3] });
    };
    text(pattern.slice(0, at));
    parts.push(...numeric);
    text(pattern.slice(at + 3));
    return parts;
  }
  const CURRENCY_COLUMN = { symbol: 1, narrowSymbol: 2, code: 3 };
  function currencyPattern(state, oneForm) {
    const row = state.currencyPatterns;
    if (row === undefined) {
      return state.currencyDisplay === 'name' ? '{0} ' + state.currency : state.currency + ' {0}';
    }
    if (state.currencyDisplay === 'name') return oneForm ? row[4] : row[5];
    return row[CURRENCY_COLUMN[state.currencyDisplay]];
  }
  const UNIT_COLUMN = { short: 0, narrow: 2, long: 4 };
  function unitParts(state, numeric, oneForm) {
    const column = UNIT_COLUMN[state.unitDisplay] + (oneForm ? 0 : 1);
    const per = state.unit.indexOf('-per-');
    if (per < 0) return affixed(numeric, intlPattern('unit', state.unit)[column], 'unit');
    // A compound unit: CLDR's own pattern ("mph"), or the numerator's
    // pattern and the denominator's suffix ("/h", " per hour").
    const whole = intlPattern('compound', state.unit);
    if (whole !== undefined) return affixed(numeric, whole[column], 'unit');
    const numerator = intlPattern('unit', state.unit.slice(0, per))[column];
    const suffix = intlPattern('per', state.unit.slice(per + 5))[UNIT_COLUMN[state.unitDisplay] / 2];
    return affixed(numeric, numerator + suffix, 'unit');
  }
  function joinParts(parts) {
    let text = '';
    for (const part of parts) text += part.value;
    return text;
  }

  function NumberFormat(locales, options) {
    if (new.target === undefined) return new NumberFormat(locales, options);
    numberFormats.set(this, initNumberFormat(locales, options));
  }
  service(NumberFormat, 'NumberFormat', 0);
  methods(NumberFormat.prototype, {
    get format() {
      const state = numberFormats.get(this, 'format');
      return bound(state, (value) => joinParts(numberParts(state, value)));
    },
    formatToParts(value) {
      return numberParts(numberFormats.get(this, 'formatToParts'), value);
    },
    formatRange(start, end) {
      return joinParts(rangeParts(numberFormats.get(this, 'formatRange'), start, end));
    },
    formatRangeToParts(start, end) {
      return rangeParts(numberFormats.get(this, 'formatRangeToParts'), start, end);
    },
    resolvedOptions() {
      const state = numberFormats.get(this, 'resolvedOptions');
      const result = {};
      for (const key of ['locale', 'numberingSystem', 'style', 'currency', 'currencyDisplay', 'currencySign', 'unit',
        'unitDisplay', 'minimumIntegerDigits', 'minimumFractionDigits', 'maximumFractionDigits',
        'minimumSignificantDigits', 'maximumSignificantDigits', 'useGrouping', 'notation', 'compactDisplay',
        'signDisplay', 'roundingIncrement', 'roundingMode', 'roundingPriority', 'trailingZeroDisplay']) {
        if (state[key] !== undefined) result[key] = state[key];
      }
      return result;
    },
  });
  defineProperty(Object.getOwnPropertyDescriptor(NumberFormat.prototype, 'format').get, 'name', { value: 'get format' });
  tag(NumberFormat.prototype, 'Intl.NumberFormat');

  // PartitionNumberRangePattern: both ends, joined by an en dash, or "~"
  // before one when they format alike.
  function rangeParts(state, start, end) {
    if (start === undefined || end === undefined) throw new TypeErrorCtor('start and end are required');
    const x = mathematicalValue(start);
    const y = mathematicalValue(end);
    if (x.nan || y.nan) throw new RangeErrorCtor('Invalid number range: NaN');
    const first = numberParts(state, start).map((part) => ({ ...part, source: 'startRange' }));
    const second = numberParts(state, end).map((part) => ({ ...part, source: 'endRange' }));
    if (joinParts(first) === joinParts(second)) {
      return [{ type: 'approximatelySign', value: '~', source: 'shared' }, ...first.map((part) => ({ ...part, source: 'shared' }))];
    }
    return [...first, { type: 'literal', value: '–', source: 'shared' }, ...second];
  }

  // ---- PluralRules --------------------------------------------------------------

  const pluralRules = slots('Intl.PluralRules');
  function PluralRules(locales, options) {
    if (new.target === undefined) throw new TypeErrorCtor("Constructor Intl.PluralRules requires 'new'");
    const requested = canonicalizeLocaleList(locales);
    options = coerceOptions(options);
    const owner = 'Intl.PluralRules';
    const state = {};
    getOption(options, 'localeMatcher', 'string', ['lookup', 'best fit'], 'best fit', owner);
    const type = getOption(options, 'type', 'string', ['cardinal', 'ordinal'], 'cardinal', owner);
    digitOptions(state, options, 0, 3, 'standard', owner);
    const resolved = resolveLocale(requested, {}, [], () => false);
    state.locale = resolved.locale;
    state.dataLocale = resolved.dataLocale;
    state.type = type;
    state.spec = numberSpec(state, 0);
    pluralRules.set(this, state);
  }
  service(PluralRules, 'PluralRules', 0);
  function pluralOf(state, value) {
    const n = NumberCtor(value);
    if (!Number.isFinite(n)) return 'other';
    return pluralSelect(state.dataLocale, n, state.spec, state.type === 'ordinal');
  }
  methods(PluralRules.prototype, {
    select(value) {
      return pluralOf(pluralRules.get(this, 'select'), value);
    },
    selectRange(start, end) {
      const state = pluralRules.get(this, 'selectRange');
      if (start === undefined || end === undefined) throw new TypeErrorCtor('start and end are required');
      const x = NumberCtor(start);
      const y = NumberCtor(end);
      if (isNaN(x) || isNaN(y)) throw new RangeErrorCtor('Invalid number range: NaN');
      // English ranges take the end's category.
      return pluralOf(state, y);
    },
    resolvedOptions() {
      const state = pluralRules.get(this, 'resolvedOptions');
      const result = { locale: state.locale, type: state.type };
      for (const key of ['minimumIntegerDigits', 'minimumFractionDigits', 'maximumFractionDigits',
        'minimumSignificantDigits', 'maximumSignificantDigits']) {
        if (state[key] !== undefined) result[key] = state[key];
      }
      const order = ['zero', 'one', 'two', 'few', 'many', 'other'];
      result.pluralCategories = pluralCategories(state.dataLocale, state.type === 'ordinal')
        .sort((a, b) => order.indexOf(a) - order.indexOf(b));
      result.roundingIncrement = state.roundingIncrement;
      result.roundingMode = state.roundingMode;
      result.roundingPriority = state.roundingPriority;
      result.trailingZeroDisplay = state.trailingZeroDisplay;
      return result;
    },
  });
  tag(PluralRules.prototype, 'Intl.PluralRules');

  // ---- the Intl object and toLocaleString -----------------------------------------

  methods(Intl, {
    // The values this implementation supports for each key, sorted.
    supportedValuesOf(key) {
      key = StringCtor(key);
      switch (key) {
        case 'calendar': return ['gregory'];
        case 'collation': return [];
        case 'numberingSystem': return ['latn'];
        case 'unit': return [...SIMPLE_UNITS].sort();
        case 'currency':
        case 'timeZone': return supportedValues(key);
        default: throw new RangeErrorCtor(`Invalid key : ${key.slice(0, 64)}`);
      }
    },
  });
  defineProperty(Intl, 'NumberFormat', { value: NumberFormat, writable: true, configurable: true });
  defineProperty(Intl, 'PluralRules', { value: PluralRules, writable: true, configurable: true });

  // One formatter for the common call without locales or options.
  let plainNumberFormat;
  function toLocaleNumber(value, locales, options) {
    if (locales === undefined && options === undefined) {
      if (plainNumberFormat === undefined) plainNumberFormat = initNumberFormat(undefined, undefined);
      return joinParts(numberParts(plainNumberFormat, value));
    }
    return joinParts(numberParts(initNumberFormat(locales, options), value));
  }
  methods(Number.prototype, {
    toLocaleString(locales = undefined, options = undefined) {
      return toLocaleNumber(numberValueOf.call(this), locales, options);
    },
  });
  if (bigintValueOf !== undefined) {
    methods(BigInt.prototype, {
      toLocaleString(locales = undefined, options = undefined) {
        return toLocaleNumber(bigintValueOf.call(this), locales, options);
      },
    });
  }

  return { numberParts, initNumberFormat, joinParts };
})
