// Console. Spec: https://console.spec.whatwg.org/
// WPT: console/ (the table in the README; expectations in tests/wpt/)
//
// The namespace as the standard shapes it (operations are own, enumerable
// properties of an object whose prototype is an empty object, and whose
// @@toStringTag is 'console'), printing what Node 20 prints. Every call is
// one entry of the run's logs (`host.log(level, text)`) at a level: 0 log
// (what Node writes to stdout), 1 info, 2 warn, 3 error (what Node writes
// to stderr), 4 debug. Node's process warnings (an unknown count or timer
// label) become `Warning: ...` entries at level warn, in call order.
(function (host) {
  'use strict';
  const { inspect, stringWidth } = host.inspect;
  const { format } = host.format;
  const hostLog = host.log;
  const plainLine = host.natives.plainLine;
  const consoleMethod = host.natives.consoleMethod;
  const consoleGrouped = host.natives.consoleGrouped;
  const now = host.now;
  const uncurry = Function.prototype.bind.bind(Function.prototype.call);
  const { create: ObjectCreate, defineProperty, keys: objectKeys, hasOwn, getOwnPropertyDescriptor, getPrototypeOf } = Object;
  const isArray = Array.isArray;
  const ErrorCtor = Error;
  const TypeErrorCtor = TypeError;
  const { floor, max, min } = Math;
  const stringSlice = uncurry(String.prototype.slice);
  const stringIndexOf = uncurry(String.prototype.indexOf);
  const startsWith = uncurry(String.prototype.startsWith);
  const repeat = uncurry(String.prototype.repeat);
  const padStart = uncurry(String.prototype.padStart);
  const numberToFixed = uncurry(Number.prototype.toFixed);
  // QuickJS's `stack` is an accessor of Error.prototype; V8's an own property.
  const stackDescriptor = getOwnPropertyDescriptor(Error.prototype, 'stack');
  const stackOf = stackDescriptor && stackDescriptor.get ? uncurry(stackDescriptor.get) : (error) => error.stack;
  const mapSize = uncurry(getOwnPropertyDescriptor(Map.prototype, 'size').get);
  const mapEntries = uncurry(Map.prototype.entries);
  const mapIteratorNext = uncurry(getPrototypeOf(new Map().entries()).next);
  const setSize = uncurry(getOwnPropertyDescriptor(Set.prototype, 'size').get);
  const setValues = uncurry(Set.prototype.values);
  const setIteratorNext = uncurry(getPrototypeOf(new Set().values()).next);

  const LOG = 0; const INFO = 1; const WARN = 2; const ERROR = 3; const DEBUG = 4;
  // What one call renders at most: more than a run's log budget holds, so
  // the host's byte ledger, not this, is what a program meets.
  const ROOM = 1 << 20;
  // console.table shows at most this many rows and columns, then says how
  // many it left out.
  const MAX_TABLE_ROWS = 1000;
  const MAX_TABLE_COLUMNS = 100;
  // Arrays longer than this are tabled by index, without listing their keys.
  const MAX_SCANNED_LENGTH = 65536;

  let groupIndent = '';
  const counts = ObjectCreate(null);
  const timers = ObjectCreate(null);

  function push(list, item) { list[list.length] = item; }
  function brand(check, value) {
    try { check(value); return true; } catch (_) { return false; }
  }
  function plural(n, noun) { return `${n} ${noun}${n > 1 ? 's' : ''}`; }

  // Every line of a call's output carries the indentation of its groups.
  function write(level, text) {
    if (groupIndent !== '') {
      let out = groupIndent;
      let from = 0;
      for (let at = stringIndexOf(text, '\n'); at !== -1; at = stringIndexOf(text, '\n', from)) {
        out += `${stringSlice(text, from, at + 1)}${groupIndent}`;
        from = at + 1;
      }
      text = out + stringSlice(text, from);
    }
    hostLog(level, text);
  }
  // A line of primitives outside a group is written natively, at a
  // fraction of the fuel (render/line.rs). `console.log` and its kin are C
  // functions that write such a line themselves, and call `formatted` for
  // the rest (natives.consoleMethod); the other operations print here.
  function print(level, data) {
    if (groupIndent !== '' || !plainLine(level, data)) formatted(level, data);
  }
  function formatted(level, data) { write(level, format(data, undefined, ROOM)); }
  function warning(message) { write(WARN, `Warning: ${message}`); }

  // ---- timing -------------------------------------------------------------

  // Node's duration text: `1.234ms`, `1.500s`, `1:02.500 (m:ss.mmm)`,
  // `1:02:03.500 (h:mm:ss.mmm)`.
  function formatDuration(ms) {
    let hours = 0;
    let minutes = 0;
    let seconds = 0;
    if (ms >= 1000) {
      if (ms >= 60000) {
        if (ms >= 3600000) {
          hours = floor(ms / 3600000);
          ms %= 3600000;
        }
        minutes = floor(ms / 60000);
        ms %= 60000;
      }
      seconds = ms / 1000;
    }
    if (hours !== 0 || minutes !== 0) {
      const fixed = numberToFixed(seconds, 3);
      const dot = stringIndexOf(fixed, '.');
      const lead = hours !== 0 ? `${hours}:${padStart(`${minutes}`, 2, '0')}` : `${minutes}`;
      return `${lead}:${padStart(stringSlice(fixed, 0, dot), 2, '0')}${stringSlice(fixed, dot)} (${hours !== 0 ? 'h:m' : ''}m:ss.mmm)`;
    }
    if (seconds !== 0) return `${numberToFixed(seconds, 3)}s`;
    return `${+numberToFixed(ms, 3)}ms`;
  }

  function timeLog(name, label, data) {
    const start = timers[label];
    if (start === undefined) {
      warning(`No such label '${label}' for console.${name}()`);
      return false;
    }
    const args = ['%s: %s', label, formatDuration(now() - start)];
    for (let i = 0; i < data.length; i++) push(args, data[i]);
    print(LOG, args);
    return true;
  }

  // ---- table --------------------------------------------------------------

  // A cell: objects with more than two keys are only named.
  function cell(value) {
    const depth = value !== null && typeof value === 'object' && !isArray(value) && objectKeys(value).length > 2 ? -1 : 0;
    return inspect(value, { depth, maxArrayLength: 3, breakLength: Infinity }, ROOM);
  }

  function indexColumn(length) {
    const column = [];
    for (let i = 0; i < length; i++) push(column, `${i}`);
    return column;
  }

  // A Map's or a Set's rows: (iteration index), Key, Values.
  function entryColumns(iterator, next, size, pairs) {
    const keys = [];
    const values = [];
    for (let i = 0; i < min(size, MAX_TABLE_ROWS); i++) {
      const step = next(iterator);
      if (step.done) break;
      if (pairs) push(keys, cell(step.value[0]));
      push(values, cell(pairs ? step.value[1] : step.value));
    }
    const index = indexColumn(values.length);
    return {
      head: pairs ? ['(iteration index)', 'Key', 'Values'] : ['(iteration index)', 'Values'],
      columns: pairs ? [index, keys, values] : [index, values],
      omittedRows: size - values.length,
      omittedColumns: 0,
    };
  }

  // An object's rows, one per key: a column per key of the rows' values
  // (or of `properties`), and `Values` for rows that are primitives.
  function objectColumns(data, properties) {
    const huge = isArray(data) && data.length > MAX_SCANNED_LENGTH;
    const keys = huge ? indexColumn(MAX_TABLE_ROWS) : objectKeys(data);
    const rows = min(keys.length, MAX_TABLE_ROWS);
    const columns = ObjectCreate(null);
    const omitted = ObjectCreate(null);
    let columnCount = 0;
    let omittedColumns = 0;
    const values = [];
    let hasPrimitives = false;
    for (let i = 0; i < rows; i++) {
      const item = data[keys[i]];
      const primitive = item === null || (typeof item !== 'function' && typeof item !== 'object');
      if (properties === undefined && primitive) {
        hasPrimitives = true;
        values[i] = cell(item);
        continue;
      }
      const names = properties || objectKeys(item);
      for (let k = 0; k < names.length; k++) {
        const name = names[k];
        if (columns[name] === undefined) {
          if (columnCount === MAX_TABLE_COLUMNS) {
            if (omitted[name] === undefined) { omitted[name] = true; omittedColumns++; }
            continue;
          }
          columns[name] = [];
          columnCount++;
        }
        columns[name][i] = (primitive && properties) || !hasOwn(item, name) ? '' : cell(item[name]);
      }
    }
    const head = ['(index)'];
    const index = [];
    for (let i = 0; i < rows; i++) push(index, keys[i]);
    const cells = [index];
    const names = objectKeys(columns);
    for (let i = 0; i < names.length; i++) {
      push(head, names[i]);
      push(cells, columns[names[i]]);
    }
    if (hasPrimitives) {
      push(head, 'Values');
      push(cells, values);
    }
    return { head, columns: cells, omittedRows: (huge ? data.length : keys.length) - rows, omittedColumns };
  }

  // Node's box drawing: a header row, then a row per entry, every cell
  // left-aligned in its column.
  function drawTable(head, columns, rowCount) {
    const widths = [];
    for (let i = 0; i < head.length; i++) {
      widths[i] = stringWidth(head[i]);
      for (let j = 0; j < rowCount; j++) {
        if (!hasOwn(columns[i], j)) columns[i][j] = '';
        widths[i] = max(widths[i], stringWidth(columns[i][j]));
      }
    }
    const rule = (left, middle, right) => {
      let out = left;
      for (let i = 0; i < widths.length; i++) out += (i === 0 ? '' : middle) + repeat('─', widths[i] + 2);
      return out + right;
    };
    const line = (row) => {
      let out = '│ ';
      for (let i = 0; i < head.length; i++) {
        const text = row === -1 ? head[i] : columns[i][row];
        out += (i === 0 ? '' : ' │ ') + text + repeat(' ', widths[i] - stringWidth(text));
      }
      return `${out} │`;
    };
    let out = `${rule('┌', '┬', '┐')}\n${line(-1)}\n${rule('├', '┼', '┤')}\n`;
    for (let j = 0; j < rowCount; j++) out += `${line(j)}\n`;
    return out + rule('└', '┴', '┘');
  }

  function tableLayout(data, properties) {
    if (brand(mapSize, data)) return entryColumns(mapEntries(data), mapIteratorNext, mapSize(data), true);
    if (brand(setSize, data)) return entryColumns(setValues(data), setIteratorNext, setSize(data), false);
    return objectColumns(data, properties);
  }

  function printTable(data, properties) {
    if (properties !== undefined && !isArray(properties)) {
      throw new TypeErrorCtor('the properties argument of console.table must be an array');
    }
    if (data === null || typeof data !== 'object') {
      print(LOG, [data]);
      return;
    }
    let layout;
    try {
      layout = tableLayout(data, properties);
    } catch (_) {
      // Keys or entries that cannot be read (a trap threw): as console.log.
      print(LOG, [data]);
      return;
    }
    let rowCount = 0;
    for (let i = 0; i < layout.columns.length; i++) rowCount = max(rowCount, layout.columns[i].length);
    let text = drawTable(layout.head, layout.columns, rowCount);
    if (layout.omittedRows > 0) text += `\n... ${plural(layout.omittedRows, 'more row')}`;
    if (layout.omittedColumns > 0) text += `\n... ${plural(layout.omittedColumns, 'more column')}`;
    write(LOG, text);
  }

  // ---- the namespace ------------------------------------------------------

  // WebIDL operations: optional and variadic arguments do not count in
  // `length`, so every one is 0; none is a constructor (method syntax).
  const operations = {
    assert(condition = false, ...data) {
      if (condition) return;
      if (data.length === 0) {
        write(ERROR, 'Assertion failed');
        return;
      }
      let first;
      try { first = `${data[0]}`; } catch (_) { first = format([data[0]]); }
      data[0] = `Assertion failed: ${first}`;
      print(ERROR, data);
    },
    clear() {
      // Node clears only a terminal, and there is none.
    },
    debug: consoleMethod(DEBUG, 'debug', formatted),
    error: consoleMethod(ERROR, 'error', formatted),
    info: consoleMethod(INFO, 'info', formatted),
    log: consoleMethod(LOG, 'log', formatted),
    table(tabularData = undefined, properties = undefined) { printTable(tabularData, properties); },
    trace(...data) {
      const message = format(data, undefined, ROOM);
      let stack = '';
      try { stack = `${stackOf(new ErrorCtor())}`; } catch (_) { /* no frames */ }
      // The frames, without this method's own.
      let frames = '';
      let own = true;
      for (let from = 0; from < stack.length;) {
        let end = stringIndexOf(stack, '\n', from);
        if (end === -1) end = stack.length;
        const line = stringSlice(stack, from, end);
        if (startsWith(line, '    at ')) {
          if (own) own = false;
          else frames += `\n${line}`;
        }
        from = end + 1;
      }
      write(ERROR, (message === '' ? 'Trace' : `Trace: ${message}`) + frames);
    },
    warn: consoleMethod(WARN, 'warn', formatted),
    dir(item = undefined, options = undefined) {
      const opts = { customInspect: false };
      if (options !== null && typeof options === 'object') {
        const keys = objectKeys(options);
        for (let i = 0; i < keys.length; i++) opts[keys[i]] = options[keys[i]];
      }
      write(LOG, inspect(item, opts, ROOM));
    },
    dirxml: consoleMethod(LOG, 'dirxml', formatted),
    count(label = 'default') {
      label = `${label}`;
      const count = (counts[label] || 0) + 1;
      counts[label] = count;
      write(LOG, `${label}: ${count}`);
    },
    countReset(label = 'default') {
      label = `${label}`;
      if (counts[label] === undefined) warning(`Count for '${label}' does not exist`);
      else counts[label] = 0;
    },
    group(...data) {
      if (data.length > 0) print(LOG, data);
      groupIndent += '  ';
      consoleGrouped(true);
    },
    groupCollapsed(...data) {
      if (data.length > 0) print(LOG, data);
      groupIndent += '  ';
      consoleGrouped(true);
    },
    groupEnd() {
      groupIndent = stringSlice(groupIndent, 0, max(groupIndent.length - 2, 0));
      consoleGrouped(groupIndent !== '');
    },
    time(label = 'default') {
      label = `${label}`;
      if (timers[label] !== undefined) warning(`Label '${label}' already exists for console.time()`);
      else timers[label] = now();
    },
    timeLog(label = 'default', ...data) {
      timeLog('timeLog', `${label}`, data);
    },
    timeEnd(label = 'default') {
      label = `${label}`;
      if (timeLog('timeEnd', label, [])) delete timers[label];
    },
    // Node's inspector hooks, which do nothing without an inspector.
    profile() {},
    profileEnd() {},
    timeStamp() {},
  };

  const console = ObjectCreate(ObjectCreate(Object.prototype));
  const names = objectKeys(operations);
  for (let i = 0; i < names.length; i++) {
    defineProperty(console, names[i], { value: operations[names[i]], writable: true, enumerable: true, configurable: true });
  }
  defineProperty(console, Symbol.toStringTag, { value: 'console', writable: false, enumerable: false, configurable: true });

  return { console, formatDuration };
})
