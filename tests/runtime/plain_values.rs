//! Seeded random plain data, for the tests that print and return it both
//! ways (render.rs, stringify.rs).

/// Code that builds `values`: `count` random plain values from `seed`
/// (strings with quotes, breaks, controls, non-ASCII and lone surrogates;
/// every kind of number; arrays that group into columns, long arrays, deep
/// nesting, keys that need quoting).
pub(super) fn random_values(seed: u32, count: u32) -> String {
    format!(
        r#"
let seed = {seed};
const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const pick = (xs) => xs[Math.floor(rand() * xs.length)];
const strings = ['', 'a', 'plain text', "it's", 'say "hi"', `both ' and "`, "all ' \" `", 'tpl ${{x}} \' "',
  'line\nbreak', 'tab\there', '\u0000\u0001\u007f\u0085\u009f', 'back\\slash', 'café', '日本語テキスト',
  '😀 emoji', '\ud800 lone', 'x'.repeat(100), ('word '.repeat(30) + '\n').repeat(3), 'é'.repeat(40),
  '\u00ff\u00a0', 'sixteen chars!!!', 'seventeen chars!!'];
const keys = ['a', 'b_2', '_x', 'with space', 'kebab-key', '1abc', 'ünï', '__proto__x', '', 'constructor',
  'length', 'Z9', "q'uote", '\ud800x', 'a\u0000b', '0', '42', '4294967295', '😀'];
const numbers = [0, -0, 1, -1, 1.5, 0.1, 1e21, 1e-7, 123456789, -2147483648, 2147483648, NaN, Infinity,
  -Infinity, 4294967295.5, 2 ** 53, -1e-300];
function primitive() {{
  const r = rand();
  if (r < 0.45) return pick(strings);
  if (r < 0.85) return pick(numbers);
  return pick([true, false, null, undefined]);
}}
function value(depth) {{
  const r = rand();
  if (depth > 5 || r < 0.3) return primitive();
  if (r < 0.45) {{
    const n = pick([7, 12, 30, 101, 150]);
    const a = [];
    // Mostly numbers the display lays out from the JSON's text; some with
    // one it writes otherwise (-0, NaN, Infinity) or one too wide for
    // columns, which the general path takes.
    const special = rand() < 0.3;
    for (let i = 0; i < n; i++) {{
      const r = rand();
      if (special && r < 0.05) a.push(pick(numbers));
      else if (r < 0.2) a.push(-Math.floor(rand() * 1e6) / pick([1, 7, 100]));
      else a.push(r < 0.6 ? Math.floor(rand() * 100000) / pick([1, 10, 1000]) : Math.floor(rand() * 10));
    }}
    return a;
  }}
  if (r < 0.55) {{
    const n = pick([7, 9, 26]);
    const a = [];
    for (let i = 0; i < n; i++) a.push(pick(['a', 'bb', 'ccc', 'dddd', 'e f', "g'h"]));
    return a;
  }}
  if (r < 0.75) {{
    const n = pick([0, 1, 2, 3, 5, 8]);
    const a = [];
    for (let i = 0; i < n; i++) a.push(value(depth + 1));
    return a;
  }}
  const o = {{}};
  const n = pick([0, 1, 2, 4, 6]);
  for (let i = 0; i < n; i++) o[pick(keys) + (rand() < 0.3 ? i : '')] = value(depth + 1);
  return o;
}}
const values = [JSON.parse('{{"__proto__": 1, "a": [1, 2]}}')];
for (let i = 0; i < {count}; i++) values.push(value(0));
"#
    )
}
