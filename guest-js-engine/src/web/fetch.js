// Request and Response, the Fetch Standard's data classes (their bodies
// and the Body mixin are web/body.js's), and the Response of a host's
// answer to `fetch` (web/egress.js).
// Spec: https://fetch.spec.whatwg.org/#request-class, #response-class
// WPT: fetch/api/request, fetch/api/response (the table in the README)
(function (host) {
  'use strict';
  const { usv, argumentsRequired, brand } = host.idl;
  const { Headers, freeze, fromTrusted, appendTrusted } = host.headers;
  const { URL } = host.url;
  const { AbortController, AbortSignal, signals } = host.abort;
  const { extract, unusable, bodyStream, mixBody, cloneBody, encode } = host.body;
  const streams = host.readable.internals;
  const TypeErrorCtor = TypeError;
  const RangeErrorCtor = RangeError;
  const Uint8ArrayCtor = Uint8Array;
  const JSONStringify = JSON.stringify;
  const uncurry = Function.prototype.bind.bind(Function.prototype.call);
  const regExpTest = uncurry(RegExp.prototype.test);
  const toUpperCase = uncurry(String.prototype.toUpperCase);
  const headersHas = uncurry(Headers.prototype.has);
  const headersSet = uncurry(Headers.prototype.set);
  const urlHref = uncurry(Object.getOwnPropertyDescriptor(URL.prototype, 'href').get);
  const urlUsername = uncurry(Object.getOwnPropertyDescriptor(URL.prototype, 'username').get);
  const urlPassword = uncurry(Object.getOwnPropertyDescriptor(URL.prototype, 'password').get);

  const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
  // reason-phrase: HTAB, SP, VCHAR, obs-text.
  const REASON_PHRASE = /^[\t\x20-\x7e\x80-\xff]*$/;
  const FORBIDDEN_METHODS = ['CONNECT', 'TRACE', 'TRACK'];
  const NORMALISED_METHODS = ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT'];
  const NULL_BODY_STATUSES = [101, 103, 204, 205, 304];
  const REDIRECT_STATUSES = [301, 302, 303, 307, 308];
  // Requests and responses the module makes itself skip the constructor.
  const CREATE = {};

  function isObject(value) {
    return (typeof value === 'object' && value !== null) || typeof value === 'function';
  }

  // ---- Request -----------------------------------------------------------

  const ENUMS = {
    cache: ['default', 'no-store', 'reload', 'no-cache', 'force-cache', 'only-if-cached'],
    credentials: ['omit', 'same-origin', 'include'],
    duplex: ['half'],
    mode: ['navigate', 'same-origin', 'no-cors', 'cors'],
    priority: ['high', 'low', 'auto'],
    redirect: ['follow', 'error', 'manual'],
    referrerPolicy: ['', 'no-referrer', 'no-referrer-when-downgrade', 'same-origin', 'origin', 'strict-origin',
      'origin-when-cross-origin', 'strict-origin-when-cross-origin', 'unsafe-url'],
  };

  function enumMember(init, key) {
    const value = init[key];
    if (value === undefined) return undefined;
    const text = `${value}`;
    if (!ENUMS[key].includes(text)) throw new TypeErrorCtor(`new Request(): '${text}' is not a valid ${key}`);
    return text;
  }

  // The RequestInit dictionary, members in order.
  function requestInit(init) {
    if (init === undefined || init === null) return {};
    if (!isObject(init)) throw new TypeErrorCtor('new Request(): the init must be an object');
    const dict = {};
    if (init.body !== undefined) dict.body = init.body;
    dict.cache = enumMember(init, 'cache');
    dict.credentials = enumMember(init, 'credentials');
    dict.duplex = enumMember(init, 'duplex');
    if (init.headers !== undefined) dict.headers = init.headers;
    if (init.integrity !== undefined) dict.integrity = `${init.integrity}`;
    if (init.keepalive !== undefined) dict.keepalive = !!init.keepalive;
    if (init.method !== undefined) dict.method = `${init.method}`;
    dict.mode = enumMember(init, 'mode');
    dict.priority = enumMember(init, 'priority');
    dict.redirect = enumMember(init, 'redirect');
    if (init.referrer !== undefined) dict.referrer = usv(init.referrer);
    dict.referrerPolicy = enumMember(init, 'referrerPolicy');
    if (init.signal !== undefined) {
      if (init.signal !== null && !signals.isSignal(init.signal)) {
        throw new TypeErrorCtor('new Request(): signal must be an AbortSignal');
      }
      dict.signal = init.signal;
    }
    if (init.window !== undefined) dict.window = init.window;
    for (const key of ['cache', 'credentials', 'duplex', 'mode', 'priority', 'redirect', 'referrerPolicy']) {
      if (dict[key] === undefined) delete dict[key];
    }
    return dict;
  }

  // A relative URL resolves against `location` when the program defines
  // one (as Deno's --location does); the sandbox itself has no base URL.
  function baseURL() {
    const location = globalThis.location;
    if (location === undefined || location === null) return undefined;
    return usv(location.href);
  }

  function parseURL(input, what) {
    let url;
    const base = baseURL();
    try {
      url = base === undefined ? new URL(input) : new URL(input, base);
    } catch (_) {
      throw new TypeErrorCtor(base === undefined
        ? `${what}: '${input}' is not an absolute URL (the sandbox has no base URL; set globalThis.location to give one)`
        : `${what}: '${input}' is not a valid URL (against the base ${base})`);
    }
    if (urlUsername(url) !== '' || urlPassword(url) !== '') {
      throw new TypeErrorCtor(`${what}: the URL includes credentials`);
    }
    return url;
  }

  let requestOf;
  let peekRequest;

  class Request {
    #r;

    constructor(input, init = undefined) {
      if (input === CREATE) {
        this.#r = {};
        return;
      }
      argumentsRequired(arguments.length, 1, 'Request', 'constructor');
      const what = 'new Request()';
      const inputRequest = peekRequest(input);
      const dict = requestInit(init);
      let r;
      let fallbackMode = null;
      let signal = null;
      if (inputRequest === undefined) {
        const url = parseURL(usv(input), what);
        r = {
          method: 'GET', url: urlHref(url), headers: null, body: null, referrer: 'about:client',
          referrerPolicy: '', mode: 'cors', credentials: 'same-origin', cache: 'default', redirect: 'follow',
          integrity: '', keepalive: false, priority: 'auto', signal: null,
        };
        fallbackMode = 'cors';
      } else {
        r = { ...inputRequest, headers: null, signal: null };
        signal = inputRequest.signal;
      }
      if (dict.window !== undefined && dict.window !== null) {
        throw new TypeErrorCtor(`${what}: window must be null`);
      }
      if (Object.keys(dict).length > 0) {
        if (r.mode === 'navigate') r.mode = 'same-origin';
        r.referrer = 'about:client';
        r.referrerPolicy = '';
      }
      if (dict.referrer !== undefined) {
        if (dict.referrer === '') r.referrer = 'no-referrer';
        else {
          let parsed;
          try {
            const base = baseURL();
            parsed = base === undefined ? new URL(dict.referrer) : new URL(dict.referrer, base);
          } catch (_) {
            throw new TypeErrorCtor(`${what}: the referrer '${dict.referrer}' is not an absolute URL`);
          }
          const href = urlHref(parsed);
          r.referrer = href === 'about:client' ? 'about:client' : href;
        }
      }
      if (dict.referrerPolicy !== undefined) r.referrerPolicy = dict.referrerPolicy;
      let mode = dict.mode !== undefined ? dict.mode : fallbackMode;
      if (mode === 'navigate') throw new TypeErrorCtor(`${what}: mode cannot be 'navigate'`);
      if (mode !== null) r.mode = mode;
      if (dict.credentials !== undefined) r.credentials = dict.credentials;
      if (dict.cache !== undefined) r.cache = dict.cache;
      if (r.cache === 'only-if-cached' && r.mode !== 'same-origin') {
        throw new TypeErrorCtor(`${what}: cache 'only-if-cached' needs mode 'same-origin'`);
      }
      if (dict.redirect !== undefined) r.redirect = dict.redirect;
      if (dict.integrity !== undefined) r.integrity = dict.integrity;
      if (dict.keepalive !== undefined) r.keepalive = dict.keepalive;
      if (dict.priority !== undefined) r.priority = dict.priority;
      if (dict.method !== undefined) {
        let method = dict.method;
        if (!regExpTest(TOKEN, method)) throw new TypeErrorCtor(`${what}: '${method}' is not a valid method`);
        const upper = toUpperCase(method);
        if (FORBIDDEN_METHODS.includes(upper)) throw new TypeErrorCtor(`${what}: the method '${method}' is forbidden`);
        if (NORMALISED_METHODS.includes(upper)) method = upper;
        r.method = method;
      }
      if (dict.signal !== undefined) signal = dict.signal;
      // Without a signal, the request's is made when first asked for.
      r.signal = signal === null ? null : AbortSignal.any([signal]);
      const headersInit = dict.headers !== undefined ? dict.headers
        : inputRequest !== undefined ? inputRequest.headers : undefined;
      r.headers = new Headers(headersInit);
      if (r.mode === 'no-cors' && !['GET', 'HEAD', 'POST'].includes(r.method)) {
        throw new TypeErrorCtor(`${what}: a no-cors request's method must be GET, HEAD or POST`);
      }
      const inputBody = inputRequest !== undefined ? inputRequest.body : null;
      const hasInitBody = dict.body !== undefined && dict.body !== null;
      if ((hasInitBody || inputBody !== null) && (r.method === 'GET' || r.method === 'HEAD')) {
        throw new TypeErrorCtor(`${what}: a ${r.method} request cannot have a body`);
      }
      let body = inputBody;
      if (hasInitBody) {
        const extracted = extract(dict.body, r.keepalive);
        body = extracted.body;
        if (extracted.type !== null && !headersHas(r.headers, 'content-type')) {
          appendTrusted(r.headers, 'Content-Type', extracted.type);
        }
        if (body.source === null && dict.duplex === undefined) {
          throw new TypeErrorCtor(`${what}: a stream body needs duplex: 'half'`);
        }
      }
      if (!hasInitBody && inputBody !== null) {
        if (unusable(inputBody)) throw new TypeErrorCtor(`${what}: the input request's body is already used`);
        // Taking over the input's body uses it up.
        const readable = bodyStream(inputBody).public.pipeThrough(new host.transform.TransformStream());
        body = { stream: streams.streamOf(readable), source: inputBody.source, length: inputBody.length };
      }
      r.body = body;
      this.#r = r;
    }

    static {
      peekRequest = (value) => (isObject(value) && #r in value ? value.#r : undefined);
      requestOf = (value) => {
        const r = peekRequest(value);
        if (r === undefined) throw new TypeErrorCtor('Illegal invocation');
        return r;
      };
    }

    get method() { return requestOf(this).method; }
    get url() { return requestOf(this).url; }
    get headers() { return requestOf(this).headers; }
    get destination() { requestOf(this); return ''; }
    get referrer() {
      const referrer = requestOf(this).referrer;
      return referrer === 'no-referrer' ? '' : referrer;
    }
    get referrerPolicy() { return requestOf(this).referrerPolicy; }
    get mode() { return requestOf(this).mode; }
    get credentials() { return requestOf(this).credentials; }
    get cache() { return requestOf(this).cache; }
    get redirect() { return requestOf(this).redirect; }
    get integrity() { return requestOf(this).integrity; }
    get keepalive() { return requestOf(this).keepalive; }
    get isReloadNavigation() { requestOf(this); return false; }
    get isHistoryNavigation() { requestOf(this); return false; }
    get signal() {
      const r = requestOf(this);
      if (r.signal === null) r.signal = new AbortController().signal;
      return r.signal;
    }
    get duplex() { requestOf(this); return 'half'; }

    clone() {
      const r = requestOf(this);
      if (unusable(r.body)) throw new TypeErrorCtor('Request.clone(): the body is already used');
      const copy = new Request(CREATE);
      const c = requestOf(copy);
      Object.assign(c, r);
      c.headers = new Headers(r.headers);
      c.body = cloneBody(r.body);
      c.signal = r.signal === null ? null : AbortSignal.any([r.signal]);
      return copy;
    }
  }

  mixBody(Request, (value) => {
    const r = requestOf(value);
    return { body: r.body, headers: r.headers };
  }, 'Request');

  // ---- Response ----------------------------------------------------------

  // The ResponseInit dictionary, members in order.
  function responseInit(init, what) {
    if (init === undefined || init === null) return { status: 200, statusText: '' };
    if (!isObject(init)) throw new TypeErrorCtor(`${what}: the init must be an object`);
    const dict = {};
    if (init.headers !== undefined) dict.headers = init.headers;
    const status = init.status === undefined ? 200 : +init.status;
    // unsigned short: modulo 2^16.
    dict.status = status !== status || status === Infinity || status === -Infinity ? 0 : ((Math.trunc(status) % 65536) + 65536) % 65536;
    dict.statusText = init.statusText === undefined ? '' : `${init.statusText}`;
    return dict;
  }

  function initializeResponse(r, dict, body, what) {
    if (dict.status < 200 || dict.status > 599) {
      throw new RangeErrorCtor(`${what}: the status must be 200 to 599 (got ${dict.status})`);
    }
    if (!regExpTest(REASON_PHRASE, dict.statusText)) {
      throw new TypeErrorCtor(`${what}: the statusText is not a valid reason phrase`);
    }
    r.status = dict.status;
    r.statusText = dict.statusText;
    if (dict.headers !== undefined) r.headers = new Headers(dict.headers);
    if (body !== null) {
      if (NULL_BODY_STATUSES.includes(r.status)) {
        throw new TypeErrorCtor(`${what}: a response with status ${r.status} cannot have a body`);
      }
      r.body = body.body;
      if (body.type !== null && !headersHas(r.headers, 'content-type')) appendTrusted(r.headers, 'Content-Type', body.type);
    }
  }

  function newResponseRecord() {
    return { type: 'default', url: '', redirected: false, status: 200, statusText: '', headers: new Headers(), body: null };
  }

  let responseOf;

  class Response {
    #r;

    constructor(body = null, init = undefined) {
      const r = newResponseRecord();
      this.#r = r;
      if (body === CREATE) return;
      const what = 'new Response()';
      const dict = responseInit(init, what);
      const extracted = body === null || body === undefined ? null : extract(body, false);
      initializeResponse(r, dict, extracted, what);
    }

    static {
      responseOf = (value) => {
        if (!isObject(value) || !(#r in value)) throw new TypeErrorCtor('Illegal invocation');
        return value.#r;
      };
    }

    static error() {
      const response = new Response(CREATE);
      const r = responseOf(response);
      r.type = 'error';
      r.status = 0;
      freeze(r.headers);
      return response;
    }

    static redirect(url, status = 302) {
      argumentsRequired(arguments.length, 1, 'Response', 'redirect');
      const parsed = parseURL(usv(url), 'Response.redirect()');
      const code = +status;
      if (!REDIRECT_STATUSES.includes(code)) {
        throw new RangeErrorCtor(`Response.redirect(): the status must be a redirect status (got ${status})`);
      }
      const response = new Response(CREATE);
      const r = responseOf(response);
      r.status = code;
      headersSet(r.headers, 'Location', urlHref(parsed));
      freeze(r.headers);
      return response;
    }

    static json(data, init = undefined) {
      argumentsRequired(arguments.length, 1, 'Response', 'json');
      const text = JSONStringify(data);
      if (text === undefined) throw new TypeErrorCtor('Response.json(): the data cannot be serialised as JSON');
      const bytes = encode(text);
      const response = new Response(CREATE);
      const what = 'Response.json()';
      initializeResponse(responseOf(response), responseInit(init, what),
        { body: { stream: null, source: bytes, length: bytes.byteLength }, type: 'application/json' }, what);
      return response;
    }

    get type() { return responseOf(this).type; }
    get url() { return responseOf(this).url; }
    get redirected() { return responseOf(this).redirected; }
    get status() { return responseOf(this).status; }
    get ok() {
      const status = responseOf(this).status;
      return status >= 200 && status <= 299;
    }
    get statusText() { return responseOf(this).statusText; }
    get headers() { return responseOf(this).headers; }

    clone() {
      const r = responseOf(this);
      if (unusable(r.body)) throw new TypeErrorCtor('Response.clone(): the body is already used');
      const copy = new Response(CREATE);
      const c = responseOf(copy);
      Object.assign(c, r);
      c.headers = new Headers(r.headers);
      c.body = cloneBody(r.body);
      return copy;
    }
  }

  mixBody(Response, (value) => {
    const r = responseOf(value);
    return { body: r.body, headers: r.headers };
  }, 'Response');

  // ---- responses from the host (web/egress.js) ------------------------------

  // The Response of the host's answer: { status, statusText, url,
  // redirected, headers: [[name, value]], body: ArrayBuffer }.
  function responseOfHost(head, method) {
    const response = new Response(CREATE);
    const r = responseOf(response);
    r.type = 'basic';
    r.url = `${head.url}`;
    r.redirected = head.redirected === true;
    r.status = head.status | 0;
    r.statusText = `${head.statusText}`;
    // The host's header list is valid (names are tokens, values byte
    // strings without NUL, CR or LF, trimmed): taken as it is.
    r.headers = fromTrusted(head.headers);
    freeze(r.headers);
    if (method !== 'HEAD' && !NULL_BODY_STATUSES.includes(r.status)) {
      const bytes = new Uint8ArrayCtor(head.body);
      r.body = { stream: null, source: bytes, length: bytes.byteLength };
    }
    return response;
  }

  return {
    Request: brand(Request, 'Request'),
    Response: brand(Response, 'Response'),
    internals: { requestOf, responseOf, responseOfHost },
  };
})
