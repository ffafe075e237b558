// Request and Response, the Fetch Standard's data classes, with the Body
// mixin (text, json, arrayBuffer, bytes, blob, formData, body as a
// ReadableStream), and the Response of a host's answer to `fetch`
// (web/egress.js).
// Spec: https://fetch.spec.whatwg.org/#request-class, #response-class, #body-mixin
// WPT: fetch/api/request, fetch/api/response, fetch/api/body (the table in the README)
//
// A body is { stream, source, length }: the stream is made when a program
// first touches it, from the source's bytes (or is the program's own
// ReadableStream); reading a body reads that stream to its end.
(function (host) {
  'use strict';
  const { usv, argumentsRequired, brand } = host.idl;
  const { Blob, File, bytesOfBlob } = host.blob;
  const { Headers, freeze, fromTrusted, appendTrusted } = host.headers;
  const { FormData, entriesOf, fromEntries } = host.formdata;
  const { URL, URLSearchParams } = host.url;
  const { AbortController, AbortSignal, signals } = host.abort;
  const { TextEncoder, TextDecoder, bytesOf } = host.encoding;
  const streams = host.readable.internals;
  const TypeErrorCtor = TypeError;
  const RangeErrorCtor = RangeError;
  const Uint8ArrayCtor = Uint8Array;
  const ArrayBufferCtor = ArrayBuffer;
  const isView = ArrayBuffer.isView;
  const JSONParse = JSON.parse;
  const JSONStringify = JSON.stringify;
  const MathRandom = Math.random;
  const MathFloor = Math.floor;
  const promiseResolve = Promise.resolve.bind(Promise);
  const promiseReject = Promise.reject.bind(Promise);
  const uncurry = Function.prototype.bind.bind(Function.prototype.call);
  const promiseThen = uncurry(Promise.prototype.then);
  const regExpTest = uncurry(RegExp.prototype.test);
  const toLowerCase = uncurry(String.prototype.toLowerCase);
  const toUpperCase = uncurry(String.prototype.toUpperCase);
  const headersGet = uncurry(Headers.prototype.get);
  const headersHas = uncurry(Headers.prototype.has);
  const headersSet = uncurry(Headers.prototype.set);
  const blobType = uncurry(Object.getOwnPropertyDescriptor(Blob.prototype, 'type').get);
  const blobSize = uncurry(Object.getOwnPropertyDescriptor(Blob.prototype, 'size').get);
  const blobStream = uncurry(Blob.prototype.stream);
  const fileName = uncurry(Object.getOwnPropertyDescriptor(File.prototype, 'name').get);
  const searchParamsToString = uncurry(URLSearchParams.prototype.toString);
  const urlHref = uncurry(Object.getOwnPropertyDescriptor(URL.prototype, 'href').get);
  const urlUsername = uncurry(Object.getOwnPropertyDescriptor(URL.prototype, 'username').get);
  const urlPassword = uncurry(Object.getOwnPropertyDescriptor(URL.prototype, 'password').get);
  const encoderEncode = uncurry(TextEncoder.prototype.encode);
  const decoderDecode = uncurry(TextDecoder.prototype.decode);
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();

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

  function encode(text) {
    return encoderEncode(encoder, text);
  }

  function concat(chunks, total) {
    const bytes = new Uint8ArrayCtor(total);
    let offset = 0;
    for (let i = 0; i < chunks.length; i++) {
      bytes.set(chunks[i], offset);
      offset += chunks[i].byteLength;
    }
    return bytes;
  }

  // ---- bodies ----------------------------------------------------------------

  // A ReadableStream (record) of one chunk of bytes.
  function streamOfBytes(bytes) {
    const { createByteStream, controllerEnqueue, controllerClose } = host.bytes;
    let stream;
    stream = createByteStream(() => undefined, () => {
      if (bytes.byteLength > 0) controllerEnqueue(stream.controller, bytes);
      controllerClose(stream.controller);
      return promiseResolve(undefined);
    }, () => promiseResolve(undefined));
    return stream;
  }

  // The standard's multipart/form-data encoding of a FormData.
  function multipart(formData, boundary) {
    const chunks = [];
    let total = 0;
    const push = (bytes) => {
      chunks[chunks.length] = bytes;
      total += bytes.byteLength;
    };
    const escape = (text) => text.replace(/\r\n|\r|\n/g, '\r\n');
    const quote = (text) => text.replace(/\n/g, '%0A').replace(/\r/g, '%0D').replace(/"/g, '%22');
    const list = entriesOf(formData);
    for (let i = 0; i < list.length; i++) {
      const [name, value] = list[i];
      let head = `--${boundary}\r\nContent-Disposition: form-data; name="${quote(escape(name))}"`;
      if (typeof value === 'string') {
        push(encode(`${head}\r\n\r\n${escape(value)}\r\n`));
      } else {
        const type = blobType(value) || 'application/octet-stream';
        head += `; filename="${quote(fileName(value))}"\r\nContent-Type: ${type}\r\n\r\n`;
        push(encode(head));
        push(bytesOfBlob(value));
        push(encode('\r\n'));
      }
    }
    push(encode(`--${boundary}--\r\n`));
    return concat(chunks, total);
  }

  function boundary() {
    let text = '----formdata-coderun-';
    for (let i = 0; i < 24; i++) text += `${MathFloor(MathRandom() * 10)}`;
    return text;
  }

  // The standard's "extract a body": { body, type }.
  function extract(object, keepalive) {
    let stream = null;
    let source = null;
    let length = null;
    let type = null;
    if (object instanceof Blob) {
      source = object;
      length = blobSize(object);
      const blobTypeValue = blobType(object);
      if (blobTypeValue !== '') type = blobTypeValue;
    } else if (isView(object) || object instanceof ArrayBufferCtor) {
      source = bytesOf(object, 'a body').slice();
      length = source.byteLength;
    } else if (object instanceof FormData) {
      const b = boundary();
      source = multipart(object, b);
      length = source.byteLength;
      type = `multipart/form-data; boundary=${b}`;
    } else if (object instanceof URLSearchParams) {
      source = encode(searchParamsToString(object));
      length = source.byteLength;
      type = 'application/x-www-form-urlencoded;charset=UTF-8';
    } else if (streams.peekStream(object) !== undefined) {
      const s = streams.peekStream(object);
      if (keepalive) throw new TypeErrorCtor('a keepalive request cannot have a stream body');
      if (s.disturbed || streams.isLocked(s)) throw new TypeErrorCtor('the body stream is disturbed or locked');
      stream = s;
    } else {
      source = encode(usv(object));
      length = source.byteLength;
      type = 'text/plain;charset=UTF-8';
    }
    return { body: { stream, source, length }, type };
  }

  function bodyStream(body) {
    if (body.stream === null) {
      if (body.consumed) {
        // Read whole before anyone made its stream: the stream is the
        // one that read left, disturbed and empty.
        body.stream = streamOfBytes(new Uint8ArrayCtor(0));
        body.stream.disturbed = true;
      } else {
        body.stream = body.source instanceof Blob
          ? streams.streamOf(blobStream(body.source))
          : streamOfBytes(body.source);
      }
    }
    return body.stream;
  }

  function unusable(body) {
    if (body === null) return false;
    if (body.consumed) return true;
    if (body.stream === null) return false;
    return body.stream.disturbed || streams.isLocked(body.stream);
  }

  // Reads a body to its end: its bytes.
  function consume(body, what) {
    if (body === null) return promiseResolve(new Uint8ArrayCtor(0));
    if (unusable(body)) return promiseReject(new TypeErrorCtor(`${what}: the body is already used`));
    // A body nobody has made a stream of yet is its source's bytes: read
    // whole without making one (no reader, no promise per chunk), which is
    // what reading the stream would give, and what no program can observe.
    if (body.stream === null && body.source !== null) {
      body.consumed = true;
      const source = body.source;
      return promiseResolve(source instanceof Blob ? bytesOfBlob(source).slice() : source);
    }
    const stream = bodyStream(body);
    const reader = streams.acquireDefaultReader(stream);
    const chunks = [];
    let total = 0;
    const d = streams.deferred();
    const step = () => {
      streams.defaultReaderRead(reader, {
        chunk(chunk) {
          if (!(chunk instanceof Uint8ArrayCtor)) {
            const error = new TypeErrorCtor(`${what}: the body stream gave a chunk that is not a Uint8Array`);
            d.reject(error);
            streams.readerCancel(reader, error);
            return;
          }
          chunks[chunks.length] = chunk;
          total += chunk.byteLength;
          step();
        },
        close: () => d.resolve(concat(chunks, total)),
        error: (error) => d.reject(error),
      });
    };
    step();
    return d.promise;
  }

  function mimeEssence(type) {
    if (type === null) return '';
    const semicolon = type.indexOf(';');
    return toLowerCase((semicolon === -1 ? type : type.slice(0, semicolon)).trim());
  }

  function mimeParameter(type, name) {
    const parts = type.split(';');
    for (let i = 1; i < parts.length; i++) {
      const eq = parts[i].indexOf('=');
      if (eq === -1) continue;
      if (toLowerCase(parts[i].slice(0, eq).trim()) !== name) continue;
      let value = parts[i].slice(eq + 1).trim();
      if (value.length >= 2 && value[0] === '"' && value[value.length - 1] === '"') value = value.slice(1, -1);
      return value;
    }
    return null;
  }

  // multipart/form-data, parsed into FormData entries.
  function parseMultipart(bytes, type, what) {
    const b = mimeParameter(type, 'boundary');
    if (b === null || b === '') throw new TypeErrorCtor(`${what}: the multipart body has no boundary`);
    // Latin-1 keeps one character per byte, so offsets are byte offsets.
    let text = '';
    for (let i = 0; i < bytes.length; i += 8192) text += String.fromCharCode.apply(null, bytes.subarray(i, i + 8192));
    const delimiter = `--${b}`;
    let at = text.indexOf(delimiter);
    if (at === -1) throw new TypeErrorCtor(`${what}: the multipart body has no part`);
    const entries = [];
    for (;;) {
      at += delimiter.length;
      if (text.startsWith('--', at)) break;
      if (!text.startsWith('\r\n', at)) throw new TypeErrorCtor(`${what}: a multipart delimiter is not followed by CRLF`);
      at += 2;
      const headEnd = text.indexOf('\r\n\r\n', at);
      if (headEnd === -1) throw new TypeErrorCtor(`${what}: a multipart part has no end of headers`);
      const next = text.indexOf(`\r\n${delimiter}`, headEnd + 4);
      if (next === -1) throw new TypeErrorCtor(`${what}: the multipart body is not closed`);
      let name = null;
      let filename = null;
      let contentType = 'text/plain';
      for (const line of text.slice(at, headEnd).split('\r\n')) {
        const colon = line.indexOf(':');
        if (colon === -1) continue;
        const field = toLowerCase(line.slice(0, colon).trim());
        const value = line.slice(colon + 1).trim();
        if (field === 'content-disposition') {
          name = mimeParameter(`x;${value.slice(value.indexOf(';') + 1)}`, 'name');
          filename = mimeParameter(`x;${value.slice(value.indexOf(';') + 1)}`, 'filename');
        } else if (field === 'content-type') {
          contentType = value;
        }
      }
      if (name === null) throw new TypeErrorCtor(`${what}: a multipart part has no name`);
      const content = bytes.subarray(headEnd + 4, next);
      const utf8 = (latin1) => decoderDecode(decoder, Uint8ArrayCtor.from(latin1, (c) => c.charCodeAt(0)));
      if (filename === null) entries[entries.length] = [utf8(name), decoderDecode(decoder, content)];
      else entries[entries.length] = [utf8(name), new File([content], utf8(filename), { type: contentType, lastModified: 0 })];
      at = next + 2;
    }
    return entries;
  }

  // The standard's "package data".
  function packageData(bytes, kind, mimeType, what) {
    switch (kind) {
      case 'arrayBuffer': return bytes.buffer;
      case 'bytes': return bytes;
      case 'blob': return new Blob([bytes], { type: mimeType === null ? '' : mimeType });
      case 'text': return decoderDecode(decoder, bytes);
      case 'json': return JSONParse(decoderDecode(decoder, bytes));
      case 'formData': {
        const essence = mimeEssence(mimeType);
        if (essence === 'multipart/form-data') return fromEntries(parseMultipart(bytes, mimeType, what));
        if (essence === 'application/x-www-form-urlencoded') {
          const entries = [];
          for (const pair of new URLSearchParams(decoderDecode(decoder, bytes))) entries[entries.length] = pair;
          return fromEntries(entries);
        }
        throw new TypeErrorCtor(`${what}: the body's type is neither multipart/form-data nor application/x-www-form-urlencoded`);
      }
      default: throw new TypeErrorCtor(`unknown body kind ${kind}`);
    }
  }

  // The Body mixin's methods on a class whose instances give
  // `recordOf(this)` = { body, headers, what }.
  function mixBody(Class, recordOf, name) {
    const consumeAs = (kind) => function () {
      let record;
      try {
        record = recordOf(this);
      } catch (error) {
        return promiseReject(error);
      }
      const what = `${name}.${kind}()`;
      const mimeType = headersGet(record.headers, 'content-type');
      return promiseThen(consume(record.body, what), (bytes) => packageData(bytes, kind, mimeType, what));
    };
    const define = (key, value) => Object.defineProperty(Class.prototype, key, {
      value, writable: true, enumerable: true, configurable: true,
    });
    const methods = {
      arrayBuffer: consumeAs('arrayBuffer'), blob: consumeAs('blob'), bytes: consumeAs('bytes'),
      formData: consumeAs('formData'), json: consumeAs('json'), text: consumeAs('text'),
    };
    for (const key of ['arrayBuffer', 'blob', 'bytes', 'formData', 'json', 'text']) {
      Object.defineProperty(methods[key], 'name', { value: key });
      define(key, methods[key]);
    }
    Object.defineProperty(Class.prototype, 'body', {
      get: { body() { const r = recordOf(this); return r.body === null ? null : bodyStream(r.body).public; } }.body,
      enumerable: true, configurable: true,
    });
    Object.defineProperty(Class.prototype, 'bodyUsed', {
      get: {
        bodyUsed() {
          const r = recordOf(this);
          return r.body !== null && (r.body.consumed === true || (r.body.stream !== null && r.body.stream.disturbed));
        },
      }.bodyUsed,
      enumerable: true, configurable: true,
    });
  }

  // A body's clone: its stream teed, one branch kept, one given.
  function cloneBody(body) {
    if (body === null) return null;
    // Teed as other standards tee a stream (the second branch's chunks
    // cloned), not through the public tee(), which a program may replace.
    const [one, two] = host.tee.tee(bodyStream(body), true);
    body.stream = streams.streamOf(one);
    return { stream: streams.streamOf(two), source: body.source, length: body.length };
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
    internals: { extract, consume, requestOf, responseOf, responseOfHost },
  };
})
