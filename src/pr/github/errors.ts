import { OttoError, isOttoError, redact } from "../../core/index.ts";

/** Octokit's RequestError as an OttoError that says what to do; other errors pass through. */
export function githubError(error: unknown, what: string): unknown {
  if (isOttoError(error)) return error;
  const status = typeof error === "object" && error !== null ? (error as { status?: unknown }).status : undefined;
  const message = redact(error instanceof Error ? error.message : String(error));
  if (status === 401) {
    return new OttoError(
      "pr_auth",
      `GitHub rejected the token while reading ${what} (401).`,
      "Set GITHUB_TOKEN or pr.providers.github.token, or run gh auth login.",
      { cause: error },
    );
  }
  if (status === 404) {
    return new OttoError(
      "pr_not_found",
      `GitHub has no ${what}, or the token cannot see it (404).`,
      "Check the URL or number, and that the token can read the repository.",
      { cause: error },
    );
  }
  if (status === 403) {
    return new OttoError(
      "pr_forbidden",
      `GitHub refused ${what} (403): ${message}`,
      "Check the token's scopes (repo, or pull requests and checks read/write).",
      { cause: error },
    );
  }
  const code = typeof status === "number" ? ` (${status})` : "";
  return new OttoError(
    "pr_api",
    `GitHub request for ${what} failed${code}: ${message}`,
    "otto retries on the next poll; check GitHub's status if it persists.",
    { cause: error },
  );
}
