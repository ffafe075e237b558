// Readable byte streams: ReadableByteStreamController, the BYOB reader
// and request (their tee is in tee.js).
// Spec: https://streams.spec.whatwg.org/#rbs-controller-class
// WPT: streams/readable-byte-streams (the table in the README)
//
// Buffers change hands as the standard says: a chunk enqueued, a view
// given to read(), a view responded with is transferred (the caller's
// ArrayBuffer is detached), so no two owners ever write one buffer.
(function (host) {
  'use strict';
  const { argumentsRequired, brand } = host.idl;
  const r = host.readable.internals;
  const { CREATE, isObject, deferred, react, Queue } = r;
  const TypeErrorCtor = TypeError;
  const RangeErrorCtor = RangeError;
  const ArrayBufferCtor = ArrayBuffer;
  const Uint8ArrayCtor = Uint8Array;
  const DataViewCtor = DataView;
  const MathMin = Math.min;
  const isView = ArrayBuffer.isView;
  const promiseResolve = Promise.resolve.bind(Promise);
  const promiseReject = Promise.reject.bind(Promise);
  const uncurry = Function.prototype.bind.bind(Function.prototype.call);
  const bufferTransfer = uncurry(ArrayBuffer.prototype.transfer);
  const bufferDetached = uncurry(Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'detached').get);
  const bufferByteLength = uncurry(Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'byteLength').get);
  const bufferSlice = uncurry(ArrayBuffer.prototype.slice);
  const typedArraySet = uncurry(Uint8Array.prototype.set);
  const TypedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype);
  const typedArrayName = uncurry(Object.getOwnPropertyDescriptor(TypedArrayPrototype, Symbol.toStringTag).get);
  const typedArrayLength = uncurry(Object.getOwnPropertyDescriptor(TypedArrayPrototype, 'length').get);
  const typedArrayBuffer = uncurry(Object.getOwnPropertyDescriptor(TypedArrayPrototype, 'buffer').get);
  const typedArrayByteOffset = uncurry(Object.getOwnPropertyDescriptor(TypedArrayPrototype, 'byteOffset').get);
  const typedArrayByteLength = uncurry(Object.getOwnPropertyDescriptor(TypedArrayPrototype, 'byteLength').get);
  const dataViewBuffer = uncurry(Object.getOwnPropertyDescriptor(DataView.prototype, 'buffer').get);
  const dataViewByteOffset = uncurry(Object.getOwnPropertyDescriptor(DataView.prototype, 'byteOffset').get);
  const dataViewByteLength = uncurry(Object.getOwnPropertyDescriptor(DataView.prototype, 'byteLength').get);

  const CONSTRUCTORS = {
    Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array,
    Float32Array, Float64Array, BigInt64Array, BigUint64Array,
  };
  if (typeof Float16Array === 'function') CONSTRUCTORS.Float16Array = Float16Array;

  // An ArrayBufferView's parts, read through the intrinsics.
  function viewParts(view) {
    const name = typedArrayName(view);
    if (name !== undefined) {
      const ctor = CONSTRUCTORS[name];
      return {
        buffer: typedArrayBuffer(view), byteOffset: typedArrayByteOffset(view), byteLength: typedArrayByteLength(view),
        elementSize: ctor.BYTES_PER_ELEMENT, ctor, length: typedArrayLength(view),
      };
    }
    return {
      buffer: dataViewBuffer(view), byteOffset: dataViewByteOffset(view), byteLength: dataViewByteLength(view),
      elementSize: 1, ctor: DataViewCtor, length: undefined,
    };
  }

  function isDetached(buffer) {
    return bufferDetached(buffer);
  }

  function copyBytes(to, toIndex, from, fromIndex, count) {
    typedArraySet(new Uint8ArrayCtor(to, toIndex, count), new Uint8ArrayCtor(from, fromIndex, count));
  }

  // ---- the controller ------------------------------------------------------

  function newController() {
    const c = {
      kind: 'bytes', stream: undefined, autoAllocateChunkSize: undefined, byobRequest: null,
      cancelAlgorithm: undefined, pullAlgorithm: undefined, closeRequested: false, pullAgain: false,
      pulling: false, started: false, pendingPullIntos: new Queue(), queue: new Queue(), queueTotalSize: 0,
      strategyHWM: 0, public: undefined,
      cancelSteps(reason) {
        clearPendingPullIntos(this);
        r.resetQueue(this);
        const result = this.cancelAlgorithm(reason);
        clearAlgorithms(this);
        return result;
      },
      pullSteps(request) {
        const stream = this.stream;
        if (this.queueTotalSize > 0) {
          fillReadRequestFromQueue(this, request);
          return;
        }
        const size = this.autoAllocateChunkSize;
        if (size !== undefined) {
          let buffer;
          try {
            buffer = new ArrayBufferCtor(size);
          } catch (error) {
            request.error(error);
            return;
          }
          this.pendingPullIntos.push({
            buffer, bufferByteLength: size, byteOffset: 0, byteLength: size, bytesFilled: 0, minimumFill: 1,
            elementSize: 1, viewConstructor: Uint8ArrayCtor, readerType: 'default',
          });
        }
        stream.reader.readRequests.push(request);
        callPullIfNeeded(this);
      },
      releaseSteps() {
        if (this.pendingPullIntos.length === 0) return;
        const first = this.pendingPullIntos.peek();
        first.readerType = 'none';
        this.pendingPullIntos.clear();
        this.pendingPullIntos.push(first);
      },
    };
    c.public = new ReadableByteStreamController(CREATE, c);
    return c;
  }

  function setUpController(stream, c, start, pull, cancel, highWaterMark, autoAllocateChunkSize) {
    stream.controller = c;
    c.stream = stream;
    c.strategyHWM = highWaterMark;
    c.pullAlgorithm = pull;
    c.cancelAlgorithm = cancel;
    c.autoAllocateChunkSize = autoAllocateChunkSize;
    const startResult = start(c.public);
    react(promiseResolve(startResult), () => {
      c.started = true;
      callPullIfNeeded(c);
    }, (error) => controllerError(c, error));
  }

  function setUpFromSource(stream, source, dict, highWaterMark) {
    const algorithms = r.sourceAlgorithms(source, dict);
    if (dict.autoAllocateChunkSize === 0) {
      throw new TypeErrorCtor('new ReadableStream(): autoAllocateChunkSize must be greater than 0');
    }
    setUpController(stream, newController(), algorithms.start, algorithms.pull, algorithms.cancel, highWaterMark,
      dict.autoAllocateChunkSize);
  }

  const callPullIfNeeded = r.puller(shouldCallPull, controllerError);

  function shouldCallPull(c) {
    const stream = c.stream;
    if (stream.state !== 'readable' || c.closeRequested || !c.started) return false;
    if (r.hasDefaultReader(stream) && r.numReadRequests(stream) > 0) return true;
    if (hasBYOBReader(stream) && stream.reader.readIntoRequests.length > 0) return true;
    return desiredSize(c) > 0;
  }

  function clearAlgorithms(c) {
    c.pullAlgorithm = undefined;
    c.cancelAlgorithm = undefined;
  }

  function clearPendingPullIntos(c) {
    invalidateBYOBRequest(c);
    c.pendingPullIntos = new Queue();
  }

  function controllerClose(c) {
    const stream = c.stream;
    if (c.closeRequested || stream.state !== 'readable') return;
    if (c.queueTotalSize > 0) {
      c.closeRequested = true;
      return;
    }
    if (c.pendingPullIntos.length > 0) {
      const first = c.pendingPullIntos.peek();
      if (first.bytesFilled % first.elementSize !== 0) {
        const error = new TypeErrorCtor('close() with a partial element in the BYOB request');
        controllerError(c, error);
        throw error;
      }
    }
    clearAlgorithms(c);
    r.closeStream(stream);
  }

  function commitPullIntoDescriptor(stream, d) {
    let done = false;
    if (stream.state === 'closed') done = true;
    const filledView = convertPullIntoDescriptor(d);
    if (d.readerType === 'default') r.fulfillReadRequest(stream, filledView, done);
    else fulfillReadIntoRequest(stream, filledView, done);
  }

  function convertPullIntoDescriptor(d) {
    const buffer = bufferTransfer(d.buffer);
    return new d.viewConstructor(buffer, d.byteOffset, d.bytesFilled / d.elementSize);
  }

  function controllerEnqueue(c, chunk) {
    const stream = c.stream;
    if (c.closeRequested || stream.state !== 'readable') return;
    const { buffer, byteOffset, byteLength } = viewParts(chunk);
    if (isDetached(buffer)) throw new TypeErrorCtor('enqueue(): the chunk\'s buffer is detached');
    const transferred = bufferTransfer(buffer);
    if (c.pendingPullIntos.length > 0) {
      const first = c.pendingPullIntos.peek();
      if (isDetached(first.buffer)) throw new TypeErrorCtor('enqueue(): the BYOB request\'s buffer is detached');
      invalidateBYOBRequest(c);
      first.buffer = bufferTransfer(first.buffer);
      if (first.readerType === 'none') enqueueDetachedPullIntoToQueue(c, first);
    }
    if (r.hasDefaultReader(stream)) {
      processReadRequestsUsingQueue(c);
      if (r.numReadRequests(stream) === 0) {
        enqueueChunkToQueue(c, transferred, byteOffset, byteLength);
      } else {
        if (c.pendingPullIntos.length > 0) shiftPendingPullInto(c);
        r.fulfillReadRequest(stream, new Uint8ArrayCtor(transferred, byteOffset, byteLength), false);
      }
    } else if (hasBYOBReader(stream)) {
      enqueueChunkToQueue(c, transferred, byteOffset, byteLength);
      const filled = processPullIntoDescriptorsUsingQueue(c);
      for (let i = 0; i < filled.length; i++) commitPullIntoDescriptor(stream, filled[i]);
    } else {
      enqueueChunkToQueue(c, transferred, byteOffset, byteLength);
    }
    callPullIfNeeded(c);
  }

  function enqueueChunkToQueue(c, buffer, byteOffset, byteLength) {
    c.queue.push({ buffer, byteOffset, byteLength });
    c.queueTotalSize += byteLength;
  }

  function enqueueClonedChunkToQueue(c, buffer, byteOffset, byteLength) {
    let clone;
    try {
      clone = bufferSlice(buffer, byteOffset, byteOffset + byteLength);
    } catch (error) {
      controllerError(c, error);
      throw error;
    }
    enqueueChunkToQueue(c, clone, 0, byteLength);
  }

  function enqueueDetachedPullIntoToQueue(c, d) {
    if (d.bytesFilled > 0) enqueueClonedChunkToQueue(c, d.buffer, d.byteOffset, d.bytesFilled);
    shiftPendingPullInto(c);
  }

  function controllerError(c, error) {
    const stream = c.stream;
    if (stream.state !== 'readable') return;
    clearPendingPullIntos(c);
    r.resetQueue(c);
    clearAlgorithms(c);
    r.errorStream(stream, error);
  }

  function fillPullIntoDescriptorFromQueue(c, d) {
    const maxBytesToCopy = MathMin(c.queueTotalSize, d.byteLength - d.bytesFilled);
    const maxBytesFilled = d.bytesFilled + maxBytesToCopy;
    let remaining = maxBytesToCopy;
    let ready = false;
    const maxAlignedBytes = maxBytesFilled - (maxBytesFilled % d.elementSize);
    if (maxAlignedBytes >= d.minimumFill) {
      remaining = maxAlignedBytes - d.bytesFilled;
      ready = true;
    }
    while (remaining > 0) {
      const head = c.queue.peek();
      const count = MathMin(remaining, head.byteLength);
      copyBytes(d.buffer, d.byteOffset + d.bytesFilled, head.buffer, head.byteOffset, count);
      if (head.byteLength === count) c.queue.shift();
      else {
        head.byteOffset += count;
        head.byteLength -= count;
      }
      c.queueTotalSize -= count;
      d.bytesFilled += count;
      remaining -= count;
    }
    return ready;
  }

  function fillReadRequestFromQueue(c, request) {
    const entry = c.queue.shift();
    c.queueTotalSize -= entry.byteLength;
    handleQueueDrain(c);
    request.chunk(new Uint8ArrayCtor(entry.buffer, entry.byteOffset, entry.byteLength));
  }

  function getBYOBRequest(c) {
    if (c.byobRequest === null && c.pendingPullIntos.length > 0) {
      const first = c.pendingPullIntos.peek();
      const view = new Uint8ArrayCtor(first.buffer, first.byteOffset + first.bytesFilled,
        first.byteLength - first.bytesFilled);
      c.byobRequest = new ReadableStreamBYOBRequest(CREATE, { controller: c, view });
    }
    return c.byobRequest;
  }

  function desiredSize(c) {
    const state = c.stream.state;
    if (state === 'errored') return null;
    if (state === 'closed') return 0;
    return c.strategyHWM - c.queueTotalSize;
  }

  function handleQueueDrain(c) {
    if (c.queueTotalSize === 0 && c.closeRequested) {
      clearAlgorithms(c);
      r.closeStream(c.stream);
    } else {
      callPullIfNeeded(c);
    }
  }

  function invalidateBYOBRequest(c) {
    if (c.byobRequest === null) return;
    const request = requestOf(c.byobRequest);
    request.controller = undefined;
    request.view = null;
    c.byobRequest = null;
  }

  function processPullIntoDescriptorsUsingQueue(c) {
    const filled = [];
    while (c.pendingPullIntos.length > 0) {
      if (c.queueTotalSize === 0) break;
      const d = c.pendingPullIntos.peek();
      if (fillPullIntoDescriptorFromQueue(c, d)) {
        shiftPendingPullInto(c);
        filled[filled.length] = d;
      }
    }
    return filled;
  }

  function processReadRequestsUsingQueue(c) {
    const reader = c.stream.reader;
    while (reader.readRequests.length > 0) {
      if (c.queueTotalSize === 0) return;
      fillReadRequestFromQueue(c, reader.readRequests.shift());
    }
  }

  function pullInto(c, view, min, request) {
    const stream = c.stream;
    const parts = viewParts(view);
    const minimumFill = min * parts.elementSize;
    let buffer;
    try {
      buffer = bufferTransfer(parts.buffer);
    } catch (error) {
      request.error(error);
      return;
    }
    const d = {
      buffer, bufferByteLength: bufferByteLength(buffer), byteOffset: parts.byteOffset, byteLength: parts.byteLength,
      bytesFilled: 0, minimumFill, elementSize: parts.elementSize, viewConstructor: parts.ctor, readerType: 'byob',
    };
    if (c.pendingPullIntos.length > 0) {
      c.pendingPullIntos.push(d);
      stream.reader.readIntoRequests.push(request);
      return;
    }
    if (stream.state === 'closed') {
      request.close(new d.viewConstructor(d.buffer, d.byteOffset, 0));
      return;
    }
    if (c.queueTotalSize > 0) {
      if (fillPullIntoDescriptorFromQueue(c, d)) {
        const filledView = convertPullIntoDescriptor(d);
        handleQueueDrain(c);
        request.chunk(filledView);
        return;
      }
      if (c.closeRequested) {
        const error = new TypeErrorCtor('the stream is closing and cannot fill the view');
        controllerError(c, error);
        request.error(error);
        return;
      }
    }
    c.pendingPullIntos.push(d);
    stream.reader.readIntoRequests.push(request);
    callPullIfNeeded(c);
  }

  function respond(c, bytesWritten) {
    const first = c.pendingPullIntos.peek();
    if (c.stream.state === 'closed') {
      if (bytesWritten !== 0) throw new TypeErrorCtor('respond(): bytesWritten must be 0 once the stream is closed');
    } else {
      if (bytesWritten === 0) throw new TypeErrorCtor('respond(): bytesWritten must be greater than 0');
      if (first.bytesFilled + bytesWritten > first.byteLength) {
        throw new RangeErrorCtor('respond(): bytesWritten is larger than the view');
      }
    }
    first.buffer = bufferTransfer(first.buffer);
    respondInternal(c, bytesWritten);
  }

  function respondInClosedState(c, first) {
    if (first.readerType === 'none') shiftPendingPullInto(c);
    const stream = c.stream;
    if (hasBYOBReader(stream)) {
      const filled = [];
      while (filled.length < stream.reader.readIntoRequests.length) filled[filled.length] = shiftPendingPullInto(c);
      for (let i = 0; i < filled.length; i++) commitPullIntoDescriptor(stream, filled[i]);
    }
  }

  function respondInReadableState(c, bytesWritten, d) {
    d.bytesFilled += bytesWritten;
    if (d.readerType === 'none') {
      enqueueDetachedPullIntoToQueue(c, d);
      const filled = processPullIntoDescriptorsUsingQueue(c);
      for (let i = 0; i < filled.length; i++) commitPullIntoDescriptor(c.stream, filled[i]);
      return;
    }
    if (d.bytesFilled < d.minimumFill) return;
    shiftPendingPullInto(c);
    const remainder = d.bytesFilled % d.elementSize;
    if (remainder > 0) {
      const end = d.byteOffset + d.bytesFilled;
      enqueueClonedChunkToQueue(c, d.buffer, end - remainder, remainder);
    }
    d.bytesFilled -= remainder;
    const filled = processPullIntoDescriptorsUsingQueue(c);
    commitPullIntoDescriptor(c.stream, d);
    for (let i = 0; i < filled.length; i++) commitPullIntoDescriptor(c.stream, filled[i]);
  }

  function respondInternal(c, bytesWritten) {
    const first = c.pendingPullIntos.peek();
    invalidateBYOBRequest(c);
    if (c.stream.state === 'closed') respondInClosedState(c, first);
    else respondInReadableState(c, bytesWritten, first);
    callPullIfNeeded(c);
  }

  function respondWithNewView(c, view) {
    const first = c.pendingPullIntos.peek();
    const parts = viewParts(view);
    if (c.stream.state === 'closed') {
      if (parts.byteLength !== 0) throw new TypeErrorCtor('respondWithNewView(): the view must be empty once the stream is closed');
    } else if (parts.byteLength === 0) {
      throw new TypeErrorCtor('respondWithNewView(): the view must not be empty');
    }
    if (first.byteOffset + first.bytesFilled !== parts.byteOffset) {
      throw new RangeErrorCtor('respondWithNewView(): the view starts at a different offset than the request');
    }
    if (first.bufferByteLength !== bufferByteLength(parts.buffer)) {
      throw new RangeErrorCtor('respondWithNewView(): the view\'s buffer has a different length than the request\'s');
    }
    if (first.bytesFilled + parts.byteLength > first.byteLength) {
      throw new RangeErrorCtor('respondWithNewView(): the view is larger than the request');
    }
    first.buffer = bufferTransfer(parts.buffer);
    respondInternal(c, parts.byteLength);
  }

  function shiftPendingPullInto(c) {
    return c.pendingPullIntos.shift();
  }

  function requireView(value, what) {
    if (!isView(value)) throw new TypeErrorCtor(`${what} takes an ArrayBufferView`);
    return viewParts(value);
  }

  let controllerOf;

  class ReadableByteStreamController {
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

    get byobRequest() { return getBYOBRequest(controllerOf(this)); }

    get desiredSize() { return desiredSize(controllerOf(this)); }

    close() {
      const c = controllerOf(this);
      if (c.closeRequested) throw new TypeErrorCtor('close(): the stream is already closing');
      if (c.stream.state !== 'readable') throw new TypeErrorCtor(`close(): the stream is ${c.stream.state}`);
      controllerClose(c);
    }

    enqueue(chunk) {
      const c = controllerOf(this);
      argumentsRequired(arguments.length, 1, 'ReadableByteStreamController', 'enqueue');
      const parts = requireView(chunk, 'ReadableByteStreamController.enqueue()');
      if (parts.byteLength === 0) throw new TypeErrorCtor('enqueue(): the chunk is empty');
      if (bufferByteLength(parts.buffer) === 0) throw new TypeErrorCtor('enqueue(): the chunk\'s buffer is empty or detached');
      if (c.closeRequested) throw new TypeErrorCtor('enqueue(): the stream is closing');
      if (c.stream.state !== 'readable') throw new TypeErrorCtor(`enqueue(): the stream is ${c.stream.state}`);
      controllerEnqueue(c, chunk);
    }

    error(e = undefined) {
      controllerError(controllerOf(this), e);
    }
  }

  let requestOf;

  class ReadableStreamBYOBRequest {
    #q;

    constructor(key, record) {
      if (key !== CREATE) throw new TypeErrorCtor('Illegal constructor');
      this.#q = record;
    }

    static {
      requestOf = (value) => {
        if (!isObject(value) || !(#q in value)) throw new TypeErrorCtor('Illegal invocation');
        return value.#q;
      };
    }

    get view() { return requestOf(this).view; }

    respond(bytesWritten) {
      const q = requestOf(this);
      argumentsRequired(arguments.length, 1, 'ReadableStreamBYOBRequest', 'respond');
      const count = r.enforceRange(bytesWritten, 'respond(): bytesWritten');
      if (q.controller === undefined) throw new TypeErrorCtor('respond(): this request was already answered');
      if (isDetached(typedArrayBuffer(q.view))) throw new TypeErrorCtor('respond(): the view\'s buffer is detached');
      respond(q.controller, count);
    }

    respondWithNewView(view) {
      const q = requestOf(this);
      argumentsRequired(arguments.length, 1, 'ReadableStreamBYOBRequest', 'respondWithNewView');
      const parts = requireView(view, 'respondWithNewView()');
      if (q.controller === undefined) throw new TypeErrorCtor('respondWithNewView(): this request was already answered');
      if (isDetached(parts.buffer)) throw new TypeErrorCtor('respondWithNewView(): the view\'s buffer is detached');
      respondWithNewView(q.controller, view);
    }
  }

  // ---- the BYOB reader ---------------------------------------------------

  function hasBYOBReader(stream) {
    return stream.reader !== undefined && stream.reader.kind === 'byob';
  }

  function fulfillReadIntoRequest(stream, chunk, done) {
    const request = stream.reader.readIntoRequests.shift();
    if (done) request.close(chunk);
    else request.chunk(chunk);
  }

  function errorReadIntoRequests(reader, error) {
    const requests = reader.readIntoRequests;
    reader.readIntoRequests = new Queue();
    while (requests.length > 0) requests.shift().error(error);
  }

  function byobReaderRelease(reader) {
    r.readerRelease(reader);
    errorReadIntoRequests(reader, new TypeErrorCtor('the reader was released'));
  }

  function byobReaderRead(reader, view, min, request) {
    const stream = reader.stream;
    stream.disturbed = true;
    if (stream.state === 'errored') request.error(stream.storedError);
    else pullInto(stream.controller, view, min, request);
  }

  function acquireBYOBReader(stream) {
    return readerOf(new ReadableStreamBYOBReader(stream.public));
  }

  let readerOf;
  let peekReader;

  class ReadableStreamBYOBReader {
    #r;

    constructor(stream) {
      argumentsRequired(arguments.length, 1, 'ReadableStreamBYOBReader', 'constructor');
      const s = r.streamOf(stream, 'new ReadableStreamBYOBReader()');
      if (r.isLocked(s)) throw new TypeErrorCtor('new ReadableStreamBYOBReader(): the stream is locked to a reader');
      if (s.controller.kind !== 'bytes') {
        throw new TypeErrorCtor('new ReadableStreamBYOBReader(): the stream is not a byte stream');
      }
      const reader = { kind: 'byob', stream: undefined, closed: undefined, readIntoRequests: new Queue(), public: this };
      r.readerInitialize(reader, s);
      this.#r = reader;
    }

    static {
      peekReader = (value) => (isObject(value) && #r in value ? value.#r : undefined);
      readerOf = (value) => {
        const reader = peekReader(value);
        if (reader === undefined) throw new TypeErrorCtor('Illegal invocation');
        return reader;
      };
    }

    get closed() {
      const reader = peekReader(this);
      if (reader === undefined) return promiseReject(new TypeErrorCtor('Illegal invocation'));
      return reader.closed.promise;
    }

    cancel(reason = undefined) {
      const reader = peekReader(this);
      if (reader === undefined) return promiseReject(new TypeErrorCtor('Illegal invocation'));
      if (reader.stream === undefined) return promiseReject(new TypeErrorCtor('the reader is released'));
      return r.readerCancel(reader, reason);
    }

    read(view, options = undefined) {
      const reader = peekReader(this);
      if (reader === undefined) return promiseReject(new TypeErrorCtor('Illegal invocation'));
      let parts;
      let min = 1;
      try {
        parts = requireView(view, 'ReadableStreamBYOBReader.read()');
        if (options !== undefined && options !== null) {
          if (!isObject(options)) throw new TypeErrorCtor('ReadableStreamBYOBReader.read(): the options must be an object');
          if (options.min !== undefined) min = r.enforceRange(options.min, 'read(): min');
        }
      } catch (error) {
        return promiseReject(error);
      }
      if (parts.byteLength === 0) return promiseReject(new TypeErrorCtor('read(): the view is empty'));
      if (bufferByteLength(parts.buffer) === 0) {
        return promiseReject(new TypeErrorCtor('read(): the view\'s buffer is empty or detached'));
      }
      if (isDetached(parts.buffer)) return promiseReject(new TypeErrorCtor('read(): the view\'s buffer is detached'));
      if (min === 0) return promiseReject(new TypeErrorCtor('read(): min must be greater than 0'));
      if (parts.length !== undefined ? min > parts.length : min > parts.byteLength) {
        return promiseReject(new RangeErrorCtor('read(): min is larger than the view'));
      }
      if (reader.stream === undefined) return promiseReject(new TypeErrorCtor('the reader is released'));
      const d = deferred();
      byobReaderRead(reader, view, min, {
        chunk: (value) => d.resolve({ value, done: false }),
        close: (value) => d.resolve({ value, done: true }),
        error: (error) => d.reject(error),
      });
      return d.promise;
    }

    releaseLock() {
      const reader = readerOf(this);
      if (reader.stream === undefined) return;
      byobReaderRelease(reader);
    }
  }

  // ---- a byte stream the platform feeds ----------------------------------

  function createByteStream(start, pull, cancel) {
    const record = r.streamOf(new host.readable.ReadableStream(CREATE));
    setUpController(record, newController(), start, pull, cancel, 0, undefined);
    return record;
  }

  return {
    ReadableByteStreamController: brand(ReadableByteStreamController, 'ReadableByteStreamController'),
    ReadableStreamBYOBReader: brand(ReadableStreamBYOBReader, 'ReadableStreamBYOBReader'),
    ReadableStreamBYOBRequest: brand(ReadableStreamBYOBRequest, 'ReadableStreamBYOBRequest'),
    setUpFromSource, acquireBYOBReader, errorReadIntoRequests,
    // for Blob.stream() and the platform's byte sources
    createByteStream, controllerEnqueue, controllerClose, controllerError, respond,
    // for tee.js
    internals: {
      viewParts, getBYOBRequest, respondWithNewView, byobReaderRead, byobReaderRelease,
      requestView: (request) => requestOf(request).view,
    },
  };
})
