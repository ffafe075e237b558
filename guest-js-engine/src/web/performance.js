// performance: now, timeOrigin, User Timing's marks and measures, and the
// Performance Timeline's PerformanceObserver.
// Spec: https://w3c.github.io/hr-time/, https://w3c.github.io/user-timing/,
// https://w3c.github.io/performance-timeline/
// WPT: hr-time/, user-timing/ (the table in the README; expectations in tests/wpt/)
//
// Time is the run's: `now()` counts from the run's start on the host's
// monotonic clock, or on the virtual clock of a deterministic run
// (QuickJS's own `performance` would count from when the snapshot was
// taken, on another machine).
(function (host) {
  'use strict';
  const { now, timeOrigin } = host.natives;
  const { domString, dictionary, brand } = host.idl;
  const DOMExceptionCtor = host.DOMException;
  const clone = host.clone ? host.clone.structuredClone : (value) => value;
  const TypeErrorCtor = TypeError;
  const NumberCtor = Number;
  const arraySort = Array.prototype.sort;
  const EventTargetBase = host.events ? host.events.EventTarget : Object;

  // Entries are made only by `mark` and `measure` (and the mark
  // constructor), never by scripts' `new PerformanceEntry`.
  let constructing = false;

  class PerformanceEntry {
    #name; #entryType; #startTime; #duration;
    constructor(name, entryType, startTime, duration) {
      if (!constructing) throw new TypeErrorCtor('Illegal constructor: PerformanceEntry');
      this.#name = name;
      this.#entryType = entryType;
      this.#startTime = startTime;
      this.#duration = duration;
    }
    get name() { return this.#name; }
    get entryType() { return this.#entryType; }
    get startTime() { return this.#startTime; }
    get duration() { return this.#duration; }
    toJSON() {
      return { name: this.name, entryType: this.entryType, startTime: this.startTime, duration: this.duration };
    }
  }

  function entry(Class, ...args) {
    constructing = true;
    try {
      return new Class(...args);
    } finally {
      constructing = false;
    }
  }

  class PerformanceMark extends PerformanceEntry {
    #detail;
    constructor(markName, markOptions = undefined) {
      const name = domString(markName);
      const options = dictionary(markOptions, 'PerformanceMark', 'constructor');
      let startTime;
      if (options.startTime === undefined) startTime = now();
      else {
        startTime = NumberCtor(options.startTime);
        if (!(startTime >= 0)) throw new TypeErrorCtor(`a mark's startTime must be a non-negative number (got ${options.startTime})`);
      }
      const detail = options.detail === undefined ? null : clone(options.detail);
      const wasConstructing = constructing;
      constructing = true;
      try {
        super(name, 'mark', startTime, 0);
      } finally {
        constructing = wasConstructing;
      }
      this.#detail = detail;
    }
    get detail() { return this.#detail; }
  }

  class PerformanceMeasure extends PerformanceEntry {
    #detail;
    constructor(name, startTime, duration, detail) {
      super(name, 'measure', startTime, duration);
      this.#detail = detail;
    }
    get detail() { return this.#detail; }
  }

  const entries = [];

  // ---- PerformanceObserver ---------------------------------------------------

  const SUPPORTED = Object.freeze(['mark', 'measure']);
  // Registered observers' states: { observer, callback, types, mode, buffer }.
  const registered = [];
  let taskQueued = false;

  // The timeline's "queue a PerformanceEntry": each observer that wants its
  // type gets it, and their callbacks run in a task of their own.
  function queueEntry(e) {
    for (let i = 0; i < registered.length; i++) {
      const state = registered[i];
      if (state.types.includes(e.entryType)) state.buffer.push(e);
    }
    queueTask();
  }

  function queueTask() {
    if (taskQueued) return;
    taskQueued = true;
    host.setTimeout(() => {
      taskQueued = false;
      const observers = registered.slice();
      for (let i = 0; i < observers.length; i++) {
        const state = observers[i];
        const list = state.buffer;
        state.buffer = [];
        if (list.length === 0) continue;
        try {
          state.callback.call(state.observer, entryList(list), state.observer);
        } catch (error) {
          host.reportError(error);
        }
      }
    }, 0);
  }

  function sortedByTime(list) {
    return arraySort.call(list.slice(), (a, b) => a.startTime - b.startTime);
  }

  let listOf;
  let creatingList = false;

  class PerformanceObserverEntryList {
    #entries;
    constructor(list) {
      if (!creatingList) throw new TypeErrorCtor('Illegal constructor: PerformanceObserverEntryList');
      this.#entries = list;
    }
    static {
      listOf = (value) => {
        if (value === null || typeof value !== 'object' || !(#entries in value)) throw new TypeErrorCtor('Illegal invocation');
        return value.#entries;
      };
    }
    getEntries() { return sortedByTime(listOf(this)); }
    getEntriesByType(type) {
      const list = listOf(this);
      const wanted = domString(type);
      return sortedByTime(list.filter((e) => e.entryType === wanted));
    }
    getEntriesByName(name, type = undefined) {
      const list = listOf(this);
      const wantedName = domString(name);
      const wantedType = type === undefined ? undefined : domString(type);
      return sortedByTime(list.filter((e) => e.name === wantedName && (wantedType === undefined || e.entryType === wantedType)));
    }
  }

  function entryList(list) {
    creatingList = true;
    try {
      return new PerformanceObserverEntryList(list);
    } finally {
      creatingList = false;
    }
  }

  let stateOf;

  class PerformanceObserver {
    #state;
    constructor(callback) {
      if (typeof callback !== 'function') throw new TypeErrorCtor('new PerformanceObserver() takes a callback function');
      this.#state = { observer: this, callback, types: [], mode: undefined, buffer: [] };
    }

    static {
      stateOf = (value) => {
        if (value === null || typeof value !== 'object' || !(#state in value)) throw new TypeErrorCtor('Illegal invocation');
        return value.#state;
      };
    }

    static get supportedEntryTypes() { return SUPPORTED; }

    observe(options = undefined) {
      const state = stateOf(this);
      const init = dictionary(options, 'PerformanceObserver', 'observe');
      const buffered = init.buffered === undefined ? undefined : !!init.buffered;
      const entryTypes = init.entryTypes === undefined ? undefined
        : host.idl.sequence(init.entryTypes, domString, 'PerformanceObserver.observe(): entryTypes');
      const type = init.type === undefined ? undefined : domString(init.type);
      if (entryTypes === undefined && type === undefined) {
        throw new TypeErrorCtor('PerformanceObserver.observe() needs entryTypes or type');
      }
      if (entryTypes !== undefined && (type !== undefined || buffered !== undefined)) {
        throw new TypeErrorCtor('PerformanceObserver.observe(): entryTypes cannot go with type or buffered');
      }
      const mode = entryTypes !== undefined ? 'multiple' : 'single';
      if (state.mode !== undefined && state.mode !== mode) {
        throw new DOMExceptionCtor('PerformanceObserver.observe(): an observer observes by entryTypes or by type, not both',
          'InvalidModificationError');
      }
      if (mode === 'multiple') {
        const types = entryTypes.filter((t) => SUPPORTED.includes(t));
        if (types.length === 0) return;
        state.types = types;
      } else {
        if (!SUPPORTED.includes(type)) return;
        if (!state.types.includes(type)) state.types.push(type);
        if (buffered) {
          for (let i = 0; i < entries.length; i++) if (entries[i].entryType === type) state.buffer.push(entries[i]);
          if (state.buffer.length > 0) queueTask();
        }
      }
      state.mode = mode;
      if (!registered.includes(state)) registered.push(state);
    }

    disconnect() {
      const state = stateOf(this);
      const index = registered.indexOf(state);
      if (index !== -1) registered.splice(index, 1);
      state.buffer = [];
      state.types = [];
      state.mode = undefined;
    }

    takeRecords() {
      const state = stateOf(this);
      const list = state.buffer;
      state.buffer = [];
      return list;
    }
  }

  // A mark's name, or a time, as the time it stands for.
  function timeOf(markOrTime, what) {
    if (typeof markOrTime === 'number') {
      if (markOrTime < 0) throw new TypeErrorCtor(`${what} must not be negative (got ${markOrTime})`);
      return markOrTime;
    }
    const name = domString(markOrTime);
    for (let i = entries.length - 1; i >= 0; i--) {
      const e = entries[i];
      if (e.entryType === 'mark' && e.name === name) return e.startTime;
    }
    throw new DOMExceptionCtor(`the mark '${name}' does not exist`, 'SyntaxError');
  }

  function matching(type, name) {
    const found = entries.filter((e) => (type === undefined || e.entryType === type) && (name === undefined || e.name === name));
    return arraySort.call(found, (a, b) => a.startTime - b.startTime);
  }

  function clear(type, name) {
    for (let i = entries.length - 1; i >= 0; i--) {
      if (entries[i].entryType === type && (name === undefined || entries[i].name === domString(name))) entries.splice(i, 1);
    }
  }

  class Performance extends EventTargetBase {
    constructor() {
      if (!constructing) throw new TypeErrorCtor('Illegal constructor: Performance');
      super();
    }
    now() { return now(); }
    get timeOrigin() { return timeOrigin(); }
    toJSON() { return { timeOrigin: this.timeOrigin }; }

    mark(markName, markOptions = undefined) {
      const mark = new PerformanceMark(markName, markOptions);
      entries.push(mark);
      queueEntry(mark);
      return mark;
    }

    measure(measureName, startOrMeasureOptions = undefined, endMark = undefined) {
      const name = domString(measureName);
      const options = startOrMeasureOptions !== null && typeof startOrMeasureOptions === 'object'
        ? startOrMeasureOptions : undefined;
      const given = options !== undefined
        && (options.start !== undefined || options.end !== undefined || options.duration !== undefined || options.detail !== undefined);
      if (given) {
        if (endMark !== undefined) throw new TypeErrorCtor('performance.measure() takes an end mark or options, not both');
        if (options.start === undefined && options.end === undefined) {
          throw new TypeErrorCtor('performance.measure() options need a start or an end');
        }
        if (options.start !== undefined && options.end !== undefined && options.duration !== undefined) {
          throw new TypeErrorCtor('performance.measure() options take at most two of start, end and duration');
        }
      }
      let end;
      if (endMark !== undefined) end = timeOf(endMark, 'the end mark');
      else if (given && options.end !== undefined) end = timeOf(options.end, 'end');
      else if (given && options.start !== undefined && options.duration !== undefined) {
        end = timeOf(options.start, 'start') + timeOf(NumberCtor(options.duration), 'duration');
      } else end = now();
      let start;
      if (given && options.start !== undefined) start = timeOf(options.start, 'start');
      else if (given && options.duration !== undefined && options.end !== undefined) {
        start = end - timeOf(NumberCtor(options.duration), 'duration');
      } else if (!given && startOrMeasureOptions !== undefined && options === undefined) {
        start = timeOf(startOrMeasureOptions, 'the start mark');
      } else start = 0;
      const detail = given && options.detail !== undefined ? clone(options.detail) : null;
      const measure = entry(PerformanceMeasure, name, start, end - start, detail);
      entries.push(measure);
      queueEntry(measure);
      return measure;
    }

    clearMarks(markName = undefined) { clear('mark', markName); }
    clearMeasures(measureName = undefined) { clear('measure', measureName); }
    getEntries() { return matching(undefined, undefined); }
    getEntriesByType(type) { return matching(domString(type), undefined); }
    getEntriesByName(name, type = undefined) {
      return matching(type === undefined ? undefined : domString(type), domString(name));
    }
  }

  const performance = entry(Performance);

  return {
    performance,
    Performance: brand(Performance, 'Performance'),
    PerformanceEntry: brand(PerformanceEntry, 'PerformanceEntry'),
    PerformanceMark: brand(PerformanceMark, 'PerformanceMark'),
    PerformanceMeasure: brand(PerformanceMeasure, 'PerformanceMeasure'),
    PerformanceObserver: brand(PerformanceObserver, 'PerformanceObserver'),
    PerformanceObserverEntryList: brand(PerformanceObserverEntryList, 'PerformanceObserverEntryList'),
  };
})
