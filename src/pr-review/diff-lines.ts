/*
 * Which lines of a unified diff a review comment may point at: on GitHub and Azure DevOps an
 * inline comment on the new side must sit inside a hunk (an added line or a context line shown
 * with it). Pure; the input is `git diff --src-prefix=a/ --dst-prefix=b/` output.
 * https://docs.github.com/en/rest/pulls/comments#create-a-review-comment-for-a-pull-request
 */

/** New-side line numbers inside hunks, per file path (the path after the change). */
export type CommentableLines = Map<string, Set<number>>;

const HUNK = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/;

/** A path as git prints it: `b/src/x.ts`, or quoted with C escapes when it has odd characters. */
function unquote(raw: string): string {
  if (!raw.startsWith('"') || !raw.endsWith('"')) return raw;
  const body = raw.slice(1, -1).replace(/\\(["\\tn])/g, (_m, c: string) => (c === "t" ? "\t" : c === "n" ? "\n" : c));
  // Octal escapes are UTF-8 bytes (core.quotePath).
  const bytes: number[] = [];
  for (let i = 0; i < body.length; i++) {
    const octal = /^\\([0-7]{3})/.exec(body.slice(i));
    if (octal) {
      bytes.push(parseInt(octal[1] ?? "0", 8));
      i += 3;
    } else bytes.push(...Buffer.from(body[i] ?? "", "utf8"));
  }
  return Buffer.from(bytes).toString("utf8");
}

function newPath(line: string): string | undefined {
  const raw = unquote(line.slice(4).replace(/\t.*$/, ""));
  if (raw === "/dev/null") return undefined;
  return raw.startsWith("b/") ? raw.slice(2) : raw;
}

export function commentableLines(diff: string): CommentableLines {
  const result: CommentableLines = new Map();
  let current: Set<number> | undefined;
  let next = 0;
  let remaining = 0;
  for (const line of diff.split("\n")) {
    if (line.startsWith("diff --git ")) {
      current = undefined;
      remaining = 0;
      continue;
    }
    if (remaining === 0 && line.startsWith("+++ ")) {
      const file = newPath(line);
      current = file === undefined ? undefined : (result.get(file) ?? new Set<number>());
      if (file !== undefined && current) result.set(file, current);
      continue;
    }
    const hunk = HUNK.exec(line);
    if (hunk) {
      next = Number(hunk[1]);
      remaining = hunk[2] === undefined ? 1 : Number(hunk[2]);
      continue;
    }
    if (!current || remaining === 0) continue;
    // An empty line inside a hunk is a blank context line whose leading space was stripped.
    if (line.startsWith("+") || line.startsWith(" ") || line === "") {
      current.add(next);
      next++;
      remaining--;
    }
    // "-" lines exist only on the old side; "\ No newline at end of file" on neither.
  }
  return result;
}
