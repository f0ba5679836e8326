// @ts-check
import eslint from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["node_modules/**", "dist/**", "coverage/**", ".otto/**", "test/fixtures/**", "tmp/**"] },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Otto runs inside OpenCode: stdout belongs to the host. Log through client.app.log.
      "no-console": "error",
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/consistent-type-imports": "error",
      // OpenCode's hook and tool interfaces are async by contract; many implementations need no await.
      "@typescript-eslint/require-await": "off",
    },
  },
  {
    // Test support, bench and scripts are programs of their own and may print.
    files: ["test/**", "bench/**", "scripts/**"],
    rules: { "no-console": "off" },
  },
  { files: ["**/*.js", "**/*.mjs"], ...tseslint.configs.disableTypeChecked },
);
