// Writable streams: WritableStream, its writer and its controller.
// Spec: https://streams.spec.whatwg.org/#ws
// WPT: streams/writable-streams (the table in the README)
(function (host) {
  'use strict';
  const { argumentsRequired, brand } = host.idl;
  const {
    CREATE, isObject, deferred, resolvedDeferred, rejectedDeferred, setHandled, react, promiseCall, Queue,
    enqueueValueWithSize, dequeueValue, resetQueue, strategyDict, extractHighWaterMark, extractSizeAlgorithm,
    callbackMember,
  } = host.streams.internals;
  const { AbortController } = host.abort;
  const TypeErrorCtor = TypeError;
  const RangeErrorCtor = RangeError;
  const ReflectApply = Reflect.apply;
  const promiseResolve = Promise.resolve.bind(Promise);
  const promiseReject = Promise.reject.bind(Promise);
  const uncurry = Function.prototype.bind.bind(Function.prototype.call);
  const abortControllerAbort = uncurry(AbortController.prototype.abort);
  const abortControllerSignal = uncurry(Object.getOwnPropertyDescriptor(AbortController.prototype, 'signal').get);

  // What the controller's queue holds to stand for close().
  const CLOSE = {};

  // A stream record: state ('writable', 'closed', 'erroring', 'errored'),
  // storedError, writer, controller, the requests in flight and queued,
  // pendingAbortRequest, backpressure, public.
  function newStreamRecord() {
    return {
      state: 'writable', storedError: undefined, writer: undefined, controller: undefined,
      inFlightWriteRequest: undefined, closeRequest: undefined, inFlightCloseRequest: undefined,
      pendingAbortRequest: undefined, writeRequests: new Queue(), backpressure: false, public: undefined,
    };
  }

  let streamOf;
  let peekStream;

  function isLocked(stream) {
    return stream.writer !== undefined;
  }

  function createWritableStream(start, write, close, abort, highWaterMark, size) {
    const stream = streamOf(new WritableStream(CREATE));
    setUpController(stream, newController(), start, write, close, abort, highWaterMark, size);
    return stream;
  }

  function abortStream(stream, reason) {
    if (stream.state === 'closed' || stream.state === 'errored') return promiseResolve(undefined);
    abortControllerAbort(stream.controller.abortController, reason);
    const state = stream.state;
    if (state === 'closed' || state === 'errored') return promiseResolve(undefined);
    if (stream.pendingAbortRequest !== undefined) return stream.pendingAbortRequest.deferred.promise;
    let wasAlreadyErroring = false;
    if (state === 'erroring') {
      wasAlreadyErroring = true;
      reason = undefined;
    }
    const d = deferred();
    stream.pendingAbortRequest = { deferred: d, reason, wasAlreadyErroring };
    if (!wasAlreadyErroring) startErroring(stream, reason);
    return d.promise;
  }

  function closeStream(stream) {
    const state = stream.state;
    if (state === 'closed' || state === 'errored') {
      return promiseReject(new TypeErrorCtor(`the stream is ${state} and cannot be closed`));
    }
    const d = deferred();
    stream.closeRequest = d;
    const writer = stream.writer;
    if (writer !== undefined && stream.backpressure && state === 'writable') writer.ready.resolve(undefined);
    controllerClose(stream.controller);
    return d.promise;
  }

  function closeQueuedOrInFlight(stream) {
    return stream.closeRequest !== undefined || stream.inFlightCloseRequest !== undefined;
  }

  function dealWithRejection(stream, error) {
    if (stream.state === 'writable') {
      startErroring(stream, error);
      return;
    }
    finishErroring(stream);
  }

  function finishErroring(stream) {
    stream.state = 'errored';
    resetQueue(stream.controller);
    const error = stream.storedError;
    const requests = stream.writeRequests;
    stream.writeRequests = new Queue();
    while (requests.length > 0) requests.shift().reject(error);
    const abortRequest = stream.pendingAbortRequest;
    if (abortRequest === undefined) {
      rejectCloseAndClosedPromiseIfNeeded(stream);
      return;
    }
    stream.pendingAbortRequest = undefined;
    if (abortRequest.wasAlreadyErroring) {
      abortRequest.deferred.reject(error);
      rejectCloseAndClosedPromiseIfNeeded(stream);
      return;
    }
    const c = stream.controller;
    const result = c.abortAlgorithm(abortRequest.reason);
    clearAlgorithms(c);
    react(result, () => {
      abortRequest.deferred.resolve(undefined);
      rejectCloseAndClosedPromiseIfNeeded(stream);
    }, (reason) => {
      abortRequest.deferred.reject(reason);
      rejectCloseAndClosedPromiseIfNeeded(stream);
    });
  }

  function finishInFlightWrite(stream) {
    stream.inFlightWriteRequest.resolve(undefined);
    stream.inFlightWriteRequest = undefined;
  }

  function finishInFlightWriteWithError(stream, error) {
    stream.inFlightWriteRequest.reject(error);
    stream.inFlightWriteRequest = undefined;
    dealWithRejection(stream, error);
  }

  function finishInFlightClose(stream) {
    stream.inFlightCloseRequest.resolve(undefined);
    stream.inFlightCloseRequest = undefined;
    if (stream.state === 'erroring') {
      stream.storedError = undefined;
      if (stream.pendingAbortRequest !== undefined) {
        stream.pendingAbortRequest.deferred.resolve(undefined);
        stream.pendingAbortRequest = undefined;
      }
    }
    stream.state = 'closed';
    if (stream.writer !== undefined) stream.writer.closed.resolve(undefined);
  }

  function finishInFlightCloseWithError(stream, error) {
    stream.inFlightCloseRequest.reject(error);
    stream.inFlightCloseRequest = undefined;
    if (stream.pendingAbortRequest !== undefined) {
      stream.pendingAbortRequest.deferred.reject(error);
      stream.pendingAbortRequest = undefined;
    }
    dealWithRejection(stream, error);
  }

  function hasOperationMarkedInFlight(stream) {
    return stream.inFlightWriteRequest !== undefined || stream.inFlightCloseRequest !== undefined;
  }

  function rejectCloseAndClosedPromiseIfNeeded(stream) {
    if (stream.closeRequest !== undefined) {
      stream.closeRequest.reject(stream.storedError);
      stream.closeRequest = undefined;
    }
    const writer = stream.writer;
    if (writer !== undefined) {
      writer.closed.reject(stream.storedError);
      setHandled(writer.closed.promise);
    }
  }

  function startErroring(stream, reason) {
    stream.state = 'erroring';
    stream.storedError = reason;
    if (stream.writer !== undefined) ensureReadyPromiseRejected(stream.writer, reason);
    if (!hasOperationMarkedInFlight(stream) && stream.controller.started) finishErroring(stream);
  }

  function updateBackpressure(stream, backpressure) {
    const writer = stream.writer;
    if (writer !== undefined && backpressure !== stream.backpressure) {
      if (backpressure) writer.ready = deferred();
      else writer.ready.resolve(undefined);
    }
    stream.backpressure = backpressure;
  }

  // ---- the writer ----------------------------------------------------------

  // A writer record: stream, ready and closed (deferreds), public.
  function setUpWriter(writer, stream) {
    if (isLocked(stream)) throw new TypeErrorCtor('new WritableStreamDefaultWriter(): the stream is locked to a writer');
    writer.stream = stream;
    stream.writer = writer;
    const state = stream.state;
    if (state === 'writable') {
      writer.ready = !closeQueuedOrInFlight(stream) && stream.backpressure ? deferred() : resolvedDeferred(undefined);
      writer.closed = deferred();
    } else if (state === 'erroring') {
      writer.ready = rejectedDeferred(stream.storedError);
      writer.closed = deferred();
    } else if (state === 'closed') {
      writer.ready = resolvedDeferred(undefined);
      writer.closed = resolvedDeferred(undefined);
    } else {
      writer.ready = rejectedDeferred(stream.storedError);
      writer.closed = rejectedDeferred(stream.storedError);
    }
  }

  function writerCloseWithErrorPropagation(writer) {
    const stream = writer.stream;
    const state = stream.state;
    if (closeQueuedOrInFlight(stream) || state === 'closed') return promiseResolve(undefined);
    if (state === 'errored') return promiseReject(stream.storedError);
    return closeStream(stream);
  }

  function ensureClosedPromiseRejected(writer, error) {
    if (writer.closed.state === 'pending') writer.closed.reject(error);
    else writer.closed = rejectedDeferred(error);
    setHandled(writer.closed.promise);
  }

  function ensureReadyPromiseRejected(writer, error) {
    if (writer.ready.state === 'pending') writer.ready.reject(error);
    else writer.ready = rejectedDeferred(error);
    setHandled(writer.ready.promise);
  }

  function writerDesiredSize(writer) {
    const state = writer.stream.state;
    if (state === 'errored' || state === 'erroring') return null;
    if (state === 'closed') return 0;
    return controllerDesiredSize(writer.stream.controller);
  }

  function writerRelease(writer) {
    const error = new TypeErrorCtor('the writer was released');
    ensureReadyPromiseRejected(writer, error);
    ensureClosedPromiseRejected(writer, error);
    writer.stream.writer = undefined;
    writer.stream = undefined;
  }

  function writerWrite(writer, chunk) {
    const stream = writer.stream;
    const c = stream.controller;
    const chunkSize = controllerChunkSize(c, chunk);
    if (stream !== writer.stream) return promiseReject(new TypeErrorCtor('the writer was released while sizing the chunk'));
    const state = stream.state;
    if (state === 'errored') return promiseReject(stream.storedError);
    if (closeQueuedOrInFlight(stream) || state === 'closed') {
      return promiseReject(new TypeErrorCtor('the stream is closing or closed and cannot be written to'));
    }
    if (state === 'erroring') return promiseReject(stream.storedError);
    const d = deferred();
    stream.writeRequests.push(d);
    controllerWrite(c, chunk, chunkSize);
    return d.promise;
  }

  function acquireWriter(stream) {
    return writerOf(new WritableStreamDefaultWriter(stream.public));
  }

  let writerOf;
  let peekWriter;

  class WritableStreamDefaultWriter {
    #w;

    constructor(stream) {
      argumentsRequired(arguments.length, 1, 'WritableStreamDefaultWriter', 'constructor');
      const s = streamOf(stream, 'new WritableStreamDefaultWriter()');
      const writer = { stream: undefined, ready: undefined, closed: undefined, public: this };
      setUpWriter(writer, s);
      this.#w = writer;
    }

    static {
      peekWriter = (value) => (isObject(value) && #w in value ? value.#w : undefined);
      writerOf = (value) => {
        const w = peekWriter(value);
        if (w === undefined) throw new TypeErrorCtor('Illegal invocation');
        return w;
      };
    }

    get closed() {
      const w = peekWriter(this);
      if (w === undefined) return promiseReject(new TypeErrorCtor('Illegal invocation'));
      return w.closed.promise;
    }

    get desiredSize() {
      const w = writerOf(this);
      if (w.stream === undefined) throw new TypeErrorCtor('the writer is released');
      return writerDesiredSize(w);
    }

    get ready() {
      const w = peekWriter(this);
      if (w === undefined) return promiseReject(new TypeErrorCtor('Illegal invocation'));
      return w.ready.promise;
    }

    abort(reason = undefined) {
      const w = peekWriter(this);
      if (w === undefined) return promiseReject(new TypeErrorCtor('Illegal invocation'));
      if (w.stream === undefined) return promiseReject(new TypeErrorCtor('the writer is released'));
      return abortStream(w.stream, reason);
    }

    close() {
      const w = peekWriter(this);
      if (w === undefined) return promiseReject(new TypeErrorCtor('Illegal invocation'));
      const stream = w.stream;
      if (stream === undefined) return promiseReject(new TypeErrorCtor('the writer is released'));
      if (closeQueuedOrInFlight(stream)) return promiseReject(new TypeErrorCtor('the stream is already closing'));
      return closeStream(stream);
    }

    releaseLock() {
      const w = writerOf(this);
      if (w.stream === undefined) return;
      writerRelease(w);
    }

    write(chunk = undefined) {
      const w = peekWriter(this);
      if (w === undefined) return promiseReject(new TypeErrorCtor('Illegal invocation'));
      if (w.stream === undefined) return promiseReject(new TypeErrorCtor('the writer is released'));
      return writerWrite(w, chunk);
    }
  }

  // ---- the controller ------------------------------------------------------

  function newController() {
    return {
      stream: undefined, queue: new Queue(), queueTotalSize: 0, abortController: undefined, started: false,
      strategyHWM: 1, strategySizeAlgorithm: undefined, writeAlgorithm: undefined, closeAlgorithm: undefined,
      abortAlgorithm: undefined, public: undefined,
    };
  }

  function setUpController(stream, c, start, write, close, abort, highWaterMark, size) {
    c.stream = stream;
    stream.controller = c;
    c.public = new WritableStreamDefaultController(CREATE, c);
    resetQueue(c);
    c.abortController = new AbortController();
    c.started = false;
    c.strategySizeAlgorithm = size;
    c.strategyHWM = highWaterMark;
    c.writeAlgorithm = write;
    c.closeAlgorithm = close;
    c.abortAlgorithm = abort;
    updateBackpressure(stream, controllerBackpressure(c));
    const startResult = start(c.public);
    react(promiseResolve(startResult), () => {
      c.started = true;
      advanceQueueIfNeeded(c);
    }, (error) => {
      c.started = true;
      dealWithRejection(stream, error);
    });
  }

  // The UnderlyingSink dictionary, members in order.
  function sinkDict(sink) {
    if (sink === null) return {};
    if (!isObject(sink)) throw new TypeErrorCtor('new WritableStream(): the underlying sink must be an object');
    const what = 'new WritableStream()';
    const dict = {};
    dict.abort = callbackMember(sink, 'abort', what);
    dict.close = callbackMember(sink, 'close', what);
    dict.start = callbackMember(sink, 'start', what);
    dict.type = sink.type;
    dict.write = callbackMember(sink, 'write', what);
    return dict;
  }

  function advanceQueueIfNeeded(c) {
    const stream = c.stream;
    if (!c.started) return;
    if (stream.inFlightWriteRequest !== undefined) return;
    if (stream.state === 'erroring') {
      finishErroring(stream);
      return;
    }
    if (c.queue.length === 0) return;
    const value = c.queue.peek().value;
    if (value === CLOSE) processClose(c);
    else processWrite(c, value);
  }

  function clearAlgorithms(c) {
    c.writeAlgorithm = undefined;
    c.closeAlgorithm = undefined;
    c.abortAlgorithm = undefined;
    c.strategySizeAlgorithm = undefined;
  }

  function controllerClose(c) {
    enqueueValueWithSize(c, CLOSE, 0);
    advanceQueueIfNeeded(c);
  }

  function controllerError(c, error) {
    clearAlgorithms(c);
    startErroring(c.stream, error);
  }

  function controllerErrorIfNeeded(c, error) {
    if (c.stream.state === 'writable') controllerError(c, error);
  }

  function controllerBackpressure(c) {
    return controllerDesiredSize(c) <= 0;
  }

  function controllerChunkSize(c, chunk) {
    if (c.strategySizeAlgorithm === undefined) return 1;
    try {
      return c.strategySizeAlgorithm(chunk);
    } catch (error) {
      controllerErrorIfNeeded(c, error);
      return 1;
    }
  }

  function controllerDesiredSize(c) {
    return c.strategyHWM - c.queueTotalSize;
  }

  function processClose(c) {
    const stream = c.stream;
    stream.inFlightCloseRequest = stream.closeRequest;
    stream.closeRequest = undefined;
    dequeueValue(c);
    const sinkClose = c.closeAlgorithm();
    clearAlgorithms(c);
    react(sinkClose, () => finishInFlightClose(stream), (reason) => finishInFlightCloseWithError(stream, reason));
  }

  function processWrite(c, chunk) {
    const stream = c.stream;
    stream.inFlightWriteRequest = stream.writeRequests.shift();
    react(c.writeAlgorithm(chunk), () => {
      finishInFlightWrite(stream);
      const state = stream.state;
      dequeueValue(c);
      if (!closeQueuedOrInFlight(stream) && state === 'writable') {
        updateBackpressure(stream, controllerBackpressure(c));
      }
      advanceQueueIfNeeded(c);
    }, (reason) => {
      if (stream.state === 'writable') clearAlgorithms(c);
      finishInFlightWriteWithError(stream, reason);
    });
  }

  function controllerWrite(c, chunk, chunkSize) {
    try {
      enqueueValueWithSize(c, chunk, chunkSize);
    } catch (error) {
      controllerErrorIfNeeded(c, error);
      return;
    }
    const stream = c.stream;
    if (!closeQueuedOrInFlight(stream) && stream.state === 'writable') {
      updateBackpressure(stream, controllerBackpressure(c));
    }
    advanceQueueIfNeeded(c);
  }

  let controllerOf;

  class WritableStreamDefaultController {
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

    get signal() {
      return abortControllerSignal(controllerOf(this).abortController);
    }

    error(e = undefined) {
      const c = controllerOf(this);
      if (c.stream.state !== 'writable') return;
      controllerError(c, e);
    }
  }

  // ---- WritableStream ------------------------------------------------------

  class WritableStream {
    #s;

    constructor(underlyingSink = undefined, strategy = undefined) {
      const record = newStreamRecord();
      record.public = this;
      this.#s = record;
      if (underlyingSink === CREATE) return;
      const strategyValues = strategyDict(strategy, 'new WritableStream()');
      if (underlyingSink === null) throw new TypeErrorCtor('new WritableStream(): the underlying sink must be an object');
      if (underlyingSink === undefined) underlyingSink = null;
      const dict = sinkDict(underlyingSink);
      if (dict.type !== undefined) throw new RangeErrorCtor('new WritableStream(): the underlying sink\'s type must be undefined');
      const size = extractSizeAlgorithm(strategyValues);
      const hwm = extractHighWaterMark(strategyValues, 1);
      const sink = underlyingSink;
      const start = dict.start === undefined ? () => undefined : (c) => ReflectApply(dict.start, sink, [c]);
      const write = dict.write === undefined
        ? () => promiseResolve(undefined)
        : (chunk) => promiseCall(dict.write, sink, [chunk, record.controller.public]);
      const close = dict.close === undefined ? () => promiseResolve(undefined) : () => promiseCall(dict.close, sink, []);
      const abort = dict.abort === undefined
        ? () => promiseResolve(undefined)
        : (reason) => promiseCall(dict.abort, sink, [reason]);
      setUpController(record, newController(), start, write, close, abort, hwm, size);
    }

    static {
      peekStream = (value) => (isObject(value) && #s in value ? value.#s : undefined);
      streamOf = (value, what) => {
        const s = peekStream(value);
        if (s === undefined) throw new TypeErrorCtor(what === undefined ? 'Illegal invocation' : `${what} takes a WritableStream`);
        return s;
      };
    }

    get locked() { return isLocked(streamOf(this)); }

    abort(reason = undefined) {
      const s = peekStream(this);
      if (s === undefined) return promiseReject(new TypeErrorCtor('Illegal invocation'));
      if (isLocked(s)) return promiseReject(new TypeErrorCtor('WritableStream.abort(): the stream is locked to a writer'));
      return abortStream(s, reason);
    }

    close() {
      const s = peekStream(this);
      if (s === undefined) return promiseReject(new TypeErrorCtor('Illegal invocation'));
      if (isLocked(s)) return promiseReject(new TypeErrorCtor('WritableStream.close(): the stream is locked to a writer'));
      if (closeQueuedOrInFlight(s)) return promiseReject(new TypeErrorCtor('WritableStream.close(): the stream is already closing'));
      return closeStream(s);
    }

    getWriter() {
      return acquireWriter(streamOf(this)).public;
    }
  }

  return {
    WritableStream: brand(WritableStream, 'WritableStream'),
    WritableStreamDefaultWriter: brand(WritableStreamDefaultWriter, 'WritableStreamDefaultWriter'),
    WritableStreamDefaultController: brand(WritableStreamDefaultController, 'WritableStreamDefaultController'),
    internals: {
      streamOf, peekStream, isLocked, createWritableStream, abortStream, closeQueuedOrInFlight, acquireWriter,
      writerWrite, writerRelease, writerCloseWithErrorPropagation, writerDesiredSize, startErroring,
      finishErroring, updateBackpressure, controllerErrorIfNeeded, dealWithRejection,
    },
  };
})
