import type { ShellArg } from "./shell-ast.ts";

/*
 * Commands that talk to a forge: the GitHub and Azure DevOps CLIs, and HTTP clients aimed at a
 * forge's API or carrying credentials. Reading a PR is harmless but merging, commenting or creating
 * one is not, and the line between them is a CLI's verb: the CLIs get an allowlist of read verbs.
 */

/** The forge APIs every install knows; the configured api_url / base_url hosts are added to these. */
export const DEFAULT_FORGE_HOSTS = ["api.github.com", "uploads.github.com", "dev.azure.com", "vssps.dev.azure.com", "visualstudio.com"];

/** `gh <group> <verb>` that only read. */
const GH_READS: Record<string, readonly string[]> = {
  pr: ["view", "list", "diff", "checks", "status"],
  issue: ["view", "list", "status"],
  run: ["view", "list", "watch"],
  workflow: ["view", "list"],
  release: ["view", "list"],
  search: ["code", "commits", "issues", "prs", "repos"],
  cache: ["list"],
};
const GH_ALONE = new Set(["--version", "version", "help", "--help", "-h", "status", "browse"]);

/** `az` command groups that change a repository, a PR or a pipeline. */
const AZ_DENIED = new Set(["repos", "devops", "pipelines", "boards", "rest", "artifacts"]);

const HTTP_CLIENTS = new Set(["curl", "wget", "http", "https", "xh", "xhs", "curlie", "httpie"]);

const CREDENTIAL_HEADER = /^\s*['"]?(authorization|private-token|x-api-key|x-tfs-fedauthredirect)\s*:/i;
const SECRET_VARIABLE = /\$\{?[A-Za-z_]*(TOKEN|PAT|SECRET|PASSWORD|PASSWD|AUTH)[A-Za-z_]*\}?/i;

function words(args: readonly ShellArg[]): string[] {
  return args.map((a) => a.value ?? a.text);
}

/** Why `gh <args>` is refused, or undefined. */
export function ghDenial(args: readonly ShellArg[]): string | undefined {
  const list = words(args).filter(
    (w, i, all) => !(all[i - 1] === "-R" || all[i - 1] === "--repo") && !w.startsWith("-R") && !w.startsWith("--repo"),
  );
  const [group, verb] = list.filter((w) => !w.startsWith("-") || GH_ALONE.has(w));
  if (group === undefined || GH_ALONE.has(group)) return undefined;
  if (verb !== undefined && GH_READS[group]?.includes(verb)) return undefined;
  return `gh ${[group, verb].filter(Boolean).join(" ")}`;
}

/** Why `az <args>` is refused, or undefined. */
export function azDenial(args: readonly ShellArg[]): string | undefined {
  const group = words(args).find((w) => !w.startsWith("-"));
  return group !== undefined && AZ_DENIED.has(group) ? `az ${group}` : undefined;
}

export function isHttpClient(name: string): boolean {
  return HTTP_CLIENTS.has(name);
}

function hostOf(text: string): string | undefined {
  const match = /^(?:[a-z][a-z0-9+.-]*:\/\/)?(?:[^/@\s]*@)?([^/:?#\s'"]+)/i.exec(text.trim().replace(/^['"]/, ""));
  return match?.[1]?.toLowerCase();
}

function forgeHost(text: string, hosts: readonly string[]): string | undefined {
  const host = hostOf(text);
  if (!host) return undefined;
  return hosts.find((h) => host === h || host.endsWith(`.${h}`));
}

/** Why an HTTP client call is refused (a forge API, a credential), or undefined. */
export function httpDenial(name: string, args: readonly ShellArg[], hosts: readonly string[]): string | undefined {
  for (const [i, arg] of args.entries()) {
    const text = arg.value ?? arg.text;
    const previous = args[i - 1]?.value ?? "";
    if (CREDENTIAL_HEADER.test(text) && /^(-H|--header)$/.test(previous))
      return `${name} with an ${text.split(":")[0]?.replace(/['"]/g, "").trim()} header`;
    if (/^(-H|--header)/.test(text) && CREDENTIAL_HEADER.test(text.replace(/^(-H|--header=?)/, "")))
      return `${name} with a credential header`;
    if (/^(-u|--user|--oauth2-bearer|--http-user|--http-password|--password|--auth|-a|--aws-sigv4)(=|$)/.test(text) || /^-u./.test(text))
      return `${name} ${text.split("=")[0]} (credentials)`;
    // httpie / xh: `Authorization:…` as a request item.
    if (/^(http|https|xh|xhs|httpie)$/.test(name) && CREDENTIAL_HEADER.test(text)) return `${name} with an Authorization item`;
    if (SECRET_VARIABLE.test(arg.text)) return `${name} using ${SECRET_VARIABLE.exec(arg.text)?.[0]}`;
    const host = forgeHost(text, hosts);
    if (host && !text.startsWith("-")) return `${name} to ${host}`;
  }
  return undefined;
}

/** A forge host named anywhere in a piece of inline code (`node -e`, `python -c`, …). */
export function mentionsForge(text: string, hosts: readonly string[]): string | undefined {
  const lower = text.toLowerCase();
  return hosts.find((h) => lower.includes(h));
}
