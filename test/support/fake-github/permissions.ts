/*
 * What a GitHub App installation token (GitHub Actions' own token is one) may call: each route the
 * fake serves needs one permission, read or write, as GitHub's docs list it under "Fine-grained
 * access tokens" on every endpoint (https://docs.github.com/en/rest/authentication/permissions-required-for-github-apps).
 * A call outside the token's permissions is a 403, as on GitHub.
 */

export type Level = "read" | "write";
export type Permissions = Readonly<Record<string, Level>>;

const NEEDS: ReadonlyArray<[method: string, path: RegExp, scope: string, level: Level]> = [
  // Metadata read is granted to every installation token.
  ["GET", /^\/repos\/[^/]+\/[^/]+\/collaborators\/[^/]+\/permission$/, "metadata", "read"],
  ["GET", /^\/repos\/[^/]+\/[^/]+\/commits\/[^/]+\/check-runs$/, "checks", "read"],
  ["GET", /^\/repos\/[^/]+\/[^/]+\/commits\/[^/]+\/status$/, "statuses", "read"],
  ["GET", /^\/repos\/[^/]+\/[^/]+\/actions\//, "actions", "read"],
  ["POST", /^\/repos\/[^/]+\/[^/]+\/actions\//, "actions", "write"],
  // Opening an issue: issues write (https://docs.github.com/en/rest/issues/issues#create-an-issue).
  ["POST", /^\/repos\/[^/]+\/[^/]+\/issues$/, "issues", "write"],
  // A PR's conversation comments: pull-requests or issues (https://docs.github.com/en/rest/issues/comments).
  ["GET", /^\/repos\/[^/]+\/[^/]+\/issues\//, "pull-requests", "read"],
  ["POST", /^\/repos\/[^/]+\/[^/]+\/issues\//, "pull-requests", "write"],
  ["PATCH", /^\/repos\/[^/]+\/[^/]+\/issues\//, "pull-requests", "write"],
  ["GET", /^\/repos\/[^/]+\/[^/]+\/pulls/, "pull-requests", "read"],
  ["POST", /^\/repos\/[^/]+\/[^/]+\/pulls/, "pull-requests", "write"],
  ["POST", /^\/graphql$|^\/api\/graphql$/, "pull-requests", "read"],
];

/** Why `permissions` refuse the call, or undefined when they allow it (or the fake has no rule for it). */
export function refusal(permissions: Permissions, method: string, path: string): string | undefined {
  const need = NEEDS.find(([m, p]) => m === method && p.test(path));
  if (!need) return undefined;
  const [, , scope, level] = need;
  if (scope === "metadata") return undefined;
  const granted = permissions[scope];
  if (granted === "write" || granted === level) return undefined;
  return `${scope}: ${level}`;
}
