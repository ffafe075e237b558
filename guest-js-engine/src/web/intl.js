// Intl, the core: the `Intl` object, locale lists and their resolution,
// option reading, and the shape every Intl service shares (its
// constructor, methods, internal slots). The services are in
// intlnumber.js, intldate.js and intltext.js.
// Spec: https://tc39.es/ecma402/
// Test262: test/intl402 (see the README's Intl section)
//
// The shipped locale is English: `en` and `en-US` resolve as themselves and
// every other request falls back to `en-US`, as ECMA-402's locale
// resolution does for a locale an implementation lacks.
(function (host) {
  'use strict';
  const { canonicalLocale } = host.natives;
  const ObjectCtor = Object;
  const TypeErrorCtor = TypeError;
  const RangeErrorCtor = RangeError;
  const StringCtor = String;
  const NumberCtor = Number;
  const isNaN = Number.isNaN;
  const defineProperty = Object.defineProperty;
  const toStringTag = Symbol.toStringTag;

  const DEFAULT_LOCALE = 'en-US';
  const AVAILABLE = ['en', 'en-US'];

  // ---- shapes -------------------------------------------------------------------

  // Methods and accessors as the built-ins define them: not enumerable,
  // with the specification's names and lengths.
  function methods(target, table) {
    for (const name of Reflect.ownKeys(table)) {
      const descriptor = Object.getOwnPropertyDescriptor(table, name);
      if (descriptor.get) {
        defineProperty(target, name, { get: descriptor.get, enumerable: false, configurable: true });
      } else {
        defineProperty(target, name, { value: descriptor.value, writable: true, enumerable: false, configurable: true });
      }
    }
  }
  function tag(proto, name) {
    defineProperty(proto, toStringTag, { value: name, writable: false, enumerable: false, configurable: true });
  }
  // A service constructor: `prototype` not writable, `length` as given,
  // and its static `supportedLocalesOf`.
  function service(Ctor, name, length) {
    defineProperty(Ctor, 'name', { value: name, configurable: true });
    defineProperty(Ctor, 'length', { value: length, configurable: true });
    defineProperty(Ctor, 'prototype', { writable: false, enumerable: false, configurable: false });
    methods(Ctor, {
      supportedLocalesOf(locales, options = undefined) {
        return supportedLocales(canonicalizeLocaleList(locales), options);
      },
    });
  }
  // The function a `format` or `compare` getter returns: made once per
  // object (`state.bound`), anonymous, as the specification's bound
  // functions are.
  function bound(state, fn) {
    if (state.bound === undefined) {
      defineProperty(fn, 'name', { value: '' });
      state.bound = fn;
    }
    return state.bound;
  }
  // A Unicode type value option (`calendar`, `collation`,
  // `numberingSystem`): undefined, or 3-8 alphanumerics per subtag.
  function typeOption(value, property) {
    if (value !== undefined && !/^[a-zA-Z0-9]{3,8}(-[a-zA-Z0-9]{3,8})*$/.test(value)) {
      throw new RangeErrorCtor(`Invalid ${property} : ${value}`);
    }
    return value;
  }
  // Each service's internal slots, by object.
  function slots(what) {
    const map = new WeakMap();
    return {
      set(object, state) { map.set(object, state); },
      get(object, method) {
        const state = typeof object === 'object' && object !== null ? map.get(object) : undefined;
        if (state === undefined) {
          throw new TypeErrorCtor(`Method ${what}.prototype.${method} called on incompatible receiver ${describe(object)}`);
        }
        return state;
      },
      has(object) { return map.has(object); },
    };
  }
  function describe(value) {
    if (typeof value === 'string') return JSON.stringify(value.length > 40 ? value.slice(0, 40) + '…' : value);
    if (typeof value === 'symbol') return value.toString();
    if (typeof value === 'object' && value !== null) return '#<Object>';
    return StringCtor(value);
  }

  // Text for a native, which takes Unicode scalar values: a lone surrogate
  // becomes U+FFFD, one code unit for one, so offsets stay the same.
  function wellFormed(text) {
    return text.isWellFormed() ? text : text.toWellFormed();
  }

  // ---- locales ------------------------------------------------------------------

  // CanonicalizeLocaleList.
  function canonicalizeLocaleList(locales) {
    if (locales === undefined) return [];
    const seen = [];
    if (locales === null) throw new TypeErrorCtor('Cannot convert null to object');
    const list = typeof locales === 'string' ? [locales] : ObjectCtor(locales);
    const length = toLength(list.length);
    for (let k = 0; k < length; k++) {
      if (!(k in list)) continue;
      const value = list[k];
      if (typeof value !== 'string' && (typeof value !== 'object' || value === null)) {
        throw new TypeErrorCtor(`Language ID should be string or object, not ${describe(value)}`);
      }
      const text = StringCtor(value);
      // A language tag is ASCII letters, digits and hyphens.
      const canonical = text.length <= 256 && /^[A-Za-z0-9-]+$/.test(text) ? canonicalLocale(text) : undefined;
      if (canonical === undefined) throw new RangeErrorCtor(`Incorrect locale information provided: ${describe(text)}`);
      if (!seen.includes(canonical)) seen.push(canonical);
    }
    return seen;
  }
  function toLength(value) {
    const n = NumberCtor(value);
    if (!(n > 0)) return 0;
    return Math.min(Math.floor(n), Number.MAX_SAFE_INTEGER);
  }

  // The tag without its Unicode extension (`-u-...`), and the extension's
  // keywords.
  function splitExtension(tag) {
    const match = /-u((?:-[a-z0-9]{2,8})+?)(?=-[a-z0-9]-|$)/.exec(tag);
    if (!match) return { base: tag, keywords: {} };
    const keywords = {};
    let key;
    for (const subtag of match[1].slice(1).split('-')) {
      if (subtag.length === 2) {
        key = subtag;
        keywords[key] = 'true';
      } else if (key !== undefined) {
        keywords[key] = keywords[key] === 'true' ? subtag : keywords[key] + '-' + subtag;
      }
    }
    return { base: tag.slice(0, match.index) + tag.slice(match.index + match[0].length), keywords };
  }
  // BestAvailableLocale.
  function bestAvailable(tag) {
    let candidate = tag;
    for (;;) {
      if (AVAILABLE.includes(candidate)) return candidate;
      let at = candidate.lastIndexOf('-');
      if (at < 0) return undefined;
      if (at >= 2 && candidate[at - 2] === '-') at -= 2;
      candidate = candidate.slice(0, at);
    }
  }
  // ResolveLocale (lookup): the locale and the Unicode extension keywords
  // asked for, among `relevant`, each checked by `supported(key, value)`.
  function resolveLocale(requested, options, relevant, supported) {
    let found;
    let keywords = {};
    for (const tag of requested) {
      const split = splitExtension(tag);
      found = bestAvailable(split.base);
      if (found !== undefined) {
        keywords = split.keywords;
        break;
      }
    }
    if (found === undefined) found = DEFAULT_LOCALE;
    const result = { locale: found, dataLocale: found };
    let extension = '';
    for (const key of relevant) {
      let value = Object.prototype.hasOwnProperty.call(keywords, key) ? keywords[key] : undefined;
      if (value !== undefined && !supported(key, value)) value = undefined;
      const fromKeyword = value;
      const option = options[key];
      if (option !== undefined && supported(key, option)) {
        value = option;
      }
      result[key] = value;
      if (fromKeyword !== undefined && value === fromKeyword) extension += `-${key}${value === 'true' ? '' : '-' + value}`;
    }
    if (extension) result.locale = found + '-u' + extension;
    return result;
  }
  // SupportedLocales.
  function supportedLocales(requested, options) {
    options = coerceOptions(options);
    getOption(options, 'localeMatcher', 'string', ['lookup', 'best fit'], 'best fit', 'supportedLocalesOf');
    return requested.filter((tag) => bestAvailable(splitExtension(tag).base) !== undefined);
  }

  // ---- options ------------------------------------------------------------------

  function coerceOptions(options) {
    if (options === undefined) return Object.create(null);
    if (options === null) throw new TypeErrorCtor('Cannot convert null to object');
    return ObjectCtor(options);
  }
  // GetOption.
  function getOption(options, property, type, values, fallback, owner) {
    let value = options[property];
    if (value === undefined) return fallback;
    value = type === 'boolean' ? Boolean(value) : StringCtor(value);
    if (values !== undefined && !values.includes(value)) {
      throw new RangeErrorCtor(`Value ${value} out of range for ${owner} options property ${property}`);
    }
    return value;
  }
  // DefaultNumberOption.
  function defaultNumberOption(value, minimum, maximum, fallback, property) {
    if (value === undefined) return fallback;
    value = NumberCtor(value);
    if (isNaN(value) || value < minimum || value > maximum) {
      throw new RangeErrorCtor(`${property} value is out of range.`);
    }
    return Math.floor(value);
  }
  function getNumberOption(options, property, minimum, maximum, fallback) {
    return defaultNumberOption(options[property], minimum, maximum, fallback, property);
  }

  const Intl = {};
  methods(Intl, {
    getCanonicalLocales(locales) {
      return canonicalizeLocaleList(locales);
    },
  });
  tag(Intl, 'Intl');

  return {
    Intl,
    shared: {
      methods, tag, service, slots, bound, typeOption, describe, canonicalizeLocaleList, resolveLocale,
      coerceOptions, getOption, getNumberOption, defaultNumberOption, wellFormed,
    },
  };
})
