// Blob and File, in memory. Spec: https://w3c.github.io/FileAPI/
// WPT: FileAPI/blob (the table in the README; expectations in tests/wpt/)
//
// A Blob's bytes are one Uint8Array, copied in when it is made and never
// written again: slices and clones copy what they keep. `stream()` is a
// byte stream that hands out copies of 64 KiB at a time.
(function (host) {
  'use strict';
  const { usv, domString, dictionary, sequence, brand } = host.idl;
  const { bytesOf, TextDecoder, TextEncoder } = host.encoding;
  const TypeErrorCtor = TypeError;
  const Uint8ArrayCtor = Uint8Array;
  const ArrayBufferCtor = ArrayBuffer;
  const isView = ArrayBuffer.isView;
  const typedArraySet = Uint8Array.prototype.set;
  const typedArraySlice = Uint8Array.prototype.slice;
  const PromiseResolve = Promise.resolve.bind(Promise);
  const MathMax = Math.max;
  const MathMin = Math.min;
  const DateNow = Date.now;
  const encoder = new TextEncoder();
  // The bytes a Blob's stream hands out at a time.
  const STREAM_CHUNK = 65536;
  const decoder = new TextDecoder();

  // A type is kept lowercased, or dropped when it has a character outside
  // U+0020-U+007E.
  function normaliseType(type) {
    const text = domString(type);
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c < 0x20 || c > 0x7e) return '';
    }
    return text.toLowerCase();
  }

  function endingsOf(options, what) {
    const endings = options.endings === undefined ? 'transparent' : domString(options.endings);
    if (endings !== 'transparent' && endings !== 'native') {
      throw new TypeErrorCtor(`${what}: endings must be 'transparent' or 'native' (got '${endings}')`);
    }
    return endings;
  }

  let bytesOfBlob;

  // The bytes of blobParts, joined.
  function join(parts, endings, what) {
    if (parts === undefined) return new Uint8ArrayCtor(0);
    let total = 0;
    const chunks = sequence(parts, (part) => {
      let bytes;
      if (part instanceof Blob) bytes = bytesOfBlob(part);
      else if (isView(part) || part instanceof ArrayBufferCtor) bytes = bytesOf(part, what);
      else {
        let text = usv(part);
        // The platform's native line ending is LF.
        if (endings === 'native') text = text.replace(/\r\n?/g, '\n');
        bytes = encoder.encode(text);
      }
      total += bytes.byteLength;
      return bytes;
    }, what);
    const joined = new Uint8ArrayCtor(total);
    let at = 0;
    for (let i = 0; i < chunks.length; i++) {
      typedArraySet.call(joined, chunks[i], at);
      at += chunks[i].byteLength;
    }
    return joined;
  }

  // A relative position clamped into [0, size], as slice() reads it: a
  // `[Clamp] long long`, so a fraction rounds half to even.
  function position(value, size, fallback) {
    if (value === undefined) return fallback;
    let n = Number(value);
    if (n !== n) n = 0;
    const rounded = n % 1 === 0.5 || n % 1 === -0.5 ? 2 * Math.round(n / 2) : Math.round(n);
    return rounded < 0 ? MathMax(size + rounded, 0) : MathMin(rounded, size);
  }

  class Blob {
    #bytes;
    #type;

    constructor(blobParts = undefined, options = undefined) {
      const opts = dictionary(options, 'Blob', 'constructor');
      this.#bytes = join(blobParts, endingsOf(opts, 'new Blob()'), 'new Blob()');
      this.#type = opts.type === undefined ? '' : normaliseType(opts.type);
    }

    get size() { return this.#bytes.byteLength; }
    get type() { return this.#type; }

    slice(start = undefined, end = undefined, contentType = undefined) {
      const size = this.#bytes.byteLength;
      const from = position(start, size, 0);
      const to = position(end, size, size);
      const blob = new Blob();
      blob.#bytes = typedArraySlice.call(this.#bytes, from, MathMax(from, to));
      blob.#type = contentType === undefined ? '' : normaliseType(contentType);
      return blob;
    }

    text() {
      const bytes = this.#bytes;
      return PromiseResolve().then(() => decoder.decode(bytes));
    }

    arrayBuffer() {
      const bytes = this.#bytes;
      return PromiseResolve().then(() => typedArraySlice.call(bytes).buffer);
    }

    bytes() {
      const bytes = this.#bytes;
      return PromiseResolve().then(() => typedArraySlice.call(bytes));
    }

    stream() {
      const bytes = this.#bytes;
      const { createByteStream, controllerEnqueue, controllerClose, respond } = host.bytes;
      let offset = 0;
      let stream;
      stream = createByteStream(() => undefined, () => {
        if (offset >= bytes.byteLength) {
          controllerClose(stream.controller);
          if (stream.controller.pendingPullIntos.length > 0) respond(stream.controller, 0);
          return PromiseResolve();
        }
        const end = MathMin(offset + STREAM_CHUNK, bytes.byteLength);
        controllerEnqueue(stream.controller, typedArraySlice.call(bytes, offset, end));
        offset = end;
        return PromiseResolve();
      }, () => PromiseResolve());
      return stream.public;
    }

    static {
      bytesOfBlob = (blob) => blob.#bytes;
    }
  }

  class File extends Blob {
    #name;
    #lastModified;

    constructor(fileBits, fileName, options = undefined) {
      if (arguments.length < 2) {
        throw new TypeErrorCtor(`new File() takes 2 arguments (got ${arguments.length})`);
      }
      const opts = dictionary(options, 'File', 'constructor');
      super(fileBits, opts);
      this.#name = usv(fileName);
      this.#lastModified = opts.lastModified === undefined ? DateNow() : Math.trunc(Number(opts.lastModified)) || 0;
    }

    get name() { return this.#name; }
    get lastModified() { return this.#lastModified; }
    get webkitRelativePath() { this.#name; return ''; }
  }

  // A structured clone: a new Blob (or File) with the same bytes and type,
  // for web/clone.js. Throws for an object that is not one (its brand
  // check).
  function cloneBlob(value) {
    const bytes = bytesOfBlob(value);
    const options = { type: value.type };
    if (value instanceof File) {
      return new File([bytes], value.name, { ...options, lastModified: value.lastModified });
    }
    return new Blob([bytes], options);
  }

  return { Blob: brand(Blob, 'Blob'), File: brand(File, 'File'), cloneBlob, bytesOfBlob: (blob) => bytesOfBlob(blob) };
})
