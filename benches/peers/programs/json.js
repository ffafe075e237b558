// Build 10,000 objects, round-trip them through JSON, and fold the copy
// into a checksum so that no engine can skip the work.
const items = [];
for (let i = 0; i < 10000; i++) {
  items.push({ id: i, name: "item-" + i, price: i * 0.25, tags: ["a", "b", String(i % 7)], meta: { even: i % 2 === 0 } });
}
const text = JSON.stringify(items);
const copy = JSON.parse(text);
let sum = text.length;
for (const item of copy) sum = (sum + item.id + item.tags[2].length + (item.meta.even ? 1 : 0)) % 1000000007;
return sum;
