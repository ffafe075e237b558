// Aborting ongoing activities: AbortController and AbortSignal.
// Spec: https://dom.spec.whatwg.org/#aborting-ongoing-activities
// WPT: dom/abort (the table in the README; expectations in tests/wpt/)
(function (host) {
  'use strict';
  const ReflectApply = Reflect.apply;
  const MathTrunc = Math.trunc;
  const TypeErrorCtor = TypeError;
  const SetCtor = Set;
  const uncurry = Function.prototype.bind.bind(Function.prototype.call);
  const SetAdd = uncurry(Set.prototype.add);
  const SetDelete = uncurry(Set.prototype.delete);
  const SetForEach = uncurry(Set.prototype.forEach);
  const DOMException = host.DOMException;
  const { argumentsRequired, brand } = host.idl;
  const { EventTarget, Event, fire, useAbortSignal } = host.events;
  const addEventListener = uncurry(EventTarget.prototype.addEventListener);
  const removeEventListener = uncurry(EventTarget.prototype.removeEventListener);
  const preventDefault = uncurry(Event.prototype.preventDefault);

  // The sandbox's timers take at most 2^31 - 1 ms at once (longer means
  // 1 ms, as in Node); a longer timeout waits in steps.
  const TIMEOUT_MAX = 2147483647;
  const MAX_SAFE_INTEGER = 9007199254740991;

  // An AbortSignal's state: { signal, reason, algorithms, dependent,
  // sources, dependents, handler, handlerListener }. It is aborted when
  // `reason` is not undefined. `sources` and `dependents` are the spec's
  // weak sets, held strongly here (a run is short) and dropped once the
  // signal aborts, when they can no longer matter.
  let stateOf;
  let peekState;

  // Creating an AbortSignal is the platform's: programs get theirs from
  // AbortController and the static methods.
  const CREATE = {};

  useAbortSignal({
    isSignal: (value) => peekState(value) !== null,
    aborted: (signal) => stateOf(signal).reason !== undefined,
    addAlgorithm: (signal, algorithm) => addAlgorithm(stateOf(signal), algorithm),
  });

  function isObject(value) {
    return (typeof value === 'object' && value !== null) || typeof value === 'function';
  }

  function addAlgorithm(s, algorithm) {
    if (s.reason !== undefined) return;
    s.algorithms[s.algorithms.length] = algorithm;
  }

  function newSignal() {
    return stateOf(new AbortSignal(CREATE));
  }

  function abortError() {
    return new DOMException('signal is aborted without reason', 'AbortError');
  }

  // The spec's "signal abort".
  function signalAbort(s, reason) {
    if (s.reason !== undefined) return;
    s.reason = reason === undefined ? abortError() : reason;
    const toAbort = [];
    if (s.dependents !== null) {
      SetForEach(s.dependents, (dependent) => {
        if (dependent.reason !== undefined) return;
        dependent.reason = s.reason;
        toAbort[toAbort.length] = dependent;
      });
    }
    forget(s);
    runAbortSteps(s);
    for (let i = 0; i < toAbort.length; i++) {
      forget(toAbort[i]);
      runAbortSteps(toAbort[i]);
    }
  }

  // An aborted signal stays aborted: it has no use for its sources, and
  // its sources none for it.
  function forget(s) {
    if (s.sources !== null) {
      SetForEach(s.sources, (source) => {
        if (source.dependents !== null) SetDelete(source.dependents, s);
      });
    }
    s.sources = null;
    s.dependents = null;
  }

  function runAbortSteps(s) {
    const algorithms = s.algorithms;
    s.algorithms = [];
    for (let i = 0; i < algorithms.length; i++) algorithms[i]();
    fire(s.signal, 'abort');
  }

  function link(dependent, source) {
    if (dependent.sources === null) dependent.sources = new SetCtor();
    if (source.dependents === null) source.dependents = new SetCtor();
    SetAdd(dependent.sources, source);
    SetAdd(source.dependents, dependent);
  }

  // `sequence<AbortSignal>` from any iterable.
  function toSignals(iterable) {
    return host.idl.sequence(iterable, (value) => {
      const s = peekState(value);
      if (s === null) throw new TypeErrorCtor('AbortSignal.any() takes AbortSignals only');
      return s;
    }, 'AbortSignal.any()');
  }

  // `[EnforceRange] unsigned long long`.
  function toMilliseconds(value) {
    const number = +value;
    if (number !== number || number === Infinity || number === -Infinity) {
      throw new TypeErrorCtor(`AbortSignal.timeout() takes a finite number of milliseconds (got ${number})`);
    }
    const ms = MathTrunc(number);
    if (ms < 0 || ms > MAX_SAFE_INTEGER) {
      throw new TypeErrorCtor(`AbortSignal.timeout() takes 0 to 2^53 - 1 milliseconds (got ${ms})`);
    }
    return ms + 0;
  }

  function after(ms, callback) {
    if (ms > TIMEOUT_MAX) host.setTimeout(() => after(ms - TIMEOUT_MAX, callback), TIMEOUT_MAX);
    else host.setTimeout(callback, ms);
  }

  class AbortSignal extends EventTarget {
    #s;

    constructor(key) {
      if (key !== CREATE) throw new TypeErrorCtor('Illegal constructor');
      super();
      this.#s = {
        signal: this, reason: undefined, algorithms: [], dependent: false,
        sources: null, dependents: null, handler: null, handlerListener: null,
      };
    }

    static {
      peekState = (value) => (isObject(value) && #s in value ? value.#s : null);
      stateOf = (signal) => {
        const s = peekState(signal);
        if (s === null) throw new TypeErrorCtor('Illegal invocation');
        return s;
      };
    }

    static abort(reason = undefined) {
      const s = newSignal();
      s.reason = reason === undefined ? abortError() : reason;
      return s.signal;
    }

    static timeout(milliseconds) {
      argumentsRequired(arguments.length, 1, 'AbortSignal', 'timeout');
      const ms = toMilliseconds(milliseconds);
      const s = newSignal();
      after(ms, () => signalAbort(s, new DOMException('signal timed out', 'TimeoutError')));
      return s.signal;
    }

    // The spec's "create a dependent abort signal".
    static any(signals) {
      argumentsRequired(arguments.length, 1, 'AbortSignal', 'any');
      const list = toSignals(signals);
      const result = newSignal();
      for (let i = 0; i < list.length; i++) {
        if (list[i].reason !== undefined) {
          result.reason = list[i].reason;
          return result.signal;
        }
      }
      result.dependent = true;
      for (let i = 0; i < list.length; i++) {
        const s = list[i];
        if (!s.dependent) link(result, s);
        else if (s.sources !== null) SetForEach(s.sources, (source) => link(result, source));
      }
      return result.signal;
    }

    get aborted() { return stateOf(this).reason !== undefined; }
    get reason() { return stateOf(this).reason; }

    throwIfAborted() {
      const s = stateOf(this);
      if (s.reason !== undefined) throw s.reason;
    }

    // An event handler IDL attribute (HTML): its listener is added the
    // first time a handler is set and keeps its place while the handler
    // changes; setting null removes it.
    get onabort() { return stateOf(this).handler; }
    set onabort(value) {
      const s = stateOf(this);
      argumentsRequired(arguments.length, 1, 'AbortSignal', 'onabort');
      if (!isObject(value)) {
        if (s.handlerListener !== null) removeEventListener(this, 'abort', s.handlerListener);
        s.handler = null;
        s.handlerListener = null;
        return;
      }
      s.handler = value;
      if (s.handlerListener === null) {
        s.handlerListener = (event) => {
          const handler = s.handler;
          if (typeof handler !== 'function') throw new TypeErrorCtor('the onabort handler is not callable');
          if (ReflectApply(handler, this, [event]) === false) preventDefault(event);
        };
        addEventListener(this, 'abort', s.handlerListener);
      }
    }
  }

  class AbortController {
    #signal;

    constructor() {
      this.#signal = new AbortSignal(CREATE);
    }

    get signal() {
      if (!isObject(this) || !(#signal in this)) throw new TypeErrorCtor('Illegal invocation');
      return this.#signal;
    }

    abort(reason = undefined) {
      if (!isObject(this) || !(#signal in this)) throw new TypeErrorCtor('Illegal invocation');
      signalAbort(stateOf(this.#signal), reason);
    }
  }

  // For the platform's own users of signals (pipeTo): an algorithm runs
  // once, when the signal aborts, unless removed before.
  const signals = {
    isSignal: (value) => peekState(value) !== null,
    aborted: (signal) => stateOf(signal).reason !== undefined,
    reason: (signal) => stateOf(signal).reason,
    add: (signal, algorithm) => addAlgorithm(stateOf(signal), algorithm),
    remove(signal, algorithm) {
      const s = stateOf(signal);
      const index = s.algorithms.indexOf(algorithm);
      if (index !== -1) s.algorithms.splice(index, 1);
    },
  };

  return {
    AbortController: brand(AbortController, 'AbortController'),
    AbortSignal: brand(AbortSignal, 'AbortSignal'),
    signals,
  };
})
