// structuredClone: the HTML structured clone algorithm, within one realm.
// Spec: https://html.spec.whatwg.org/multipage/structured-data.html#safe-passing-of-structured-data
// WPT: html/webappapis/structured-clone (the table in the README; expectations in tests/wpt/)
//
// Two passes, as the spec's serialise and deserialise: the first walks the
// value depth-first in the spec's order (so getters and proxy traps run as
// they would in a browser) and records what to build; transferred buffers
// are detached only once it succeeded; the second builds the clone. Both
// keep their work on explicit lists, never on the call stack, so nesting
// is bounded by memory alone.
(function (host) {
  'use strict';
  const ObjectCreate = Object.create;
  const ObjectCtor = Object;
  const ObjectDefineProperty = Object.defineProperty;
  const ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
  const ObjectGetPrototypeOf = Object.getPrototypeOf;
  const ObjectSetPrototypeOf = Object.setPrototypeOf;
  const ObjectKeys = Object.keys;
  const ObjectPrototype = Object.prototype;
  const ArrayCtor = Array;
  const ArrayPrototype = Array.prototype;
  const ArrayIsArray = Array.isArray;
  const ArrayBufferCtor = ArrayBuffer;
  const ArrayBufferIsView = ArrayBuffer.isView;
  const BooleanCtor = Boolean;
  const NumberCtor = Number;
  const StringCtor = String;
  const DateCtor = Date;
  const RegExpCtor = RegExp;
  const MapCtor = Map;
  const SetCtor = Set;
  const DataViewCtor = DataView;
  const Uint8ArrayCtor = Uint8Array;
  const TypeErrorCtor = TypeError;
  const SymbolIterator = Symbol.iterator;
  const SymbolToStringTag = Symbol.toStringTag;
  // The brand check for [[ErrorData]] (ES2026; QuickJS-ng has it).
  const ErrorIsError = Error.isError;
  const DOMException = host.DOMException;
  const { Event, EventTarget } = host.events;
  const { AbortController } = host.abort;

  const uncurry = Function.prototype.bind.bind(Function.prototype.call);
  const getter = (object, key) => uncurry(ObjectGetOwnPropertyDescriptor(object, key).get);
  const hasOwn = uncurry(ObjectPrototype.hasOwnProperty);
  const MapGet = uncurry(Map.prototype.get);
  const MapSet = uncurry(Map.prototype.set);
  const MapForEach = uncurry(Map.prototype.forEach);
  const MapSize = getter(Map.prototype, 'size');
  const SetAdd = uncurry(Set.prototype.add);
  const SetForEach = uncurry(Set.prototype.forEach);
  const SetSize = getter(Set.prototype, 'size');
  const BooleanValueOf = uncurry(Boolean.prototype.valueOf);
  const NumberValueOf = uncurry(Number.prototype.valueOf);
  const StringValueOf = uncurry(String.prototype.valueOf);
  const BigIntValueOf = uncurry(BigInt.prototype.valueOf);
  const SymbolToString = uncurry(Symbol.prototype.toString);
  const DateGetTime = uncurry(Date.prototype.getTime);
  const RegExpSource = getter(RegExp.prototype, 'source');
  // [[OriginalFlags]], in the order RegExp.prototype.flags writes them.
  const REGEXP_FLAGS = [
    ['d', 'hasIndices'], ['g', 'global'], ['i', 'ignoreCase'], ['m', 'multiline'],
    ['s', 'dotAll'], ['u', 'unicode'], ['v', 'unicodeSets'], ['y', 'sticky'],
  ].map(([flag, name]) => [flag, getter(RegExp.prototype, name)]);
  const ArrayBufferByteLength = getter(ArrayBuffer.prototype, 'byteLength');
  const ArrayBufferMaxByteLength = getter(ArrayBuffer.prototype, 'maxByteLength');
  const ArrayBufferResizable = getter(ArrayBuffer.prototype, 'resizable');
  const ArrayBufferDetached = getter(ArrayBuffer.prototype, 'detached');
  const ArrayBufferTransfer = uncurry(ArrayBuffer.prototype.transfer);
  // Immutable ArrayBuffers (a stage 3 proposal QuickJS-ng 0.16 has; Node 20
  // has not) stay immutable in a clone and cannot be transferred.
  const immutable = ObjectGetOwnPropertyDescriptor(ArrayBuffer.prototype, 'immutable');
  const ArrayBufferImmutable = immutable === undefined ? () => false : uncurry(immutable.get);
  const ArrayBufferTransferToImmutable = immutable === undefined ? null : uncurry(ArrayBuffer.prototype.transferToImmutable);
  const SharedArrayBufferByteLength = getter(SharedArrayBuffer.prototype, 'byteLength');
  const TypedArrayPrototype = ObjectGetPrototypeOf(Uint8Array.prototype);
  const TypedArrayName = getter(TypedArrayPrototype, SymbolToStringTag);
  const TypedArrayBuffer = getter(TypedArrayPrototype, 'buffer');
  const TypedArrayByteOffset = getter(TypedArrayPrototype, 'byteOffset');
  const TypedArrayByteLength = getter(TypedArrayPrototype, 'byteLength');
  const TypedArrayLength = getter(TypedArrayPrototype, 'length');
  const TypedArrayAt = uncurry(TypedArrayPrototype.at);
  const TypedArraySet = uncurry(TypedArrayPrototype.set);
  const DataViewBuffer = getter(DataView.prototype, 'buffer');
  const DataViewByteOffset = getter(DataView.prototype, 'byteOffset');
  const DataViewByteLength = getter(DataView.prototype, 'byteLength');
  const DOMExceptionName = getter(DOMException.prototype, 'name');
  const DOMExceptionMessage = getter(DOMException.prototype, 'message');
  const EventPhase = getter(Event.prototype, 'eventPhase');
  const removeEventListener = uncurry(EventTarget.prototype.removeEventListener);
  const AbortControllerSignal = getter(AbortController.prototype, 'signal');

  const TYPED_ARRAYS = ObjectCreate(null);
  const typedArrays = [
    Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array,
    Float32Array, Float64Array, BigInt64Array, BigUint64Array,
  ];
  // ES2025: QuickJS-ng has it; Node 20, where this module is also tested,
  // does not.
  if (typeof Float16Array === 'function') typedArrays[typedArrays.length] = Float16Array;
  for (const ctor of typedArrays) TYPED_ARRAYS[ctor.name] = ctor;

  // The errors a clone keeps the type of; any other is an Error.
  const ERRORS = ObjectCreate(null);
  for (const ctor of [Error, EvalError, RangeError, ReferenceError, SyntaxError, TypeError, URIError]) {
    ERRORS[ctor.name] = ctor;
  }

  // What a record builds. LEAF records hold their finished clone from the
  // start; TRANSFER ones get theirs when the buffer is detached.
  const LEAF = 0;
  const TRANSFER = 1;
  const OBJECT = 2;
  const ARRAY = 3;
  const MAP = 4;
  const SET = 5;
  const ERROR = 6;
  const VIEW = 7;

  // Objects classified by a prototype they inherit from, then confirmed by
  // a brand check (a prototype alone can be faked, and a program can give
  // a Map another prototype, which makes it a plain object here).
  const BOXED = 0;
  const DATE = 1;
  const REGEXP = 2;
  const ARRAY_BUFFER = 3;
  const SHARED_ARRAY_BUFFER = 4;
  const MAP_KIND = 5;
  const SET_KIND = 6;
  const DOM_EXCEPTION = 7;
  const PLATFORM = 8;
  const UNCLONABLE = 9;

  const NOT = {};
  // `fn(value)`, or NOT when it throws (a failed brand check).
  function probe(fn, value) {
    try {
      return fn(value);
    } catch (_) {
      return NOT;
    }
  }

  const PROTOTYPES = new MapCtor();
  function classifyBy(proto, kind, what, brand) {
    MapSet(PROTOTYPES, proto, { kind, what, brand });
  }
  const boxed = (unbox, box) => (value) => box(unbox(value));
  classifyBy(Boolean.prototype, BOXED, '', boxed(BooleanValueOf, (v) => new BooleanCtor(v)));
  classifyBy(Number.prototype, BOXED, '', boxed(NumberValueOf, (v) => new NumberCtor(v)));
  classifyBy(String.prototype, BOXED, '', boxed(StringValueOf, (v) => new StringCtor(v)));
  classifyBy(BigInt.prototype, BOXED, '', boxed(BigIntValueOf, ObjectCtor));
  classifyBy(Date.prototype, DATE, '', DateGetTime);
  classifyBy(RegExp.prototype, REGEXP, '', RegExpSource);
  classifyBy(ArrayBuffer.prototype, ARRAY_BUFFER, '', ArrayBufferByteLength);
  classifyBy(SharedArrayBuffer.prototype, SHARED_ARRAY_BUFFER, 'a SharedArrayBuffer', SharedArrayBufferByteLength);
  classifyBy(Map.prototype, MAP_KIND, '', MapSize);
  classifyBy(Set.prototype, SET_KIND, '', SetSize);
  classifyBy(DOMException.prototype, DOM_EXCEPTION, '', DOMExceptionName);
  classifyBy(Event.prototype, PLATFORM, 'an Event', EventPhase);
  // Removing a null callback changes nothing: a side-effect-free brand check.
  classifyBy(EventTarget.prototype, PLATFORM, 'an EventTarget', (value) => removeEventListener(value, '', null));
  classifyBy(AbortController.prototype, PLATFORM, 'an AbortController', AbortControllerSignal);
  // Blobs and Files clone to new ones with the same bytes (web/blob.js
  // makes the copy; its brand check is the copy itself).
  classifyBy(host.blob.File.prototype, BOXED, '', host.blob.cloneBlob);
  classifyBy(host.blob.Blob.prototype, BOXED, '', host.blob.cloneBlob);
  // Objects with internal state a clone cannot carry. Their prototype is
  // taken as proof: these have no brand check free of side effects.
  const iteratorOf = (iterable) => ObjectGetPrototypeOf(iterable[SymbolIterator]());
  for (const [proto, what] of [
    [Symbol.prototype, 'a Symbol object'], [Promise.prototype, 'a Promise'],
    [WeakMap.prototype, 'a WeakMap'], [WeakSet.prototype, 'a WeakSet'],
    [WeakRef.prototype, 'a WeakRef'], [FinalizationRegistry.prototype, 'a FinalizationRegistry'],
    [ObjectGetPrototypeOf(function* () {}).prototype, 'a generator'],
    [ObjectGetPrototypeOf(async function* () {}).prototype, 'an async generator'],
    [iteratorOf([]), 'an iterator'], [iteratorOf(new MapCtor()), 'an iterator'],
    [iteratorOf(new SetCtor()), 'an iterator'], [iteratorOf(''), 'an iterator'],
    [ObjectGetPrototypeOf(/./[Symbol.matchAll]('')), 'an iterator'],
  ]) {
    classifyBy(proto, UNCLONABLE, what, null);
  }

  function dataCloneError(what) {
    return new DOMException(`${what} could not be cloned`, 'DataCloneError');
  }

  function isObject(value) {
    return (typeof value === 'object' && value !== null) || typeof value === 'function';
  }

  function structuredClone(value, options = undefined) {
    if (arguments.length < 1) throw new TypeErrorCtor('structuredClone() takes 1 argument (got 0)');
    const transfer = transferList(options);
    // Source object → its record; records in the order they were made.
    const memory = new MapCtor();
    const records = [];
    const transfers = [];
    for (let i = 0; i < transfer.length; i++) {
      const buffer = transfer[i];
      if (probe(ArrayBufferByteLength, buffer) === NOT) {
        throw new DOMException('structuredClone() can transfer ArrayBuffers only', 'DataCloneError');
      }
      if (MapGet(memory, buffer) !== undefined) {
        throw new DOMException('an ArrayBuffer is listed twice in the transfer list', 'DataCloneError');
      }
      const record = { kind: TRANSFER, clone: undefined };
      MapSet(memory, buffer, record);
      transfers[i] = record;
    }
    const root = serialize(value, memory, records);
    for (let i = 0; i < transfer.length; i++) {
      if (ArrayBufferDetached(transfer[i])) {
        throw new DOMException('an ArrayBuffer in the transfer list is detached', 'DataCloneError');
      }
      if (ArrayBufferImmutable(transfer[i])) {
        throw new DOMException('an immutable ArrayBuffer cannot be transferred', 'DataCloneError');
      }
    }
    for (let i = 0; i < transfer.length; i++) transfers[i].clone = ArrayBufferTransfer(transfer[i]);
    return deserialize(root, records);
  }

  // StructuredSerializeOptions' `transfer`: `sequence<object>`.
  function transferList(options) {
    if (options === undefined || options === null) return [];
    if (!isObject(options)) throw new TypeErrorCtor('the options of structuredClone() must be an object');
    const transfer = options.transfer;
    if (transfer === undefined) return [];
    return host.idl.sequence(transfer, (item) => {
      if (!isObject(item)) throw new TypeErrorCtor('the transfer list holds objects only');
      return item;
    }, 'the transfer list of structuredClone()');
  }

  // The first pass. A frame is an object whose members are still to walk:
  // `keys` of an object or array (`keyed`), or the entries of a Map, the
  // values of a Set, the cause of an Error.
  function serialize(value, memory, records) {
    const stack = [];
    const root = visit(value, memory, records, stack);
    while (stack.length > 0) {
      const frame = stack[stack.length - 1];
      if (frame.at === frame.list.length) {
        stack.length--;
        continue;
      }
      const items = frame.record.items;
      const member = frame.list[frame.at++];
      if (frame.keyed) {
        // A getter may have deleted a key taken before it ran.
        if (!hasOwn(frame.source, member)) continue;
        const ref = visit(frame.source[member], memory, records, stack);
        items[items.length] = member;
        items[items.length] = ref;
      } else {
        items[items.length] = visit(member, memory, records, stack);
      }
    }
    return root;
  }

  // What stands for `value` in the first pass: a primitive itself, an
  // object its record. Members of a new record are walked later, from a
  // frame pushed here.
  function visit(value, memory, records, stack) {
    if (!isObject(value)) {
      if (typeof value === 'symbol') throw dataCloneError(SymbolToString(value));
      return value;
    }
    const known = MapGet(memory, value);
    if (known !== undefined) return known;
    if (typeof value === 'function') throw dataCloneError('a function');
    let list = null;
    let keyed = false;
    let record;
    if (ArrayIsArray(value)) {
      record = { kind: ARRAY, clone: undefined, items: [], length: value.length };
      list = ObjectKeys(value);
      keyed = true;
    } else if (ArrayBufferIsView(value)) {
      record = view(value, memory, records, stack);
    } else {
      record = classified(value);
      if (record === null && ErrorIsError(value)) {
        record = error(value);
        const causeDesc = ObjectGetOwnPropertyDescriptor(value, 'cause');
        if (causeDesc !== undefined && hasOwn(causeDesc, 'value')) list = [causeDesc.value];
      } else if (record === null) {
        record = { kind: OBJECT, clone: undefined, items: [] };
        list = ObjectKeys(value);
        keyed = true;
      } else if (record.kind === MAP) {
        list = [];
        MapForEach(value, (v, k) => {
          list[list.length] = k;
          list[list.length] = v;
        });
      } else if (record.kind === SET) {
        list = [];
        SetForEach(value, (v) => {
          list[list.length] = v;
        });
      }
    }
    MapSet(memory, value, record);
    records[records.length] = record;
    if (list !== null) stack[stack.length] = { record, source: value, list, at: 0, keyed };
    return record;
  }

  // The record of an object the prototype table knows, or null.
  function classified(value) {
    let entry;
    for (let proto = ObjectGetPrototypeOf(value); proto !== null; proto = ObjectGetPrototypeOf(proto)) {
      if (proto === ObjectPrototype || proto === ArrayPrototype) return null;
      entry = MapGet(PROTOTYPES, proto);
      if (entry !== undefined) break;
    }
    if (entry === undefined) return null;
    if (entry.kind === UNCLONABLE) throw dataCloneError(entry.what);
    const branded = probe(entry.brand, value);
    if (branded === NOT) return null;
    switch (entry.kind) {
      case BOXED: return { kind: LEAF, clone: branded };
      case DATE: return { kind: LEAF, clone: new DateCtor(branded) };
      case REGEXP: {
        let flags = '';
        for (let i = 0; i < REGEXP_FLAGS.length; i++) {
          if (REGEXP_FLAGS[i][1](value)) flags += REGEXP_FLAGS[i][0];
        }
        return { kind: LEAF, clone: new RegExpCtor(branded, flags) };
      }
      case ARRAY_BUFFER: return { kind: LEAF, clone: copyBuffer(value, branded) };
      case MAP_KIND: return { kind: MAP, clone: undefined, items: [] };
      case SET_KIND: return { kind: SET, clone: undefined, items: [] };
      case DOM_EXCEPTION: {
        const clone = new DOMException(DOMExceptionMessage(value), branded);
        keepStack(clone, value.stack);
        return { kind: LEAF, clone };
      }
      default: throw dataCloneError(entry.what);
    }
  }

  function copyBuffer(buffer, length) {
    if (ArrayBufferDetached(buffer)) throw dataCloneError('a detached ArrayBuffer');
    const copy = ArrayBufferResizable(buffer)
      ? new ArrayBufferCtor(length, { maxByteLength: ArrayBufferMaxByteLength(buffer) })
      : new ArrayBufferCtor(length);
    TypedArraySet(new Uint8ArrayCtor(copy), new Uint8ArrayCtor(buffer, 0, length));
    return ArrayBufferImmutable(buffer) ? ArrayBufferTransferToImmutable(copy) : copy;
  }

  // A typed array or DataView: its buffer is walked first, so views that
  // share a buffer share its clone.
  function view(value, memory, records, stack) {
    const name = TypedArrayName(value);
    let buffer;
    let offset;
    let length;
    if (name === undefined) {
      // DataView's getters throw when it is out of bounds.
      length = probe(DataViewByteLength, value);
      if (length === NOT) throw dataCloneError('an out-of-bounds DataView');
      offset = DataViewByteOffset(value);
      buffer = DataViewBuffer(value);
    } else {
      // An out-of-bounds typed array reads as empty; `at` tells it apart.
      if (TypedArrayByteLength(value) === 0 && probe(TypedArrayAt, value) === NOT) {
        throw dataCloneError(`an out-of-bounds ${name}`);
      }
      length = TypedArrayLength(value);
      offset = TypedArrayByteOffset(value);
      buffer = TypedArrayBuffer(value);
    }
    const ctor = name === undefined ? DataViewCtor : TYPED_ARRAYS[name];
    return { kind: VIEW, clone: undefined, ctor, buffer: visit(buffer, memory, records, stack), offset, length };
  }

  // An Error keeps its type (one of ERRORS), its own `message`, its stack
  // and, as V8 and SpiderMonkey do, its own `cause`.
  function error(value) {
    const name = value.name;
    const ctor = typeof name === 'string' && ERRORS[name] !== undefined ? ERRORS[name] : ERRORS.Error;
    const messageDesc = ObjectGetOwnPropertyDescriptor(value, 'message');
    const message = messageDesc !== undefined && hasOwn(messageDesc, 'value') ? `${messageDesc.value}` : undefined;
    return { kind: ERROR, clone: undefined, items: [], ctor, message, stack: value.stack };
  }

  function keepStack(clone, stack) {
    if (typeof stack === 'string') defineHidden(clone, 'stack', stack);
  }

  function defineHidden(object, key, value) {
    ObjectDefineProperty(object, key, { __proto__: null, value, writable: true, enumerable: false, configurable: true });
  }

  function deref(ref) {
    return typeof ref === 'object' && ref !== null ? ref.clone : ref;
  }

  // The second pass: every object first, then their members, so a member
  // can be any object (cycles included). Nothing here runs program code:
  // objects and arrays are filled without a prototype (no inherited
  // setter can intercept a key, `__proto__` included) and get it after.
  function deserialize(root, records) {
    for (let i = 0; i < records.length; i++) {
      const r = records[i];
      switch (r.kind) {
        case OBJECT: r.clone = ObjectCreate(null); break;
        case ARRAY: r.clone = ObjectSetPrototypeOf(new ArrayCtor(r.length), null); break;
        case MAP: r.clone = new MapCtor(); break;
        case SET: r.clone = new SetCtor(); break;
        case ERROR: {
          const clone = new r.ctor();
          if (r.message !== undefined) defineHidden(clone, 'message', r.message);
          keepStack(clone, r.stack);
          r.clone = clone;
          break;
        }
        case VIEW: r.clone = new r.ctor(r.buffer.clone, r.offset, r.length); break;
      }
    }
    for (let i = 0; i < records.length; i++) {
      const r = records[i];
      const clone = r.clone;
      const items = r.items;
      switch (r.kind) {
        case OBJECT:
        case ARRAY:
          for (let j = 0; j < items.length; j += 2) clone[items[j]] = deref(items[j + 1]);
          ObjectSetPrototypeOf(clone, r.kind === OBJECT ? ObjectPrototype : ArrayPrototype);
          break;
        case MAP:
          for (let j = 0; j < items.length; j += 2) MapSet(clone, deref(items[j]), deref(items[j + 1]));
          break;
        case SET:
          for (let j = 0; j < items.length; j++) SetAdd(clone, deref(items[j]));
          break;
        case ERROR:
          if (items.length > 0) defineHidden(clone, 'cause', deref(items[0]));
          break;
      }
    }
    return deref(root);
  }

  return { structuredClone };
})
