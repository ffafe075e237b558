const a = 4 / 2 / 1;
const r = /[/(]+/g.test("((/");
if (a) /x/.test("x");
const t = `${a / 2}${`${/}/.source}`}`;
return [a, r, t, {} / 1, (a) / (2)];
