/*
 * A unified diff read back per file: the lines it adds and removes, for the detector of weakened
 * checks. Paths come from the ---/+++ and rename lines, unquoted as git quotes them.
 */

/** The parts of a diff for one file: its added and removed lines, without the `+`/`-`. */
export interface FileLines {
  added: string[];
  removed: string[];
}

/** git's C-style quoting of a path with unusual characters (`"a/x\ty"`). */
function unquote(text: string): string {
  if (!text.startsWith('"')) return text;
  const body = text.slice(1, text.endsWith('"') ? -1 : undefined);
  const bytes: number[] = [];
  const simple: Record<string, number> = { n: 10, t: 9, r: 13, '"': 34, "\\": 92, a: 7, b: 8, f: 12, v: 11 };
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== "\\") {
      bytes.push(...Buffer.from(c, "utf8"));
      continue;
    }
    const next = body[i + 1] ?? "";
    if (/[0-7]/.test(next)) {
      bytes.push(parseInt(body.slice(i + 1, i + 4), 8));
      i += 3;
    } else {
      bytes.push(simple[next] ?? next.charCodeAt(0));
      i += 1;
    }
  }
  return Buffer.from(bytes).toString("utf8");
}

/** Pure: a unified diff (`git diff --text`) split per file, keyed by the new path (the old one for a deletion). */
export function parseDiffLines(diff: string): Map<string, FileLines> {
  const files = new Map<string, FileLines>();
  let current: FileLines = { added: [], removed: [] };
  let oldPath: string | undefined;
  let newPath: string | undefined;
  let inHunk = false;
  const flush = (): void => {
    const key = newPath ?? oldPath;
    if (key === undefined) return;
    const known = files.get(key);
    files.set(key, known ? { added: [...known.added, ...current.added], removed: [...known.removed, ...current.removed] } : current);
  };
  const pathOf = (text: string, prefix: string): string | undefined => {
    if (text === "/dev/null") return undefined;
    const p = unquote(text.replace(/\t$/, ""));
    return p.startsWith(prefix) ? p.slice(prefix.length) : p;
  };
  for (const line of diff.split("\n")) {
    if (line.startsWith("diff --git ")) {
      flush();
      current = { added: [], removed: [] };
      oldPath = newPath = undefined;
      inHunk = false;
      continue;
    }
    if (!inHunk) {
      // A rename without content changes has no ---/+++ lines.
      if (line.startsWith("rename from ")) oldPath = unquote(line.slice(12));
      else if (line.startsWith("rename to ")) newPath = unquote(line.slice(10));
      else if (line.startsWith("--- ")) oldPath = pathOf(line.slice(4), "a/");
      else if (line.startsWith("+++ ")) newPath = pathOf(line.slice(4), "b/");
      else if (line.startsWith("@@")) inHunk = true;
      continue;
    }
    if (line.startsWith("+")) current.added.push(line.slice(1));
    else if (line.startsWith("-")) current.removed.push(line.slice(1));
  }
  flush();
  return files;
}
