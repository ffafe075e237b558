// Transform streams: TransformStream and its controller, and the
// platform's transform streams built on it: TextEncoderStream and
// TextDecoderStream (Encoding Standard).
// Spec: https://streams.spec.whatwg.org/#ts, https://encoding.spec.whatwg.org/#interface-textdecoderstream
// WPT: streams/transform-streams, encoding/streams (the table in the README)
(function (host) {
  'use strict';
  const { brand } = host.idl;
  const readable = host.readable.internals;
  const writable = host.writable.internals;
  const {
    CREATE, isObject, deferred, react, transform, promiseCall, strategyDict, extractHighWaterMark,
    extractSizeAlgorithm, callbackMember,
  } = readable;
  const { TextDecoder, TextEncoder, bytesOf } = host.encoding;
  const TypeErrorCtor = TypeError;
  const RangeErrorCtor = RangeError;
  const ReflectApply = Reflect.apply;
  const Uint8ArrayCtor = Uint8Array;
  const promiseResolve = Promise.resolve.bind(Promise);
  const promiseReject = Promise.reject.bind(Promise);
  const uncurry = Function.prototype.bind.bind(Function.prototype.call);
  const decoderDecode = uncurry(TextDecoder.prototype.decode);
  const decoderEncoding = uncurry(Object.getOwnPropertyDescriptor(TextDecoder.prototype, 'encoding').get);
  const decoderFatal = uncurry(Object.getOwnPropertyDescriptor(TextDecoder.prototype, 'fatal').get);
  const decoderIgnoreBOM = uncurry(Object.getOwnPropertyDescriptor(TextDecoder.prototype, 'ignoreBOM').get);
  const charCodeAt = uncurry(String.prototype.charCodeAt);
  const encoderEncode = uncurry(TextEncoder.prototype.encode);
  const encoder = new TextEncoder();

  // A transform stream record: readable and writable (records),
  // backpressure, backpressureChange (a deferred), controller, public.
  function initialize(stream, startPromise, writableHWM, writableSize, readableHWM, readableSize) {
    const start = () => startPromise;
    stream.writable = writable.createWritableStream(start, (chunk) => sinkWrite(stream, chunk),
      () => sinkClose(stream), (reason) => sinkAbort(stream, reason), writableHWM, writableSize);
    stream.readable = readable.createReadableStream(start, () => sourcePull(stream),
      (reason) => sourceCancel(stream, reason), readableHWM, readableSize);
    stream.backpressure = undefined;
    stream.backpressureChange = undefined;
    setBackpressure(stream, true);
    stream.controller = undefined;
  }

  function error(stream, e) {
    readable.defaultControllerError(stream.readable.controller, e);
    errorWritableAndUnblockWrite(stream, e);
  }

  function errorWritableAndUnblockWrite(stream, e) {
    clearAlgorithms(stream.controller);
    writable.controllerErrorIfNeeded(stream.writable.controller, e);
    unblockWrite(stream);
  }

  function unblockWrite(stream) {
    if (stream.backpressure) setBackpressure(stream, false);
  }

  function setBackpressure(stream, backpressure) {
    if (stream.backpressureChange !== undefined) stream.backpressureChange.resolve(undefined);
    stream.backpressureChange = deferred();
    stream.backpressure = backpressure;
  }

  // ---- the controller ------------------------------------------------------

  function setUpController(stream, c, transformAlgorithm, flushAlgorithm, cancelAlgorithm) {
    c.stream = stream;
    stream.controller = c;
    c.transformAlgorithm = transformAlgorithm;
    c.flushAlgorithm = flushAlgorithm;
    c.cancelAlgorithm = cancelAlgorithm;
  }

  function newController() {
    const c = {
      stream: undefined, finishPromise: undefined, transformAlgorithm: undefined, flushAlgorithm: undefined,
      cancelAlgorithm: undefined, public: undefined,
    };
    c.public = new TransformStreamDefaultController(CREATE, c);
    return c;
  }

  function clearAlgorithms(c) {
    c.transformAlgorithm = undefined;
    c.flushAlgorithm = undefined;
    c.cancelAlgorithm = undefined;
  }

  function enqueue(c, chunk) {
    const stream = c.stream;
    const readableController = stream.readable.controller;
    if (!readable.canCloseOrEnqueue(readableController)) {
      throw new TypeErrorCtor('the readable side is not in a state that permits enqueue');
    }
    try {
      readable.defaultControllerEnqueue(readableController, chunk);
    } catch (e) {
      errorWritableAndUnblockWrite(stream, e);
      throw stream.readable.storedError;
    }
    const backpressure = readable.hasBackpressure(readableController);
    if (backpressure !== stream.backpressure) setBackpressure(stream, true);
  }

  function performTransform(c, chunk) {
    return transform(c.transformAlgorithm(chunk), undefined, (reason) => {
      error(c.stream, reason);
      throw reason;
    });
  }

  function terminate(c) {
    const stream = c.stream;
    readable.defaultControllerClose(stream.readable.controller);
    errorWritableAndUnblockWrite(stream, new TypeErrorCtor('the transform stream was terminated'));
  }

  // ---- the writable side's algorithms ----------------------------------------

  function sinkWrite(stream, chunk) {
    const c = stream.controller;
    if (stream.backpressure) {
      return transform(stream.backpressureChange.promise, () => {
        const w = stream.writable;
        if (w.state === 'erroring') throw w.storedError;
        return performTransform(c, chunk);
      });
    }
    return performTransform(c, chunk);
  }

  function sinkAbort(stream, reason) {
    const c = stream.controller;
    if (c.finishPromise !== undefined) return c.finishPromise.promise;
    const r = stream.readable;
    c.finishPromise = deferred();
    const cancelPromise = c.cancelAlgorithm(reason);
    clearAlgorithms(c);
    react(cancelPromise, () => {
      if (r.state === 'errored') c.finishPromise.reject(r.storedError);
      else {
        readable.defaultControllerError(r.controller, reason);
        c.finishPromise.resolve(undefined);
      }
    }, (e) => {
      readable.defaultControllerError(r.controller, e);
      c.finishPromise.reject(e);
    });
    return c.finishPromise.promise;
  }

  function sinkClose(stream) {
    const c = stream.controller;
    if (c.finishPromise !== undefined) return c.finishPromise.promise;
    const r = stream.readable;
    c.finishPromise = deferred();
    const flushPromise = c.flushAlgorithm();
    clearAlgorithms(c);
    react(flushPromise, () => {
      if (r.state === 'errored') c.finishPromise.reject(r.storedError);
      else {
        readable.defaultControllerClose(r.controller);
        c.finishPromise.resolve(undefined);
      }
    }, (e) => {
      readable.defaultControllerError(r.controller, e);
      c.finishPromise.reject(e);
    });
    return c.finishPromise.promise;
  }

  // ---- the readable side's algorithms ----------------------------------------

  function sourcePull(stream) {
    setBackpressure(stream, false);
    return stream.backpressureChange.promise;
  }

  function sourceCancel(stream, reason) {
    const c = stream.controller;
    if (c.finishPromise !== undefined) return c.finishPromise.promise;
    const w = stream.writable;
    c.finishPromise = deferred();
    const cancelPromise = c.cancelAlgorithm(reason);
    clearAlgorithms(c);
    react(cancelPromise, () => {
      if (w.state === 'errored') c.finishPromise.reject(w.storedError);
      else {
        writable.controllerErrorIfNeeded(w.controller, reason);
        unblockWrite(stream);
        c.finishPromise.resolve(undefined);
      }
    }, (e) => {
      writable.controllerErrorIfNeeded(w.controller, e);
      unblockWrite(stream);
      c.finishPromise.reject(e);
    });
    return c.finishPromise.promise;
  }

  let controllerOf;

  class TransformStreamDefaultController {
    #c;

    constructor(key, record) {
      if (key !== CREATE) throw new TypeErrorCtor('Illegal constructor');
      this.#c = record;
    }

    static {
      controllerOf = (value) => {
        if (!isObject(value) || !(#c in value)) throw new TypeErrorCtor('Illegal invocation');
        return value.#c;
      };
    }

    get desiredSize() {
      return readable.desiredSize(controllerOf(this).stream.readable.controller);
    }

    enqueue(chunk = undefined) {
      enqueue(controllerOf(this), chunk);
    }

    error(reason = undefined) {
      error(controllerOf(this).stream, reason);
    }

    terminate() {
      terminate(controllerOf(this));
    }
  }

  // The Transformer dictionary, members in order.
  function transformerDict(transformer) {
    if (transformer === null) return {};
    if (!isObject(transformer)) throw new TypeErrorCtor('new TransformStream(): the transformer must be an object');
    const what = 'new TransformStream()';
    const dict = {};
    dict.cancel = callbackMember(transformer, 'cancel', what);
    dict.flush = callbackMember(transformer, 'flush', what);
    dict.readableType = transformer.readableType;
    dict.start = callbackMember(transformer, 'start', what);
    dict.transform = callbackMember(transformer, 'transform', what);
    dict.writableType = transformer.writableType;
    return dict;
  }

  // A transform stream on algorithms, for the platform's own.
  function createTransformStream(transformAlgorithm, flushAlgorithm, cancelAlgorithm = () => promiseResolve(undefined)) {
    const stream = streamOf(new TransformStream(CREATE));
    initialize(stream, promiseResolve(undefined), 1, () => 1, 0, () => 1);
    setUpController(stream, newController(), transformAlgorithm, flushAlgorithm, cancelAlgorithm);
    return stream;
  }

  let streamOf;

  class TransformStream {
    #s;

    constructor(transformer = undefined, writableStrategy = undefined, readableStrategy = undefined) {
      const stream = { readable: undefined, writable: undefined, backpressure: undefined, backpressureChange: undefined,
        controller: undefined, public: this };
      this.#s = stream;
      if (transformer === CREATE) return;
      const writableValues = strategyDict(writableStrategy, 'new TransformStream()');
      const readableValues = strategyDict(readableStrategy, 'new TransformStream()');
      if (transformer === null) throw new TypeErrorCtor('new TransformStream(): the transformer must be an object');
      if (transformer === undefined) transformer = null;
      const dict = transformerDict(transformer);
      if (dict.readableType !== undefined) throw new RangeErrorCtor('new TransformStream(): readableType must be undefined');
      if (dict.writableType !== undefined) throw new RangeErrorCtor('new TransformStream(): writableType must be undefined');
      const readableHWM = extractHighWaterMark(readableValues, 0);
      const readableSize = extractSizeAlgorithm(readableValues);
      const writableHWM = extractHighWaterMark(writableValues, 1);
      const writableSize = extractSizeAlgorithm(writableValues);
      const start = deferred();
      initialize(stream, start.promise, writableHWM, writableSize, readableHWM, readableSize);
      const c = newController();
      let transformAlgorithm = (chunk) => {
        try {
          enqueue(c, chunk);
          return promiseResolve(undefined);
        } catch (e) {
          return promiseReject(e);
        }
      };
      if (dict.transform !== undefined) transformAlgorithm = (chunk) => promiseCall(dict.transform, transformer, [chunk, c.public]);
      const flushAlgorithm = dict.flush === undefined
        ? () => promiseResolve(undefined)
        : () => promiseCall(dict.flush, transformer, [c.public]);
      const cancelAlgorithm = dict.cancel === undefined
        ? () => promiseResolve(undefined)
        : (reason) => promiseCall(dict.cancel, transformer, [reason]);
      setUpController(stream, c, transformAlgorithm, flushAlgorithm, cancelAlgorithm);
      if (dict.start !== undefined) start.resolve(ReflectApply(dict.start, transformer, [c.public]));
      else start.resolve(undefined);
    }

    static {
      streamOf = (value) => {
        if (!isObject(value) || !(#s in value)) throw new TypeErrorCtor('Illegal invocation');
        return value.#s;
      };
    }

    get readable() { return streamOf(this).readable.public; }

    get writable() { return streamOf(this).writable.public; }
  }

  // ---- the platform's transform streams --------------------------------------

  // Gives `Class` the `readable` and `writable` attributes of the transform
  // stream `streamOf(instance)` holds (which throws for a non-instance), as
  // TransformStream has them: the GenericTransformStream mixin.
  function exposeSides(Class, streamOf) {
    const sides = {
      get readable() { return streamOf(this).readable.public; },
      get writable() { return streamOf(this).writable.public; },
    };
    for (const key of ['readable', 'writable']) {
      const { get } = Object.getOwnPropertyDescriptor(sides, key);
      Object.defineProperty(Class.prototype, key, { get, enumerable: true, configurable: true });
    }
  }

  // ---- TextEncoderStream and TextDecoderStream --------------------------------

  let encoderStreamOf;
  let decoderStreamOf;

  // Holds a transform stream in `#t`; `readable` and `writable` are its.
  class TextEncoderStream {
    #t;

    constructor() {
      // A high surrogate that ended the last chunk waits for the next.
      let pending = -1;
      this.#t = createTransformStream((chunk) => {
        try {
          let text = `${chunk}`;
          if (pending !== -1) {
            text = String.fromCharCode(pending) + text;
            pending = -1;
          }
          const last = text.length === 0 ? -1 : charCodeAt(text, text.length - 1);
          if (last >= 0xd800 && last <= 0xdbff) {
            pending = last;
            text = text.slice(0, -1);
          }
          if (text.length > 0) enqueue(this.#t.controller, encoderEncode(encoder, text));
          return promiseResolve(undefined);
        } catch (e) {
          return promiseReject(e);
        }
      }, () => {
        try {
          if (pending !== -1) enqueue(this.#t.controller, new Uint8ArrayCtor([0xef, 0xbf, 0xbd]));
          return promiseResolve(undefined);
        } catch (e) {
          return promiseReject(e);
        }
      });
    }

    get encoding() {
      if (!isObject(this) || !(#t in this)) throw new TypeErrorCtor('Illegal invocation');
      return 'utf-8';
    }

    static {
      encoderStreamOf = (value) => {
        if (!isObject(value) || !(#t in value)) throw new TypeErrorCtor('Illegal invocation');
        return value.#t;
      };
    }
  }

  class TextDecoderStream {
    #t;
    #decoder;

    constructor(label = undefined, options = undefined) {
      const decoder = new TextDecoder(label, options);
      this.#decoder = decoder;
      const step = (input, flush) => {
        try {
          const text = flush ? decoderDecode(decoder) : decoderDecode(decoder, input, { stream: true });
          if (text.length > 0) enqueue(this.#t.controller, text);
          return promiseResolve(undefined);
        } catch (e) {
          return promiseReject(e);
        }
      };
      this.#t = createTransformStream((chunk) => {
        try {
          bytesOf(chunk, 'TextDecoderStream');
        } catch (e) {
          return promiseReject(e);
        }
        return step(chunk, false);
      }, () => step(undefined, true));
    }

    get encoding() {
      if (!isObject(this) || !(#t in this)) throw new TypeErrorCtor('Illegal invocation');
      return decoderEncoding(this.#decoder);
    }

    get fatal() {
      if (!isObject(this) || !(#t in this)) throw new TypeErrorCtor('Illegal invocation');
      return decoderFatal(this.#decoder);
    }

    get ignoreBOM() {
      if (!isObject(this) || !(#t in this)) throw new TypeErrorCtor('Illegal invocation');
      return decoderIgnoreBOM(this.#decoder);
    }

    static {
      decoderStreamOf = (value) => {
        if (!isObject(value) || !(#t in value)) throw new TypeErrorCtor('Illegal invocation');
        return value.#t;
      };
    }
  }

  exposeSides(TextEncoderStream, encoderStreamOf);
  exposeSides(TextDecoderStream, decoderStreamOf);

  return {
    TransformStream: brand(TransformStream, 'TransformStream'),
    TransformStreamDefaultController: brand(TransformStreamDefaultController, 'TransformStreamDefaultController'),
    TextEncoderStream: brand(TextEncoderStream, 'TextEncoderStream'),
    TextDecoderStream: brand(TextDecoderStream, 'TextDecoderStream'),
    internals: { createTransformStream, enqueue, error, terminate, exposeSides },
  };
})
