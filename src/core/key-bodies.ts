/**
 * A private key's body without its BEGIN line: `tail -n +2 id_rsa`, a log that cut the first line,
 * a YAML block that quotes the key from its second line on. The whole-block rules of redact.ts
 * need the BEGIN line; these find the body two other ways:
 *
 * - back from an END line (`-----END … PRIVATE KEY-----`) the block rules left, over the pieces
 *   a key body is made of (base64 lines, a PGP checksum);
 * - forward from the first bytes every key of a kind starts with, base64-encoded (the DER
 *   structure's header: PKCS#1 and PKCS#8 RSA, PKCS#8 Ed25519 and EC, SEC1 EC; OpenSSH's
 *   `openssh-key-v1` magic), over the base64 pieces that follow.
 *
 * Pieces are whitespace-separated, so a body whose lines a log joined into one is found too.
 * Linear: each walk is bounded (MAX_PIECES, MAX_PIECE) and stops at a piece a key body cannot
 * hold; a start found inside a region already taken is skipped.
 */

const END = /-----END (?:[A-Z ]{0,40}PRIVATE KEY|PGP PRIVATE KEY BLOCK)-----/g;
const START = new RegExp(
  [
    String.raw`(?<![A-Za-z0-9+/])(?:b3BlbnNzaC1rZXktdjE`, // "openssh-key-v1\0"
    String.raw`MII[A-Za-z0-9+/]{3}IBA(?:DAN|AK)`, // PKCS#8 RSA (version 0, rsaEncryption), PKCS#1 RSA
    String.raw`MC4CAQAwBQYDK2Vw`, // PKCS#8 Ed25519
    String.raw`MIG[A-Za-z0-9+/]AgEAMBMGByqGSM49AgE`, // PKCS#8 EC
    String.raw`MHcCAQEE`, // SEC1 EC P-256
    String.raw`MIGkAgEBBDA)`, // SEC1 EC P-384
  ].join("|"),
  "g",
);
/** A piece of a key body: a 64-character line (70 in OpenSSH's), or the shorter last one, or a PGP checksum. */
const PIECE = /^(?:[A-Za-z0-9+/]{16,}={0,2}|=[A-Za-z0-9+/]{4})$/;
const LAST_PIECE = /^[A-Za-z0-9+/]+={0,2}$/;
const RUN = /^[A-Za-z0-9+/]+={0,2}/;
const END_AT = /^-----END (?:[A-Z ]{0,40}PRIVATE KEY|PGP PRIVATE KEY BLOCK)-----/;
/** How many pieces a walk crosses, and how long one may be: bounds on the work, above any key's size. */
const MAX_PIECES = 1000;
const MAX_PIECE = 4096;

type Region = [start: number, end: number];

const isSpace = (c: string): boolean => c === " " || c === "\t" || c === "\n" || c === "\r";

/**
 * The start of the key body that ends at `at` (an END line's start), walking back over the pieces
 * before it, whether lines or words of a line that joined them (a log's one-line entry).
 */
function walkBack(text: string, at: number): number {
  let start = at;
  for (let n = 0; n < MAX_PIECES; n++) {
    let end = start;
    while (end > 0 && isSpace(text.charAt(end - 1))) end--;
    let from = end;
    while (from > 0 && end - from < MAX_PIECE && !isSpace(text.charAt(from - 1))) from--;
    const piece = text.slice(from, end);
    if (piece === "") break;
    // The piece just before END may be the body's short last line; a shorter one elsewhere is prose.
    if (PIECE.test(piece) || (n === 0 && LAST_PIECE.test(piece))) {
      start = from;
      continue;
    }
    // Something glued before the body's first piece (a log's `[kind]`): its base64 tail only.
    const tail = /[A-Za-z0-9+/]{16,}={0,2}$/.exec(piece);
    if (tail) start = from + tail.index;
    break;
  }
  return start;
}

/** The end of the key body that starts at `at`, walking forward: its run, then the pieces after it, END included. */
function walkForward(text: string, at: number): number {
  let end = at + (RUN.exec(text.slice(at, at + MAX_PIECE))?.[0].length ?? 0);
  // Glued to what follows (`"key": "MII…",`): the run alone.
  if (end < text.length && !isSpace(text.charAt(end))) return end;
  for (let n = 0; n < MAX_PIECES; n++) {
    let from = end;
    while (from < text.length && isSpace(text.charAt(from))) from++;
    const closing = END_AT.exec(text.slice(from, from + 64));
    if (closing) return from + closing[0].length;
    let to = from;
    while (to < text.length && to - from < MAX_PIECE && !isSpace(text.charAt(to))) to++;
    const piece = text.slice(from, to);
    if (piece === "") break;
    let next = to;
    while (next < text.length && isSpace(text.charAt(next))) next++;
    // A short piece is the body's last only when END follows it.
    if (!PIECE.test(piece) && !(LAST_PIECE.test(piece) && END_AT.test(text.slice(next, next + 64)))) break;
    end = to;
  }
  return end;
}

/** `text` with every private key body found without its BEGIN line replaced by `replacement`. */
export function redactKeyBodies(text: string, replacement: string): string {
  const regions: Region[] = [];
  for (const match of text.matchAll(END)) regions.push([walkBack(text, match.index), match.index + match[0].length]);
  // The END regions are in order and apart (a walk back stops at the END before it).
  const ends = regions.length;
  let i = 0;
  START.lastIndex = 0;
  for (let match = START.exec(text); match; match = START.exec(text)) {
    const at = match.index;
    while (i < ends && (regions[i]?.[1] ?? 0) <= at) i++;
    if (i < ends && (regions[i]?.[0] ?? Infinity) <= at) continue;
    const end = walkForward(text, at);
    regions.push([at, end]);
    START.lastIndex = Math.max(end, at + 1);
  }
  if (regions.length === 0) return text;
  regions.sort((a, b) => a[0] - b[0]);
  let out = "";
  let from = 0;
  for (const [start, end] of regions) {
    if (end <= from) continue;
    out += text.slice(from, Math.max(start, from)) + replacement;
    from = end;
  }
  return out + text.slice(from);
}
