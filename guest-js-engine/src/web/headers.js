// Headers, the Fetch Standard's header list as a data class. Spec: https://fetch.spec.whatwg.org/#headers-class
// WPT: fetch/api/headers (the table in the README; expectations in tests/wpt/)
//
// The guard is always "none": these headers belong to no request or
// response, so no name is forbidden. Names keep the case they were given;
// `get`, `has`, `delete` and iteration compare them case-insensitively,
// and iteration sorts and combines them, as the standard's "sort and
// combine" does, with each `set-cookie` value on its own.
(function (host) {
  'use strict';
  const { argumentsRequired, defineIterator, brand } = host.idl;
  const TypeErrorCtor = TypeError;
  const SymbolIterator = Symbol.iterator;
  const ObjectCreate = Object.create;
  const ReflectOwnKeys = Reflect.ownKeys;
  const getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
  const uncurry = Function.prototype.bind.bind(Function.prototype.call);
  const regExpTest = uncurry(RegExp.prototype.test);
  const toLowerCase = uncurry(String.prototype.toLowerCase);
  const stringSlice = uncurry(String.prototype.slice);
  const charCodeAt = uncurry(String.prototype.charCodeAt);
  const JSONStringify = JSON.stringify;

  // A field-name is a token (RFC 9110).
  const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
  // A value holds no NUL, CR or LF (after its leading and trailing
  // whitespace is stripped).
  const INVALID_VALUE = /[\0\r\n]/;

  // A code unit that does not fit a byte.
  const NOT_A_BYTE = /[^\0-\xff]/;

  // ByteString: ToString, then every code unit must fit a byte (checked by
  // one regular expression; the loop only finds where, for the message).
  function byteString(value, what) {
    const text = `${value}`;
    if (!regExpTest(NOT_A_BYTE, text)) return text;
    for (let i = 0; i < text.length; i++) {
      if (charCodeAt(text, i) > 0xff) {
        throw new TypeErrorCtor(`Headers: ${what} holds a character above U+00FF (at index ${i})`);
      }
    }
    return text;
  }

  function isWhitespace(code) {
    return code === 0x09 || code === 0x0a || code === 0x0d || code === 0x20;
  }

  // A header value with its leading and trailing HTTP whitespace removed.
  function normalise(value) {
    let start = 0;
    let end = value.length;
    while (start < end && isWhitespace(charCodeAt(value, start))) start++;
    while (end > start && isWhitespace(charCodeAt(value, end - 1))) end--;
    return stringSlice(value, start, end);
  }

  function checkName(name) {
    if (!regExpTest(TOKEN, name)) throw new TypeErrorCtor(`Headers: ${JSONStringify(name)} is not a valid header name`);
  }

  function checkValue(value) {
    if (regExpTest(INVALID_VALUE, value)) {
      throw new TypeErrorCtor(`Headers: ${JSONStringify(value)} is not a valid header value (it holds NUL, CR or LF)`);
    }
  }

  function isObject(value) {
    return (typeof value === 'object' && value !== null) || typeof value === 'function';
  }

  // Headers that no method may change (a Response.error()'s, a
  // Response.redirect()'s): the standard's guard "immutable".
  const immutable = new WeakSet();
  const weakHas = uncurry(WeakSet.prototype.has);
  const weakAdd = uncurry(WeakSet.prototype.add);

  function checkMutable(headers) {
    if (weakHas(immutable, headers)) throw new TypeErrorCtor('Headers: these headers are immutable');
  }

  // Headers holding a list the platform made and checked itself (a
  // response's from the host), and an append of a header the platform
  // wrote (a body's Content-Type): no validation per header.
  let fromTrusted;
  let appendTrusted;

  class Headers {
    // [name, value] pairs, in the order they were added.
    #list = [];

    static {
      fromTrusted = (list) => {
        const headers = new Headers();
        headers.#list = list;
        return headers;
      };
      appendTrusted = (headers, name, value) => {
        headers.#list.push([name, normalise(value)]);
      };
    }

    constructor(init = undefined) {
      if (init === undefined) return;
      if (!isObject(init)) throw new TypeErrorCtor('Headers: the initializer must be an object (a record or a sequence of pairs)');
      const method = init[SymbolIterator];
      if (method !== undefined && method !== null) {
        if (typeof method !== 'function') throw new TypeErrorCtor("Headers: the initializer's Symbol.iterator is not a function");
        for (const pair of init) {
          if (!isObject(pair)) throw new TypeErrorCtor('Headers: each pair of the initializer must be a sequence');
          const items = [];
          for (const item of pair) items[items.length] = byteString(item, 'a header');
          if (items.length !== 2) {
            throw new TypeErrorCtor(`Headers: each pair of the initializer must have 2 items (got ${items.length})`);
          }
          this.#append(items[0], items[1]);
        }
        return;
      }
      // A record<ByteString, ByteString>: own enumerable keys, in order.
      for (const key of ReflectOwnKeys(init)) {
        const desc = getOwnPropertyDescriptor(init, key);
        if (desc === undefined || !desc.enumerable) continue;
        if (typeof key === 'symbol') throw new TypeErrorCtor('Headers: a record key cannot be a symbol');
        this.#append(byteString(key, 'a name'), byteString(init[key], 'a value'));
      }
    }

    #append(name, value) {
      value = normalise(value);
      checkName(name);
      checkValue(value);
      this.#list.push([name, value]);
    }

    append(name, value) {
      argumentsRequired(arguments.length, 2, 'Headers', 'append');
      this.#list; // the brand check
      checkMutable(this);
      this.#append(byteString(name, 'the name'), byteString(value, 'the value'));
    }

    delete(name) {
      argumentsRequired(arguments.length, 1, 'Headers', 'delete');
      this.#list; // the brand check
      checkMutable(this);
      name = byteString(name, 'the name');
      checkName(name);
      const lower = toLowerCase(name);
      this.#list = this.#list.filter(([n]) => toLowerCase(n) !== lower);
    }

    get(name) {
      argumentsRequired(arguments.length, 1, 'Headers', 'get');
      name = byteString(name, 'the name');
      checkName(name);
      const lower = toLowerCase(name);
      const values = [];
      for (const [n, v] of this.#list) if (toLowerCase(n) === lower) values.push(v);
      return values.length === 0 ? null : values.join(', ');
    }

    getSetCookie() {
      const values = [];
      for (const [n, v] of this.#list) if (toLowerCase(n) === 'set-cookie') values.push(v);
      return values;
    }

    has(name) {
      argumentsRequired(arguments.length, 1, 'Headers', 'has');
      name = byteString(name, 'the name');
      checkName(name);
      const lower = toLowerCase(name);
      return this.#list.some(([n]) => toLowerCase(n) === lower);
    }

    set(name, value) {
      argumentsRequired(arguments.length, 2, 'Headers', 'set');
      this.#list; // the brand check
      checkMutable(this);
      name = byteString(name, 'the name');
      value = normalise(byteString(value, 'the value'));
      checkName(name);
      checkValue(value);
      const lower = toLowerCase(name);
      const first = this.#list.findIndex(([n]) => toLowerCase(n) === lower);
      if (first === -1) {
        this.#list.push([name, value]);
        return;
      }
      this.#list[first] = [this.#list[first][0], value];
      this.#list = this.#list.filter(([n], i) => i <= first || toLowerCase(n) !== lower);
    }

    // The standard's "sort and combine": lowercased names in byte order,
    // values of one name joined by ", ", each set-cookie value apart.
    static sorted(headers) {
      const list = headers.#list;
      // Grouped by lowercased name in one pass: O(n log n), not O(n²).
      const groups = ObjectCreate(null);
      const names = [];
      for (let i = 0; i < list.length; i++) {
        const lower = toLowerCase(list[i][0]);
        const group = groups[lower];
        if (group === undefined) {
          groups[lower] = [list[i][1]];
          names[names.length] = lower;
        } else {
          group[group.length] = list[i][1];
        }
      }
      names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      const out = [];
      for (let i = 0; i < names.length; i++) {
        const name = names[i];
        const values = groups[name];
        if (name === 'set-cookie') {
          for (let j = 0; j < values.length; j++) out[out.length] = [name, values[j]];
        } else {
          out[out.length] = [name, values.join(', ')];
        }
      }
      return out;
    }
  }

  const sorted = Headers.sorted;
  delete Headers.sorted;
  defineIterator(Headers, 'Headers', (headers) => sorted(headers));

  return { Headers: brand(Headers, 'Headers'), freeze: (headers) => weakAdd(immutable, headers), sorted, fromTrusted, appendTrusted };
})
