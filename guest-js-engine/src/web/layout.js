// util.inspect's layout, as Node 20 writes it. Spec: https://nodejs.org/docs/latest-v20.x/api/util.html#utilinspectobject-options
// WPT: console/ (the table in the README; expectations in tests/wpt/)
//
// String literals and their quotes, terminal column widths, and the line
// breaking of nested values (breakLength 80, compact 3, numbers grouped in
// aligned columns). Written from Node's documented behaviour and its
// observed output; the golden cases are tests/runtime/fixtures/console-node.json.
(function (host) {
  'use strict';
  const uncurry = Function.prototype.bind.bind(Function.prototype.call);
  const { min, max, sqrt, round, floor } = Math;
  const fromCodePoint = String.fromCodePoint;
  const stringSlice = uncurry(String.prototype.slice);
  const stringIndexOf = uncurry(String.prototype.indexOf);
  const charCodeAt = uncurry(String.prototype.charCodeAt);
  const repeat = uncurry(String.prototype.repeat);
  const padStart = uncurry(String.prototype.padStart);
  const padEnd = uncurry(String.prototype.padEnd);
  const numberToString = uncurry(Number.prototype.toString);
  const regExpExec = uncurry(RegExp.prototype.exec);

  const NEEDS_ESCAPE = /[\x00-\x1f\x27\x5c\x7f-\x9f\ud800-\udfff]/;
  const ESCAPES = { 8: '\\b', 9: '\\t', 10: '\\n', 12: '\\f', 13: '\\r', 39: "\\'", 92: '\\\\' };

  // Lists are built by index: a program may have patched Array.prototype.
  function push(list, item) { list[list.length] = item; }
  function join(list, separator) {
    let out = '';
    for (let i = 0; i < list.length; i++) out += i === 0 ? list[i] : separator + list[i];
    return out;
  }
  function contains(text, part) { return stringIndexOf(text, part) !== -1; }
  function indexOf(list, item) {
    for (let i = 0; i < list.length; i++) if (list[i] === item) return i;
    return -1;
  }
  // `text` split at line breaks, each line keeping its `\n` when asked.
  function lines(text, keepBreaks) {
    const out = [];
    let from = 0;
    for (let at = stringIndexOf(text, '\n'); at !== -1; at = stringIndexOf(text, '\n', from)) {
      push(out, stringSlice(text, from, keepBreaks ? at + 1 : at));
      from = at + 1;
    }
    if (from < text.length || !keepBreaks) push(out, stringSlice(text, from));
    return out;
  }
  function indent(text, indentation) { return join(lines(text, false), `\n${indentation}`); }

  // ---- string literals ----------------------------------------------------

  function hex(code) {
    const digits = padStart(numberToString(code, 16), 2, '0');
    let out = '';
    for (let i = 0; i < digits.length; i++) {
      const c = charCodeAt(digits, i);
      out += c >= 97 ? fromCodePoint(c - 32) : digits[i];
    }
    return out;
  }

  // `text` with control characters, backslashes, lone surrogates and (when
  // the literal is single-quoted) single quotes escaped.
  function escapeText(text, singleQuoted) {
    if (text.length < 5000 && regExpExec(NEEDS_ESCAPE, text) === null) return text;
    let out = '';
    let last = 0;
    for (let i = 0; i < text.length; i++) {
      const c = charCodeAt(text, i);
      let escaped;
      if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) {
        escaped = ESCAPES[c] || `\\x${hex(c)}`;
      } else if (c === 0x5c || (c === 0x27 && singleQuoted)) {
        escaped = ESCAPES[c];
      } else if (c >= 0xd800 && c <= 0xdfff) {
        if (c <= 0xdbff && i + 1 < text.length) {
          const next = charCodeAt(text, i + 1);
          if (next >= 0xdc00 && next <= 0xdfff) { i++; continue; }
        }
        escaped = `\\u${numberToString(c, 16)}`;
      } else {
        continue;
      }
      out += stringSlice(text, last, i) + escaped;
      last = i + 1;
    }
    return last === 0 ? text : out + stringSlice(text, last);
  }

  // `text` as a string literal: single quotes; double quotes when it holds
  // single quotes; backticks when it holds both; else escaped single quotes.
  function quote(text) {
    let mark = "'";
    if (contains(text, "'")) {
      if (!contains(text, '"')) mark = '"';
      else if (!contains(text, '`') && !contains(text, '${')) mark = '`';
    }
    return mark + escapeText(text, mark === "'") + mark;
  }

  // ---- terminal widths ----------------------------------------------------

  // Columns a terminal gives `text`: wide characters and emoji take two,
  // marks, format and control characters none (src/render/width.rs, with
  // QuickJS's Unicode tables; matching them here per character cost about
  // 10,000 units of fuel a character).
  const stringWidth = host.natives.stringWidth;

  // The name Node writes before a value: `Foo `, `Foo(2) [Tag] `,
  // `[Array(2): null prototype] `.
  function prefixOf(constructor, tag, fallback, size = '') {
    if (constructor === null) {
      if (tag !== '' && fallback !== tag) return `[${fallback}${size}: null prototype] [${tag}] `;
      return `[${fallback}${size}: null prototype] `;
    }
    if (tag !== '' && constructor !== tag) return `${constructor}${size} [${tag}] `;
    return `${constructor}${size} `;
  }

  // ---- line breaking ------------------------------------------------------

  // A value's entries on one line or one per line. Node's "compact 3" rule:
  // one line when the value holds fewer than `compact` levels of nested
  // values after it (ctx.currentDepth is the deepest level last reached)
  // and the line fits in breakLength; arrays of more than six entries may
  // first be grouped into columns.
  function reduceToSingleString(ctx, output, base, braces, grouped, recurseTimes, value) {
    const entries = output.length;
    if (grouped && entries > 6) output = groupArrayElements(ctx, output, value);
    if (ctx.currentDepth - recurseTimes < ctx.compact && entries === output.length) {
      const start = output.length + ctx.indentationLvl + braces[0].length + base.length + 10;
      if (fitsOnOneLine(ctx, output, start, base)) {
        const joined = join(output, ', ');
        if (!contains(joined, '\n')) return `${base ? `${base} ` : ''}${braces[0]} ${joined} ${braces[1]}`;
      }
    }
    const indentation = `\n${repeat(' ', ctx.indentationLvl)}`;
    return `${base ? `${base} ` : ''}${braces[0]}${indentation}  ${join(output, `,${indentation}  `)}${indentation}${braces[1]}`;
  }

  function fitsOnOneLine(ctx, output, start, base) {
    let total = output.length + start;
    if (total + output.length > ctx.breakLength) return false;
    for (let i = 0; i < output.length; i++) {
      total += output[i].length;
      if (total > ctx.breakLength) return false;
    }
    return base === '' || !contains(base, '\n');
  }

  // Many short entries in aligned columns: about as many columns as make
  // the block square (a character being ~2.5 times as tall as wide), at
  // most 15 and 4 × compact, within breakLength; numbers right-aligned.
  function groupArrayElements(ctx, output, value) {
    let total = 0;
    let widest = 0;
    let count = output.length;
    if (ctx.maxArrayLength < output.length) count--; // `... n more items` stays apart
    const widths = [];
    for (let i = 0; i < count; i++) {
      const width = stringWidth(output[i]);
      widths[i] = width;
      total += width + 2;
      if (widest < width) widest = width;
    }
    const cell = widest + 2;
    if (cell * 3 + ctx.indentationLvl >= ctx.breakLength || !(total / cell > 5 || widest <= 6)) return output;
    const bias = sqrt(cell - total / output.length);
    const biasedCell = max(cell - 3 - bias, 1);
    const columns = min(round(sqrt(2.5 * biasedCell * count) / biasedCell),
      floor((ctx.breakLength - ctx.indentationLvl) / cell), ctx.compact * 4, 15);
    if (columns <= 1) return output;
    const columnWidths = [];
    for (let c = 0; c < columns; c++) {
      let width = 0;
      for (let j = c; j < output.length; j += columns) if (widths[j] > width) width = widths[j];
      push(columnWidths, width + 2);
    }
    let numeric = value !== undefined;
    for (let i = 0; numeric && i < output.length; i++) {
      const kind = typeof value[i];
      if (kind !== 'number' && kind !== 'bigint') numeric = false;
    }
    const rows = [];
    for (let i = 0; i < count; i += columns) {
      const end = min(i + columns, count);
      let row = '';
      let j = i;
      for (; j < end - 1; j++) {
        const width = columnWidths[j - i] + output[j].length - widths[j];
        row += numeric ? padStart(`${output[j]}, `, width, ' ') : padEnd(`${output[j]}, `, width, ' ');
      }
      row += numeric ? padStart(output[j], columnWidths[j - i] + output[j].length - widths[j] - 2, ' ') : output[j];
      push(rows, row);
    }
    if (ctx.maxArrayLength < output.length) push(rows, output[count]);
    return rows;
  }

  return { push, join, contains, indexOf, lines, indent, escapeText, quote, stringWidth, prefixOf, reduceToSingleString };
})
