// @ts-check
import js from "@eslint/js";
import tseslint from "typescript-eslint";

const processBan = {
  paths: [
    { name: "node:child_process", message: "Spawn processes through src/process (runCommand)." },
    { name: "child_process", message: "Spawn processes through src/process (runCommand)." },
    { name: "execa", message: "Spawn processes through src/process (runCommand)." },
  ],
};

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", "evals/", "runs/", ".cache/", "coverage/", "bin/"] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/restrict-template-expressions": ["error", { allowNumber: true }],
      "no-restricted-imports": ["error", processBan],
      "no-console": "error",
    },
  },
  {
    files: ["src/process/**"],
    rules: { "no-restricted-imports": "off" },
  },
  {
    files: ["src/cli/**", "src/ui/**", "bench/**", "test/**"],
    rules: { "no-console": "off" },
  },
  {
    files: ["test/**", "bench/**"],
    rules: {
      "no-restricted-imports": "off",
      "@typescript-eslint/no-non-null-assertion": "off",
    },
  },
  {
    files: ["eslint.config.js", "test/fixtures/**/*.mjs"],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ["test/fixtures/**/*.mjs"],
    languageOptions: {
      globals: {
        process: "readonly",
        console: "readonly",
        setTimeout: "readonly",
        setInterval: "readonly",
        clearInterval: "readonly",
        Buffer: "readonly",
        URL: "readonly",
      },
    },
  },
);
