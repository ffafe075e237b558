// util.inspect, as Node 20 writes values. Spec: https://nodejs.org/docs/latest-v20.x/api/util.html#utilinspectobject-options
// WPT: console/ (the table in the README; expectations in tests/wpt/)
//
// Node's defaults: depth 2, breakLength 80, compact 3, maxArrayLength 100,
// maxStringLength 10000. Written from Node's documented behaviour and its
// observed output (the golden cases in tests/runtime/fixtures/console-node.json);
// the layout is web/layout.js's, names and errors web/names.js's, `%`
// directives web/format.js's. What JavaScript cannot see is shown as the
// nearest thing it can: a proxy through its traps (Node shows its target),
// a promise's state only through `host.promiseState` (['pending'] |
// ['fulfilled', value] | ['rejected', reason], undefined for a
// non-promise), else `Promise { <pending> }`.
//
// Every rendering spends a budget (`room`, in UTF-16 units): once it is
// spent lists end with `...`, so a huge value costs work in proportion to
// what is shown. Nothing a value does (throwing getters or traps, a hostile
// `toString`) makes a rendering throw: the part that threw reads
// `<Inspection threw (message)>`.
(function (host) {
  'use strict';
  const { push, indexOf, indent, quote, escapeText, stringWidth, prefixOf, reduceToSingleString } = host.layout;
  const { constructorName, ownKeys, nonIndexKeys, isMap, isSet, isRegExp, isDate, isArrayBuffer,
    isSharedArrayBuffer, isDataView, isWeakMap, isWeakSet, promiseOf, boxedBase, functionBase,
    isError, errorText, formatError } = host.names;
  const uncurry = Function.prototype.bind.bind(Function.prototype.call);
  const { keys: objectKeys, getOwnPropertyDescriptor, getPrototypeOf, is: objectIs, hasOwn, freeze } = Object;
  const getterOf = (proto, key) => uncurry(getOwnPropertyDescriptor(proto, key).get);
  const isEnumerable = uncurry(Object.prototype.propertyIsEnumerable);
  const objectToString = uncurry(Object.prototype.toString);
  const isArray = Array.isArray;
  const splice = uncurry(Array.prototype.splice);
  const { min, max } = Math;
  const StringCtor = String;
  const NumberCtor = Number;
  const stringSlice = uncurry(String.prototype.slice);
  const stringIndexOf = uncurry(String.prototype.indexOf);
  const repeat = uncurry(String.prototype.repeat);
  const padStart = uncurry(String.prototype.padStart);
  const numberToString = uncurry(Number.prototype.toString);
  const regExpExec = uncurry(RegExp.prototype.exec);
  const regExpToString = uncurry(RegExp.prototype.toString);
  const dateGetTime = uncurry(Date.prototype.getTime);
  const dateToISOString = uncurry(Date.prototype.toISOString);
  const mapSize = getterOf(Map.prototype, 'size');
  const mapEntries = uncurry(Map.prototype.entries);
  const mapIteratorNext = uncurry(getPrototypeOf(new Map().entries()).next);
  const setSize = getterOf(Set.prototype, 'size');
  const setValues = uncurry(Set.prototype.values);
  const setIteratorNext = uncurry(getPrototypeOf(new Set().values()).next);
  const TypedArrayPrototype = getPrototypeOf(Uint8Array.prototype);
  const typedArrayTag = getterOf(TypedArrayPrototype, Symbol.toStringTag);
  const typedArrayLength = getterOf(TypedArrayPrototype, 'length');
  const Uint8ArrayCtor = Uint8Array;
  const symbolToString = uncurry(Symbol.prototype.toString);
  const ErrorCtor = Error;
  const ReflectApply = Reflect.apply;
  const { iterator: SymbolIterator, toStringTag: SymbolToStringTag } = Symbol;
  const custom = Symbol.for('nodejs.util.inspect.custom');
  const { inspectPlain } = host.natives;

  const BARE_KEY = /^[a-zA-Z_][a-zA-Z_0-9]*$/;
  const INDEX_KEY = /^(0|[1-9][0-9]*)$/;
  const NUMERIC_OPTIONS = ['depth', 'breakLength', 'compact', 'maxArrayLength', 'maxStringLength'];
  const TYPED_ARRAY_HIDDEN = ['BYTES_PER_ELEMENT', 'length', 'byteLength', 'byteOffset', 'buffer'];
  const OBJECT = 0; const ARRAY = 1; const ARRAY_EXTRAS = 2;

  // What a program's returned value shows: everything, within the caller's
  // room, without calling the program's own inspect hooks. (console.log
  // shows what Node's defaults show: no options.)
  const RETURNED = freeze({ depth: 64, maxArrayLength: Infinity, maxStringLength: Infinity, customInspect: false });

  function plural(n, noun) { return `${n} ${noun}${n > 1 ? 's' : ''}`; }
  function moreItems(n) { return `... ${plural(n, 'more item')}`; }
  function describe(error) {
    try { return error instanceof ErrorCtor ? StringCtor(error.message) : StringCtor(error); } catch (_) { return 'unknown'; }
  }
  function threw(error) { return `<Inspection threw (${describe(error)})>`; }

  function context(options, budget) {
    const ctx = {
      depth: 2, breakLength: 80, compact: 3, maxArrayLength: 100, maxStringLength: 10000,
      showHidden: false, customInspect: true,
      budget, indentationLvl: 0, seen: [], circular: [], currentDepth: 0,
    };
    if (options !== null && typeof options === 'object') {
      for (let i = 0; i < NUMERIC_OPTIONS.length; i++) {
        const key = NUMERIC_OPTIONS[i];
        const value = options[key];
        if (typeof value === 'number' && value === value) ctx[key] = value;
        else if (value === null && key !== 'breakLength' && key !== 'compact') ctx[key] = Infinity;
      }
      if (options.showHidden !== undefined) ctx.showHidden = !!options.showHidden;
      if (options.customInspect !== undefined) ctx.customInspect = !!options.customInspect;
    }
    return ctx;
  }
  function spend(ctx, text) {
    ctx.budget.room -= text.length;
    return text;
  }
  function outOfRoom(ctx, output) {
    if (ctx.budget.room > 0) return false;
    if (output[output.length - 1] !== '...') push(output, '...');
    return true;
  }

  // ---- primitives ---------------------------------------------------------

  function formatNumber(n) { return objectIs(n, -0) ? '-0' : `${n}`; }

  function formatPrimitive(ctx, value) {
    switch (typeof value) {
      case 'string': return spend(ctx, formatString(ctx, value));
      case 'number': return spend(ctx, formatNumber(value));
      case 'bigint': return spend(ctx, `${value}n`);
      case 'symbol': return spend(ctx, symbolToString(value));
      default: return spend(ctx, `${value}`);
    }
  }

  function formatString(ctx, text) {
    let trailer = '';
    const limit = min(ctx.maxStringLength, max(ctx.budget.room, 0));
    if (text.length > limit) {
      trailer = `... ${plural(text.length - limit, 'more character')}`;
      text = stringSlice(text, 0, limit);
    }
    // Long text with line breaks: one literal per line, joined by `+`.
    if (text.length > 16 && text.length > ctx.breakLength - ctx.indentationLvl - 4) {
      let out = '';
      let from = 0;
      while (from < text.length) {
        let end = stringIndexOf(text, '\n', from);
        end = end === -1 ? text.length : end + 1;
        out += (from === 0 ? '' : ` +\n${repeat(' ', ctx.indentationLvl + 2)}`) + quote(stringSlice(text, from, end));
        from = end;
      }
      return out + trailer;
    }
    return quote(text) + trailer;
  }

  // ---- objects ------------------------------------------------------------

  function formatValue(ctx, value, recurseTimes, typedArray) {
    // Plain data (a long string; dense arrays and ordinary objects of
    // primitives) is formatted natively by the same steps (src/render/),
    // unless it declines.
    const kind = typeof value;
    if ((kind === 'object' && value !== null && typedArray === undefined) || (kind === 'string' && value.length > 32)) {
      const text = inspectPlain(value, ctx, recurseTimes, custom);
      if (text !== undefined) return text;
    }
    if (kind !== 'object' && kind !== 'function') return formatPrimitive(ctx, value);
    if (value === null) return spend(ctx, 'null');
    const level = ctx.indentationLvl;
    const seen = ctx.seen.length;
    try {
      if (ctx.customInspect) {
        const maybe = value[custom];
        if (typeof maybe === 'function' && maybe !== inspect && !isOwnPrototype(value)) {
          const depth = ctx.depth - recurseTimes;
          const options = { depth, breakLength: ctx.breakLength, compact: ctx.compact, colors: false,
            showHidden: ctx.showHidden, maxArrayLength: ctx.maxArrayLength, maxStringLength: ctx.maxStringLength,
            stylize: (text) => text };
          const result = ReflectApply(maybe, value, [depth, options, inspect]);
          if (result !== value) {
            if (typeof result !== 'string') return formatValue(ctx, result, recurseTimes);
            return spend(ctx, indent(result, repeat(' ', ctx.indentationLvl)));
          }
        }
      }
      if (indexOf(ctx.seen, value) !== -1) {
        let index = indexOf(ctx.circular, value);
        if (index === -1) { index = ctx.circular.length; push(ctx.circular, value); }
        return spend(ctx, `[Circular *${index + 1}]`);
      }
      return formatRaw(ctx, value, recurseTimes, typedArray);
    } catch (error) {
      ctx.indentationLvl = level;
      ctx.seen.length = seen;
      return spend(ctx, threw(error));
    }
  }

  function isOwnPrototype(value) {
    const ctor = value.constructor;
    return !!ctor && ctor.prototype === value;
  }

  function formatRaw(ctx, value, recurseTimes, typedArray) {
    const constructor = constructorName(value, ctx.depth, recurseTimes,
      (proto) => formatValue(context({ depth: -1, customInspect: false }, { room: Infinity }), proto, 0));
    let tag = value[SymbolToStringTag];
    // A tag the object owns (enumerable) is shown with its keys instead.
    if (typeof tag !== 'string' || (tag !== '' && (ctx.showHidden ? hasOwn : isEnumerable)(value, SymbolToStringTag))) tag = '';
    let keys;
    let base = '';
    let braces = ['{', '}'];
    let formatter = () => [];
    let extras = OBJECT;
    let state;
    let plain = true;
    if (value[SymbolIterator] || constructor === null) {
      plain = false;
      if (isArray(value)) {
        const length = value.length;
        const prefix = constructor !== 'Array' || tag !== '' ? prefixOf(constructor, tag, 'Array', `(${length})`) : '';
        keys = nonIndexKeys(value, length, ctx.showHidden);
        braces = [`${prefix}[`, ']'];
        if (length === 0 && keys.length === 0) return spend(ctx, `${braces[0]}]`);
        extras = ARRAY_EXTRAS;
        formatter = formatArray;
      } else if (isSet(value) || isMap(value)) {
        const map = isMap(value);
        const size = map ? mapSize(value) : setSize(value);
        const prefix = prefixOf(constructor, tag, map ? 'Map' : 'Set', `(${size})`);
        keys = ownKeys(value, ctx.showHidden);
        if (size === 0 && keys.length === 0) return spend(ctx, `${prefix}{}`);
        braces = [`${prefix}{`, '}'];
        formatter = map ? formatMap : formatSet;
      } else if (typedArrayTag(value) !== undefined) {
        const size = typedArrayLength(value);
        keys = nonIndexKeys(value, size, false);
        const prefix = prefixOf(constructor, tag, constructor === null ? typedArrayTag(value) : '', `(${size})`);
        braces = [`${prefix}[`, ']'];
        if (size === 0 && keys.length === 0 && !ctx.showHidden) return spend(ctx, `${braces[0]}]`);
        extras = ARRAY_EXTRAS;
        formatter = formatTypedArray;
      } else {
        plain = true;
      }
    }
    if (plain) {
      keys = ownKeys(value, ctx.showHidden);
      if (typeof value === 'function') {
        base = functionBase(value, constructor, tag);
        if (keys.length === 0) return spend(ctx, base);
      } else if (constructor === 'Object') {
        if (objectToString(value) === '[object Arguments]') braces[0] = '[Arguments] {';
        else if (tag !== '') braces[0] = `${prefixOf(constructor, tag, 'Object')}{`;
        if (keys.length === 0) return spend(ctx, `${braces[0]}}`);
      } else if (isRegExp(value)) {
        base = regExpToString(value);
        const prefix = prefixOf(constructor, tag, 'RegExp');
        if (prefix !== 'RegExp ') base = `${prefix}${base}`;
        if (keys.length === 0 || recurseTimes > ctx.depth) return spend(ctx, base);
      } else if (isDate(value)) {
        const time = dateGetTime(value);
        base = time === time ? dateToISOString(value) : 'Invalid Date';
        const prefix = prefixOf(constructor, tag, 'Date');
        if (prefix !== 'Date ') base = `${prefix}${base}`;
        if (keys.length === 0) return spend(ctx, base);
      } else if (isError(value)) {
        base = formatError(value, constructor, tag, ctx, keys);
        if (keys.length === 0) return spend(ctx, base);
      } else if (isArrayBuffer(value) || isSharedArrayBuffer(value)) {
        const prefix = prefixOf(constructor, tag, isArrayBuffer(value) ? 'ArrayBuffer' : 'SharedArrayBuffer');
        if (typedArray === undefined) formatter = formatArrayBuffer;
        else if (keys.length === 0) return spend(ctx, `${prefix}{ byteLength: ${formatNumber(value.byteLength)} }`);
        braces[0] = `${prefix}{`;
        splice(keys, 0, 0, 'byteLength');
      } else if (isDataView(value)) {
        braces[0] = `${prefixOf(constructor, tag, 'DataView')}{`;
        splice(keys, 0, 0, 'byteLength', 'byteOffset', 'buffer');
      } else if ((state = promiseOf(value)) !== undefined) {
        braces[0] = `${prefixOf(constructor, tag, 'Promise')}{`;
        formatter = (c, v, r) => formatPromise(c, state, r);
      } else if (isWeakSet(value) || isWeakMap(value)) {
        braces[0] = `${prefixOf(constructor, tag, isWeakSet(value) ? 'WeakSet' : 'WeakMap')}{`;
        formatter = () => ['<items unknown>'];
      } else if ((base = boxedBase(value, keys, constructor, tag, (p) => formatPrimitive(ctx, p))) !== '') {
        if (keys.length === 0) return spend(ctx, base);
      } else {
        if (keys.length === 0) return spend(ctx, `${prefixOf(constructor, tag, 'Object')}{}`);
        braces[0] = `${prefixOf(constructor, tag, 'Object')}{`;
      }
    }
    if (recurseTimes > ctx.depth) {
      const name = stringSlice(prefixOf(constructor, tag, 'Object'), 0, -1);
      return spend(ctx, constructor !== null ? `[${name}]` : name);
    }
    recurseTimes += 1;
    push(ctx.seen, value);
    ctx.currentDepth = recurseTimes;
    const output = formatter(ctx, value, recurseTimes);
    for (let i = 0; i < keys.length && !outOfRoom(ctx, output); i++) {
      push(output, formatProperty(ctx, value, recurseTimes, keys[i], extras));
    }
    const index = indexOf(ctx.circular, value);
    if (index !== -1) base = base === '' ? `<ref *${index + 1}>` : `<ref *${index + 1}> ${base}`;
    ctx.seen.length -= 1;
    return reduceToSingleString(ctx, output, base, braces, extras === ARRAY_EXTRAS, recurseTimes, value);
  }

  function formatProperty(ctx, value, recurseTimes, key, type) {
    const desc = getOwnPropertyDescriptor(value, key) || { value: value[key], enumerable: true };
    let text;
    if (desc.value !== undefined) {
      ctx.indentationLvl += 2;
      text = formatValue(ctx, desc.value, recurseTimes);
      ctx.indentationLvl -= 2;
    } else if (desc.get !== undefined) {
      text = spend(ctx, desc.set !== undefined ? '[Getter/Setter]' : '[Getter]');
    } else {
      text = spend(ctx, desc.set !== undefined ? '[Setter]' : 'undefined');
    }
    if (type === ARRAY) return text;
    let name;
    if (typeof key === 'symbol') name = `[${symbolToString(key)}]`;
    else if (key === '__proto__') name = "['__proto__']";
    else if (desc.enumerable === false) name = `[${escapeText(key, false)}]`;
    else if (regExpExec(BARE_KEY, key) !== null) name = key;
    else name = quote(key);
    return `${spend(ctx, name)}: ${text}`;
  }

  function formatArray(ctx, value, recurseTimes) {
    const length = value.length;
    const limit = min(max(0, ctx.maxArrayLength), length);
    const output = [];
    for (let i = 0; i < limit; i++) {
      if (outOfRoom(ctx, output)) return output;
      if (!hasOwn(value, i)) return formatSparseArray(ctx, value, recurseTimes, limit, output, i);
      push(output, formatProperty(ctx, value, recurseTimes, i, ARRAY));
    }
    if (length > limit) push(output, moreItems(length - limit));
    return output;
  }

  // From the first hole on: a run of holes is one entry, `<n empty items>`.
  function formatSparseArray(ctx, value, recurseTimes, limit, output, from) {
    const keys = objectKeys(value);
    let next = from;
    for (let k = from; k < keys.length && output.length < limit; k++) {
      if (outOfRoom(ctx, output)) return output;
      const index = NumberCtor(keys[k]);
      if (regExpExec(INDEX_KEY, keys[k]) === null || index > 4294967294) break;
      if (index !== next) {
        push(output, `<${plural(index - next, 'empty item')}>`);
        next = index;
        if (output.length === limit) break;
      }
      push(output, formatProperty(ctx, value, recurseTimes, keys[k], ARRAY));
      next++;
    }
    const remaining = value.length - next;
    if (remaining > 0) push(output, output.length !== limit ? `<${plural(remaining, 'empty item')}>` : moreItems(remaining));
    return output;
  }

  function formatTypedArray(ctx, value, recurseTimes) {
    const length = typedArrayLength(value);
    const limit = min(max(0, ctx.maxArrayLength), length);
    const output = [];
    for (let i = 0; i < limit; i++) {
      if (outOfRoom(ctx, output)) return output;
      const element = value[i];
      push(output, spend(ctx, typeof element === 'bigint' ? `${element}n` : formatNumber(element)));
    }
    if (length > limit) push(output, moreItems(length - limit));
    if (ctx.showHidden) {
      ctx.indentationLvl += 2;
      for (let i = 0; i < TYPED_ARRAY_HIDDEN.length; i++) {
        const key = TYPED_ARRAY_HIDDEN[i];
        push(output, `[${key}]: ${formatValue(ctx, value[key], recurseTimes, true)}`);
      }
      ctx.indentationLvl -= 2;
    }
    return output;
  }

  function formatArrayBuffer(ctx, value) {
    let bytes;
    try { bytes = new Uint8ArrayCtor(value); } catch (_) { return ['(detached)']; }
    const shown = min(max(0, ctx.maxArrayLength), bytes.length, max(ctx.budget.room, 0));
    let hex = '';
    for (let i = 0; i < shown; i++) hex += (i === 0 ? '' : ' ') + padStart(numberToString(bytes[i], 16), 2, '0');
    spend(ctx, hex);
    if (bytes.length > shown) hex += ` ... ${plural(bytes.length - shown, 'more byte')}`;
    return [`[Uint8Contents]: <${hex}>`];
  }

  function formatSet(ctx, value, recurseTimes) {
    return formatEntries(ctx, setValues(value), setIteratorNext, setSize(value), recurseTimes, false);
  }
  function formatMap(ctx, value, recurseTimes) {
    return formatEntries(ctx, mapEntries(value), mapIteratorNext, mapSize(value), recurseTimes, true);
  }
  function formatEntries(ctx, iterator, next, size, recurseTimes, pairs) {
    const limit = min(max(0, ctx.maxArrayLength), size);
    const output = [];
    ctx.indentationLvl += 2;
    for (let i = 0; i < limit && !outOfRoom(ctx, output); i++) {
      const step = next(iterator);
      if (step.done) break;
      const entry = step.value;
      push(output, pairs
        ? `${formatValue(ctx, entry[0], recurseTimes)} => ${formatValue(ctx, entry[1], recurseTimes)}`
        : formatValue(ctx, entry, recurseTimes));
    }
    ctx.indentationLvl -= 2;
    if (size > limit) push(output, moreItems(size - limit));
    return output;
  }

  function formatPromise(ctx, state, recurseTimes) {
    if (state === null || state[0] === 'pending') return ['<pending>'];
    ctx.indentationLvl += 2;
    const text = formatValue(ctx, state[1], recurseTimes);
    ctx.indentationLvl -= 2;
    return [state[0] === 'rejected' ? `<rejected> ${text}` : text];
  }

  // ---- entry points -------------------------------------------------------

  // `value` as `util.inspect(value, options)` writes it, within `room`
  // characters (then lists end with `...`).
  function inspect(value, options, room) {
    // A number, a boolean, undefined or a bigint reads the same whatever
    // the options (formatPrimitive's text): no context to make for it.
    const kind = typeof value;
    if (kind !== 'object' && kind !== 'string' && kind !== 'function' && kind !== 'symbol') {
      return kind === 'number' ? formatNumber(value) : kind === 'bigint' ? `${value}n` : `${value}`;
    }
    return formatValue(context(options, { room: typeof room === 'number' ? room : Infinity }), value, 0);
  }

  return { inspect, formatNumber, threw, quote, errorText, stringWidth, custom, RETURNED };
})
