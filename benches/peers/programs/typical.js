// A typical agent program: fetch every page of an issue tracker, some pages
// at once and some one after another, then summarise the issues.









const size = 100;

async function fetchPage(page) {
  return (await tools.list({ page, size }));
}

function countBy(items, key) {
  return items.reduce((counts, item) => {
    const k = key(item);
    counts[k] = (counts[k] ?? 0) + 1;
    return counts;
  }, {});
}

const first = await fetchPage(0);
const pages = [first, ...(await Promise.all([1, 2, 3, 4].map((page) => fetchPage(page))))];
let next = pages[pages.length - 1].next;
while (next !== null) {
  const page = await fetchPage(next);
  pages.push(page);
  next = page.next;
}

const issues = pages.flatMap((page) => page.items);
const open = issues.filter((issue) => issue.state === "open");
const comments = open.map((issue) => issue.comments).reduce((sum, n) => sum + n, 0);
const busiest = open.reduce((best, issue) => (issue.comments > best.comments ? issue : best));
console.log(`${issues.length} issues on ${pages.length} pages, ${open.length} open`);
const summary = {
  open: open.length,
  closed: issues.length - open.length,
  comments,
  busiest: busiest.id,
  labels: countBy(open.flatMap((issue) => issue.labels), (label) => label),
};
return summary;
