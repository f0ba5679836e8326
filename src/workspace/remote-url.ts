import path from "node:path";

/*
 * One repository, many spellings: https or ssh, scp-like `git@host:org/repo`, with or without
 * `.git`, a user or token before the host, upper-case letters. Azure DevOps adds its own forms
 * (https://learn.microsoft.com/en-us/azure/devops/repos/git/clone#get-the-clone-url-of-an-azure-repo):
 *   https://dev.azure.com/{org}/{project}/_git/{repo}
 *   https://{org}.visualstudio.com[/DefaultCollection]/{project}/_git/{repo}
 *   git@ssh.dev.azure.com:v3/{org}/{project}/{repo}
 *   {org}@vs-ssh.visualstudio.com:v3/{org}/{project}/{repo}
 * All of them normalise to `host/path` in lower case (GitHub and Azure DevOps compare names
 * case-insensitively), with every Azure DevOps form on `dev.azure.com/{org}/{project}/{repo}`.
 */

interface Parts {
  host: string;
  path: string;
}

const SCHEME = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/]*@)?(\[[^\]]+\]|[^/:]+)(?::\d*)?(\/.*)?$/i;
const SCP = /^(?:[^@/]+@)?([^:/]+):(?!\/\/)(.+)$/;

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function split(url: string): Parts | undefined {
  const scheme = SCHEME.exec(url);
  if (scheme) return { host: scheme[1] ?? "", path: scheme[2] ?? "" };
  const scp = SCP.exec(url);
  if (scp) return { host: scp[1] ?? "", path: scp[2] ?? "" };
  return undefined;
}

function azure(host: string, segments: string[]): string[] | undefined {
  if (host === "ssh.dev.azure.com" || host === "vs-ssh.visualstudio.com") {
    return segments[0] === "v3" ? segments.slice(1) : segments;
  }
  const git = segments.indexOf("_git");
  if (git < 0) return undefined;
  let before = segments.slice(0, git);
  const repo = segments[git + 1];
  if (repo === undefined) return undefined;
  const legacy = /^([^.]+)\.visualstudio\.com$/.exec(host);
  if (legacy?.[1]) before = [legacy[1], ...before.filter((s) => s !== "defaultcollection")];
  // `org/_git/repo` is the short form for a repository named like its project.
  if (host === "dev.azure.com" || legacy) return before.length === 1 ? [...before, repo, repo] : [...before, repo];
  // Azure DevOps Server (on premises): collection/project/_git/repo.
  return [...before, repo];
}

function isAzureHost(host: string): boolean {
  return host === "dev.azure.com" || host === "ssh.dev.azure.com" || host.endsWith(".visualstudio.com");
}

/**
 * `host/path` in lower case, e.g. "github.com/org/repo" or "dev.azure.com/org/project/repo";
 * `file:<absolute path>` for a local remote; undefined when the text is not a repository URL.
 */
export function normalizeRemoteUrl(url: string): string | undefined {
  const text = url.trim();
  if (text === "") return undefined;
  if (text.startsWith("file://") || path.isAbsolute(text)) {
    const local = decode(text.replace(/^file:\/\//, ""));
    return `file:${path
      .resolve(local)
      .replace(/\/\.git$/, "")
      .replace(/\.git$/, "")}`;
  }
  const parts = split(text);
  if (!parts || parts.host === "") return undefined;
  const host = parts.host.toLowerCase().replace(/^www\./, "");
  const segments = decode(parts.path)
    .toLowerCase()
    .split("/")
    .filter((s) => s !== "");
  const last = segments.length - 1;
  if (last >= 0) segments[last] = (segments[last] ?? "").replace(/\.git$/, "");
  const fixed = isAzureHost(host) || segments.includes("_git") ? azure(host, segments) : segments;
  if (!fixed || fixed.length === 0 || fixed.some((s) => s === "")) return undefined;
  return `${isAzureHost(host) ? "dev.azure.com" : host}/${fixed.join("/")}`;
}

/** True when both URLs name the same repository (see normalizeRemoteUrl). */
export function sameRepository(a: string, b: string): boolean {
  const left = normalizeRemoteUrl(a);
  return left !== undefined && left === normalizeRemoteUrl(b);
}

/** The repository's own name (the last path segment), e.g. "repo" for git@github.com:org/repo.git. */
export function repositoryName(url: string): string | undefined {
  const normalized = normalizeRemoteUrl(url);
  return normalized === undefined ? undefined : path.posix.basename(normalized);
}
