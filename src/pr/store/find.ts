import { OttoError } from "../../core/index.ts";
import type { PrDocument } from "./document.ts";

/*
 * Which tracked PR a user means: nothing (the only one tracked), a document key, a number, a
 * `owner/repo#n`, or the PR's URL. Pure: works on the listed documents.
 */

const sameUrl = (a: string, b: string): boolean => a.replace(/\/+$/, "").toLowerCase() === b.replace(/\/+$/, "").toLowerCase();

function describe(docs: readonly PrDocument[]): string {
  return docs.map((d) => `${d.key} (${d.data.repo}#${d.data.id})`).join(", ");
}

export function findPr(docs: readonly PrDocument[], query: string | undefined): PrDocument {
  if (query === undefined || query.trim() === "") {
    if (docs.length === 1 && docs[0]) return docs[0];
    if (docs.length === 0) throw new OttoError("pr_none", "No PRs are tracked.", "Add one with /otto-pr add <url>.");
    throw new OttoError("pr_ambiguous", `${docs.length} PRs are tracked; which one?`, `Pass one of: ${describe(docs)}.`);
  }
  const text = query.trim();
  const byKey = docs.find((d) => d.key === text.toLowerCase());
  if (byKey) return byKey;
  const full = /^(.+)#(\d+)$/.exec(text);
  const number = /^[#!]?(\d+)$/.exec(text)?.[1];
  const matches = docs.filter((d) => {
    if (/^https?:\/\//i.test(text)) return sameUrl(d.data.url, text);
    if (full) return d.data.id === full[2] && d.data.repo.toLowerCase().endsWith((full[1] ?? "").toLowerCase());
    return number !== undefined && d.data.id === number;
  });
  if (matches.length === 1 && matches[0]) return matches[0];
  if (matches.length > 1)
    throw new OttoError("pr_ambiguous", `'${text}' matches ${matches.length} tracked PRs.`, `Pass one of: ${describe(matches)}.`);
  throw new OttoError(
    "pr_not_tracked",
    `No tracked PR matches '${text}'.`,
    docs.length > 0 ? `Tracked: ${describe(docs)}. Add it with /otto-pr add <url>.` : "Add it with /otto-pr add <url>.",
  );
}
