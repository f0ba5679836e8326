import { describe, expect, it } from "vitest";
import { findPr, parsePrDocument, renderPrDocument, type PrDocument } from "../../../src/pr/index.ts";
import { newDocument } from "../../../src/pr/commands/add.ts";
import type { PrInfo } from "../../../src/pr/index.ts";
import { samplePr } from "./sample-pr.ts";

const info = (over: Partial<PrInfo> = {}): PrInfo => samplePr({ meta: { nodeId: "PR_1" }, ...over });

describe("PR documents", () => {
  it("round-trips through markdown with its frontmatter and sections", () => {
    const doc = newDocument(info(), "github-octo-app-42", 5, "2026-02-06T10:00:00.000Z", {
      state: "failure",
      headSha: "0123456",
      checks: [
        { name: "unit-tests", state: "failure", detail: "exit code 1", url: "https://ci/1", logId: "9" },
        { name: "lint", state: "success" },
      ],
    });
    doc.sections.push({ title: "Notes", body: "Kept as written.\n\n- even lists" });
    const text = renderPrDocument(doc);
    expect(text).toMatch(/^---\nid: '42'\nprovider: github\nrepo: octo\/app\nbranch: feature\/auth\ntarget: main\nstatus: watching\n/);
    expect(text).toContain("# PR #42: Add auth");
    expect(text).toContain("### Failed Checks\n- `unit-tests`: exit code 1 ([details](https://ci/1))");
    expect(text).toContain("## Fix History");
    expect(text).toMatch(/## Log\n\n- 2026-02-06T10:00:00.000Z added \(watching\), pipeline failure \(1\/2 passing \(1 failing\)\)\n$/);
    const back = parsePrDocument(doc.key, text);
    expect(back).toEqual(doc);
    expect(renderPrDocument(back)).toBe(text);
  });

  it("tolerates hand edits: unquoted times, numbers as ids, and reports broken files with the fix", () => {
    const text = "---\nid: 7\nprovider: ado\nrepo: o/p/r\nstatus: watching\nurl: https://x\ncreated: 2026-02-06T10:00:00Z\n---\n# PR\n";
    const doc = parsePrDocument("ado-o-7", text);
    expect(doc.data).toMatchObject({ id: "7", created: "2026-02-06T10:00:00.000Z", checks: [], seen_comment_ids: [] });
    expect(() => parsePrDocument("x", "---\nid: 1\nprovider: gitlab\n---\n")).toThrow(/provider/);
    expect(() => parsePrDocument("x", "---\n: : :\n---\n")).toThrowError(
      expect.objectContaining({ code: "pr_document", fix: "Fix or delete x.md." }),
    );
  });
});

describe("findPr", () => {
  const doc = (key: string, id: string, repo: string): PrDocument => ({
    ...newDocument(info({ number: Number(id), repo, url: `https://github.com/${repo}/pull/${id}` }), key, 5, "2026-01-01T00:00:00Z"),
    key,
  });
  const docs = [
    doc("github-octo-app-1", "1", "octo/app"),
    doc("github-octo-lib-1", "1", "octo/lib"),
    doc("github-octo-app-2", "2", "octo/app"),
  ];

  it("infers the only PR, and finds by key, number, owner/repo#n and URL", () => {
    expect(findPr([docs[0]!], undefined).key).toBe("github-octo-app-1");
    expect(findPr(docs, "github-octo-lib-1").key).toBe("github-octo-lib-1");
    expect(findPr(docs, "2").key).toBe("github-octo-app-2");
    expect(findPr(docs, "#2").key).toBe("github-octo-app-2");
    expect(findPr(docs, "octo/lib#1").key).toBe("github-octo-lib-1");
    expect(findPr(docs, "https://github.com/octo/app/pull/2/").key).toBe("github-octo-app-2");
  });

  it("refuses to guess, naming the candidates", () => {
    expect(() => findPr(docs, undefined)).toThrowError(
      expect.objectContaining({ code: "pr_ambiguous", fix: expect.stringContaining("github-octo-lib-1") as unknown }),
    );
    expect(() => findPr(docs, "1")).toThrowError(expect.objectContaining({ code: "pr_ambiguous" }));
    expect(() => findPr([], undefined)).toThrowError(expect.objectContaining({ code: "pr_none", fix: "Add one with /otto-pr add <url>." }));
    expect(() => findPr(docs, "99")).toThrowError(expect.objectContaining({ code: "pr_not_tracked" }));
  });
});
