import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

/**
 * Every relative link of the user documentation (README.md, docs/*.md, docs/guides/*.md) names a
 * file that exists, and every #anchor a heading of that page, with GitHub's heading ids. A page
 * renamed or a heading reworded fails here instead of leaving readers at a dead link.
 */

const root = path.join(__dirname, "..");
const pages = [
  "README.md",
  ...readdirSync(path.join(root, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`),
  ...readdirSync(path.join(root, "docs/guides")).filter((f) => f.endsWith(".md")).map((f) => `docs/guides/${f}`),
];

/** The text outside fenced code blocks: links and headings in examples are not the page's own. */
const prose = (text: string) => text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");

/** GitHub's heading ids: markup dropped, lower case, punctuation removed, spaces to hyphens, repeats numbered. */
function anchors(file: string): Set<string> {
  const ids = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading] of prose(readFileSync(file, "utf8")).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const text = (heading as string).replace(/\[([^\]]*)\]\([^)]*\)/g, "$1").replace(/[`*]/g, "");
    const base = text.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/ /g, "-");
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    ids.add(count === 0 ? base : `${base}-${count}`);
  }
  return ids;
}

const links = pages.flatMap((page) =>
  [...prose(readFileSync(path.join(root, page), "utf8")).matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1] as string)
    .filter((target) => !/^[a-z][a-z+.-]*:/i.test(target))
    .map((target) => [page, target] as const),
);

describe("links of the documentation", () => {
  it("finds the pages and their links", () => {
    expect(pages).toEqual(expect.arrayContaining(["README.md", "docs/README.md", "docs/concepts.md", "docs/guides/rotate-keys.md"]));
    expect(links.length).toBeGreaterThan(100);
  });

  it.each(links)("%s → %s resolves", (page, target) => {
    const [file = "", anchor] = target.split("#");
    const resolved = file === "" ? path.join(root, page) : path.join(root, path.dirname(page), decodeURIComponent(file));
    expect(existsSync(resolved) ? resolved : `missing: ${resolved}`).toBe(resolved);
    if (anchor !== undefined && resolved.endsWith(".md") && statSync(resolved).isFile()) {
      expect([...anchors(resolved)]).toContain(decodeURIComponent(anchor));
    }
  });
});
