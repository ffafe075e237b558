// Intl, part three: Collator (and `String.prototype.localeCompare`),
// ListFormat and Segmenter, on ICU4X's collation, list patterns and
// Unicode segmentation (web/intl.rs).
// Spec: https://tc39.es/ecma402/#collator-objects,
// https://tc39.es/ecma402/#listformat-objects,
// https://tc39.es/ecma402/#segmenter-objects
(function (host) {
  'use strict';
  const { collate, listFormat, segment } = host.natives;
  const {
    methods, tag, service, slots, bound, typeOption, describe, canonicalizeLocaleList, resolveLocale, coerceOptions,
    getOption, wellFormed,
  } = host.intl.shared;
  const { Intl } = host.intl;
  const TypeErrorCtor = TypeError;
  const StringCtor = String;
  const defineProperty = Object.defineProperty;
  const iterator = Symbol.iterator;

  // ---- Collator -------------------------------------------------------------------

  const collators = slots('Intl.Collator');
  const OWNER = 'Intl.Collator';
  const SENSITIVITIES = ['base', 'accent', 'case', 'variant'];
  const CASE_FIRST = ['false', 'upper', 'lower'];

  function initCollator(locales, options) {
    const requested = canonicalizeLocaleList(locales);
    options = coerceOptions(options);
    const usage = getOption(options, 'usage', 'string', ['sort', 'search'], 'sort', OWNER);
    getOption(options, 'localeMatcher', 'string', ['lookup', 'best fit'], 'best fit', OWNER);
    typeOption(getOption(options, 'collation', 'string', undefined, undefined, OWNER), 'collation');
    let numeric = getOption(options, 'numeric', 'boolean', undefined, undefined, OWNER);
    if (numeric !== undefined) numeric = StringCtor(numeric);
    const caseFirst = getOption(options, 'caseFirst', 'string', CASE_FIRST, undefined, OWNER);
    const resolved = resolveLocale(requested, { kn: numeric, kf: caseFirst }, ['kf', 'kn'],
      (key, value) => (key === 'kn' ? value === 'true' || value === 'false' : CASE_FIRST.includes(value)));
    const sensitivity = getOption(options, 'sensitivity', 'string', SENSITIVITIES, 'variant', OWNER);
    const ignorePunctuation = getOption(options, 'ignorePunctuation', 'boolean', undefined, false, OWNER);
    const state = {
      locale: resolved.locale,
      dataLocale: resolved.dataLocale,
      usage,
      sensitivity,
      ignorePunctuation,
      collation: 'default',
      numeric: resolved.kn === 'true',
      caseFirst: resolved.kf === undefined ? 'false' : resolved.kf,
    };
    state.options = [SENSITIVITIES.indexOf(sensitivity), ignorePunctuation ? 1 : 0, state.numeric ? 1 : 0,
      CASE_FIRST.indexOf(state.caseFirst)];
    return state;
  }
  function compare(state, x, y) {
    return collate(state.dataLocale, wellFormed(StringCtor(x)), wellFormed(StringCtor(y)), state.options);
  }

  function Collator(locales, options) {
    if (new.target === undefined) return new Collator(locales, options);
    collators.set(this, initCollator(locales, options));
  }
  service(Collator, 'Collator', 0);
  methods(Collator.prototype, {
    get compare() {
      const state = collators.get(this, 'compare');
      return bound(state, (x, y) => compare(state, x, y));
    },
    resolvedOptions() {
      const state = collators.get(this, 'resolvedOptions');
      return {
        locale: state.locale, usage: state.usage, sensitivity: state.sensitivity,
        ignorePunctuation: state.ignorePunctuation, collation: state.collation, numeric: state.numeric,
        caseFirst: state.caseFirst,
      };
    },
  });
  tag(Collator.prototype, 'Intl.Collator');

  let plainCollator;
  methods(String.prototype, {
    localeCompare(that, locales = undefined, options = undefined) {
      if (this === undefined || this === null) {
        throw new TypeErrorCtor('String.prototype.localeCompare called on null or undefined');
      }
      const text = StringCtor(this);
      const other = StringCtor(that);
      let state;
      if (locales === undefined && options === undefined) {
        state = plainCollator || (plainCollator = initCollator(undefined, undefined));
      } else {
        state = initCollator(locales, options);
      }
      return compare(state, text, other);
    },
  });

  // ---- ListFormat -----------------------------------------------------------------

  const listFormats = slots('Intl.ListFormat');
  const TYPES = ['conjunction', 'disjunction', 'unit'];
  const STYLES = ['long', 'short', 'narrow'];
  function ListFormat(locales, options) {
    if (new.target === undefined) throw new TypeErrorCtor("Constructor Intl.ListFormat requires 'new'");
    const requested = canonicalizeLocaleList(locales);
    options = coerceOptions(options);
    const owner = 'Intl.ListFormat';
    getOption(options, 'localeMatcher', 'string', ['lookup', 'best fit'], 'best fit', owner);
    const resolved = resolveLocale(requested, {}, [], () => false);
    const type = getOption(options, 'type', 'string', TYPES, 'conjunction', owner);
    const style = getOption(options, 'style', 'string', STYLES, 'long', owner);
    listFormats.set(this, { locale: resolved.locale, dataLocale: resolved.dataLocale, type, style });
  }
  service(ListFormat, 'ListFormat', 0);
  // StringListFromIterable.
  // (A `for...of` closes the iterator when it throws.)
  function stringList(iterable) {
    if (iterable === undefined) return [];
    const list = [];
    for (const value of iterable) {
      if (typeof value !== 'string') {
        throw new TypeErrorCtor(`Iterable yielded ${describe(value)} which is not a string`);
      }
      list.push(wellFormed(value));
    }
    return list;
  }
  function listParts(state, list) {
    const strings = stringList(list);
    if (strings.length === 0) return [];
    const flat = listFormat(state.dataLocale, strings, TYPES.indexOf(state.type), STYLES.indexOf(state.style), false);
    const parts = [];
    for (let i = 0; i < flat.length; i += 2) parts.push({ type: flat[i], value: flat[i + 1] });
    return parts;
  }
  methods(ListFormat.prototype, {
    format(list) {
      const state = listFormats.get(this, 'format');
      const strings = stringList(list);
      if (strings.length === 0) return '';
      return listFormat(state.dataLocale, strings, TYPES.indexOf(state.type), STYLES.indexOf(state.style), true)[0];
    },
    formatToParts(list) {
      return listParts(listFormats.get(this, 'formatToParts'), list);
    },
    resolvedOptions() {
      const state = listFormats.get(this, 'resolvedOptions');
      return { locale: state.locale, type: state.type, style: state.style };
    },
  });
  tag(ListFormat.prototype, 'Intl.ListFormat');

  // ---- Segmenter -----------------------------------------------------------------

  const segmenters = slots('Intl.Segmenter');
  const GRANULARITIES = ['grapheme', 'word', 'sentence'];
  function Segmenter(locales, options) {
    if (new.target === undefined) throw new TypeErrorCtor("Constructor Intl.Segmenter requires 'new'");
    const requested = canonicalizeLocaleList(locales);
    options = coerceOptions(options);
    const owner = 'Intl.Segmenter';
    getOption(options, 'localeMatcher', 'string', ['lookup', 'best fit'], 'best fit', owner);
    const resolved = resolveLocale(requested, {}, [], () => false);
    const granularity = getOption(options, 'granularity', 'string', GRANULARITIES, 'grapheme', owner);
    segmenters.set(this, { locale: resolved.locale, granularity });
  }
  service(Segmenter, 'Segmenter', 0);

  // A Segments object: the string's breaks, found once on first use.
  const segmentsState = slots('Segments');
  function breaksOf(state) {
    if (state.breaks === undefined) {
      const [breaks, wordLike] = segment(wellFormed(state.input), GRANULARITIES.indexOf(state.granularity));
      state.breaks = breaks;
      state.wordLike = wordLike;
    }
    return state;
  }
  // CreateSegmentDataObject for the segment that starts at break `i`.
  function segmentData(state, i) {
    const start = state.breaks[i];
    const end = state.breaks[i + 1];
    const data = { segment: state.input.slice(start, end), index: start, input: state.input };
    // ICU4X reads a word's type from its last character, so a word that
    // ends in a combining mark ("e\u0301") would not be word-like: a
    // letter or a digit in it makes it one.
    if (state.granularity === 'word') data.isWordLike = state.wordLike[i] === 1 || WORDISH.test(data.segment);
    return data;
  }
  const WORDISH = /[\p{L}\p{N}]/u;
  function Segments() {}
  const segmentsProto = Segments.prototype;
  methods(segmentsProto, {
    containing(index = undefined) {
      const state = breaksOf(segmentsState.get(this, 'containing'));
      const n = Math.trunc(Number(index)) || 0;
      if (n < 0 || n >= state.input.length) return undefined;
      // The last break at or before n.
      let low = 0;
      let high = state.breaks.length - 1;
      while (low < high - 1) {
        const mid = (low + high) >>> 1;
        if (state.breaks[mid] <= n) low = mid; else high = mid;
      }
      return segmentData(state, low);
    },
  });
  const iteratorState = slots('Segment Iterator');
  const iteratorProto = Object.create(Object.getPrototypeOf(Object.getPrototypeOf([][iterator]())));
  methods(iteratorProto, {
    next() {
      const it = iteratorState.get(this, 'next');
      const state = breaksOf(it.segments);
      if (it.at >= state.breaks.length - 1) return { value: undefined, done: true };
      const value = segmentData(state, it.at);
      it.at += 1;
      return { value, done: false };
    },
  });
  tag(iteratorProto, 'Segmenter String Iterator');
  defineProperty(segmentsProto, iterator, {
    value: function () {
      const state = segmentsState.get(this, '[Symbol.iterator]');
      const it = Object.create(iteratorProto);
      iteratorState.set(it, { segments: state, at: 0 });
      return it;
    },
    writable: true, enumerable: false, configurable: true,
  });
  methods(Segmenter.prototype, {
    segment(string) {
      const state = segmenters.get(this, 'segment');
      const object = Object.create(segmentsProto);
      segmentsState.set(object, { input: StringCtor(string), granularity: state.granularity });
      return object;
    },
    resolvedOptions() {
      const state = segmenters.get(this, 'resolvedOptions');
      return { locale: state.locale, granularity: state.granularity };
    },
  });
  tag(Segmenter.prototype, 'Intl.Segmenter');

  defineProperty(Intl, 'Collator', { value: Collator, writable: true, configurable: true });
  defineProperty(Intl, 'Segmenter', { value: Segmenter, writable: true, configurable: true });
  defineProperty(Intl, 'ListFormat', { value: ListFormat, writable: true, configurable: true });

  return { Collator, ListFormat, Segmenter };
})
