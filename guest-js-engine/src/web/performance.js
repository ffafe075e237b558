// performance: now, timeOrigin, and User Timing's marks and measures.
// Spec: https://w3c.github.io/hr-time/ and https://w3c.github.io/user-timing/
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
  };
})
