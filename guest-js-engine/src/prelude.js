// The guest prelude. Evaluated once, when the snapshot is taken, as a
// function of the guest's natives; what it returns is kept by the guest and
// never reachable from programs. Everything a program could patch later
// (prototypes, globals) is captured here first, so a program that breaks
// builtins breaks only itself.
(function (natives, modules) {
  'use strict';
  const { hostLog, hostCall, timerSet, random, now } = natives;

  const ObjectCreate = Object.create;
  const defineProperty = Object.defineProperty;
  const objectKeys = Object.keys;
  const JSONStringify = JSON.stringify;
  const PromiseCtor = Promise;
  const PromiseReject = Promise.reject.bind(Promise);
  const ErrorCtor = Error;
  const TypeErrorCtor = TypeError;
  const NumberCtor = Number;
  const ReflectApply = Reflect.apply;
  const StringCtor = String;
  const MapCtor = Map;
  const SetCtor = Set;
  const WeakMapCtor = WeakMap;
  const WeakSetCtor = WeakSet;
  const RegExpCtor = RegExp;
  const toWellFormed = String.prototype.toWellFormed;
  defineProperty(Math, 'random', { value: random, writable: true, configurable: true, enumerable: false });

  // ---- timers -------------------------------------------------------------

  // Timers wait in a binary heap ordered by due time, then by when they were
  // set, so timers due together fire in the order they were set (as Node
  // does). Time is `performance.now()`: the host's monotonic clock, or in a
  // deterministic run the virtual one, which the host advances when the
  // program has nothing to do but wait for a timer. The event loop calls
  // `fireTimer` between rounds of jobs: one callback per call, so the
  // promises a callback settles run before the next timer fires. It does
  // so only after `timerSet` told it a timer was set, until `fireTimer`
  // finds none left.
  const TIMEOUT_MAX = 2147483647;
  const heap = [];
  const active = new MapCtor();
  let lastTimerId = 0;
  let timersSet = 0;

  function before(a, b) {
    return a.due < b.due || (a.due === b.due && a.order < b.order);
  }

  function heapPush(timer) {
    let at = heap.length;
    heap.push(timer);
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (!before(heap[at], heap[parent])) break;
      [heap[at], heap[parent]] = [heap[parent], heap[at]];
      at = parent;
    }
  }

  function heapPop() {
    const top = heap[0];
    const last = heap.pop();
    if (heap.length > 0) {
      heap[0] = last;
      let at = 0;
      for (;;) {
        const left = 2 * at + 1;
        const right = left + 1;
        let least = at;
        if (left < heap.length && before(heap[left], heap[least])) least = left;
        if (right < heap.length && before(heap[right], heap[least])) least = right;
        if (least === at) break;
        [heap[at], heap[least]] = [heap[least], heap[at]];
        at = least;
      }
    }
    return top;
  }

  function schedule(timer) {
    timer.due = now() + timer.delay;
    timer.order = timersSet++;
    heapPush(timer);
  }

  function addTimer(callback, delay, args, repeat) {
    if (typeof callback !== 'function') {
      throw new TypeErrorCtor('the callback of a timer must be a function (strings are not evaluated)');
    }
    let ms = NumberCtor(delay);
    // Node's rule: below 1 ms, not a number, or past 2^31 - 1 ms means 1 ms.
    if (!(ms >= 1 && ms <= TIMEOUT_MAX)) ms = 1;
    const id = ++lastTimerId;
    const timer = { id, callback, args, delay: ms, repeat, due: 0, order: 0 };
    active.set(id, timer);
    schedule(timer);
    timerSet();
    return id;
  }

  function clearTimer(id) {
    active.delete(NumberCtor(id));
  }

  const timerGlobals = {
    setTimeout(callback, delay, ...args) { return addTimer(callback, delay, args, false); },
    setInterval(callback, delay, ...args) { return addTimer(callback, delay, args, true); },
    clearTimeout(id) { clearTimer(id); },
    clearInterval(id) { clearTimer(id); },
  };
  for (const name of objectKeys(timerGlobals)) {
    defineProperty(globalThis, name, { value: timerGlobals[name], writable: true, configurable: true, enumerable: true });
  }

  // Fires the earliest timer if it is due and returns 0; else returns the
  // milliseconds until it is due, or -1 when no timer is set. A callback
  // that throws ends the run, as an uncaught exception would.
  function fireTimer() {
    while (heap.length > 0 && active.get(heap[0].id) !== heap[0]) heapPop();
    if (heap.length === 0) return -1;
    const wait = heap[0].due - now();
    if (wait > 0) return wait;
    const timer = heapPop();
    if (timer.repeat) schedule(timer);
    else active.delete(timer.id);
    ReflectApply(timer.callback, undefined, timer.args);
    return 0;
  }

  // Text crossing to the host must be well-formed UTF-16: a lone surrogate
  // (`'😀'.slice(0, 1)`) becomes U+FFFD instead of failing the crossing.
  function wellFormed(s) {
    return toWellFormed.call(s);
  }

  // ---- the web platform ---------------------------------------------------

  // Each module under web/ is a function of `host`: the natives, the
  // intrinsics it needs, and the exports of the modules wired before it.
  // Only the names listed here become globals (interface objects: writable,
  // configurable, not enumerable).
  const host = {
    natives,
    DOMException: globalThis.DOMException,
    now,
    setTimeout: timerGlobals.setTimeout,
    clearTimeout: timerGlobals.clearTimeout,
    promiseState: natives.promiseState,
    // Text crossing to the host is made well-formed here, once.
    log(level, text) { hostLog(level, wellFormed(text)); },
    // An exception no caller can catch (an event listener's): printed as
    // console.error prints it, and the program goes on.
    reportError(error) { hostLog(3, wellFormed(host.format.format([error]))); },
  };
  function wire(name, globals) {
    const exports = modules[name](host);
    host[name] = exports;
    for (const global of globals) {
      defineProperty(globalThis, global, { value: exports[global], writable: true, configurable: true, enumerable: false });
    }
  }
  wire('idl', []);
  wire('layout', []);
  wire('names', []);
  wire('inspect', []);
  wire('format', []);
  wire('console', ['console']);
  wire('events', ['Event', 'EventTarget', 'CustomEvent']);
  // The global is an EventTarget, as in workers and Deno.
  host.events.useGlobalEventTarget();
  wire('abort', ['AbortController', 'AbortSignal']);
  wire('encoding', ['TextEncoder', 'TextDecoder']);
  wire('blob', ['Blob', 'File']);
  wire('clone', ['structuredClone']);
  wire('url', ['URL', 'URLSearchParams']);
  wire('headers', ['Headers']);
  wire('formdata', ['FormData']);
  wire('streams', ['ByteLengthQueuingStrategy', 'CountQueuingStrategy']);
  wire('readable', ['ReadableStream', 'ReadableStreamDefaultReader', 'ReadableStreamDefaultController']);
  wire('bytes', ['ReadableByteStreamController', 'ReadableStreamBYOBReader', 'ReadableStreamBYOBRequest']);
  wire('tee', []);
  wire('writable', ['WritableStream', 'WritableStreamDefaultWriter', 'WritableStreamDefaultController']);
  wire('pipe', []);
  wire('transform', ['TransformStream', 'TransformStreamDefaultController', 'TextEncoderStream', 'TextDecoderStream']);
  wire('body', []);
  wire('fetch', ['Request', 'Response']);
  wire('egress', ['fetch']);
  wire('compression', ['CompressionStream', 'DecompressionStream']);
  wire('crypto', ['crypto', 'Crypto', 'SubtleCrypto', 'CryptoKey']);
  wire('performance', ['performance', 'Performance', 'PerformanceEntry', 'PerformanceMark', 'PerformanceMeasure',
    'PerformanceObserver', 'PerformanceObserverEntryList']);
  wire('intl', ['Intl']);
  wire('intlnumber', []);
  wire('intldate', []);
  wire('intltext', []);
  const { inspect, quote, errorText, RETURNED, custom } = host.inspect;
  const { format } = host.format;
  defineProperty(globalThis, 'self', { value: globalThis, writable: true, configurable: true, enumerable: false });
  const navigator = {};
  for (const [key, value] of [['userAgent', 'coderun'], ['language', 'en-US'], ['languages', Object.freeze(['en-US'])],
    ['hardwareConcurrency', 1], ['platform', '']]) {
    defineProperty(navigator, key, { value, enumerable: true, configurable: true });
  }
  defineProperty(globalThis, 'navigator', { value: navigator, writable: true, configurable: true, enumerable: false });

  // ---- bindings -----------------------------------------------------------

  function argumentReplacer(key, value) {
    const kind = typeof value;
    if (kind === 'bigint' || kind === 'function' || kind === 'symbol') {
      const what = kind === 'bigint' ? 'a BigInt' : `a ${kind}`;
      throw new TypeErrorCtor(key === '' ? `it is ${what}` : `${what} at key ${quote(key)}`);
    }
    return value;
  }

  // Values JSON carries as they are: no replacer has anything to refuse or
  // rewrite in them.
  function isPlainJson(value) {
    const kind = typeof value;
    return kind === 'number' || kind === 'string' || kind === 'boolean' || value === null;
  }

  function encodeArgument(arg) {
    if (arg === undefined) return 'null';
    if (isPlainJson(arg)) return JSONStringify(arg);
    const json = JSONStringify(arg, argumentReplacer);
    return json === undefined ? 'null' : json;
  }

  // A binding call whose argument the native path (engine.rs, which
  // installs the bindings and writes plain data as JSON itself) left to
  // JavaScript: the promise `hostCall` made, or a rejection saying why the
  // argument cannot be JSON or the host refused the call.
  function callBinding(ns, fn, label, arg) {
    let json;
    try {
      json = encodeArgument(arg);
    } catch (e) {
      const why = e instanceof ErrorCtor ? StringCtor(e.message) : StringCtor(e);
      return PromiseReject(new TypeErrorCtor(`the argument of ${label} is not JSON-serialisable: ${why}`));
    }
    try {
      return hostCall(ns, fn, json);
    } catch (e) {
      return failedCall(label, e);
    }
  }

  // The host refused the call (too many in flight, an argument too large or
  // too deep): a rejection that says which binding.
  function failedCall(label, e) {
    const why = e instanceof ErrorCtor ? StringCtor(e.message) : StringCtor(e);
    return PromiseReject(new ErrorCtor(`${label}: ${why}`));
  }

  // The rejection of a binding call the host failed, with its message.
  function hostError(message) {
    return new ErrorCtor(message);
  }

  // ---- results ------------------------------------------------------------

  const LOSSY = {};
  function resultReplacer(key, value) {
    const kind = typeof value;
    if (kind === 'bigint' || kind === 'function' || kind === 'symbol') throw LOSSY;
    if (value !== null && kind === 'object' && (
      value instanceof MapCtor || value instanceof SetCtor || value instanceof WeakMapCtor ||
      value instanceof WeakSetCtor || value instanceof RegExpCtor || value instanceof ErrorCtor ||
      value instanceof PromiseCtor)) throw LOSSY;
    return value;
  }

  // The value as JSON text. Values JSON cannot carry faithfully become a
  // JSON string holding their inspect rendering.
  function encodeResult(value, room) {
    if (isPlainJson(value)) return JSONStringify(value);
    let json;
    try {
      json = JSONStringify(value, resultReplacer);
    } catch (e) {
      json = undefined;
    }
    return json === undefined ? JSONStringify(inspect(value, RETURNED, room)) : json;
  }

  // The value as `console.log(value)` prints it, with nothing elided.
  function display(value, room) {
    return wellFormed(format([value], RETURNED, room));
  }

  // A thrown value as text: an error's headline and stack (joined by
  // `errorText`, as console.error prints it), anything else rendered.
  function renderThrown(e) {
    try {
      return wellFormed(e instanceof ErrorCtor ? errorText(e) : typeof e === 'string' ? e : inspect(e));
    } catch (_) {
      return 'a value that could not be rendered was thrown';
    }
  }

  return { callBinding, failedCall, hostError, encodeResult, display, renderThrown, fireTimer, custom };
})
