function refuseJavaScript(): never {
  throw new Error("JavaScript front matter (---js) is not supported: write the front matter in YAML.");
}

/**
 * The options for every gray-matter parse. gray-matter `eval`s front matter that opens with
 * `---js` or `---javascript`, and otto parses files it did not write (prompt overrides, PR
 * documents), so that engine throws instead. A fresh object per call, because gray-matter caches
 * parses by content when given no options and hands back the shared result.
 */
export function matterOptions(): { engines: Record<string, () => never> } {
  return { engines: { javascript: refuseJavaScript, js: refuseJavaScript } };
}
