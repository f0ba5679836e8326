/**
 * Directories that hold dependencies, build output or caches. Skipped by every walk of a project
 * (its analysis, the sandbox's search for secret files, the hash of ignored files) and filtered from
 * git's list in the analysis, since a repo that forgot to ignore node_modules would otherwise
 * drown every other signal.
 */
export const SKIPPED_DIRS: ReadonlySet<string> = new Set([
  ".git",
  ".hg",
  ".svn",
  "node_modules",
  "bower_components",
  "vendor",
  "dist",
  "build",
  "out",
  "target",
  ".venv",
  "venv",
  "__pycache__",
  ".tox",
  ".nox",
  ".mypy_cache",
  ".pytest_cache",
  ".ruff_cache",
  ".next",
  ".nuxt",
  ".svelte-kit",
  ".turbo",
  ".cache",
  ".parcel-cache",
  ".gradle",
  ".idea",
  ".vscode",
  "coverage",
  ".terraform",
  ".otto",
]);
