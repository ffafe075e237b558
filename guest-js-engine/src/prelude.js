// The guest prelude. Evaluated once, when the snapshot is taken, as a
// function of the guest's natives; what it returns is kept by the guest and
// never reachable from programs. Everything a program could patch later
// (prototypes, globals) is captured here first, so a program that breaks
// builtins breaks only itself.
(function (natives) {
  'use strict';
  const { hostLog, hostCall, random } = natives;

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
  const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
  const MAX_DEPTH = 2;
  const MAX_ITEMS = 100;
  const BREAK_LENGTH = 72;

  defineProperty(Math, 'random', { value: random, writable: true, configurable: true, enumerable: false });

  // ---- rendering, close to Node's util.inspect ----------------------------

  function quote(s) {
    let out = "'";
    for (const ch of s) {
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
    return IDENTIFIER.test(key) ? key : quote(key);
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

  function propertyParts(obj, seen, depth, skipIndices) {
    const parts = [];
    const keys = objectKeys(obj);
    let shown = 0;
    for (const key of keys) {
      if (skipIndices && /^(0|[1-9][0-9]*)$/.test(key)) continue;
      if (shown === MAX_ITEMS) { parts.push(`... ${keys.length - shown} more properties`); break; }
      shown++;
      const desc = getOwnPropertyDescriptor(obj, key);
      let rendered;
      if (desc && (desc.get || desc.set)) rendered = desc.get && desc.set ? '[Getter/Setter]' : desc.get ? '[Getter]' : '[Setter]';
      else rendered = render(desc ? desc.value : undefined, seen, depth + 1);
      parts.push(`${renderKey(key)}: ${rendered}`);
    }
    return parts;
  }

  function render(value, seen, depth) {
    switch (typeof value) {
      case 'string': return depth === 0 ? value : quote(value);
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
    const nested = depth + 1 > MAX_DEPTH + 1;
    const indent = depth;
    seen.push(value);
    try {
      if (value instanceof MapCtor) {
        if (nested) return '[Map]';
        const parts = [];
        for (const [k, v] of mapEntries.call(value)) {
          if (parts.length === MAX_ITEMS) { parts.push(`... ${value.size - MAX_ITEMS} more items`); break; }
          parts.push(`${render(k, seen, depth + 1)} => ${render(v, seen, depth + 1)}`);
        }
        return wrap(`Map(${value.size}) `, parts, '{', '}', indent);
      }
      if (value instanceof SetCtor) {
        if (nested) return '[Set]';
        const parts = [];
        for (const v of setValues.call(value)) {
          if (parts.length === MAX_ITEMS) { parts.push(`... ${value.size - MAX_ITEMS} more items`); break; }
          parts.push(render(v, seen, depth + 1));
        }
        return wrap(`Set(${value.size}) `, parts, '{', '}', indent);
      }
      if (isArray(value) || isView(value)) {
        const typed = !isArray(value);
        const name = typed ? `${getPrototypeOf(value)?.constructor?.name ?? 'TypedArray'}(${value.length}) ` : '';
        if (nested) return typed ? `[${name.trim()}]` : '[Array]';
        const parts = [];
        const length = typed ? value.length : value.length;
        for (let i = 0; i < length && i < MAX_ITEMS; i++) {
          parts.push(typed || i in value ? render(value[i], seen, depth + 1) : '<empty item>');
        }
        if (length > MAX_ITEMS) parts.push(`... ${length - MAX_ITEMS} more items`);
        if (!typed) parts.push(...propertyParts(value, seen, depth, true));
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
      return wrap(prefix, propertyParts(value, seen, depth, false), '{', '}', indent);
    } finally {
      seen.pop();
    }
  }

  function inspect(value) {
    try {
      return render(value, [], 0);
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
      value: { [name](...args) { hostLog(level, format(args)); } }[name],
      writable: true, configurable: true, enumerable: true,
    });
  }
  defineProperty(globalThis, 'console', { value: console, writable: true, configurable: true, enumerable: false });

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
          return PromiseReject(e);
        }
      },
    }[name];
    return call;
  }

  function installBindings(decls) {
    for (let ns = 0; ns < decls.length; ns++) {
      const [global, names] = decls[ns];
      const target = ObjectCreate(null);
      for (let fn = 0; fn < names.length; fn++) {
        const name = names[fn];
        const label = IDENTIFIER.test(name) ? `${global}.${name}` : `${global}[${JSONStringify(name)}]`;
        defineProperty(target, name, {
          value: makeBinding(ns, fn, label, name),
          writable: true, configurable: true, enumerable: true,
        });
      }
      defineProperty(globalThis, global, { value: target, writable: true, configurable: true, enumerable: false });
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

  // The value as JSON text, or `undefined` for no value. Values JSON cannot
  // carry faithfully become a JSON string holding their inspect rendering.
  function encodeResult(value) {
    if (value === undefined) return undefined;
    if (isPlainJson(value)) return JSONStringify(value);
    let json;
    try {
      json = JSONStringify(value, resultReplacer);
    } catch (e) {
      json = undefined;
    }
    return json === undefined ? JSONStringify(inspect(value)) : json;
  }

  function renderThrown(e) {
    try {
      if (e instanceof ErrorCtor) {
        const stack = typeof e.stack === 'string' && e.stack !== '' ? e.stack : undefined;
        return { message: headline(e), stack };
      }
      return { message: typeof e === 'string' ? e : inspect(e), stack: undefined };
    } catch (_) {
      return { message: 'a value that could not be rendered was thrown', stack: undefined };
    }
  }

  return { installBindings, hostError, encodeResult, renderThrown };
})
