import path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "~": path.resolve("app") } },
  test: {
    include: ["tests/unit/**/*.test.ts", "tests/integration/**/*.test.ts"],
    environment: "node",
    globalSetup: ["tests/support/global-setup.ts"],
    // Integration tests share one set of emulators and put them in fault
    // modes in turn: files run one at a time.
    fileParallelism: false,
    // A focused test (`.only`) would silently skip the rest: it fails the run instead.
    allowOnly: false,
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
