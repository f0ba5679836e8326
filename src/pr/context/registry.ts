import { OttoError } from "../../core/index.ts";
import { createAdoBackend } from "../ado/backend.ts";
import type { BackendDeps, BackendFactory, IdContext, PrBackend } from "../backend.ts";
import { createGithubBackend } from "../github/backend.ts";
import { normalizeRemoteUrl } from "../../workspace/index.ts";
import { ProviderName, type PrLocator } from "../types.ts";

/** Every backend otto knows; adding a forge means adding a line here and a folder beside github/ and ado/. */
const FACTORIES: Record<ProviderName, BackendFactory> = {
  github: createGithubBackend,
  ado: createAdoBackend,
};

export interface BackendRegistry {
  get(name: ProviderName): PrBackend;
  all(): PrBackend[];
  /** The backend whose hosts include the URL's host. */
  forUrl(url: URL): PrBackend | undefined;
}

/** Backends are built on first use, so a command that needs only one never touches the other's config. */
export function createRegistry(deps: BackendDeps, factories: Partial<Record<ProviderName, BackendFactory>> = FACTORIES): BackendRegistry {
  const built = new Map<ProviderName, PrBackend>();
  const names = ProviderName.options.filter((n) => factories[n] !== undefined);
  const get = (name: ProviderName): PrBackend => {
    let backend = built.get(name);
    if (!backend) {
      const factory = factories[name];
      if (!factory) throw new OttoError("pr_provider", `No backend for provider '${name}'.`, `Use one of: ${names.join(", ")}.`);
      backend = factory(deps);
      built.set(name, backend);
    }
    return backend;
  };
  return {
    get,
    all: () => names.map(get),
    forUrl: (url) => names.map(get).find((b) => b.matchesUrl(url)),
  };
}

export interface LocateInput {
  /** What the user typed: a PR URL, a number, or `owner/repo#42`. */
  text: string;
  /** --provider */
  provider?: string;
  /** pr.default_provider */
  defaultProvider?: ProviderName;
  context: IdContext;
}

function parseProvider(text: string): ProviderName {
  const parsed = ProviderName.safeParse(text);
  if (!parsed.success)
    throw new OttoError("pr_provider", `Unknown provider '${text}'.`, `Use --provider ${ProviderName.options.join(" or --provider ")}.`);
  return parsed.data;
}

function asUrl(text: string): URL | undefined {
  if (!/^https?:\/\//i.test(text)) return undefined;
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/**
 * Which backend and PR a user's text means. URLs pick the backend by host (--provider forces
 * one); bare ids use --provider, then pr.default_provider, then the host of the origin remote.
 */
export function locatePr(registry: BackendRegistry, input: LocateInput): { backend: PrBackend; locator: PrLocator } {
  const forced = input.provider === undefined ? undefined : registry.get(parseProvider(input.provider));
  const url = asUrl(input.text.trim());
  if (url) {
    const backend = forced ?? registry.forUrl(url);
    const locator = backend?.parseUrl(url);
    if (!backend || !locator) {
      throw new OttoError(
        "pr_bad_url",
        `'${input.text}' is not a pull request URL otto recognises.`,
        "Use https://github.com/<owner>/<repo>/pull/<n> or https://dev.azure.com/<org>/<project>/_git/<repo>/pullrequest/<id>; for an Enterprise or on-premises host set pr.providers.github.hosts or pr.providers.ado.base_url.",
      );
    }
    return { backend, locator };
  }
  const fromRemote = (): PrBackend | undefined => {
    const remote = input.context.remoteUrl === undefined ? undefined : normalizeRemoteUrl(input.context.remoteUrl);
    return remote === undefined || remote.startsWith("file:") ? undefined : registry.forUrl(new URL(`https://${remote}`));
  };
  const backend = forced ?? (input.defaultProvider ? registry.get(input.defaultProvider) : fromRemote());
  if (!backend) {
    throw new OttoError(
      "pr_provider",
      `Which provider is PR '${input.text}' on?`,
      `Pass --provider ${ProviderName.options.join("|")}, set pr.default_provider, or pass the PR's URL.`,
    );
  }
  return { backend, locator: backend.locateId(input.text, input.context) };
}
