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

/** Other folders are reached through their index.ts, the list of what each folder offers. */
const throughIndex = (up) => ({
  regex: `^${"\\.\\./".repeat(up)}[^/.][^/]*/(?!index\\.js$)`,
  message:
    "Import another folder of src/ only through its index.ts (../FOLDER/index.js): export the name there if other folders need it.",
});

/** no-restricted-imports for a file `depth` folders below src/ (1: src/grader/x.ts). */
const importRules = (depth, { spawns = false } = {}) => [
  "error",
  {
    ...(spawns ? {} : processBan),
    patterns: [throughIndex(depth)],
  },
];

const envBan = {
  object: "process",
  property: "env",
  message:
    "Only src/cli/ and src/config/ read process.env: resolve the value there (config/resolve.ts) and pass it down.",
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
    files: ["src/*/*.ts"],
    rules: { "no-restricted-imports": importRules(1) },
  },
  {
    files: ["src/*/*/*.ts"],
    rules: { "no-restricted-imports": importRules(2) },
  },
  {
    files: ["src/*/*/*/*.ts"],
    rules: { "no-restricted-imports": importRules(3) },
  },
  {
    files: ["src/process/**"],
    rules: { "no-restricted-imports": importRules(1, { spawns: true }) },
  },
  {
    files: ["src/**/*.ts"],
    ignores: ["src/cli/**", "src/config/**"],
    rules: { "no-restricted-properties": ["error", envBan] },
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
