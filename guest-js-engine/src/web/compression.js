// CompressionStream and DecompressionStream: gzip, deflate (zlib) and
// deflate-raw. Spec: https://compression.spec.whatwg.org/
// WPT: compression (the table in the README)
//
// The codecs are natives (web/compression.rs); each transform pushes a
// chunk in and pulls the output out in pieces of at most 64 KiB.
(function (host) {
  'use strict';
  const { argumentsRequired, brand } = host.idl;
  const { createTransformStream, enqueue, exposeSides } = host.transform.internals;
  const { bytesOf } = host.encoding;
  const { codecOpen, codecPush, codecPull, codecClose } = host.natives;
  const TypeErrorCtor = TypeError;
  const isView = ArrayBuffer.isView;
  const ArrayBufferCtor = ArrayBuffer;
  const SharedArrayBufferCtor = typeof SharedArrayBuffer === 'function' ? SharedArrayBuffer : undefined;
  const promiseResolve = Promise.resolve.bind(Promise);
  const promiseReject = Promise.reject.bind(Promise);
  const uncurry = Function.prototype.bind.bind(Function.prototype.call);
  const promiseThen = uncurry(Promise.prototype.then);
  const FORMATS = ['deflate', 'deflate-raw', 'gzip'];
  // As web/compression.rs counts them.
  const MAX_OPEN = 64;
  // Pieces (of at most 64 KiB) a codec leaves unread before it waits.
  const QUEUED_PIECES = 16;
  const registry = new FinalizationRegistry((id) => codecClose(id));

  // A BufferSource (not shared): its bytes, or a TypeError.
  function chunkBytes(chunk, what) {
    const shared = SharedArrayBufferCtor !== undefined
      && ((isView(chunk) && chunk.buffer instanceof SharedArrayBufferCtor) || chunk instanceof SharedArrayBufferCtor);
    if (shared || !(isView(chunk) || chunk instanceof ArrayBufferCtor)) {
      throw new TypeErrorCtor(`${what}: a chunk must be an ArrayBuffer or an ArrayBufferView`);
    }
    return bytesOf(chunk, what);
  }

  function codecStream(format, decompress, what) {
    const name = `${format}`;
    if (!FORMATS.includes(name)) {
      throw new TypeErrorCtor(`${what}: '${name}' is not a supported format (deflate, deflate-raw or gzip)`);
    }
    const id = codecOpen(name, decompress);
    if (id < 0) {
      throw new TypeErrorCtor(`${what}: ${MAX_OPEN} compression streams are open already; finish or cancel one first`);
    }
    let stream;
    // Closed once, by the end of the stream or by the registry when the
    // program drops the stream unfinished (the id may be reused after).
    const token = {};
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      registry.unregister(token);
      codecClose(id);
    };
    // The standard enqueues a chunk's whole output at once, and a write
    // resolves when it has; past QUEUED_PIECES waiting unread (1 MiB), the
    // codec waits for the reader instead, so a bomb read piece by piece
    // never holds more than that.
    const drain = (finish) => {
      for (;;) {
        const piece = codecPull(id, finish);
        if (piece === undefined) return promiseResolve(undefined);
        enqueue(stream.controller, piece);
        if (stream.backpressure && stream.readable.controller.queue.length >= QUEUED_PIECES) {
          return promiseThen(stream.backpressureChange.promise, () => drain(finish));
        }
      }
    };
    const fail = (error) => {
      close();
      throw error;
    };
    stream = createTransformStream((chunk) => {
      try {
        codecPush(id, chunkBytes(chunk, what));
        return promiseThen(drain(false), undefined, fail);
      } catch (error) {
        close();
        return promiseReject(error);
      }
    }, () => {
      try {
        return promiseThen(drain(true), () => close(), fail);
      } catch (error) {
        close();
        return promiseReject(error);
      }
    }, () => {
      close();
      return promiseResolve(undefined);
    });
    registry.register(stream, id, token);
    return stream;
  }

  let compressionStreamOf;
  let decompressionStreamOf;

  class CompressionStream {
    #t;

    constructor(format) {
      argumentsRequired(arguments.length, 1, 'CompressionStream', 'constructor');
      this.#t = codecStream(format, false, 'CompressionStream');
    }

    static {
      compressionStreamOf = (value) => {
        if (typeof value !== 'object' || value === null || !(#t in value)) throw new TypeErrorCtor('Illegal invocation');
        return value.#t;
      };
    }
  }

  class DecompressionStream {
    #t;

    constructor(format) {
      argumentsRequired(arguments.length, 1, 'DecompressionStream', 'constructor');
      this.#t = codecStream(format, true, 'DecompressionStream');
    }

    static {
      decompressionStreamOf = (value) => {
        if (typeof value !== 'object' || value === null || !(#t in value)) throw new TypeErrorCtor('Illegal invocation');
        return value.#t;
      };
    }
  }

  exposeSides(CompressionStream, compressionStreamOf);
  exposeSides(DecompressionStream, decompressionStreamOf);

  return {
    CompressionStream: brand(CompressionStream, 'CompressionStream'),
    DecompressionStream: brand(DecompressionStream, 'DecompressionStream'),
  };
})
