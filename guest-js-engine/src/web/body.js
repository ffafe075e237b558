// The Fetch Standard's bodies: extracting one from what a program gives
// (a string, bytes, a Blob, FormData, URLSearchParams, a ReadableStream),
// reading one to its end, and the Body mixin (text, json, arrayBuffer,
// bytes, blob, formData, body as a ReadableStream, bodyUsed) that Request
// and Response share (web/fetch.js).
// Spec: https://fetch.spec.whatwg.org/#bodies, #body-mixin
// WPT: fetch/api/body (the table in the README)
//
// A body is { stream, source, length }: the stream is made when a program
// first touches it, from the source's bytes (or is the program's own
// ReadableStream); reading a body reads that stream to its end.
(function (host) {
  'use strict';
  const { usv } = host.idl;
  const { Blob, File, bytesOfBlob } = host.blob;
  const { FormData, entriesOf, fromEntries } = host.formdata;
  const { URLSearchParams } = host.url;
  const { TextEncoder, TextDecoder, bytesOf } = host.encoding;
  const { Headers } = host.headers;
  const streams = host.readable.internals;
  const TypeErrorCtor = TypeError;
  const Uint8ArrayCtor = Uint8Array;
  const ArrayBufferCtor = ArrayBuffer;
  const isView = ArrayBuffer.isView;
  const JSONParse = JSON.parse;
  const MathRandom = Math.random;
  const MathFloor = Math.floor;
  const promiseResolve = Promise.resolve.bind(Promise);
  const promiseReject = Promise.reject.bind(Promise);
  const uncurry = Function.prototype.bind.bind(Function.prototype.call);
  const promiseThen = uncurry(Promise.prototype.then);
  const toLowerCase = uncurry(String.prototype.toLowerCase);
  const headersGet = uncurry(Headers.prototype.get);
  const blobType = uncurry(Object.getOwnPropertyDescriptor(Blob.prototype, 'type').get);
  const blobSize = uncurry(Object.getOwnPropertyDescriptor(Blob.prototype, 'size').get);
  const blobStream = uncurry(Blob.prototype.stream);
  const fileName = uncurry(Object.getOwnPropertyDescriptor(File.prototype, 'name').get);
  const searchParamsToString = uncurry(URLSearchParams.prototype.toString);
  const encoderEncode = uncurry(TextEncoder.prototype.encode);
  const decoderDecode = uncurry(TextDecoder.prototype.decode);
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();

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

  return { extract, consume, unusable, bodyStream, mixBody, cloneBody, encode };
})
