// URL and URLSearchParams. Spec: https://url.spec.whatwg.org/#api
// WPT: url/ (the table in the README; expectations in tests/wpt/)
//
// Parsing, serialising and every setter are the `url` crate's (natives
// `urlParse`, `urlSet`, `formParse`, `formSerialize`, in web/url.rs); this
// module gives them their WebIDL shape. A URL holds its components as the
// parser returned them; a setter hands the href back to the parser.
(function (host) {
  'use strict';
  const { urlParse, urlSet, formParse, formSerialize } = host.natives;
  const { usv, argumentsRequired, defineIterator, brand } = host.idl;
  const TypeErrorCtor = TypeError;
  const ObjectKeys = Reflect.ownKeys;
  const getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
  const SymbolIterator = Symbol.iterator;
  const ArrayFrom = Array.from;
  const arraySort = Array.prototype.sort;

  // The order of web/url.rs's `components`.
  const HREF = 0, ORIGIN = 1, PROTOCOL = 2, USERNAME = 3, PASSWORD = 4, HOST = 5,
    HOSTNAME = 6, PORT = 7, PATHNAME = 8, SEARCH = 9, HASH = 10;

  function pairsOf(query) {
    const flat = formParse(query);
    const list = [];
    for (let i = 0; i < flat.length; i += 2) list.push([flat[i], flat[i + 1]]);
    return list;
  }

  function serialise(list) {
    const flat = [];
    for (const [name, value] of list) flat.push(name, value);
    return formSerialize(flat);
  }

  // Reaches into the other class's private state (set in static blocks).
  let listOf, setList, attach, setQuery;

  class URL {
    #c;
    #searchParams = null;

    constructor(url, base = undefined) {
      argumentsRequired(arguments.length, 1, 'URL', 'constructor');
      const input = usv(url);
      const c = base === undefined ? urlParse(input) : urlParse(input, usv(base));
      if (c === undefined) throw new TypeErrorCtor(`Invalid URL: ${input}`);
      this.#c = c;
    }

    static parse(url, base = undefined) {
      argumentsRequired(arguments.length, 1, 'URL', 'parse');
      try {
        return new URL(url, base);
      } catch (_) {
        return null;
      }
    }

    static canParse(url, base = undefined) {
      argumentsRequired(arguments.length, 1, 'URL', 'canParse');
      const input = usv(url);
      return (base === undefined ? urlParse(input) : urlParse(input, usv(base))) !== undefined;
    }

    #set(which, value) {
      const c = urlSet(this.#c[HREF], which, value);
      if (c === undefined) throw new TypeErrorCtor(`Invalid URL: ${value}`);
      this.#c = c;
    }

    #syncQuery() {
      if (this.#searchParams !== null) setList(this.#searchParams, pairsOf(this.#c[SEARCH].slice(1)));
    }

    get href() { return this.#c[HREF]; }
    set href(value) { this.#set('href', usv(value)); this.#syncQuery(); }
    get origin() { return this.#c[ORIGIN]; }
    get protocol() { return this.#c[PROTOCOL]; }
    set protocol(value) { this.#set('protocol', usv(value)); }
    get username() { return this.#c[USERNAME]; }
    set username(value) { this.#set('username', usv(value)); }
    get password() { return this.#c[PASSWORD]; }
    set password(value) { this.#set('password', usv(value)); }
    get host() { return this.#c[HOST]; }
    set host(value) { this.#set('host', usv(value)); }
    get hostname() { return this.#c[HOSTNAME]; }
    set hostname(value) { this.#set('hostname', usv(value)); }
    get port() { return this.#c[PORT]; }
    set port(value) { this.#set('port', usv(value)); }
    get pathname() { return this.#c[PATHNAME]; }
    set pathname(value) { this.#set('pathname', usv(value)); }
    get search() { return this.#c[SEARCH]; }
    set search(value) { this.#set('search', usv(value)); this.#syncQuery(); }
    get hash() { return this.#c[HASH]; }
    set hash(value) { this.#set('hash', usv(value)); }

    get searchParams() {
      if (this.#searchParams === null) {
        this.#searchParams = new URLSearchParams(this.#c[SEARCH]);
        attach(this.#searchParams, this);
      }
      return this.#searchParams;
    }

    toString() { return this.#c[HREF]; }
    toJSON() { return this.#c[HREF]; }

    static {
      setQuery = (url, query) => {
        url.#set('search', query);
      };
    }
  }

  class URLSearchParams {
    #list = [];
    #url = null;

    constructor(init = '') {
      if (init !== null && (typeof init === 'object' || typeof init === 'function')) {
        const method = init[SymbolIterator];
        if (method !== undefined && method !== null) {
          if (typeof method !== 'function') {
            throw new TypeErrorCtor("URLSearchParams: the initializer's Symbol.iterator is not a function");
          }
          for (const pair of init) {
            if (pair === null || (typeof pair !== 'object' && typeof pair !== 'function')) {
              throw new TypeErrorCtor('URLSearchParams: each pair of the initializer must be a sequence');
            }
            const items = ArrayFrom(pair);
            if (items.length !== 2) {
              throw new TypeErrorCtor(`URLSearchParams: each pair of the initializer must have 2 items (got ${items.length})`);
            }
            this.#list.push([usv(items[0]), usv(items[1])]);
          }
        } else {
          // A record<USVString, USVString>: own enumerable keys, in order;
          // keys equal once converted keep the first place and the last
          // value.
          for (const key of ObjectKeys(init)) {
            const desc = getOwnPropertyDescriptor(init, key);
            if (desc === undefined || !desc.enumerable) continue;
            const name = usv(key);
            const value = usv(init[key]);
            const seen = this.#list.findIndex(([n]) => n === name);
            if (seen === -1) this.#list.push([name, value]);
            else this.#list[seen][1] = value;
          }
        }
      } else {
        let query = usv(init);
        if (query.startsWith('?')) query = query.slice(1);
        this.#list = pairsOf(query);
      }
    }

    // The URL this object is the `searchParams` of learns every change.
    #update() {
      if (this.#url === null) return;
      setQuery(this.#url, serialise(this.#list));
    }

    get size() { return this.#list.length; }

    append(name, value) {
      argumentsRequired(arguments.length, 2, 'URLSearchParams', 'append');
      this.#list.push([usv(name), usv(value)]);
      this.#update();
    }

    delete(name, value = undefined) {
      argumentsRequired(arguments.length, 1, 'URLSearchParams', 'delete');
      const key = usv(name);
      const only = value === undefined ? undefined : usv(value);
      this.#list = this.#list.filter(([n, v]) => n !== key || (only !== undefined && v !== only));
      this.#update();
    }

    get(name) {
      argumentsRequired(arguments.length, 1, 'URLSearchParams', 'get');
      const key = usv(name);
      for (const [n, v] of this.#list) if (n === key) return v;
      return null;
    }

    getAll(name) {
      argumentsRequired(arguments.length, 1, 'URLSearchParams', 'getAll');
      const key = usv(name);
      const values = [];
      for (const [n, v] of this.#list) if (n === key) values.push(v);
      return values;
    }

    has(name, value = undefined) {
      argumentsRequired(arguments.length, 1, 'URLSearchParams', 'has');
      const key = usv(name);
      const only = value === undefined ? undefined : usv(value);
      for (const [n, v] of this.#list) if (n === key && (only === undefined || v === only)) return true;
      return false;
    }

    set(name, value) {
      argumentsRequired(arguments.length, 2, 'URLSearchParams', 'set');
      const key = usv(name);
      const val = usv(value);
      const at = this.#list.findIndex(([n]) => n === key);
      if (at === -1) this.#list.push([key, val]);
      else {
        this.#list[at] = [key, val];
        this.#list = this.#list.filter(([n], i) => i <= at || n !== key);
      }
      this.#update();
    }

    sort() {
      // Stable, by code units of the names (the spec's order).
      arraySort.call(this.#list, (a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      this.#update();
    }

    toString() { return serialise(this.#list); }

    static {
      listOf = (params) => params.#list;
      setList = (params, list) => { params.#list = list; };
      attach = (params, url) => { params.#url = url; };
    }
  }

  defineIterator(URLSearchParams, 'URLSearchParams', (params) => listOf(params));

  return { URL: brand(URL, 'URL'), URLSearchParams: brand(URLSearchParams, 'URLSearchParams') };
})
