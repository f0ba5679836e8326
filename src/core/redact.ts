/**
 * Secrets must never reach logs, comments or state files. These patterns cover the token
 * formats otto handles (GitHub, Azure DevOps PAT-looking strings in auth headers, bearer tokens).
 * https://docs.github.com/en/authentication/keeping-your-account-and-data-secure/about-authentication-to-github#githubs-token-formats
 */
const PATTERNS: RegExp[] = [
  /\bgh[pousr]_[A-Za-z0-9]{20,}\b/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}\b/g,
  /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{12,}/gi,
  // Slack: every xox?- token type, and rotating tokens' refresh form (xoxe.xoxp-…).
  // https://api.slack.com/concepts/token-types
  /\bxox[a-z](?:\.xox[a-z])?-[A-Za-z0-9-]{10,}\b/g,
  /\bsk-[A-Za-z0-9_-]{20,}\b/g,
  // AWS access key ids and secret keys written as assignments (aws_secret_access_key = …).
  /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g,
  /(aws_secret_access_key\s*[=:]\s*["']?)[A-Za-z0-9/+=]{40}/gi,
  // PEM private keys, whole block.
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g,
];

export const REDACTED = "[REDACTED]";

export function redact(text: string, extraSecrets: readonly string[] = []): string {
  let out = text;
  for (const secret of extraSecrets) {
    if (secret && secret.length >= 6) out = out.split(secret).join(REDACTED);
  }
  for (const pattern of PATTERNS) out = out.replace(pattern, (match: string, prefix: unknown) => (typeof prefix === "string" && /aws_secret/i.test(prefix) ? `${prefix}${REDACTED}` : REDACTED));
  return out;
}

/** Shows that a secret is set without showing it. */
export function maskSecret(value: string | undefined): string {
  if (!value) return "(unset)";
  return `${REDACTED} (${value.length} chars)`;
}
