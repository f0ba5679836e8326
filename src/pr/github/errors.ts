import { OttoError, isOttoError, redact } from "../../core/index.ts";
import { hostPort, noAnswerReason } from "../no-answer.ts";

/** What the backend knows of its requests, for an error that names the real cause. */
export interface RequestSetting {
  /** The API's URL (pr.providers.github.api_url). */
  apiUrl: string;
  /** No token was found: the requests were anonymous. */
  anonymous: boolean;
}

const NO_TOKEN = "otto found no GitHub token (pr.providers.github.token, GITHUB_TOKEN, GH_TOKEN or `gh auth token`)";

/** Octokit's RequestError as an OttoError that says what to do; other errors pass through. */
export function githubError(error: unknown, what: string, setting?: RequestSetting): unknown {
  if (isOttoError(error)) return error;
  const status = typeof error === "object" && error !== null ? (error as { status?: unknown }).status : undefined;
  const message = redact(error instanceof Error ? error.message : String(error));
  // Octokit reports a request that got no answer (DNS, refused, reset) as status 500 without a response.
  const answered = typeof error === "object" && error !== null && "response" in error && (error as { response?: unknown }).response;
  if (status === 500 && !answered && setting) {
    // plugin-retry counts its retries on the request (none for a refused connection: octokit.ts).
    const retried = (error as { request?: { request?: { retryCount?: unknown } } }).request?.request?.retryCount;
    const attempts = typeof retried === "number" && retried > 0 ? ` (${retried + 1} attempts)` : "";
    return new OttoError(
      "pr_unreachable",
      `GitHub could not be reached while reading ${what}: ${hostPort(setting.apiUrl)}: ${noAnswerReason(error, message)}; no HTTP status came back${attempts}.` +
        (setting.anonymous ? ` Also, ${NO_TOKEN}.` : ""),
      `Check that ${setting.apiUrl} is reachable from this machine (network, proxy, VPN; GitHub Enterprise: pr.providers.github.api_url), then run the command again.`,
      { cause: error },
    );
  }
  if (setting?.anonymous && (status === 401 || status === 403 || status === 404)) {
    return new OttoError(
      "pr_no_token",
      `GitHub answered ${String(status)} for ${what}, and ${NO_TOKEN}: a private repository is invisible without one.`,
      "Set GITHUB_TOKEN (or run `gh auth login`, or /otto-config set pr.providers.github.token <token> --user), then run the command again.",
      { cause: error },
    );
  }
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
    "Run the command again (a tracked PR is retried on the watcher's next poll); check GitHub's status if it persists.",
    { cause: error },
  );
}
