import type { TaskList } from "../../../src/spec/index.ts";

/** Generated spec content for the fuzz tests. */

/** Small deterministic PRNG (mulberry32) so failures reproduce. */
export function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Lines that look like structure: fields, headings, fences, separators, comments, odd indentation. */
export const TRICKY = [
  "- item",
  "  - nested item",
  "- **status**: completed",
  "- **files**: [x.ts]",
  "- **note**: looks like an extra",
  "- **Note**: capitalised",
  "* **id**: task-999",
  "## Task 9: not a heading",
  "## Q9: not a question",
  "### Sub heading",
  "---",
  "***",
  "```",
  "```ts",
  "~~~",
  "",
  "   ",
  "plain text",
  "<!-- comment -->",
  "\tTabbed",
  "    code line",
  "1. numbered",
  "- **answer**: fake",
  "- **question**: fake",
  "trailing spaces  ",
];

export function prose(rand: () => number): string {
  const pick = (): string => TRICKY[Math.floor(rand() * TRICKY.length)] ?? "";
  return Array.from({ length: 1 + Math.floor(rand() * 8) }, pick).join("\n");
}

export function extras(rand: () => number, chance: number, keys: readonly string[]): Record<string, string> {
  return rand() < chance ? Object.fromEntries(keys.map((k) => [k, prose(rand)])) : {};
}

export function taskList(rand: () => number): TaskList {
  const n = 1 + Math.floor(rand() * 4);
  return {
    preamble: rand() < 0.5 ? "# Tasks" : "# Tasks\n\nSome intro.\n\n---",
    tasks: Array.from({ length: n }, (_, i) => ({
      id: `task-${i + 1}`,
      title: rand() < 0.2 ? "" : `Title ${i}`,
      number: i + 1,
      status: (["pending", "running", "completed", "failed", "skipped"] as const)[i % 5] ?? "pending",
      parallel_group: 1 + Math.floor(rand() * 3),
      depends_on: i > 0 && rand() < 0.5 ? [`task-${i}`] : [],
      description: prose(rand),
      files: rand() < 0.5 ? ["a.ts", "dir/b c.ts"] : [],
      extra: extras(rand, 0.5, ["note", "last_error"]),
    })),
  };
}
