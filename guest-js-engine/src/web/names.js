// util.inspect's names for values, as Node 20 writes them. Spec: https://nodejs.org/docs/latest-v20.x/api/util.html#utilinspectobject-options
// WPT: console/ (the table in the README; expectations in tests/wpt/)
//
// How Node tells kinds of values apart and names them: constructor names,
// function and class headlines, boxed primitives, the keys it shows, and
// errors (their stack, the class when the headline lacks it, the frames
// shared with the cause folded, the `[cause]` and `[errors]` after them).
//
// Brand checks use the builtins' own accessors (Map's `size`, Date's
// `getTime`), which throw for other objects, proxies included, and run
// none of the program's code. QuickJS's `stack` holds only the frames
// (`    at f (file:line:col)`); V8's starts with the headline `Name:
// message`, which is what Node shows: it is written here from the error's
// name and message when the stack is read, as V8 does on first access.
(function (host) {
  'use strict';
  const { push, join, contains, indexOf, lines, indent, prefixOf } = host.layout;
  // The host's view of a promise (a native: JS cannot read a promise's
  // state): ['pending'] | ['fulfilled', value] | ['rejected', reason], or
  // undefined for a non-promise. Optional: without it promises are pending.
  const promiseState = [host.promiseState, host.natives && host.natives.promiseState]
    .find((f) => typeof f === 'function');
  const uncurry = Function.prototype.bind.bind(Function.prototype.call);
  const { keys: objectKeys, getOwnPropertyNames, getOwnPropertySymbols, getOwnPropertyDescriptor,
    getPrototypeOf, hasOwn } = Object;
  const getterOf = (proto, key) => uncurry(getOwnPropertyDescriptor(proto, key).get);
  const isEnumerable = uncurry(Object.prototype.propertyIsEnumerable);
  const objectToString = uncurry(Object.prototype.toString);
  const isArray = Array.isArray;
  const splice = uncurry(Array.prototype.splice);
  const { min } = Math;
  const StringCtor = String;
  const ErrorCtor = Error;
  const PromiseCtor = Promise;
  const hasIsError = typeof Error.isError === 'function';
  const isNativeError = hasIsError ? Error.isError : () => false;
  const errorToString = uncurry(Error.prototype.toString);
  const stringSlice = uncurry(String.prototype.slice);
  const stringIndexOf = uncurry(String.prototype.indexOf);
  const startsWith = uncurry(String.prototype.startsWith);
  const endsWith = uncurry(String.prototype.endsWith);
  const repeat = uncurry(String.prototype.repeat);
  const regExpExec = uncurry(RegExp.prototype.exec);
  const regExpSource = getterOf(RegExp.prototype, 'source');
  const RegExpPrototype = RegExp.prototype;
  const dateGetTime = uncurry(Date.prototype.getTime);
  const mapSize = getterOf(Map.prototype, 'size');
  const setSize = getterOf(Set.prototype, 'size');
  const weakMapHas = uncurry(WeakMap.prototype.has);
  const weakSetHas = uncurry(WeakSet.prototype.has);
  const arrayBufferByteLength = getterOf(ArrayBuffer.prototype, 'byteLength');
  const sharedByteLength = typeof SharedArrayBuffer === 'function'
    ? getterOf(SharedArrayBuffer.prototype, 'byteLength') : undefined;
  const dataViewByteLength = getterOf(DataView.prototype, 'byteLength');
  const BOXED = [
    ['Number', uncurry(Number.prototype.valueOf)], ['String', uncurry(String.prototype.valueOf)],
    ['Boolean', uncurry(Boolean.prototype.valueOf)], ['BigInt', uncurry(BigInt.prototype.valueOf)],
    ['Symbol', uncurry(Symbol.prototype.valueOf)],
  ];
  const functionToString = uncurry(Function.prototype.toString);
  const AsyncFunctionPrototype = getPrototypeOf(async function () {});
  const GeneratorFunctionPrototype = getPrototypeOf(function* () {});
  const AsyncGeneratorFunctionPrototype = getPrototypeOf(async function* () {});
  const INDEX_KEY = /^(0|[1-9][0-9]*)$/;
  const DUPLICATE_KEYS = ['name', 'message', 'stack'];
  // Arrays this long are not scanned for non-index properties: finding
  // them costs a key per element.
  const MAX_SCANNED_LENGTH = 65536;

  function isInstance(value, ctor) {
    try { return value instanceof ctor; } catch (_) { return false; }
  }

  // The name Node writes before an object: its nearest named constructor;
  // null when its prototype chain ends without one; else the object's
  // class and its prototype (`describe`d when it is nameless too).
  function constructorName(obj, depth, recurseTimes, describe) {
    let first;
    for (let at = obj; at !== null && (typeof at === 'object' || typeof at === 'function');) {
      const desc = getOwnPropertyDescriptor(at, 'constructor');
      if (desc !== undefined && typeof desc.value === 'function' && desc.value.name !== ''
          && isInstance(obj, desc.value)) {
        return StringCtor(desc.value.name);
      }
      at = getPrototypeOf(at);
      if (first === undefined) first = at;
    }
    if (first === null) return null;
    const own = stringSlice(objectToString(obj), 8, -1);
    if (recurseTimes > depth) return `${own} <Complex prototype>`;
    const protoName = constructorName(first, depth, depth + 1, describe);
    return `${own} <${protoName !== null ? protoName : describe(first)}>`;
  }

  function ownKeys(value, showHidden) {
    const keys = showHidden ? getOwnPropertyNames(value) : objectKeys(value);
    const symbols = getOwnPropertySymbols(value);
    for (let i = 0; i < symbols.length; i++) {
      if (showHidden || isEnumerable(value, symbols[i])) push(keys, symbols[i]);
    }
    return keys;
  }

  function nonIndexKeys(value, length, showHidden) {
    if (length > MAX_SCANNED_LENGTH) return showHidden ? ['length'] : [];
    const all = ownKeys(value, showHidden);
    const keys = [];
    for (let i = 0; i < all.length; i++) {
      if (typeof all[i] !== 'string' || regExpExec(INDEX_KEY, all[i]) === null) push(keys, all[i]);
    }
    return keys;
  }

  function brand(check, value) {
    try { check(value); return true; } catch (_) { return false; }
  }
  const isMap = (value) => brand(mapSize, value);
  const isSet = (value) => brand(setSize, value);
  const isRegExp = (value) => value !== RegExpPrototype && brand(regExpSource, value);
  const isDate = (value) => brand(dateGetTime, value);
  const isArrayBuffer = (value) => brand(arrayBufferByteLength, value);
  const isSharedArrayBuffer = (value) => sharedByteLength !== undefined && brand(sharedByteLength, value);
  const isDataView = (value) => brand(dataViewByteLength, value);
  const isWeakMap = (value) => brand((v) => weakMapHas(v, {}), value);
  const isWeakSet = (value) => brand((v) => weakSetHas(v, {}), value);

  // A promise's state; null for a promise whose state is not known; undefined for a non-promise.
  function promiseOf(value) {
    if (promiseState !== undefined) {
      let state;
      try { state = promiseState(value); } catch (_) { state = undefined; }
      if (state !== undefined && state !== null) return state;
    }
    return isInstance(value, PromiseCtor) ? null : undefined;
  }

  // `[Number: 3]` and the like, or '' when `value` boxes no primitive.
  function boxedBase(value, keys, constructor, tag, show) {
    for (let i = 0; i < BOXED.length; i++) {
      const type = BOXED[i][0];
      let primitive;
      try { primitive = BOXED[i][1](value); } catch (_) { continue; }
      if (type === 'String') splice(keys, 0, primitive.length);
      let base = `[${type}`;
      if (type !== constructor) base += constructor === null ? ' (null prototype)' : ` (${constructor})`;
      base += `: ${show(primitive)}]`;
      if (tag !== '' && tag !== constructor) base += ` [${tag}]`;
      return base;
    }
    return '';
  }

  // A function's source that is a class: `class` up to a `{` with no `(`
  // before it (outside comments, for `class A extends f() {`).
  function isClassSource(source) {
    if (!startsWith(source, 'class') || !endsWith(source, '}')) return false;
    const body = stringSlice(source, 5, -1);
    const brace = stringIndexOf(body, '{');
    if (brace === -1) return false;
    if (!contains(stringSlice(body, 0, brace), '(')) return true;
    let code = '';
    for (let i = 0; i < body.length; i++) {
      if (body[i] === '/' && (body[i + 1] === '/' || body[i + 1] === '*')) {
        const end = body[i + 1] === '/' ? stringIndexOf(body, '\n', i) : stringIndexOf(body, '*/', i + 2) + 1;
        i = end <= 0 ? body.length : end;
        continue;
      }
      code += body[i];
    }
    return regExpExec(/^(\s+[^(]*?)\s*{/, code) !== null;
  }

  function functionBase(fn, constructor, tag) {
    let source = '';
    try { source = functionToString(fn); } catch (_) { /* not a function's source */ }
    if (isClassSource(source)) {
      let base = `class ${(hasOwn(fn, 'name') && fn.name) || '(anonymous)'}`;
      if (constructor !== 'Function' && constructor !== null) base += ` [${constructor}]`;
      if (tag !== '' && constructor !== tag) base += ` [${tag}]`;
      if (constructor === null) base += ' extends [null prototype]';
      else if (getPrototypeOf(fn).name) base += ` extends ${getPrototypeOf(fn).name}`;
      return `[${base}]`;
    }
    const proto = getPrototypeOf(fn);
    let type = 'Function';
    if (proto === GeneratorFunctionPrototype) type = 'GeneratorFunction';
    else if (proto === AsyncFunctionPrototype) type = 'AsyncFunction';
    else if (proto === AsyncGeneratorFunctionPrototype) type = 'AsyncGeneratorFunction';
    const name = fn.name;
    let base = `[${type}${constructor === null ? ' (null prototype)' : ''}${name === '' ? ' (anonymous)' : `: ${name}`}]`;
    if (constructor !== type && constructor !== null) base += ` ${constructor}`;
    if (tag !== '' && constructor !== tag) base += ` [${tag}]`;
    return base;
  }

  // ---- errors -------------------------------------------------------------

  // Node's test: a native error, or an object inheriting from Error.
  function isError(value) {
    return isNativeError(value) || isInstance(value, ErrorCtor)
      || (!hasIsError && objectToString(value) === '[object Error]');
  }

  function headline(err) {
    try { return errorToString(err); } catch (_) { return 'Error'; }
  }

  function trimBreaks(text) {
    while (endsWith(text, '\n')) text = stringSlice(text, 0, -1);
    return text;
  }

  // The stack as V8 would hold it: the headline, then the frames.
  function stackOf(err) {
    let stack;
    try { stack = err.stack; } catch (_) { stack = undefined; }
    if (!stack) return headline(err);
    stack = trimBreaks(StringCtor(stack));
    if (stack === '') return headline(err);
    return startsWith(stack, '    at ') ? `${headline(err)}\n${stack}` : stack;
  }

  // A thrown error as a run's failure shows it: the headline, then the
  // stack (a stack set by the program is kept, under the headline).
  function errorText(err) {
    try {
      const head = headline(err);
      const stack = err.stack;
      if (typeof stack !== 'string' || trimBreaks(stack) === '') return head;
      return startsWith(stack, head) ? trimBreaks(stack) : `${head}\n${trimBreaks(stack)}`;
    } catch (_) {
      return '[Error]';
    }
  }

  // An error whose class is missing from its headline gets it, as Node
  // does: `MyError: msg` for `class MyError extends Error {}`, `VE
  // [ValidationError]: msg` when the name is not the class's.
  function improveStack(stack, constructor, name, tag) {
    let length = name.length;
    if (constructor === null || (endsWith(name, 'Error') && startsWith(stack, name)
        && (stack.length === length || stack[length] === ':' || stack[length] === '\n'))) {
      let fallback = 'Error';
      if (constructor === null) {
        const start = regExpExec(/^([A-Z][a-z_ A-Z0-9[\]()-]+)(?::|\n\s+at)/, stack)
          || regExpExec(/^([a-z_A-Z0-9-]*Error)$/, stack);
        fallback = (start && start[1]) || '';
        length = fallback.length;
        fallback = fallback || 'Error';
      }
      const prefix = stringSlice(prefixOf(constructor, tag, fallback), 0, -1);
      if (name !== prefix) {
        if (contains(prefix, name)) stack = length === 0 ? `${prefix}: ${stack}` : `${prefix}${stringSlice(stack, length)}`;
        else stack = `${prefix} [${name}]${stringSlice(stack, length)}`;
      }
    }
    return stack;
  }

  // Frames an error shares with its cause are shown once, under the cause.
  function foldCauseFrames(err, frames) {
    let cause;
    try { cause = err.cause; } catch (_) { return frames; }
    if (cause === null || typeof cause !== 'object' || !isError(cause)) return frames;
    const causeStack = stackOf(cause);
    const at = stringIndexOf(causeStack, '\n    at');
    if (at === -1) return frames;
    const theirs = lines(stringSlice(causeStack, at + 1), false);
    for (let i = 0; i < frames.length - 3; i++) {
      const pos = indexOf(theirs, frames[i]);
      if (pos === -1 || theirs.length - pos <= 3) continue;
      let length = 1;
      const most = min(frames.length - i, theirs.length - pos);
      while (most > length && frames[i + length] === theirs[pos + length]) length++;
      if (length > 3) {
        const skipped = length - 2;
        splice(frames, i + 1, skipped, `    ... ${skipped} lines matching cause stack trace ...`);
        return frames;
      }
    }
    return frames;
  }

  // The error's text before its properties; `keys` (its own keys to show)
  // loses those the stack already shows and gains `cause` and `errors`.
  function formatError(err, constructor, tag, ctx, keys) {
    let name = 'Error';
    let message;
    let errors;
    try { if (err.name != null) name = StringCtor(err.name); } catch (_) { /* keep 'Error' */ }
    try { message = err.message; } catch (_) { message = undefined; }
    try { errors = err.errors; } catch (_) { errors = undefined; }
    let stack = stackOf(err);
    if (!ctx.showHidden && keys.length !== 0) {
      for (let i = 0; i < DUPLICATE_KEYS.length; i++) {
        const at = indexOf(keys, DUPLICATE_KEYS[i]);
        if (at === -1) continue;
        let shown;
        try { shown = contains(stack, StringCtor(err[DUPLICATE_KEYS[i]])); } catch (_) { shown = false; }
        if (shown) splice(keys, at, 1);
      }
    }
    if ('cause' in err && indexOf(keys, 'cause') === -1) push(keys, 'cause');
    if (isArray(errors) && indexOf(keys, 'errors') === -1) push(keys, 'errors');
    stack = improveStack(stack, constructor, name, tag);
    // Frames start after the message (which may hold `\n    at` itself).
    let pos = -1;
    if (message) {
      const text = StringCtor(message);
      pos = stringIndexOf(stack, text) || -1;
      if (pos !== -1) pos += text.length;
    }
    const framesAt = stringIndexOf(stack, '\n    at', pos);
    if (framesAt === -1) {
      stack = `[${stack}]`;
    } else {
      const frames = foldCauseFrames(err, lines(stringSlice(stack, framesAt + 1), false));
      stack = `${stringSlice(stack, 0, framesAt)}\n${join(frames, '\n')}`;
    }
    if (ctx.indentationLvl !== 0) stack = indent(stack, repeat(' ', ctx.indentationLvl));
    return stack;
  }

  return {
    constructorName, ownKeys, nonIndexKeys, isMap, isSet, isRegExp, isDate, isArrayBuffer, isSharedArrayBuffer,
    isDataView, isWeakMap, isWeakSet, promiseOf, boxedBase, functionBase, isError, errorText, formatError,
  };
})
