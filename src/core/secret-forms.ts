/**
 * The forms a known secret is seen in besides itself: a model or a log can carry it URL-encoded,
 * base64-encoded (HTTP Basic credentials, a `.dockerconfigjson`, a Kubernetes secret, the secret
 * inside a longer encoded blob), hex-encoded, or with invisible characters between its letters.
 *
 * Each form is found with `includes()` first; only a hit compiles a pattern, and every pattern is a
 * literal with bounded runs around it, so the cost stays linear in the text (bench/redact.ts).
 */

/**
 * Encoded forms only for secrets of at least this many bytes: base64 at every alignment then keeps
 * a core of at least 8 characters (48 bits) and hex at least 16, so random base64 data and git
 * SHAs do not match by chance. Shorter secrets are redacted as they are, URL-encoded and as Basic.
 */
export const MIN_ENCODED_BYTES = 8;

/**
 * Characters that render as nothing: zero width space, non-joiner, joiner, word joiner, the byte
 * order mark, and the soft hyphen (shown only at a line break).
 */
// The joiner (U+200D) stands apart: inside a class it would read as joining its neighbours.
const INVISIBLE_CLASS = String.raw`(?:[\u200B\u200C\u2060\uFEFF\u00AD]|\u200D)`;
const HAS_INVISIBLE = new RegExp(INVISIBLE_CLASS);

const BASE64_CLASS = "[A-Za-z0-9+/_-]";

/** One form: `literal` is looked for with includes(); `pattern`, when set, is what is replaced around it. */
export interface SecretForm {
  literal: string;
  /** Source of a global pattern that covers the literal and the characters around it that still carry the secret. */
  pattern?: string;
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");

const toUrlSafe = (b64: string): string => b64.replace(/\+/g, "-").replace(/\//g, "_");

/**
 * The secret in base64 at each of the three byte alignments it can have inside a longer encoded
 * text. At alignment `skip`, the first `skip` bytes share a 4-character group with bytes before
 * the secret, so only the groups from the next boundary on are the secret's alone (the core); the
 * characters of the partial groups at both ends carry some of its bits and are replaced with it.
 */
function base64Forms(bytes: Buffer): SecretForm[] {
  const forms: SecretForm[] = [];
  for (const skip of [0, 1, 2]) {
    const whole = Math.floor((bytes.length - skip) / 3) * 3;
    const core = bytes.subarray(skip, skip + whole).toString("base64");
    // Characters of the leading group holding secret bits: none, 2 (one byte), 3 (two bytes).
    const lead = skip === 0 ? 0 : skip + 1;
    const rest = bytes.length - skip - whole;
    const trail = rest === 0 ? 0 : rest + 1;
    for (const literal of new Set([core, toUrlSafe(core)])) {
      forms.push({ literal, pattern: `${BASE64_CLASS}{0,${lead}}${escapeRegExp(literal)}${BASE64_CLASS}{0,${trail}}` });
    }
  }
  return forms;
}

/** The encoded forms of `secret` (not the secret itself): base64 and URL-safe base64 at every alignment, hex in both cases. */
export function encodedForms(secret: string): SecretForm[] {
  const forms: SecretForm[] = [];
  const encoded = encodeURIComponent(secret);
  if (encoded !== secret) forms.push({ literal: encoded });
  // HTTP Basic credentials with an empty user (Azure DevOps PATs), whole, padding included.
  forms.push({ literal: Buffer.from(`:${secret}`).toString("base64") });
  const bytes = Buffer.from(secret);
  if (bytes.length < MIN_ENCODED_BYTES) return forms;
  forms.push(...base64Forms(bytes));
  const hex = bytes.toString("hex");
  forms.push({ literal: hex }, { literal: hex.toUpperCase() });
  return forms;
}

/** Whether `text` holds any of the invisible characters a secret can be split with. */
export function hasInvisible(text: string): boolean {
  return HAS_INVISIBLE.test(text);
}

/**
 * A pattern for `secret` with invisible characters between its characters (and none required).
 * Linear: each run of the class is followed by a literal outside it, so a failed attempt gives back
 * at most the run it took, and attempts start only at the secret's first character.
 */
export function invisibleSplitPattern(secret: string): RegExp {
  const chars = Array.from(secret).map(escapeRegExp);
  return new RegExp(chars.join(`${INVISIBLE_CLASS}*`), "g");
}
