// The Web IDL conversions and shapes the web modules share.
// Spec: https://webidl.spec.whatwg.org/
(function (host) {
  'use strict';
  const TypeErrorCtor = TypeError;
  const toWellFormed = String.prototype.toWellFormed;
  const ObjectCreate = Object.create;
  const defineProperty = Object.defineProperty;
  const getPrototypeOf = Object.getPrototypeOf;
  const WeakMapCtor = WeakMap;
  const weakGet = WeakMap.prototype.get;
  const weakSet = WeakMap.prototype.set;
  const ReflectApply = Reflect.apply;
  const SymbolIterator = Symbol.iterator;
  const IteratorPrototype = getPrototypeOf(getPrototypeOf([][Symbol.iterator]()));

  // DOMString: ToString, which throws for a Symbol.
  function domString(value) {
    return `${value}`;
  }

  // USVString: a DOMString with lone surrogates replaced by U+FFFD.
  function usv(value) {
    return toWellFormed.call(`${value}`);
  }

  function argumentsRequired(count, required, iface, member) {
    if (count >= required) return;
    const what = member === 'constructor' ? `new ${iface}()` : `${iface}.${member}()`;
    const noun = required === 1 ? 'argument' : 'arguments';
    throw new TypeErrorCtor(`${what} takes ${required} ${noun} (got ${count})`);
  }

  // A dictionary argument: undefined and null mean "all defaults".
  function dictionary(value, iface, member) {
    if (value === undefined || value === null) return {};
    if (typeof value !== 'object' && typeof value !== 'function') {
      throw new TypeErrorCtor(`the options of ${iface}.${member}() must be an object`);
    }
    return value;
  }

  // sequence<T>: the items of an iterable object, each through `convert`
  // (which throws for an item of the wrong type). `what` names the caller.
  function sequence(iterable, convert, what) {
    const isObject = (v) => (typeof v === 'object' && v !== null) || typeof v === 'function';
    const method = isObject(iterable) ? iterable[SymbolIterator] : undefined;
    if (typeof method !== 'function') throw new TypeErrorCtor(`${what} takes an iterable`);
    const iterator = ReflectApply(method, iterable, []);
    if (!isObject(iterator)) throw new TypeErrorCtor(`${what}: the iterator is not an object`);
    const next = iterator.next;
    const list = [];
    for (;;) {
      const step = ReflectApply(next, iterator, []);
      if (!isObject(step)) throw new TypeErrorCtor(`${what}: an iterator result is not an object`);
      if (step.done) return list;
      list[list.length] = convert(step.value);
    }
  }

  // A value-pair iterable (`iterable<K, V>`): entries, keys, values,
  // forEach and @@iterator over `listOf(object)`, a list of [key, value]
  // read afresh at every step, so iteration sees later changes.
  function defineIterator(Class, name, listOf) {
    const states = new WeakMapCtor();
    const proto = ObjectCreate(IteratorPrototype);
    const method = (object, key, fn) => defineProperty(object, key, {
      value: fn, writable: true, enumerable: true, configurable: true,
    });
    method(proto, 'next', function next() {
      const state = ReflectApply(weakGet, states, [this]);
      if (state === undefined) throw new TypeErrorCtor('Illegal invocation');
      const list = listOf(state.target);
      if (state.index >= list.length) return { value: undefined, done: true };
      const [key, value] = list[state.index++];
      const item = state.kind === 'keys' ? key : state.kind === 'values' ? value : [key, value];
      return { value: item, done: false };
    });
    defineProperty(proto, Symbol.toStringTag, { value: `${name} Iterator`, configurable: true });
    const iterate = (target, kind) => {
      listOf(target); // the brand check
      const iterator = ObjectCreate(proto);
      ReflectApply(weakSet, states, [iterator, { target, kind, index: 0 }]);
      return iterator;
    };
    const entries = { entries() { return iterate(this, 'entries'); } }.entries;
    method(Class.prototype, 'entries', entries);
    method(Class.prototype, 'keys', { keys() { return iterate(this, 'keys'); } }.keys);
    method(Class.prototype, 'values', { values() { return iterate(this, 'values'); } }.values);
    method(Class.prototype, 'forEach', {
      forEach(callback, thisArg = undefined) {
        listOf(this);
        if (typeof callback !== 'function') {
          throw new TypeErrorCtor(`${name}.forEach() takes a function`);
        }
        for (let i = 0; i < listOf(this).length; i++) {
          const [key, value] = listOf(this)[i];
          ReflectApply(callback, thisArg, [value, key, this]);
        }
      },
    }.forEach);
    defineProperty(Class.prototype, Symbol.iterator, { value: entries, writable: true, configurable: true });
  }

  // Makes `Class` an interface object: its prototype's toStringTag.
  function brand(Class, name) {
    defineProperty(Class.prototype, Symbol.toStringTag, { value: name, configurable: true });
    return Class;
  }

  return { domString, usv, argumentsRequired, dictionary, sequence, defineIterator, brand };
})
