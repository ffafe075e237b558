// A first coderun program: the body of an async function, in TypeScript.
// `demo` is the CLI's built-in demo namespace (see `coderun run --help`).
interface Point {
  x: number;
  y: number;
}

const points: Point[] = [
  { x: 1, y: 2 },
  { x: 3, y: 4 },
];
console.log('points', points);

// Binding calls are async and may overlap.
const [sum, echoed] = await Promise.all([
  demo.add({ a: points[0].x, b: points[1].y }),
  demo.echo({ greeting: 'hello from the host' }),
]);

return { sum, greeting: (echoed as { greeting: string }).greeting };
