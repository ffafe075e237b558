// The guest prelude. Evaluated once, when the snapshot is taken, as a
// function of the guest's natives; what it returns is kept by the guest and
// never reachable from programs. Everything a program could patch later
// (prototypes, globals) is captured here first, so a program that breaks
// builtins breaks only itself.
(function (natives, modules) {
  'use strict';
  const { hostLog, hostCall, timerSet, random, now, timeOrigin } = natives;

  const ObjectCreate = Object.create;
  const defineProperty = Object.defineProperty;
  const getPrototypeOf = Object.getPrototypeOf;
  const getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
  const objectKeys = Object.keys;
  const isArray = Array.isArray;
  const isView = ArrayBuffer.isView;
  const JSONStringify = JSON.stringify;
  const PromiseCtor = Promise;
  const PromiseReject = Promise.reject.bind(Promise);
  const ErrorCtor = Error;
  const TypeErrorCtor = TypeError;
  const RangeErrorCtor = RangeError;
  const NumberCtor = Number;
  const Uint8ArrayCtor = Uint8Array;
  const Float32ArrayCtor = Float32Array;
  const Float64ArrayCtor = Float64Array;
  const DataViewCtor = DataView;
  const ReflectApply = Reflect.apply;
  const StringCtor = String;
  const MapCtor = Map;
  const SetCtor = Set;
  const WeakMapCtor = WeakMap;
  const WeakSetCtor = WeakSet;
  const DateCtor = Date;
  const RegExpCtor = RegExp;
  const mapEntries = Map.prototype.entries;
  const setValues = Set.prototype.values;
  const dateToISOString = Date.prototype.toISOString;
  const dateGetTime = Date.prototype.getTime;
  const regExpToString = RegExp.prototype.toString;
  const functionToString = Function.prototype.toString;
  const symbolToString = Symbol.prototype.toString;
  const toWellFormed = String.prototype.toWellFormed;
  // Keys `util.inspect` writes bare (Node's rule: no `$`); any other key is
  // quoted. Not an identifier rule: names in code and labels are the
  // host's.
  const BARE_KEY = /^[a-zA-Z_][a-zA-Z_0-9]*$/;
  // How much of a value each rendering shows before eliding (`[Object]`,
  // `... 5 more items`): console output as Node's `util.inspect` does; a
  // returned value (the program's answer) all of it, up to a depth that
  // keeps rendering off the stack limit, within the host's byte cap.
  const LOGGED = { depth: 2, items: 100 };
  const RETURNED = { depth: 64, items: Infinity };
  const BREAK_LENGTH = 72;

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

  // ---- rendering, close to Node's util.inspect ----------------------------

  // `s` quoted, at most `max` UTF-16 units of it: the rest is counted.
  function quote(s, max = Infinity) {
    let out = "'";
    let at = 0;
    for (const ch of s) {
      if (at >= max) return `${out}'... ${s.length - at} more characters`;
      at += ch.length;
      const c = ch.codePointAt(0);
      if (ch === "'") out += "\\'";
      else if (ch === '\\') out += '\\\\';
      else if (ch === '\n') out += '\\n';
      else if (ch === '\t') out += '\\t';
      else if (ch === '\r') out += '\\r';
      else if (c < 0x20 || c === 0x7f) out += '\\x' + c.toString(16).padStart(2, '0');
      else out += ch;
    }
    return out + "'";
  }

  function renderKey(key) {
    return BARE_KEY.test(key) ? key : quote(key);
  }

  function functionLabel(fn) {
    let source = '';
    try { source = functionToString.call(fn); } catch (_) { /* opaque */ }
    let name = '';
    try { name = typeof fn.name === 'string' ? fn.name : ''; } catch (_) { /* getter threw */ }
    if (source.startsWith('class')) return name ? `[class ${name}]` : '[class (anonymous)]';
    return name ? `[Function: ${name}]` : '[Function (anonymous)]';
  }

  function errorText(err) {
    try {
      if (typeof err.stack === 'string' && err.stack.length > 0) {
        const head = headline(err);
        return err.stack.startsWith(head) ? err.stack : `${head}\n${err.stack}`.trimEnd();
      }
      return headline(err);
    } catch (_) {
      return '[Error]';
    }
  }

  function headline(err) {
    const name = StringCtor(err.name ?? 'Error');
    const message = StringCtor(err.message ?? '');
    return message === '' ? name : `${name}: ${message}`;
  }

  function wrap(prefix, parts, open, close, indent) {
    if (parts.length === 0) return `${prefix}${open}${close}`;
    const single = `${prefix}${open} ${parts.join(', ')} ${close}`;
    if (single.length <= BREAK_LENGTH && !parts.some((p) => p.includes('\n'))) return single;
    const pad = '  '.repeat(indent + 1);
    return `${prefix}${open}\n${pad}${parts.join(`,\n${pad}`)}\n${'  '.repeat(indent)}${close}`;
  }

  // Whether a list must stop before its item `shown` of `total`: out of
  // room (`...`), or at the item limit (`... 5 more items`).
  function stop(parts, shown, total, limits, noun) {
    if (limits.room <= 0) {
      parts.push('...');
      return true;
    }
    if (shown === limits.items) {
      parts.push(`... ${total - shown} more ${noun}`);
      return true;
    }
    return false;
  }

  function propertyParts(obj, seen, depth, limits, skipIndices) {
    const parts = [];
    const keys = objectKeys(obj);
    let shown = 0;
    for (const key of keys) {
      if (skipIndices && /^(0|[1-9][0-9]*)$/.test(key)) continue;
      if (stop(parts, shown, keys.length, limits, 'properties')) break;
      shown++;
      const desc = getOwnPropertyDescriptor(obj, key);
      const name = renderKey(key);
      limits.room -= name.length;
      let rendered;
      if (desc && (desc.get || desc.set)) rendered = desc.get && desc.set ? '[Getter/Setter]' : desc.get ? '[Getter]' : '[Setter]';
      else rendered = render(desc ? desc.value : undefined, seen, depth + 1, limits);
      parts.push(`${name}: ${rendered}`);
    }
    return parts;
  }

  // A value that renders without recursing, or `undefined`.
  function leaf(value, seen, depth, limits) {
    switch (typeof value) {
      case 'string': return depth === 0 ? value : quote(value, limits.room);
      case 'number': return Object.is(value, -0) ? '-0' : StringCtor(value);
      case 'bigint': return `${value}n`;
      case 'boolean': return value ? 'true' : 'false';
      case 'undefined': return 'undefined';
      case 'symbol': return symbolToString.call(value);
      case 'function': return functionLabel(value);
    }
    if (value === null) return 'null';
    if (seen.includes(value)) return '[Circular]';
    if (value instanceof ErrorCtor) return errorText(value);
    if (value instanceof DateCtor) {
      const t = dateGetTime.call(value);
      return t === t ? dateToISOString.call(value) : 'Invalid Date';
    }
    if (value instanceof RegExpCtor) return regExpToString.call(value);
    if (value instanceof PromiseCtor) return 'Promise { <opaque> }';
    if (value instanceof WeakMapCtor) return 'WeakMap { <items unknown> }';
    if (value instanceof WeakSetCtor) return 'WeakSet { <items unknown> }';
    return undefined;
  }

  // Leaves spend the rendering's room (`limits.room`, in UTF-16 units);
  // lists stop once it is spent.
  function render(value, seen, depth, limits) {
    const text = leaf(value, seen, depth, limits);
    if (text !== undefined) {
      limits.room -= text.length;
      return text;
    }
    const nested = depth > limits.depth;
    const indent = depth;
    seen.push(value);
    try {
      if (value instanceof MapCtor) {
        if (nested) return '[Map]';
        const parts = [];
        let shown = 0;
        for (const [k, v] of mapEntries.call(value)) {
          if (stop(parts, shown++, value.size, limits, 'items')) break;
          parts.push(`${render(k, seen, depth + 1, limits)} => ${render(v, seen, depth + 1, limits)}`);
        }
        return wrap(`Map(${value.size}) `, parts, '{', '}', indent);
      }
      if (value instanceof SetCtor) {
        if (nested) return '[Set]';
        const parts = [];
        let shown = 0;
        for (const v of setValues.call(value)) {
          if (stop(parts, shown++, value.size, limits, 'items')) break;
          parts.push(render(v, seen, depth + 1, limits));
        }
        return wrap(`Set(${value.size}) `, parts, '{', '}', indent);
      }
      if (isArray(value) || isView(value)) {
        const typed = !isArray(value);
        const name = typed ? `${getPrototypeOf(value)?.constructor?.name ?? 'TypedArray'}(${value.length}) ` : '';
        if (nested) return typed ? `[${name.trim()}]` : '[Array]';
        const parts = [];
        const length = value.length;
        let complete = true;
        for (let i = 0; i < length; i++) {
          if (stop(parts, i, length, limits, 'items')) {
            complete = false;
            break;
          }
          parts.push(typed || i in value ? render(value[i], seen, depth + 1, limits) : '<empty item>');
        }
        if (!typed && complete) parts.push(...propertyParts(value, seen, depth, limits, true));
        return wrap(name, parts, '[', ']', indent);
      }
      const proto = getPrototypeOf(value);
      let prefix = '';
      if (proto === null) prefix = '[Object: null prototype] ';
      else {
        let ctorName = 'Object';
        try { ctorName = proto.constructor?.name || 'Object'; } catch (_) { /* hostile getter */ }
        if (ctorName !== 'Object') prefix = `${ctorName} `;
      }
      if (nested) return prefix === '' ? '[Object]' : `[${prefix.trim()}]`;
      return wrap(prefix, propertyParts(value, seen, depth, limits, false), '{', '}', indent);
    } finally {
      seen.pop();
    }
  }

  // `value` rendered under `limits` (how deep, how many items) within
  // `room` characters.
  function inspect(value, limits = LOGGED, room = Infinity) {
    try {
      return render(value, [], 0, { depth: limits.depth, items: limits.items, room });
    } catch (e) {
      return '[value could not be rendered]';
    }
  }

  function nested(value) {
    return typeof value === 'string' ? quote(value) : inspect(value);
  }

  function format(args) {
    let out = '';
    let rest = 0;
    if (typeof args[0] === 'string' && args.length > 1 && args[0].includes('%')) {
      const fmt = args[0];
      let next = 1;
      rest = 1;
      for (let i = 0; i < fmt.length; i++) {
        const ch = fmt[i];
        if (ch !== '%' || i + 1 === fmt.length) { out += ch; continue; }
        const spec = fmt[i + 1];
        if (spec === '%') { out += '%'; i++; continue; }
        if (!'sdifjoOc'.includes(spec)) { out += ch; continue; }
        i++;
        if (next >= args.length) { out += `%${spec}`; continue; }
        const arg = args[next++];
        switch (spec) {
          case 's': out += typeof arg === 'string' ? arg : inspect(arg); break;
          case 'd': case 'i': {
            const n = typeof arg === 'bigint' ? arg : Number(arg);
            out += typeof n === 'bigint' ? `${n}n` : StringCtor(spec === 'i' ? Math.trunc(n) : n);
            break;
          }
          case 'f': out += StringCtor(Number(arg)); break;
          case 'j': try { out += JSONStringify(arg); } catch (_) { out += '[Circular]'; } break;
          case 'c': break;
          default: out += nested(arg);
        }
      }
      rest = next;
    }
    for (let i = rest; i < args.length; i++) {
      const arg = args[i];
      const text = typeof arg === 'string' ? arg : inspect(arg);
      out = out === '' && i === 0 ? text : `${out} ${text}`;
    }
    return out;
  }

  // ---- console ------------------------------------------------------------

  const LEVELS = { log: 0, info: 1, warn: 2, error: 3, debug: 4 };
  const console = {};
  for (const name of objectKeys(LEVELS)) {
    const level = LEVELS[name];
    defineProperty(console, name, {
      value: { [name](...args) { hostLog(level, wellFormed(format(args))); } }[name],
      writable: true, configurable: true, enumerable: true,
    });
  }
  defineProperty(globalThis, 'console', { value: console, writable: true, configurable: true, enumerable: false });

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
  };
  function wire(name, globals) {
    const exports = modules[name](host);
    host[name] = exports;
    for (const global of globals) {
      defineProperty(globalThis, global, { value: exports[global], writable: true, configurable: true, enumerable: false });
    }
  }
  wire('idl', []);
  wire('encoding', ['TextEncoder', 'TextDecoder']);
  wire('url', ['URL', 'URLSearchParams']);
  wire('crypto', ['crypto', 'Crypto', 'SubtleCrypto', 'CryptoKey']);
  wire('performance', ['performance', 'Performance', 'PerformanceEntry', 'PerformanceMark', 'PerformanceMeasure']);
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

  // A binding returns the promise `hostCall` made; the guest's event loop
  // settles it from Rust when the host reports the call settled.
  function makeBinding(ns, fn, label, name) {
    const call = {
      [name](arg) {
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
          // The host refused the call (too many in flight, an argument too
          // large or too deep): say which binding.
          const why = e instanceof ErrorCtor ? StringCtor(e.message) : StringCtor(e);
          return PromiseReject(new ErrorCtor(`${label}: ${why}`));
        }
      },
    }[name];
    return call;
  }

  // `decls`: [global, name, label, name, label, ...] per namespace; the
  // host validated the globals and names and wrote the labels. A run
  // installs every binding it is given, so this is on the path of every
  // cold run and grows with the catalog: indexing instead of destructuring
  // (which goes through the array iterator) and assignment instead of a
  // descriptor halve its cost per binding. On an object without a
  // prototype, assignment defines the same data property (writable,
  // enumerable, configurable) for every name, `__proto__` included.
  function installBindings(decls) {
    for (let ns = 0; ns < decls.length; ns++) {
      const entry = decls[ns];
      const target = ObjectCreate(null);
      for (let at = 1, fn = 0; at < entry.length; at += 2, fn++) {
        const name = entry[at];
        target[name] = makeBinding(ns, fn, entry[at + 1], name);
      }
      defineProperty(globalThis, entry[0], { value: target, writable: true, configurable: true, enumerable: false });
    }
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
    return wellFormed(inspect(value, RETURNED, room));
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

  return { installBindings, hostError, encodeResult, display, renderThrown, fireTimer };
})
