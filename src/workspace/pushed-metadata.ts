import { blobId, type ObjectFormat } from "./ignored-content.ts";
import type { OttoError } from "../core/index.ts";
import type { GitRun } from "./snapshot.ts";

/*
 * What a push carries besides file content: each commit object whole (message, author, committer,
 * and every other header: `mergetag`, `gpgsig`, or one a session wrote with `git hash-object -t
 * commit`), the names in its trees, and what could travel with the commits. Otto's push sends one
 * `refs/heads/<branch>` and never tags (`--no-follow-tags`, whatever the user's `push.followTags`)
 * nor notes (no `refs/notes` refspec); the annotated tags and the notes that point at a pushed
 * commit are read anyway, so a session that writes a secret there is stopped at the first push,
 * not at the first later push that takes tags.
 *
 * Each object is read raw (`cat-file --batch`), not through `log`: a pretty format re-encodes and
 * indents the message and leaves out headers, and a secret must be found in the bytes that leave.
 */

/** What one pushed object holds that must not leave. */
export interface MetadataFinding {
  /** The object, for the message: "commit 1a2b3c4", "tag v1 (1a2b3c4)", "note on 1a2b3c4". */
  what: string;
  /** A known secret is in it. */
  secret: boolean;
  /** Its message (a note: its text) is the content of this ignored file. */
  copies?: string;
}

interface RawObject {
  id: string;
  type: string;
  body: Buffer;
}

/** Pure: `git cat-file --batch` output (bytes) as objects; undefined when it is not whole. */
export function parseBatch(bytes: Buffer): RawObject[] | undefined {
  const out: RawObject[] = [];
  let at = 0;
  while (at < bytes.length) {
    const eol = bytes.indexOf(0x0a, at);
    if (eol < 0) return undefined;
    const [id = "", type = "", size = ""] = bytes.subarray(at, eol).toString("latin1").split(" ");
    // A missing object ("<id> missing") has no size.
    if (!/^\d+$/.test(size)) return undefined;
    const end = eol + 1 + Number(size);
    // Past the end, bytes[end] is undefined.
    if (bytes[end] !== 0x0a) return undefined;
    out.push({ id, type, body: bytes.subarray(eol + 1, end) });
    at = end + 1;
  }
  return out;
}

/** A commit's or a tag's message: what follows the first empty line. */
function messageOf(body: Buffer): Buffer {
  const at = body.indexOf("\n\n");
  return at < 0 ? Buffer.alloc(0) : body.subarray(at + 2);
}

async function readObjects(git: GitRun, dir: string, ids: readonly string[], refuse: (why: string) => OttoError): Promise<RawObject[]> {
  const read = await git(["cat-file", "--batch"], { cwd: dir, input: `${ids.join("\n")}\n`, raw: true });
  const objects = read.exitCode === 0 ? parseBatch(read.bytes ?? Buffer.from(read.stdout)) : undefined;
  if (!objects || objects.length !== ids.length)
    throw refuse(`git could not read the commits, tags and notes to push whole (${read.stderr.trim() || `exit ${read.exitCode}`})`);
  return objects;
}

/** The annotated tags (object ids, with their names) that point at one of `commits`. */
async function tagsOn(git: GitRun, dir: string, commits: ReadonlySet<string>): Promise<Map<string, string>> {
  const refs = await git(["for-each-ref", "--format=%(objectname) %(objecttype) %(*objectname) %(refname:short)", "refs/tags"], {
    cwd: dir,
  });
  const out = new Map<string, string>();
  for (const line of refs.stdout.split("\n")) {
    const [id = "", type = "", target = "", ...name] = line.split(" ");
    if (type === "tag" && commits.has(target)) out.set(id, `tag ${name.join(" ")} (on ${target.slice(0, 7)})`);
  }
  return out;
}

/** The notes (blob ids, with the commit they annotate) on one of `commits`, from every notes ref. */
async function notesOn(git: GitRun, dir: string, commits: ReadonlySet<string>): Promise<Map<string, string>> {
  const refs = await git(["for-each-ref", "--format=%(refname)", "refs/notes"], { cwd: dir });
  const out = new Map<string, string>();
  for (const ref of refs.stdout.split("\n").filter(Boolean)) {
    const list = await git(["notes", "--ref", ref, "list"], { cwd: dir });
    for (const line of list.stdout.split("\n")) {
      const [note = "", target = ""] = line.split(" ");
      if (commits.has(target)) out.set(note, `note on ${target.slice(0, 7)} (${ref})`);
    }
  }
  return out;
}

/**
 * What the commits to push (`commits`, full ids) and the tags and notes on them hold that must not
 * leave: a known secret (`needles`) anywhere in the object, or a message that is an ignored file's
 * content (`ignoredBlobs`, a snapshot's). Refuses (via `refuse`) when an object cannot be read.
 */
export async function scanPushedMetadata(
  git: GitRun,
  dir: string,
  input: { commits: readonly string[]; needles: readonly string[]; ignoredBlobs: Record<string, string> | undefined },
  refuse: (why: string) => OttoError,
): Promise<MetadataFinding[]> {
  const commits = new Set(input.commits);
  if (commits.size === 0) return [];
  const tags = await tagsOn(git, dir, commits);
  const notes = await notesOn(git, dir, commits);
  const named = new Map<string, string>([...input.commits.map((c) => [c, `commit ${c.slice(0, 7)}`] as const), ...tags, ...notes]);
  const objects = await readObjects(git, dir, [...named.keys()], refuse);
  const needles = input.needles.map((n) => Buffer.from(n));
  const known = input.ignoredBlobs ?? {};
  const format: ObjectFormat = (input.commits[0]?.length ?? 40) === 64 ? "sha256" : "sha1";
  const out: MetadataFinding[] = [];
  for (const object of objects) {
    const what = named.get(object.id) ?? object.id;
    const secret = needles.some((n) => object.body.includes(n));
    // A note is a blob: its id is its text's. A commit's or a tag's message is hashed as one.
    const text = object.type === "blob" ? object.body : messageOf(object.body);
    const copies = text.length > 0 ? known[blobId(text, format)] : undefined;
    if (secret || copies !== undefined) out.push({ what, secret, ...(copies !== undefined ? { copies } : {}) });
  }
  return out;
}
