// DOM events: Event, CustomEvent and EventTarget, without a node tree: an
// event's path is its target alone, so it is at AT_TARGET for both passes.
// Spec: https://dom.spec.whatwg.org/#events
// WPT: dom/events (the table in the README; expectations in tests/wpt/)
(function (host) {
  'use strict';
  const ObjectDefineProperty = Object.defineProperty;
  const ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
  const ObjectSetPrototypeOf = Object.setPrototypeOf;
  const ReflectApply = Reflect.apply;
  const TypeErrorCtor = TypeError;
  const DOMException = host.DOMException;
  const { domString, argumentsRequired, dictionary, brand } = host.idl;

  const NONE = 0;
  const CAPTURING_PHASE = 1;
  const AT_TARGET = 2;
  const BUBBLING_PHASE = 3;

  function isObject(value) {
    return (typeof value === 'object' && value !== null) || typeof value === 'function';
  }

  function illegalInvocation() {
    return new TypeErrorCtor('Illegal invocation');
  }

  // Array helpers that look up nothing a program could have patched.
  function copyList(list) {
    const copy = [];
    for (let i = 0; i < list.length; i++) copy[i] = list[i];
    return copy;
  }

  function removeAt(list, at) {
    for (let i = at + 1; i < list.length; i++) list[i - 1] = list[i];
    list.length--;
  }

  // Set by abort.js (`useAbortSignal`): how to recognise an AbortSignal,
  // read whether it is aborted, and add an abort algorithm to it.
  let signals = null;

  // State of an event (its flags and attributes), reached from the event
  // through a private field: `stateOf` is the brand check, `peekState`
  // its form that returns null.
  let peekState;
  let stateOf;
  // [LegacyUnforgeable] isTrusted: an own, non-configurable accessor on each
  // event, all sharing one getter. Its descriptor has no prototype, so
  // nothing a program adds to Object.prototype can change it.
  let isTrusted;

  function eventState(type, init) {
    return {
      type, bubbles: !!init.bubbles, cancelable: !!init.cancelable, composed: !!init.composed,
      target: null, currentTarget: null, phase: NONE, trusted: false, timeStamp: host.now(),
      stop: false, stopImmediate: false, canceled: false, inPassive: false, dispatching: false,
    };
  }

  // The spec's "set the canceled flag".
  function setCanceled(s) {
    if (s.cancelable && !s.inPassive) s.canceled = true;
  }

  class Event {
    #s;

    constructor(type, eventInitDict = undefined) {
      argumentsRequired(arguments.length, 1, 'Event', 'constructor');
      this.#s = eventState(domString(type), dictionary(eventInitDict, 'Event', 'constructor'));
      ObjectDefineProperty(this, 'isTrusted', isTrusted);
    }

    static {
      peekState = (value) => (isObject(value) && #s in value ? value.#s : null);
      stateOf = (event) => {
        const s = peekState(event);
        if (s === null) throw illegalInvocation();
        return s;
      };
      const get = ObjectGetOwnPropertyDescriptor({ get isTrusted() { return stateOf(this).trusted; } }, 'isTrusted').get;
      isTrusted = { __proto__: null, get, enumerable: true, configurable: false };
    }

    get type() { return stateOf(this).type; }
    get target() { return stateOf(this).target; }
    get srcElement() { return stateOf(this).target; }
    get currentTarget() { return stateOf(this).currentTarget; }

    composedPath() {
      const s = stateOf(this);
      return s.dispatching ? [s.currentTarget] : [];
    }

    get eventPhase() { return stateOf(this).phase; }

    stopPropagation() { stateOf(this).stop = true; }

    get cancelBubble() { return stateOf(this).stop; }
    set cancelBubble(value) {
      const s = stateOf(this);
      argumentsRequired(arguments.length, 1, 'Event', 'cancelBubble');
      if (value) s.stop = true;
    }

    stopImmediatePropagation() {
      const s = stateOf(this);
      s.stop = true;
      s.stopImmediate = true;
    }

    get bubbles() { return stateOf(this).bubbles; }
    get cancelable() { return stateOf(this).cancelable; }

    get returnValue() { return !stateOf(this).canceled; }
    set returnValue(value) {
      const s = stateOf(this);
      argumentsRequired(arguments.length, 1, 'Event', 'returnValue');
      if (!value) setCanceled(s);
    }

    preventDefault() { setCanceled(stateOf(this)); }

    get defaultPrevented() { return stateOf(this).canceled; }
    get composed() { return stateOf(this).composed; }
    get timeStamp() { return stateOf(this).timeStamp; }

    initEvent(type, bubbles = false, cancelable = false) {
      const s = stateOf(this);
      argumentsRequired(arguments.length, 1, 'Event', 'initEvent');
      initialize(s, domString(type), !!bubbles, !!cancelable);
    }
  }

  // The spec's "initialize" for initEvent and initCustomEvent; a no-op
  // while the event is being dispatched.
  function initialize(s, type, bubbles, cancelable) {
    if (s.dispatching) return false;
    s.stop = false;
    s.stopImmediate = false;
    s.canceled = false;
    s.trusted = false;
    s.target = null;
    s.type = type;
    s.bubbles = bubbles;
    s.cancelable = cancelable;
    return true;
  }

  class CustomEvent extends Event {
    #detail;

    constructor(type, eventInitDict = undefined) {
      argumentsRequired(arguments.length, 1, 'CustomEvent', 'constructor');
      super(type, eventInitDict);
      // Read after Event's members, as WebIDL orders a derived dictionary.
      const detail = dictionary(eventInitDict, 'CustomEvent', 'constructor').detail;
      this.#detail = detail === undefined ? null : detail;
    }

    get detail() {
      if (!isObject(this) || !(#detail in this)) throw illegalInvocation();
      return this.#detail;
    }

    initCustomEvent(type, bubbles = false, cancelable = false, detail = null) {
      if (!isObject(this) || !(#detail in this)) throw illegalInvocation();
      argumentsRequired(arguments.length, 1, 'CustomEvent', 'initCustomEvent');
      if (initialize(stateOf(this), domString(type), !!bubbles, !!cancelable)) this.#detail = detail;
    }
  }

  for (const object of [Event, Event.prototype]) {
    for (const [name, value] of [['NONE', NONE], ['CAPTURING_PHASE', CAPTURING_PHASE],
      ['AT_TARGET', AT_TARGET], ['BUBBLING_PHASE', BUBBLING_PHASE]]) {
      ObjectDefineProperty(object, name, { value, enumerable: true });
    }
  }

  // A listener: { type, callback, capture, passive, once, signal, removed }.
  let listenersOf;

  // The global object is an EventTarget in browsers, workers and Deno, and
  // here once the prelude calls `useGlobalEventTarget`. WebIDL then reads
  // an operation's missing `this` (`dispatchEvent(e)`) as the global.
  const globalObject = globalThis;
  let globalListeners = null;

  // A listener list has at most one listener per (type, callback, capture).
  function findListener(list, type, callback, capture) {
    for (let i = 0; i < list.length; i++) {
      const l = list[i];
      if (l.type === type && l.callback === callback && l.capture === capture) return i;
    }
    return -1;
  }

  function removeListener(list, listener) {
    listener.removed = true;
    for (let i = 0; i < list.length; i++) {
      if (list[i] === listener) {
        removeAt(list, i);
        return;
      }
    }
  }

  // `EventListener?`: null, or any object (a function, or one whose
  // `handleEvent` is looked up when called).
  function toListener(callback, member) {
    if (callback === undefined || callback === null) return null;
    if (!isObject(callback)) throw new TypeErrorCtor(`the callback of EventTarget.${member}() must be an object`);
    return callback;
  }

  class EventTarget {
    #listeners = [];

    static {
      listenersOf = (target) => {
        if (isObject(target) && #listeners in target) return target.#listeners;
        if (target === globalObject && globalListeners !== null) return globalListeners;
        throw illegalInvocation();
      };
    }

    addEventListener(type, callback, options = undefined) {
      const list = listenersOf(this ?? globalObject);
      argumentsRequired(arguments.length, 2, 'EventTarget', 'addEventListener');
      type = domString(type);
      callback = toListener(callback, 'addEventListener');
      // (AddEventListenerOptions or boolean), members in WebIDL's order.
      let capture = false;
      let once = false;
      let passive = false;
      let signal = null;
      if (isObject(options)) {
        capture = !!options.capture;
        once = !!options.once;
        passive = !!options.passive;
        const value = options.signal;
        if (value !== undefined) {
          if (signals === null || !signals.isSignal(value)) {
            throw new TypeErrorCtor('the signal of EventTarget.addEventListener() must be an AbortSignal');
          }
          signal = value;
        }
      } else {
        capture = !!options;
      }
      if (signal !== null && signals.aborted(signal)) return;
      if (callback === null) return;
      const listener = { type, callback, capture, passive, once, signal, removed: false };
      if (findListener(list, type, callback, capture) === -1) list[list.length] = listener;
      if (signal !== null) signals.addAlgorithm(signal, () => removeListener(list, listener));
    }

    removeEventListener(type, callback, options = undefined) {
      const list = listenersOf(this ?? globalObject);
      argumentsRequired(arguments.length, 2, 'EventTarget', 'removeEventListener');
      type = domString(type);
      callback = toListener(callback, 'removeEventListener');
      const capture = isObject(options) ? !!options.capture : !!options;
      const at = findListener(list, type, callback, capture);
      if (at !== -1) {
        list[at].removed = true;
        removeAt(list, at);
      }
    }

    dispatchEvent(event) {
      const target = this ?? globalObject;
      listenersOf(target);
      argumentsRequired(arguments.length, 1, 'EventTarget', 'dispatchEvent');
      const s = peekState(event);
      if (s === null) throw new TypeErrorCtor('EventTarget.dispatchEvent() takes an Event');
      // An event is initialised by its constructor (there is no
      // createEvent), so only the dispatch flag can make it unfit.
      if (s.dispatching) throw new DOMException('the event is already being dispatched', 'InvalidStateError');
      s.trusted = false;
      return dispatch(target, event, s);
    }
  }

  function dispatch(target, event, s) {
    s.dispatching = true;
    s.phase = AT_TARGET;
    invoke(target, event, s, true);
    invoke(target, event, s, false);
    s.phase = NONE;
    s.currentTarget = null;
    s.dispatching = false;
    s.stop = false;
    s.stopImmediate = false;
    return !s.canceled;
  }

  // The spec's "invoke" and "inner invoke" for the one struct of the path.
  // The stop propagation flag keeps an event from other targets; with none
  // to reach, only stopImmediatePropagation() stops listeners here, as in
  // browsers (WPT's Event-propagation-EventTarget expects this).
  function invoke(target, event, s, capturing) {
    s.target = target;
    if (s.stopImmediate) return;
    s.currentTarget = target;
    const live = listenersOf(target);
    if (live.length === 0) return;
    // Listeners added from here on are not run; removed ones are skipped.
    const listeners = copyList(live);
    for (let i = 0; i < listeners.length; i++) {
      const listener = listeners[i];
      if (listener.removed || listener.type !== s.type || listener.capture !== capturing) continue;
      if (listener.once) removeListener(live, listener);
      if (listener.passive) s.inPassive = true;
      try {
        callListener(listener.callback, target, event);
      } catch (error) {
        host.reportError(error);
      }
      s.inPassive = false;
      if (s.stopImmediate) break;
    }
  }

  // WebIDL's "call a user object's operation" for `handleEvent`.
  function callListener(callback, target, event) {
    if (typeof callback === 'function') {
      ReflectApply(callback, target, [event]);
      return;
    }
    const handleEvent = callback.handleEvent;
    if (typeof handleEvent !== 'function') {
      throw new TypeErrorCtor('an event listener object has no handleEvent method');
    }
    ReflectApply(handleEvent, callback, [event]);
  }

  // The spec's "fire an event": dispatched by the platform, so trusted.
  function fire(target, type) {
    const event = new Event(type);
    const s = stateOf(event);
    s.trusted = true;
    return dispatch(target, event, s);
  }

  // AbortSignal is abort.js's, yet addEventListener's `signal` option
  // needs its internals: abort.js hands them over, once.
  function useAbortSignal(hooks) {
    signals = hooks;
  }

  // Makes the global object an EventTarget, as Window and WorkerGlobalScope
  // are: EventTarget.prototype joins its prototype chain.
  function useGlobalEventTarget() {
    globalListeners = [];
    ObjectSetPrototypeOf(globalObject, EventTarget.prototype);
  }

  // Globals: Event, EventTarget, CustomEvent. Not globals: fire and
  // useAbortSignal (for abort.js), useGlobalEventTarget (for the prelude).
  return {
    Event: brand(Event, 'Event'),
    EventTarget: brand(EventTarget, 'EventTarget'),
    CustomEvent: brand(CustomEvent, 'CustomEvent'),
    fire,
    useAbortSignal,
    useGlobalEventTarget,
  };
})
