// A typical agent program: fetch every page of an issue tracker, some pages
// at once and some one after another, then summarise the issues.
interface Issue {
  id: number;
  state: "open" | "closed";
  labels: string[];
  comments: number;
}
type Page = { items: Issue[]; next: number | null };
type Summary = { open: number; closed: number; comments: number; busiest: number; labels: Record<string, number> };

const size: number = 100;

async function fetchPage(page: number): Promise<Page> {
  return (await tools.list({ page, size })) as Page;
}

function countBy<T>(items: readonly T[], key: (item: T) => string): Record<string, number> {
  return items.reduce((counts, item) => {
    const k = key(item);
    counts[k] = (counts[k] ?? 0) + 1;
    return counts;
  }, {} as Record<string, number>);
}

const first: Page = await fetchPage(0);
const pages: Page[] = [first, ...(await Promise.all([1, 2, 3, 4].map((page: number) => fetchPage(page))))];
let next: number | null = pages[pages.length - 1].next;
while (next !== null) {
  const page: Page = await fetchPage(next);
  pages.push(page);
  next = page.next;
}

const issues: Issue[] = pages.flatMap((page: Page) => page.items);
const open: Issue[] = issues.filter((issue: Issue) => issue.state === "open");
const comments: number = open.map((issue: Issue) => issue.comments).reduce((sum: number, n: number) => sum + n, 0);
const busiest: Issue = open.reduce((best: Issue, issue: Issue) => (issue.comments > best.comments ? issue : best));
console.log(`${issues.length} issues on ${pages.length} pages, ${open.length} open`);
const summary: Summary = {
  open: open.length,
  closed: issues.length - open.length,
  comments,
  busiest: busiest.id,
  labels: countBy(open.flatMap((issue: Issue) => issue.labels), (label: string) => label),
};
return summary;
