import js from "@eslint/js";
import boundaries from "eslint-plugin-boundaries";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";

/**
 * The app's layers, from the bottom up (docs/architecture.md): a module may
 * import from its own layer and the ones below it, never from one above.
 * A folder or file not listed here is an error too, so a new one must be
 * given its place.
 */
const LAYERS = [
  [
    "foundation",
    [
      "app/config.server.ts",
      "app/settings",
      "app/log",
      "app/metrics",
      "app/deadline.server.ts",
      "app/text",
      "app/time",
      "app/ids",
      "app/db",
      "app/firebase.server.ts",
      "app/mail",
      "app/net",
      "app/meta.ts",
    ],
  ],
  ["kernel", ["app/conversation", "app/budgets", "app/search", "app/llm", "app/mcp", "app/boot.server.ts"]],
  ["auth", ["app/auth"]],
  ["http", ["app/http"]],
  ["data", ["app/data", "app/attachments", "app/billing", "app/health"]],
  ["features", ["app/chat", "app/tools", "app/api"]],
  ["ui", ["app/components", "app/styles"]],
  ["routes", ["app/routes", "app/root.tsx", "app/entry.server.tsx"]],
];

// Each file takes its layer as its category; the folder or file names above are micromatch patterns.
const layerFiles = LAYERS.flatMap(([category, paths]) =>
  paths.map((path) => ({ category, pattern: /\.tsx?$/.test(path) ? path : `${path}/**` })),
);

const layerPolicies = LAYERS.map(([category], index) => ({
  from: { file: { categories: category } },
  allow: { to: { file: { categories: { anyOf: LAYERS.slice(0, index + 1).map(([below]) => below) } } } },
}));

export default tseslint.config(
  {
    ignores: ["build/", "public/build/", ".cache/", ".local/", "node_modules/", "test-results/", "playwright-report/"],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
    plugins: { "react-hooks": reactHooks },
    rules: {
      "react-hooks/rules-of-hooks": "error",
      "react-hooks/exhaustive-deps": "warn",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      // Playwright fixtures take an empty destructuring pattern by design.
      "no-empty-pattern": "off",
    },
  },
  {
    files: ["app/**/*.{ts,tsx}"],
    plugins: { boundaries },
    settings: {
      "import/resolver": { typescript: { project: "tsconfig.json" } },
      "boundaries/elements": [],
      "boundaries/files": layerFiles,
    },
    rules: {
      "boundaries/no-unknown-files": "error",
      "boundaries/dependencies": [
        "error",
        // Files, not elements, carry the layers: every import between two app files is checked, and one to an unlisted file fails.
        { default: "disallow", checkInternals: true, checkUnknownLocals: true, policies: layerPolicies },
      ],
    },
  },
  {
    // Playwright fixtures call `use`, which is not React's hook.
    files: ["tests/e2e/**"],
    rules: { "react-hooks/rules-of-hooks": "off" },
  },
);
