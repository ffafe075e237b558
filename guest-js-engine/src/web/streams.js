// What every stream shares: promises as the Streams Standard uses them,
// queues with sizes, and the queuing strategies.
// Spec: https://streams.spec.whatwg.org/
// WPT: streams (the table in the README; expectations in tests/wpt/)
//
// Each public object (stream, reader, controller) holds a record in a
// private field; the standard's abstract operations work on the records.
// A record keeps its public object in `.public`. Readable streams are in
// `readable.js`, byte streams in `bytes.js`, writable streams in
// `writable.js`, piping in `pipe.js` and transform streams in
// `transform.js`; they reach each other through `host` when called, so
// the wiring order does not matter to them.
(function (host) {
  'use strict';
  const { argumentsRequired, brand } = host.idl;
  const TypeErrorCtor = TypeError;
  const RangeErrorCtor = RangeError;
  const PromiseCtor = Promise;
  const ReflectApply = Reflect.apply;
  const ObjectCreate = Object.create;
  const defineProperty = Object.defineProperty;
  const getPrototypeOf = Object.getPrototypeOf;
  const uncurry = Function.prototype.bind.bind(Function.prototype.call);
  const promiseThen = uncurry(Promise.prototype.then);
  const promiseResolve = Promise.resolve.bind(Promise);
  const promiseReject = Promise.reject.bind(Promise);
  const SymbolAsyncIterator = Symbol.asyncIterator;
  const SymbolIterator = Symbol.iterator;
  const NumberIsNaN = Number.isNaN;
  const MathTrunc = Math.trunc;
  const queueMicrotask = globalThis.queueMicrotask;
  const AsyncIteratorPrototype = getPrototypeOf(getPrototypeOf(async function* () {}).prototype);

  // The key with which the stream modules make objects that programs make
  // only through the platform (controllers, readers of their own streams).
  const CREATE = {};

  // ---- promises, as the standard speaks of them --------------------------

  function noop() {}

  function isObject(value) {
    return (typeof value === 'object' && value !== null) || typeof value === 'function';
  }

  // A promise with its resolving functions, and its state for the few
  // places that must know it.
  function deferred() {
    const d = { promise: undefined, resolve: undefined, reject: undefined, state: 'pending' };
    d.promise = new PromiseCtor((resolve, reject) => {
      d.resolve = (value) => { if (d.state === 'pending') d.state = 'fulfilled'; resolve(value); };
      d.reject = (reason) => { if (d.state === 'pending') d.state = 'rejected'; reject(reason); };
    });
    return d;
  }

  function resolvedDeferred(value) {
    const d = deferred();
    d.resolve(value);
    return d;
  }

  function rejectedDeferred(reason) {
    const d = deferred();
    d.reject(reason);
    setHandled(d.promise);
    return d;
  }

  function setHandled(promise) {
    promiseThen(promise, undefined, noop);
  }

  // "React to" a promise: the derived promise is marked handled, so a
  // reaction that throws is not reported as an unhandled rejection.
  function react(promise, onFulfilled, onRejected) {
    const derived = promiseThen(promise, onFulfilled, onRejected);
    setHandled(derived);
    return derived;
  }

  // "Transform" a promise: the derived promise is the result.
  function transform(promise, onFulfilled, onRejected) {
    return promiseThen(promise, onFulfilled, onRejected);
  }

  // Calls a method of an underlying source or sink as a promise: a throw
  // becomes a rejection.
  function promiseCall(fn, thisArg, args) {
    try {
      return promiseResolve(ReflectApply(fn, thisArg, args));
    } catch (error) {
      return promiseReject(error);
    }
  }

  // ---- queues with sizes ---------------------------------------------------

  // A first-in first-out list with O(1) shift: items before `head` are gone.
  class Queue {
    constructor() {
      this.items = [];
      this.head = 0;
    }

    get length() { return this.items.length - this.head; }

    push(item) { this.items[this.items.length] = item; }

    peek() { return this.items[this.head]; }

    shift() {
      const item = this.items[this.head];
      this.items[this.head] = undefined;
      this.head++;
      if (this.head > 1024 && this.head * 2 > this.items.length) {
        this.items = this.items.slice(this.head);
        this.head = 0;
      }
      return item;
    }

    clear() {
      this.items = [];
      this.head = 0;
    }
  }

  function isNonNegativeNumber(value) {
    return typeof value === 'number' && !NumberIsNaN(value) && value >= 0;
  }

  function enqueueValueWithSize(container, value, size) {
    if (!isNonNegativeNumber(size) || size === Infinity) {
      throw new RangeErrorCtor('the chunk size must be a finite, non-negative number');
    }
    container.queue.push({ value, size });
    container.queueTotalSize += size;
  }

  function dequeueValue(container) {
    const pair = container.queue.shift();
    container.queueTotalSize -= pair.size;
    // Rounding can leave a tiny negative total behind.
    if (container.queueTotalSize < 0) container.queueTotalSize = 0;
    return pair.value;
  }

  function resetQueue(container) {
    container.queue.clear();
    container.queueTotalSize = 0;
  }

  // [EnforceRange] unsigned long long.
  function enforceRange(value, what) {
    const number = +value;
    if (NumberIsNaN(number) || number === Infinity || number === -Infinity) {
      throw new TypeErrorCtor(`${what} must be a finite number (got ${number})`);
    }
    const integer = MathTrunc(number);
    if (integer < 0 || integer > 9007199254740991) throw new TypeErrorCtor(`${what} is out of range (got ${integer})`);
    return integer + 0;
  }

  // ---- queuing strategies --------------------------------------------------

  // The QueuingStrategy dictionary: highWaterMark (unrestricted double) and
  // size (a callback), read in that order.
  function strategyDict(strategy, what) {
    if (strategy === undefined || strategy === null) return {};
    if (!isObject(strategy)) throw new TypeErrorCtor(`${what}: the strategy must be an object`);
    const dict = {};
    const hwm = strategy.highWaterMark;
    if (hwm !== undefined) dict.highWaterMark = +hwm;
    const size = strategy.size;
    if (size !== undefined) {
      if (typeof size !== 'function') throw new TypeErrorCtor(`${what}: the strategy's size must be a function`);
      dict.size = size;
    }
    return dict;
  }

  function extractHighWaterMark(dict, fallback) {
    if (dict.highWaterMark === undefined) return fallback;
    const hwm = dict.highWaterMark;
    if (NumberIsNaN(hwm) || hwm < 0) {
      throw new RangeErrorCtor(`the highWaterMark must be a non-negative number (got ${hwm})`);
    }
    return hwm;
  }

  function extractSizeAlgorithm(dict) {
    const size = dict.size;
    if (size === undefined) return () => 1;
    return (chunk) => +ReflectApply(size, undefined, [chunk]);
  }

  // A dictionary member that is a callback: undefined, or a function.
  function callbackMember(dict, name, what) {
    const value = dict[name];
    if (value !== undefined && typeof value !== 'function') {
      throw new TypeErrorCtor(`${what}: ${name} must be a function`);
    }
    return value;
  }

  // The `highWaterMark` of ByteLengthQueuingStrategy and CountQueuingStrategy.
  function strategyInit(init, what) {
    if (init !== undefined && init !== null && !isObject(init)) {
      throw new TypeErrorCtor(`new ${what}() takes an object with a highWaterMark`);
    }
    const hwm = init === undefined || init === null ? undefined : init.highWaterMark;
    if (hwm === undefined) throw new TypeErrorCtor(`new ${what}() needs a highWaterMark`);
    return +hwm;
  }

  let byteLengthSize;
  let countSize;

  class ByteLengthQueuingStrategy {
    #highWaterMark;

    constructor(init) {
      argumentsRequired(arguments.length, 1, 'ByteLengthQueuingStrategy', 'constructor');
      this.#highWaterMark = strategyInit(init, 'ByteLengthQueuingStrategy');
    }

    get highWaterMark() {
      if (!isObject(this) || !(#highWaterMark in this)) throw new TypeErrorCtor('Illegal invocation');
      return this.#highWaterMark;
    }

    get size() {
      if (!isObject(this) || !(#highWaterMark in this)) throw new TypeErrorCtor('Illegal invocation');
      return byteLengthSize;
    }
  }

  class CountQueuingStrategy {
    #highWaterMark;

    constructor(init) {
      argumentsRequired(arguments.length, 1, 'CountQueuingStrategy', 'constructor');
      this.#highWaterMark = strategyInit(init, 'CountQueuingStrategy');
    }

    get highWaterMark() {
      if (!isObject(this) || !(#highWaterMark in this)) throw new TypeErrorCtor('Illegal invocation');
      return this.#highWaterMark;
    }

    get size() {
      if (!isObject(this) || !(#highWaterMark in this)) throw new TypeErrorCtor('Illegal invocation');
      return countSize;
    }
  }

  // The size functions are the same object every time, named `size`, and
  // are not constructors.
  byteLengthSize = { size(chunk) { return chunk.byteLength; } }.size;
  countSize = { size() { return 1; } }.size;

  return {
    ByteLengthQueuingStrategy: brand(ByteLengthQueuingStrategy, 'ByteLengthQueuingStrategy'),
    CountQueuingStrategy: brand(CountQueuingStrategy, 'CountQueuingStrategy'),
    // for the stream modules
    internals: {
      CREATE, noop, isObject, deferred, resolvedDeferred, rejectedDeferred, setHandled, react, transform,
      promiseCall, Queue, enqueueValueWithSize, dequeueValue, resetQueue, strategyDict, extractHighWaterMark,
      extractSizeAlgorithm, callbackMember, enforceRange,
    },
  };
})
