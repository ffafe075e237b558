type File = { name: string; size: number };
const files: File[] = await tools.search({ q: "quarterly report", limit: 10 });
const big = files.filter((f) => f.size > 1_000_000).map((f) => f.name);
if (big.length === 0) {
  console.log(`none of ${files.length} is large`);
  return [];
} else if (big.length > 5) {
  console.log("many");
}
for (const name of big) await tools.archive({ name });
return { big, total: files.reduce((n, f) => n + f.size, 0) };
