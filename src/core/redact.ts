/**
 * Secrets must never reach logs, comments, notifications or state files. Two layers: the token
 * formats below (found anywhere), and the values otto knows are secret (configured tokens,
 * webhook URLs, tokens of the environment), passed in as `extraSecrets`.
 *
 * Every pattern is linear: no nested quantifiers, and each variable-length run is either bounded
 * or stops at a character the next part cannot start with, so megabytes of CI log or base64 data
 * cannot make a pattern backtrack (bench/redact.ts measures it).
 *
 * Known secrets are also found encoded and split by invisible characters (secret-forms.ts).
 *
 * A rule may keep text around the secret: the named group `keep` before it, `tail` after it
 * ("Authorization: token [REDACTED]", "https://[REDACTED]@host", `"password": "[REDACTED]"`).
 */
import { redactKeyBodies } from "./key-bodies.ts";
import { encodedForms, hasInvisible, invisibleSplitPattern } from "./secret-forms.ts";

const SECRET_WORD = String.raw`(?:password|passwd|passphrase|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credentials?)`;
/** A whole identifier (the lookbehind) of at most 60 characters ending in a secret word: not `max_tokens`, `token_count`. */
const SECRET_KEY = String.raw`(?<![A-Za-z0-9_.-])[A-Za-z0-9_.-]{0,60}${SECRET_WORD}`;
/**
 * Not a value but a reference to one (`$VAR`, `${{ secrets.X }}`, `$(cmd)`, `<placeholder>`,
 * `{{ var }}`), or one already masked ("[REDACTED] (40 chars)" as /otto-config show writes it).
 */
const NOT_A_REFERENCE = String.raw`(?![$<{]|\[REDACTED\])`;
/** A token-like run of characters (base64url) that does not start inside a longer one. */
const START = String.raw`(?<![A-Za-z0-9_-])`;

const RULES: RegExp[] = [
  // GitHub: https://docs.github.com/en/authentication/keeping-your-account-and-data-secure/about-authentication-to-github#githubs-token-formats
  /\bgh[pousr]_[A-Za-z0-9]{20,}\b/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}\b/g,
  // An Authorization header, whatever its scheme: the scheme is kept, the credentials are not.
  /(?<keep>\bAuthorization["']?[ \t]{0,4}[:=][ \t]{0,4}["']?(?:(?:token|Bearer|Basic|Digest|Negotiate|NTLM)[ \t]{1,4})?)[^\s"',;]{4,}/gi,
  /\b(?:Bearer|Basic)\s{1,4}[A-Za-z0-9._~+/=-]{12,}/gi,
  // Slack: every xox?- token type, rotating tokens' refresh form (xoxe.xoxp-…), app-level tokens (xapp-).
  // https://api.slack.com/concepts/token-types
  new RegExp(String.raw`${START}xox[a-z](?:\.xox[a-z])?-[A-Za-z0-9-]{10,}\b`, "g"),
  new RegExp(String.raw`${START}xapp-[A-Za-z0-9-]{10,}\b`, "g"),
  new RegExp(String.raw`${START}sk-[A-Za-z0-9_-]{20,}\b`, "g"),
  // GitLab personal, project and group tokens: https://docs.gitlab.com/security/tokens/#token-prefixes
  new RegExp(String.raw`${START}glpat-[A-Za-z0-9_-]{20,}`, "g"),
  // npm access tokens: npm_ and 36 base62 characters.
  /\bnpm_[A-Za-z0-9]{36}\b/g,
  // Google API keys: AIza and 35 characters.
  new RegExp(String.raw`${START}AIza[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])`, "g"),
  // AWS access key ids.
  /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g,
  // JWTs (JWS, JWE): a base64url JSON header `{"…` is `eyJ…`, then one to four dot-separated parts.
  new RegExp(String.raw`${START}eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}(?:\.[A-Za-z0-9_-]+){0,3}`, "g"),
  // Credentials in a URL (https://user:pass@host): the scheme and the host stay.
  /(?<keep>\b[A-Za-z][A-Za-z0-9+.-]{0,20}:\/\/)[^\s/?#@:"'<>]{1,256}:[^\s/?#@"'<>]{1,256}(?<tail>@)/g,
  // A token as a URL's user name (https://TOKEN@dev.azure.com/…): 20 characters or more with a
  // digit, so `git@`, `org@dev.azure.com` and a person's name stay.
  /(?<keep>\b[A-Za-z][A-Za-z0-9+.-]{0,20}:\/\/)(?=[^\s/?#@:"'<>]{0,256}[0-9])[^\s/?#@:"'<>]{20,256}(?<tail>@)/g,
  // PEM private keys and PGP private key blocks, whole block (to the end of the text when cut off).
  /-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]{0,40}PRIVATE KEY-----|$)/g,
  /-----BEGIN PGP PRIVATE KEY BLOCK-----[\s\S]*?(?:-----END PGP PRIVATE KEY BLOCK-----|$)/g,
  // Assignments whose key names a secret; the key stays. Quoted (JSON, YAML, code): the value whole,
  // `"SecretAccessKey": "…"`, `DB_PASSWORD="…"`.
  new RegExp(
    String.raw`(?<keep>["']?${SECRET_KEY}["']?[ \t]{0,4}[:=][ \t]{0,4}(?<quote>["']))${NOT_A_REFERENCE}[^"'\r\n]{1,512}(?<tail>\k<quote>)`,
    "gi",
  ),
  // Unquoted, with nothing around `=` (.env, INI, shells, query strings): any value, `password=…`.
  new RegExp(String.raw`(?<keep>${SECRET_KEY}=)${NOT_A_REFERENCE}(?![="'\s])[^\s"',;&<>)]{3,512}`, "gi"),
  // Unquoted YAML `client_secret: …` or code with spaces: a value with a digit, so prose
  // ("password: required") and code (`token: z.string()`, `token = getToken()`) stay readable.
  new RegExp(
    String.raw`(?<keep>${SECRET_KEY}[ \t]{0,4}[:=][ \t]{0,4})${NOT_A_REFERENCE}(?![="'\s])(?=[^\s"',;&]{0,512}[0-9])[^\s"',;&]{6,512}`,
    "gi",
  ),
];

export const REDACTED = "[REDACTED]";

/**
 * Values shorter than this are not redacted: a one- or two-character "secret" would blank every
 * occurrence of that letter. `/otto-config validate` reports such values.
 */
export const MIN_SECRET_LENGTH = 3;

function replaceRule(text: string, rule: RegExp): string {
  // The last argument is the named groups, or, for a rule without any, the matched text (which has neither).
  return text.replace(rule, (...args: unknown[]) => {
    const { keep = "", tail = "" } = args[args.length - 1] as { keep?: string; tail?: string };
    return `${keep}${REDACTED}${tail}`;
  });
}

/** `text` with every known token format and every value of `extraSecrets` replaced by [REDACTED]. */
export function redact(text: string, extraSecrets: readonly string[] = []): string {
  let out = text;
  // Longest first, so a secret that contains another is not left half redacted.
  const known = extraSecrets.filter((s) => typeof s === "string" && s.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length);
  for (const secret of known) {
    out = out.split(secret).join(REDACTED);
    for (const form of encodedForms(secret)) {
      if (!out.includes(form.literal)) continue;
      out = form.pattern === undefined ? out.split(form.literal).join(REDACTED) : out.replace(new RegExp(form.pattern, "g"), REDACTED);
    }
  }
  // Invisible characters between a secret's letters: looked for only in a text that holds one.
  if (known.length > 0 && hasInvisible(out)) for (const secret of known) out = out.replace(invisibleSplitPattern(secret), REDACTED);
  for (const rule of RULES) out = replaceRule(out, rule);
  // A private key's body whose BEGIN line is missing (the block rules above need it).
  return redactKeyBodies(out, REDACTED);
}

/** Every string inside `value` (objects, arrays) redacted; other values as they are. For log `extra` fields. */
export function redactDeep<T>(value: T, extraSecrets: readonly string[] = []): T {
  const visit = (node: unknown, depth: number): unknown => {
    if (typeof node === "string") return redact(node, extraSecrets);
    if (depth > 8 || node === null || typeof node !== "object") return node;
    if (node instanceof Error) return redact(node.stack ?? node.message, extraSecrets);
    if (Array.isArray(node)) return node.map((item) => visit(item, depth + 1));
    // Only plain objects are rebuilt: a Date, Map or class instance stays as it is.
    const proto: unknown = Object.getPrototypeOf(node);
    if (proto !== Object.prototype && proto !== null) return node;
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, visit(v, depth + 1)]));
  };
  return visit(value, 0) as T;
}

/** Shows that a secret is set without showing it. */
export function maskSecret(value: string | undefined): string {
  if (!value) return "(unset)";
  return `${REDACTED} (${value.length} chars)`;
}
