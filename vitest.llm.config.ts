/**
 * Runs the model-facing layer's tests on their own:
 *   npx vitest run --config vitest.llm.config.ts
 * A separate config keeps the Remix Vite plugin (vite.config.ts) out of these tests.
 */
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["tests/unit/llm/**/*.test.ts"],
    environment: "node",
  },
});
