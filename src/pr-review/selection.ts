import { OttoError } from "../core/index.ts";

/**
 * `/pr-review post <ids|all>`: "all", or ids and ranges separated by commas or spaces ("1,3",
 * "2-4"). Returns the chosen ids in ascending order; unknown or malformed ids are refused, so a
 * typo never posts the wrong comment.
 */
export function parseSelection(text: string, ids: readonly number[]): number[] {
  const known = new Set(ids);
  const range = ids.length > 0 ? `1-${Math.max(...ids)}` : "none";
  const fix = `Pass ids from the table (${range}) separated by commas, e.g. /pr-review post 1,3, or all.`;
  const trimmed = text.trim();
  if (trimmed === "") throw new OttoError("usage", "Which comments should be posted?", fix);
  if (trimmed.toLowerCase() === "all") return [...known].sort((a, b) => a - b);
  const chosen = new Set<number>();
  for (const part of trimmed.split(/[\s,]+/).filter(Boolean)) {
    const match = /^#?(\d+)(?:-(\d+))?$/.exec(part);
    if (!match) throw new OttoError("usage", `'${part}' is not a comment id.`, fix);
    const from = Number(match[1]);
    const to = match[2] === undefined ? from : Number(match[2]);
    if (to < from) throw new OttoError("usage", `'${part}' is an empty range.`, fix);
    for (let id = from; id <= to; id++) {
      if (!known.has(id)) throw new OttoError("usage", `There is no comment ${id} in the draft.`, fix);
      chosen.add(id);
    }
  }
  return [...chosen].sort((a, b) => a - b);
}
