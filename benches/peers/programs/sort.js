// Sort 100,000 pseudo-random 32-bit integers (xorshift, fixed seed, so every
// engine sorts the same array) and hash the result in order.
let x = 2463534242;
const numbers = new Array(100000);
for (let i = 0; i < numbers.length; i++) {
  x ^= x << 13;
  x ^= x >>> 17;
  x ^= x << 5;
  numbers[i] = x | 0;
}
numbers.sort((a, b) => a - b);
let hash = 0;
for (const n of numbers) hash = (Math.imul(hash, 31) + n) | 0;
return hash;
