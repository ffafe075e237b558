// Readable streams: ReadableStream, its default controller and reader,
// async iteration and ReadableStream.from (tee is in tee.js).
// Spec: https://streams.spec.whatwg.org/#rs
// WPT: streams/readable-streams (the table in the README)
(function (host) {
  'use strict';
  const { argumentsRequired, brand } = host.idl;
  const shared = host.streams.internals;
  const {
    CREATE, noop, isObject, deferred, resolvedDeferred, rejectedDeferred, setHandled, react, transform,
    promiseCall, Queue, enqueueValueWithSize, dequeueValue, resetQueue, strategyDict, extractHighWaterMark,
    extractSizeAlgorithm, callbackMember, enforceRange,
  } = shared;
  const TypeErrorCtor = TypeError;
  const RangeErrorCtor = RangeError;
  const ReflectApply = Reflect.apply;
  const ObjectCreate = Object.create;
  const defineProperty = Object.defineProperty;
  const getPrototypeOf = Object.getPrototypeOf;
  const uncurry = Function.prototype.bind.bind(Function.prototype.call);
  const promiseResolve = Promise.resolve.bind(Promise);
  const promiseReject = Promise.reject.bind(Promise);
  const SymbolAsyncIterator = Symbol.asyncIterator;
  const SymbolIterator = Symbol.iterator;
  const AsyncIteratorPrototype = getPrototypeOf(getPrototypeOf(async function* () {}).prototype);

  // ---- readable streams ----------------------------------------------------

  // A stream record: state ('readable', 'closed', 'errored'), reader,
  // storedError, disturbed, controller (a record), public.
  function newStreamRecord() {
    return {
      state: 'readable', reader: undefined, storedError: undefined, disturbed: false,
      controller: undefined, public: undefined,
    };
  }

  let streamOf;
  let peekStream;

  function isLocked(stream) {
    return stream.reader !== undefined;
  }

  // The standard's CreateReadableStream: a default stream on algorithms.
  function createReadableStream(start, pull, cancel, highWaterMark = 1, size = () => 1) {
    const stream = new ReadableStream(CREATE);
    const s = streamOf(stream);
    const controller = newDefaultController();
    setUpDefaultController(s, controller, start, pull, cancel, highWaterMark, size);
    return s;
  }

  function cancelStream(stream, reason) {
    stream.disturbed = true;
    if (stream.state === 'closed') return promiseResolve(undefined);
    if (stream.state === 'errored') return promiseReject(stream.storedError);
    closeStream(stream);
    const reader = stream.reader;
    if (reader !== undefined && reader.kind === 'byob') {
      const requests = reader.readIntoRequests;
      reader.readIntoRequests = new Queue();
      while (requests.length > 0) requests.shift().close(undefined);
    }
    const sourceCancel = stream.controller.cancelSteps(reason);
    return transform(sourceCancel, noop);
  }

  function closeStream(stream) {
    stream.state = 'closed';
    const reader = stream.reader;
    if (reader === undefined) return;
    reader.closed.resolve(undefined);
    if (reader.kind === 'default') {
      const requests = reader.readRequests;
      reader.readRequests = new Queue();
      while (requests.length > 0) requests.shift().close();
    }
  }

  function errorStream(stream, error) {
    stream.state = 'errored';
    stream.storedError = error;
    const reader = stream.reader;
    if (reader === undefined) return;
    reader.closed.reject(error);
    setHandled(reader.closed.promise);
    if (reader.kind === 'default') errorReadRequests(reader, error);
    else host.bytes.errorReadIntoRequests(reader, error);
  }

  function fulfillReadRequest(stream, chunk, done) {
    const request = stream.reader.readRequests.shift();
    if (done) request.close();
    else request.chunk(chunk);
  }

  function numReadRequests(stream) {
    return stream.reader.readRequests.length;
  }

  function hasDefaultReader(stream) {
    return stream.reader !== undefined && stream.reader.kind === 'default';
  }

  // ---- the default controller ----------------------------------------------

  function newDefaultController() {
    return {
      kind: 'default', stream: undefined, queue: new Queue(), queueTotalSize: 0,
      started: false, closeRequested: false, pullAgain: false, pulling: false,
      strategyHWM: 0, strategySizeAlgorithm: undefined, pullAlgorithm: undefined,
      cancelAlgorithm: undefined, public: undefined,
      cancelSteps(reason) {
        resetQueue(this);
        const result = this.cancelAlgorithm(reason);
        clearAlgorithms(this);
        return result;
      },
      pullSteps(request) {
        const stream = this.stream;
        if (this.queue.length > 0) {
          const chunk = dequeueValue(this);
          if (this.closeRequested && this.queue.length === 0) {
            clearAlgorithms(this);
            closeStream(stream);
          } else {
            callPullIfNeeded(this);
          }
          request.chunk(chunk);
        } else {
          stream.reader.readRequests.push(request);
          callPullIfNeeded(this);
        }
      },
      releaseSteps() {},
    };
  }

  function setUpDefaultController(stream, c, start, pull, cancel, highWaterMark, size) {
    c.stream = stream;
    c.strategySizeAlgorithm = size;
    c.strategyHWM = highWaterMark;
    c.pullAlgorithm = pull;
    c.cancelAlgorithm = cancel;
    c.public = new ReadableStreamDefaultController(CREATE, c);
    stream.controller = c;
    const startResult = start(c.public);
    react(promiseResolve(startResult), () => {
      c.started = true;
      callPullIfNeeded(c);
    }, (error) => defaultControllerError(c, error));
  }

  // The UnderlyingSource dictionary, members in order.
  function sourceDict(source) {
    if (source === null) return {};
    if (!isObject(source)) throw new TypeErrorCtor('new ReadableStream(): the underlying source must be an object');
    const what = 'new ReadableStream()';
    const dict = {};
    const size = source.autoAllocateChunkSize;
    if (size !== undefined) dict.autoAllocateChunkSize = enforceRange(size, 'autoAllocateChunkSize');
    dict.cancel = callbackMember(source, 'cancel', what);
    dict.pull = callbackMember(source, 'pull', what);
    dict.start = callbackMember(source, 'start', what);
    const type = source.type;
    if (type !== undefined) {
      dict.type = `${type}`;
      if (dict.type !== 'bytes') throw new TypeErrorCtor(`new ReadableStream(): type must be 'bytes' (got '${dict.type}')`);
    }
    return dict;
  }

  // The algorithms of an underlying source (or sink, or transformer):
  // each method called on the dictionary's object.
  function sourceAlgorithms(source, dict) {
    return {
      start: dict.start === undefined ? () => undefined : (c) => ReflectApply(dict.start, source, [c]),
      pull: dict.pull === undefined ? () => promiseResolve(undefined) : (c) => promiseCall(dict.pull, source, [c]),
      cancel: dict.cancel === undefined ? () => promiseResolve(undefined) : (r) => promiseCall(dict.cancel, source, [r]),
    };
  }

  // The standard's CallPullIfNeeded, for a kind of controller that says
  // with `shouldCallPull` whether to pull and errors its stream with `fail`
  // (byte streams make theirs with it too).
  function puller(shouldCall, fail) {
    const callPullIfNeeded = (c) => {
      if (!shouldCall(c)) return;
      if (c.pulling) {
        c.pullAgain = true;
        return;
      }
      c.pulling = true;
      react(c.pullAlgorithm(c.public), () => {
        c.pulling = false;
        if (c.pullAgain) {
          c.pullAgain = false;
          callPullIfNeeded(c);
        }
      }, (error) => fail(c, error));
    };
    return callPullIfNeeded;
  }

  const callPullIfNeeded = puller(shouldCallPull, defaultControllerError);

  function shouldCallPull(c) {
    const stream = c.stream;
    if (!canCloseOrEnqueue(c)) return false;
    if (!c.started) return false;
    if (isLocked(stream) && numReadRequests(stream) > 0) return true;
    return desiredSize(c) > 0;
  }

  function clearAlgorithms(c) {
    c.pullAlgorithm = undefined;
    c.cancelAlgorithm = undefined;
    c.strategySizeAlgorithm = undefined;
  }

  function defaultControllerClose(c) {
    if (!canCloseOrEnqueue(c)) return;
    c.closeRequested = true;
    if (c.queue.length === 0) {
      clearAlgorithms(c);
      closeStream(c.stream);
    }
  }

  function defaultControllerEnqueue(c, chunk) {
    if (!canCloseOrEnqueue(c)) return;
    const stream = c.stream;
    if (isLocked(stream) && numReadRequests(stream) > 0) {
      fulfillReadRequest(stream, chunk, false);
    } else {
      let size;
      try {
        size = c.strategySizeAlgorithm(chunk);
      } catch (error) {
        defaultControllerError(c, error);
        throw error;
      }
      try {
        enqueueValueWithSize(c, chunk, size);
      } catch (error) {
        defaultControllerError(c, error);
        throw error;
      }
    }
    callPullIfNeeded(c);
  }

  function defaultControllerError(c, error) {
    const stream = c.stream;
    if (stream.state !== 'readable') return;
    resetQueue(c);
    clearAlgorithms(c);
    errorStream(stream, error);
  }

  function desiredSize(c) {
    const state = c.stream.state;
    if (state === 'errored') return null;
    if (state === 'closed') return 0;
    return c.strategyHWM - c.queueTotalSize;
  }

  function hasBackpressure(c) {
    return !shouldCallPull(c);
  }

  function canCloseOrEnqueue(c) {
    return !c.closeRequested && c.stream.state === 'readable';
  }

  let defaultControllerOf;

  class ReadableStreamDefaultController {
    #c;

    constructor(key, record) {
      if (key !== CREATE) throw new TypeErrorCtor('Illegal constructor');
      this.#c = record;
    }

    static {
      defaultControllerOf = (value) => {
        if (!isObject(value) || !(#c in value)) throw new TypeErrorCtor('Illegal invocation');
        return value.#c;
      };
    }

    get desiredSize() { return desiredSize(defaultControllerOf(this)); }

    close() {
      const c = defaultControllerOf(this);
      if (!canCloseOrEnqueue(c)) throw new TypeErrorCtor('The stream is not in a state that permits close');
      defaultControllerClose(c);
    }

    enqueue(chunk = undefined) {
      const c = defaultControllerOf(this);
      if (!canCloseOrEnqueue(c)) throw new TypeErrorCtor('The stream is not in a state that permits enqueue');
      defaultControllerEnqueue(c, chunk);
    }

    error(e = undefined) {
      defaultControllerError(defaultControllerOf(this), e);
    }
  }

  // ---- readers ---------------------------------------------------------------

  // A reader record: kind ('default' or 'byob'), stream, closed (a
  // deferred), readRequests or readIntoRequests, public.
  function readerInitialize(reader, stream) {
    reader.stream = stream;
    stream.reader = reader;
    if (stream.state === 'readable') reader.closed = deferred();
    else if (stream.state === 'closed') reader.closed = resolvedDeferred(undefined);
    else reader.closed = rejectedDeferred(stream.storedError);
  }

  function readerCancel(reader, reason) {
    return cancelStream(reader.stream, reason);
  }

  function readerRelease(reader) {
    const stream = reader.stream;
    const error = new TypeErrorCtor('the reader was released');
    if (stream.state === 'readable') reader.closed.reject(error);
    else reader.closed = rejectedDeferred(error);
    setHandled(reader.closed.promise);
    stream.controller.releaseSteps();
    stream.reader = undefined;
    reader.stream = undefined;
  }

  function errorReadRequests(reader, error) {
    const requests = reader.readRequests;
    reader.readRequests = new Queue();
    while (requests.length > 0) requests.shift().error(error);
  }

  function defaultReaderRelease(reader) {
    readerRelease(reader);
    errorReadRequests(reader, new TypeErrorCtor('the reader was released'));
  }

  function defaultReaderRead(reader, request) {
    const stream = reader.stream;
    stream.disturbed = true;
    if (stream.state === 'closed') request.close();
    else if (stream.state === 'errored') request.error(stream.storedError);
    else stream.controller.pullSteps(request);
  }

  function acquireDefaultReader(stream) {
    return readerOf(new ReadableStreamDefaultReader(stream.public));
  }

  let readerOf;

  class ReadableStreamDefaultReader {
    #r;

    constructor(stream) {
      argumentsRequired(arguments.length, 1, 'ReadableStreamDefaultReader', 'constructor');
      const s = streamOf(stream, 'new ReadableStreamDefaultReader()');
      if (isLocked(s)) throw new TypeErrorCtor('new ReadableStreamDefaultReader(): the stream is locked to a reader');
      const reader = {
        kind: 'default', stream: undefined, closed: undefined, readRequests: new Queue(), public: this,
      };
      readerInitialize(reader, s);
      this.#r = reader;
    }

    static {
      readerOf = (value) => {
        if (!isObject(value) || !(#r in value)) throw new TypeErrorCtor('Illegal invocation');
        return value.#r;
      };
    }

    get closed() {
      if (!isObject(this) || !(#r in this)) return promiseReject(new TypeErrorCtor('Illegal invocation'));
      return this.#r.closed.promise;
    }

    cancel(reason = undefined) {
      if (!isObject(this) || !(#r in this)) return promiseReject(new TypeErrorCtor('Illegal invocation'));
      const reader = this.#r;
      if (reader.stream === undefined) return promiseReject(new TypeErrorCtor('the reader is released'));
      return readerCancel(reader, reason);
    }

    read() {
      if (!isObject(this) || !(#r in this)) return promiseReject(new TypeErrorCtor('Illegal invocation'));
      const reader = this.#r;
      if (reader.stream === undefined) return promiseReject(new TypeErrorCtor('the reader is released'));
      const d = deferred();
      defaultReaderRead(reader, {
        chunk: (value) => d.resolve({ value, done: false }),
        close: () => d.resolve({ value: undefined, done: true }),
        error: (error) => d.reject(error),
      });
      return d.promise;
    }

    releaseLock() {
      const reader = readerOf(this);
      if (reader.stream === undefined) return;
      defaultReaderRelease(reader);
    }
  }

  // ---- async iteration ---------------------------------------------------

  // The async iterator of a ReadableStream, as Web IDL's asynchronously
  // iterable declarations behave: each next() and return() waits for the
  // one before it.
  const iteratorStates = new WeakMap();
  const weakGet = uncurry(WeakMap.prototype.get);
  const weakSet = uncurry(WeakMap.prototype.set);
  const StreamIteratorPrototype = ObjectCreate(AsyncIteratorPrototype);

  function iteratorState(value) {
    const state = isObject(value) ? weakGet(iteratorStates, value) : undefined;
    if (state === undefined) throw new TypeErrorCtor('Illegal invocation');
    return state;
  }

  const END = {};

  // The stream's "get the next iteration result": a chunk, or END.
  function iteratorNext(state) {
    const reader = state.reader;
    const d = deferred();
    defaultReaderRead(reader, {
      chunk: (value) => d.resolve(value),
      close: () => {
        defaultReaderRelease(reader);
        d.resolve(END);
      },
      error: (error) => {
        defaultReaderRelease(reader);
        d.reject(error);
      },
    });
    return d.promise;
  }

  // The stream's "asynchronous iterator return".
  function iteratorReturn(state, value) {
    const reader = state.reader;
    if (!state.preventCancel) {
      const result = readerCancel(reader, value);
      defaultReaderRelease(reader);
      return result;
    }
    defaultReaderRelease(reader);
    return promiseResolve(undefined);
  }

  // Web IDL's next() and return() of an asynchronous iterator.
  const iteratorMethods = {
    next() {
      let state;
      try {
        state = iteratorState(this);
      } catch (error) {
        return promiseReject(error);
      }
      const nextSteps = () => {
        if (state.finished) return promiseResolve({ value: undefined, done: true });
        return transform(iteratorNext(state), (next) => {
          state.ongoing = undefined;
          if (next === END) {
            state.finished = true;
            return { value: undefined, done: true };
          }
          return { value: next, done: false };
        }, (reason) => {
          state.ongoing = undefined;
          state.finished = true;
          throw reason;
        });
      };
      state.ongoing = state.ongoing === undefined ? nextSteps() : transform(state.ongoing, nextSteps, nextSteps);
      return state.ongoing;
    },
    return(value) {
      let state;
      try {
        state = iteratorState(this);
      } catch (error) {
        return promiseReject(error);
      }
      const returnSteps = () => {
        if (state.finished) return promiseResolve({ value, done: true });
        state.finished = true;
        return iteratorReturn(state, value);
      };
      const returned = state.ongoing === undefined ? returnSteps() : transform(state.ongoing, returnSteps, returnSteps);
      return transform(returned, () => ({ value, done: true }));
    },
  };
  defineProperty(StreamIteratorPrototype, 'next', { value: iteratorMethods.next, writable: true, enumerable: true, configurable: true });
  defineProperty(StreamIteratorPrototype, 'return', { value: iteratorMethods.return, writable: true, enumerable: true, configurable: true });
  defineProperty(StreamIteratorPrototype, Symbol.toStringTag, { value: 'ReadableStream AsyncIterator', configurable: true });

  // ---- ReadableStream.from -------------------------------------------------

  function fromIterable(asyncIterable) {
    if (!isObject(asyncIterable)) throw new TypeErrorCtor('ReadableStream.from() takes an async iterable or an iterable object');
    let method = asyncIterable === undefined || asyncIterable === null ? undefined : asyncIterable[SymbolAsyncIterator];
    let iterator;
    if (method === undefined || method === null) {
      const syncMethod = asyncIterable === undefined || asyncIterable === null ? undefined : asyncIterable[SymbolIterator];
      if (syncMethod === undefined || syncMethod === null) {
        throw new TypeErrorCtor('ReadableStream.from() takes an async iterable or an iterable');
      }
      if (typeof syncMethod !== 'function') throw new TypeErrorCtor('ReadableStream.from(): Symbol.iterator is not a function');
      const syncIterator = ReflectApply(syncMethod, asyncIterable, []);
      if (!isObject(syncIterator)) throw new TypeErrorCtor('ReadableStream.from(): the iterator is not an object');
      iterator = asyncFromSync(syncIterator);
    } else {
      if (typeof method !== 'function') throw new TypeErrorCtor('ReadableStream.from(): Symbol.asyncIterator is not a function');
      iterator = ReflectApply(method, asyncIterable, []);
      if (!isObject(iterator)) throw new TypeErrorCtor('ReadableStream.from(): the iterator is not an object');
    }
    const next = iterator.next;
    let stream;
    const pull = () => {
      let result;
      try {
        result = ReflectApply(next, iterator, []);
      } catch (error) {
        return promiseReject(error);
      }
      return transform(promiseResolve(result), (step) => {
        if (!isObject(step)) throw new TypeErrorCtor('ReadableStream.from(): an iterator result is not an object');
        if (step.done) {
          defaultControllerClose(stream.controller);
          return undefined;
        }
        defaultControllerEnqueue(stream.controller, step.value);
        return undefined;
      });
    };
    const cancel = (reason) => {
      let returnMethod;
      try {
        returnMethod = iterator.return;
      } catch (error) {
        return promiseReject(error);
      }
      if (returnMethod === undefined || returnMethod === null) return promiseResolve(undefined);
      if (typeof returnMethod !== 'function') return promiseReject(new TypeErrorCtor('the iterator\'s return is not a function'));
      let result;
      try {
        result = ReflectApply(returnMethod, iterator, [reason]);
      } catch (error) {
        return promiseReject(error);
      }
      return transform(promiseResolve(result), (value) => {
        if (!isObject(value)) throw new TypeErrorCtor('the iterator\'s return() did not give an object');
        return undefined;
      });
    };
    stream = createReadableStream(noop, pull, cancel, 0);
    return stream.public;
  }

  // CreateAsyncFromSyncIterator: each step's value awaited.
  function asyncFromSync(syncIterator) {
    const next = syncIterator.next;
    const settle = (step) => {
      if (!isObject(step)) throw new TypeErrorCtor('an iterator result is not an object');
      const done = !!step.done;
      return transform(promiseResolve(step.value), (value) => ({ value, done }));
    };
    return {
      next() {
        try {
          return settle(ReflectApply(next, syncIterator, []));
        } catch (error) {
          return promiseReject(error);
        }
      },
      get return() {
        const method = syncIterator.return;
        if (method === undefined || method === null) return undefined;
        return (value) => {
          try {
            return settle(ReflectApply(method, syncIterator, [value]));
          } catch (error) {
            return promiseReject(error);
          }
        };
      },
    };
  }

  // ---- ReadableStream ------------------------------------------------------

  class ReadableStream {
    #s;

    constructor(underlyingSource = undefined, strategy = undefined) {
      const record = newStreamRecord();
      record.public = this;
      this.#s = record;
      if (underlyingSource === CREATE) return;
      const strategyValues = strategyDict(strategy, 'new ReadableStream()');
      if (underlyingSource === null) throw new TypeErrorCtor('new ReadableStream(): the underlying source must be an object');
      if (underlyingSource === undefined) underlyingSource = null;
      const dict = sourceDict(underlyingSource);
      if (dict.type === 'bytes') {
        if (strategyValues.size !== undefined) {
          throw new RangeErrorCtor('new ReadableStream(): a byte stream\'s strategy cannot have a size');
        }
        const hwm = extractHighWaterMark(strategyValues, 0);
        host.bytes.setUpFromSource(record, underlyingSource, dict, hwm);
      } else {
        const size = extractSizeAlgorithm(strategyValues);
        const hwm = extractHighWaterMark(strategyValues, 1);
        const algorithms = sourceAlgorithms(underlyingSource, dict);
        setUpDefaultController(record, newDefaultController(), algorithms.start, algorithms.pull,
          algorithms.cancel, hwm, size);
      }
    }

    static {
      peekStream = (value) => (isObject(value) && #s in value ? value.#s : undefined);
      streamOf = (value, what) => {
        const s = peekStream(value);
        if (s === undefined) throw new TypeErrorCtor(what === undefined ? 'Illegal invocation' : `${what} takes a ReadableStream`);
        return s;
      };
    }

    static from(asyncIterable) {
      argumentsRequired(arguments.length, 1, 'ReadableStream', 'from');
      return fromIterable(asyncIterable);
    }

    get locked() { return isLocked(streamOf(this)); }

    cancel(reason = undefined) {
      const s = peekStream(this);
      if (s === undefined) return promiseReject(new TypeErrorCtor('Illegal invocation'));
      if (isLocked(s)) return promiseReject(new TypeErrorCtor('ReadableStream.cancel(): the stream is locked to a reader'));
      return cancelStream(s, reason);
    }

    getReader(options = undefined) {
      const s = streamOf(this);
      let mode;
      if (options !== undefined && options !== null) {
        if (!isObject(options)) throw new TypeErrorCtor('ReadableStream.getReader(): the options must be an object');
        const value = options.mode;
        if (value !== undefined) {
          mode = `${value}`;
          if (mode !== 'byob') throw new TypeErrorCtor(`ReadableStream.getReader(): mode must be 'byob' (got '${mode}')`);
        }
      }
      if (mode === undefined) return acquireDefaultReader(s).public;
      return host.bytes.acquireBYOBReader(s).public;
    }

    pipeThrough(transform, options = undefined) {
      const s = streamOf(this);
      argumentsRequired(arguments.length, 1, 'ReadableStream', 'pipeThrough');
      return host.pipe.pipeThrough(s, transform, options);
    }

    pipeTo(destination, options = undefined) {
      const s = peekStream(this);
      if (s === undefined) return promiseReject(new TypeErrorCtor('Illegal invocation'));
      return host.pipe.pipeTo(s, destination, options, arguments.length);
    }

    tee() {
      return host.tee.tee(streamOf(this), false);
    }

    values(options = undefined) {
      const s = streamOf(this);
      let preventCancel = false;
      if (options !== undefined && options !== null) {
        if (!isObject(options)) throw new TypeErrorCtor('ReadableStream.values(): the options must be an object');
        preventCancel = !!options.preventCancel;
      }
      const reader = acquireDefaultReader(s);
      const iterator = ObjectCreate(StreamIteratorPrototype);
      weakSet(iteratorStates, iterator, { reader, preventCancel, finished: false, ongoing: undefined });
      return iterator;
    }
  }

  defineProperty(ReadableStream.prototype, SymbolAsyncIterator, {
    value: ReadableStream.prototype.values, writable: true, configurable: true,
  });

  return {
    ReadableStream: brand(ReadableStream, 'ReadableStream'),
    ReadableStreamDefaultReader: brand(ReadableStreamDefaultReader, 'ReadableStreamDefaultReader'),
    ReadableStreamDefaultController: brand(ReadableStreamDefaultController, 'ReadableStreamDefaultController'),
    // for the other stream modules: the shared internals and these
    internals: {
      ...shared, streamOf, peekStream, isLocked, createReadableStream,
      cancelStream, closeStream, errorStream, fulfillReadRequest, numReadRequests, hasDefaultReader,
      readerInitialize, readerCancel, readerRelease, defaultReaderRead, defaultReaderRelease, acquireDefaultReader,
      readerOf, errorReadRequests, defaultControllerClose, defaultControllerEnqueue, defaultControllerError,
      desiredSize, hasBackpressure, canCloseOrEnqueue, sourceAlgorithms, newStreamRecord, puller,
    },
  };
})
