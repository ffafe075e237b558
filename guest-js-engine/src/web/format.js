// Console's Formatter, as Node 20's util.format applies it. Spec: https://console.spec.whatwg.org/#formatter
// WPT: console/ (the table in the README; expectations in tests/wpt/)
//
// A leading string's `%s %d %i %f %j %o %O %c %%` directives consume
// arguments; the other arguments are inspected (strings as they are) and
// joined by spaces, as https://nodejs.org/docs/latest-v20.x/api/util.html#utilformatformat-args
// describes and Node 20 prints.
(function (host) {
  'use strict';
  const { inspect, formatNumber, threw } = host.inspect;
  const { contains } = host.layout;
  const uncurry = Function.prototype.bind.bind(Function.prototype.call);
  const { getOwnPropertyNames, getOwnPropertyDescriptor, getPrototypeOf, hasOwn } = Object;
  const StringCtor = String;
  const NumberCtor = Number;
  const { parseInt: numberParseInt, parseFloat: numberParseFloat } = Number;
  const JSONStringify = JSON.stringify;
  const SymbolToPrimitive = Symbol.toPrimitive;
  const stringSlice = uncurry(String.prototype.slice);
  const charCodeAt = uncurry(String.prototype.charCodeAt);
  const regExpExec = uncurry(RegExp.prototype.exec);
  // The constructors `%s` trusts to print themselves: globals named like classes.
  const builtIns = { __proto__: null };
  for (const name of getOwnPropertyNames(globalThis)) {
    if (regExpExec(/^[A-Z][a-zA-Z0-9]+$/, name) !== null) builtIns[name] = true;
  }

  // Whether `%s` inspects `value` rather than converting it: unless its
  // nearest `toString` or `Symbol.toPrimitive` is its own or a non-builtin
  // class's.
  function hasBuiltInToString(value) {
    try {
      let viaToString = true;
      let viaToPrimitive = true;
      if (typeof value.toString !== 'function') {
        if (typeof value[SymbolToPrimitive] !== 'function') return true;
        if (hasOwn(value, SymbolToPrimitive)) return false;
        viaToString = false;
      } else if (hasOwn(value, 'toString')) {
        return false;
      } else if (typeof value[SymbolToPrimitive] !== 'function') {
        viaToPrimitive = false;
      } else if (hasOwn(value, SymbolToPrimitive)) {
        return false;
      }
      let at = value;
      do {
        at = getPrototypeOf(at);
      } while (!(viaToString && hasOwn(at, 'toString')) && !(viaToPrimitive && hasOwn(at, SymbolToPrimitive)));
      const desc = getOwnPropertyDescriptor(at, 'constructor');
      return desc !== undefined && typeof desc.value === 'function' && builtIns[desc.value.name] === true;
    } catch (_) {
      return true;
    }
  }

  // A conversion that runs the program's code (valueOf, toString), which
  // may throw: its message is shown instead.
  function convert(conversion, arg) {
    try { return conversion(arg); } catch (error) { return threw(error); }
  }

  function json(arg) {
    try {
      return `${JSONStringify(arg)}`;
    } catch (error) {
      let circular = false;
      try { circular = contains(`${error.message}`, 'ircular'); } catch (_) { /* an odd error */ }
      return circular ? '[Circular]' : threw(error);
    }
  }

  // One directive (its character's code) applied to `arg`.
  function directive(code, arg, options, room) {
    switch (code) {
      case 115: // %s
        if (typeof arg === 'number') return formatNumber(arg);
        if (typeof arg === 'bigint') return `${arg}n`;
        if (typeof arg !== 'object' || arg === null || !hasBuiltInToString(arg)) return convert(StringCtor, arg);
        return inspect(arg, { ...options, depth: 0, compact: 3 }, room);
      case 106: return json(arg); // %j
      case 100: // %d
        if (typeof arg === 'bigint') return `${arg}n`;
        return typeof arg === 'symbol' ? 'NaN' : convert((v) => formatNumber(NumberCtor(v)), arg);
      case 105: // %i
        if (typeof arg === 'bigint') return `${arg}n`;
        return typeof arg === 'symbol' ? 'NaN' : convert((v) => formatNumber(numberParseInt(v)), arg);
      case 102: // %f
        return typeof arg === 'symbol' ? 'NaN' : convert((v) => formatNumber(numberParseFloat(v)), arg);
      case 79: return inspect(arg, options, room); // %O
      case 111: return inspect(arg, { ...options, showHidden: true, depth: 4 }, room); // %o
      default: return ''; // %c: CSS, which text has no use for
    }
  }

  // `args` as one line of text (lines, when values span several), within
  // `room` characters of rendering (see inspect).
  function format(args, options, room) {
    if (typeof room !== 'number') room = Infinity;
    const first = args[0];
    let used = 0;
    let out = '';
    let separator = '';
    if (typeof first === 'string') {
      if (args.length === 1) return first;
      let copied = 0;
      for (let i = 0; i < first.length - 1; i++) {
        if (charCodeAt(first, i) !== 37) continue;
        const code = charCodeAt(first, ++i);
        if (code === 37) {
          out += stringSlice(first, copied, i);
          copied = i + 1;
        } else if (used + 1 !== args.length && contains('sjdOoifc', first[i])) {
          if (copied !== i - 1) out += stringSlice(first, copied, i - 1);
          const text = directive(code, args[++used], options, room);
          room -= text.length;
          out += text;
          copied = i + 1;
        }
      }
      if (copied !== 0) {
        used++;
        separator = ' ';
        if (copied < first.length) out += stringSlice(first, copied);
      }
    }
    for (let i = used; i < args.length; i++) {
      const arg = args[i];
      const text = typeof arg === 'string' ? arg : inspect(arg, options, room);
      room -= text.length;
      out += separator + text;
      separator = ' ';
    }
    return out;
  }

  return { format };
})
