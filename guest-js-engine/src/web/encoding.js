// TextEncoder and TextDecoder. Spec: https://encoding.spec.whatwg.org/#api
// WPT: encoding/ (the table in the README; expectations in tests/wpt/)
//
// The natives `encodingName`, `decode`, `encode` and `encodeInto`
// (web/encoding.rs: `encoding_rs` for every encoding the standard defines,
// UTF-8 written and checked natively); this module converts arguments as
// Web IDL says and keeps each decoder's options.
(function (host) {
  'use strict';
  const { encodingName, decode, encode, encodeInto } = host.natives;
  const { domString, usv, dictionary, brand } = host.idl;
  const TypeErrorCtor = TypeError;
  const RangeErrorCtor = RangeError;
  const Uint8ArrayCtor = Uint8Array;
  const ArrayBufferCtor = ArrayBuffer;
  const isView = ArrayBuffer.isView;
  const typedArraySet = Uint8Array.prototype.set;
  const SharedArrayBufferCtor = typeof SharedArrayBuffer === 'function' ? SharedArrayBuffer : undefined;
  const getPrototypeOf = Object.getPrototypeOf;
  const Uint8ArrayProto = Uint8Array.prototype;

  // A view of the bytes of an AllowSharedBufferSource, or a TypeError.
  function bytesOf(input, what) {
    if (isView(input)) return new Uint8ArrayCtor(input.buffer, input.byteOffset, input.byteLength);
    if (input instanceof ArrayBufferCtor || (SharedArrayBufferCtor && input instanceof SharedArrayBufferCtor)) {
      return new Uint8ArrayCtor(input);
    }
    throw new TypeErrorCtor(`${what} takes an ArrayBuffer or an ArrayBufferView`);
  }

  class TextEncoder {
    get encoding() { return 'utf-8'; }

    encode(input = '') {
      return new Uint8ArrayCtor(encode(`${input}`));
    }

    encodeInto(source, destination) {
      const text = usv(source);
      if (!isView(destination) || getPrototypeOf(destination) !== Uint8ArrayProto) {
        throw new TypeErrorCtor('TextEncoder.encodeInto() writes into a Uint8Array');
      }
      const [read, bytes] = encodeInto(text, destination.length);
      typedArraySet.call(destination, new Uint8ArrayCtor(bytes));
      return { read, written: bytes.byteLength };
    }
  }

  // Each decoder has an id, under which web/encoding.rs keeps its state
  // between calls of a stream.
  let lastDecoder = 0;

  class TextDecoder {
    #encoding;
    #fatal;
    #ignoreBOM;
    #id = ++lastDecoder;

    constructor(label = 'utf-8', options = undefined) {
      const name = encodingName(domString(label));
      const opts = dictionary(options, 'TextDecoder', 'constructor');
      if (name === undefined) {
        throw new RangeErrorCtor(`the encoding label "${domString(label)}" is not supported`);
      }
      this.#encoding = name;
      this.#fatal = !!opts.fatal;
      this.#ignoreBOM = !!opts.ignoreBOM;
    }

    get encoding() { return this.#encoding; }
    get fatal() { return this.#fatal; }
    get ignoreBOM() { return this.#ignoreBOM; }

    decode(input = undefined, options = undefined) {
      const encoding = this.#encoding;
      const bytes = input === undefined ? new Uint8ArrayCtor(0) : bytesOf(input, 'TextDecoder.decode()');
      const stream = !!dictionary(options, 'TextDecoder', 'decode').stream;
      const text = decode(encoding, bytes, this.#fatal, this.#ignoreBOM, this.#id, stream);
      if (text === undefined) {
        throw new TypeErrorCtor(`the encoded data is not valid ${encoding}`);
      }
      return text;
    }
  }

  return {
    TextEncoder: brand(TextEncoder, 'TextEncoder'),
    TextDecoder: brand(TextDecoder, 'TextDecoder'),
    bytesOf,
  };
})
