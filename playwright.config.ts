import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { defineConfig } from "@playwright/test";
import { freePort } from "./scripts/local/ports";
import { E2E_STRIPE_WEBHOOK_SECRET } from "./tests/support/stripe-server";

/**
 * Browser tests against the built app in local mode, started exactly as a
 * user does (`npm start -- --fresh`), on free ports and a scratch data folder.
 * The ports are chosen once, in the runner, and reach the workers through
 * the environment.
 */
process.env.E2E_PORT ??= String(await freePort());
process.env.E2E_AUTH_HOST ??= `127.0.0.1:${await freePort()}`;
process.env.E2E_FIRESTORE_HOST ??= `127.0.0.1:${await freePort()}`;
process.env.E2E_PROJECT_ID ??= "demo-nuvara-e2e";
process.env.E2E_DATA_DIR ??= fs.mkdtempSync(path.join(os.tmpdir(), "nuvara-e2e-"));
// The scripted model server the app talks to, and its control endpoint (tests/e2e/global-setup.ts).
process.env.E2E_MODEL_PORT ??= String(await freePort());
process.env.E2E_MODEL_CONTROL_PORT ??= String(await freePort());
// The scripted Stripe server (tests/support/stripe-server.ts), for the plans journey (tests/e2e/pricing.spec.ts).
process.env.E2E_STRIPE_PORT ??= String(await freePort());
// The scripted search engine and its pages (tests/support/search-server.ts), for web search (tests/e2e/assistant-web-search.spec.ts).
process.env.E2E_SEARCH_PORT ??= String(await freePort());

// The MCP reference server the tool servers' tests connect the app to (tests/e2e/tool-servers.spec.ts).
process.env.E2E_MCP_PORT ??= String(await freePort());

const baseURL = `http://localhost:${process.env.E2E_PORT}`;
const systemChromium = "/usr/bin/chromium";

export default defineConfig({
  testDir: "tests/e2e",
  globalSetup: "./tests/e2e/global-setup.ts",
  // Only the net under a hang (every test waits for conditions): the longer journeys take 20–30 s
  // on a loaded two-core machine, where CI runs them beside the other tests.
  timeout: 60_000,
  expect: { timeout: 7_000 },
  // A focused test (`.only`) would silently skip the rest: it fails the run instead.
  forbidOnly: true,
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: process.env.PLAYWRIGHT_JSON_OUTPUT_NAME
    ? [["list"], ["json", { outputFile: process.env.PLAYWRIGHT_JSON_OUTPUT_NAME }]]
    : [["list"]],
  use: {
    baseURL,
    // The app registers a service worker (docs/decisions/098); only the tests of it let it run
    // (tests/e2e/installable.spec.ts), so every other test sees the network as the page does.
    serviceWorkers: "block",
    trace: "retain-on-failure",
    launchOptions: {
      // Debian's Chromium where it exists (Playwright cannot download its own here).
      executablePath: fs.existsSync(systemChromium) ? systemChromium : undefined,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
  },
  webServer: {
    command: "node node_modules/tsx/dist/cli.mjs scripts/start.ts --fresh",
    url: `${baseURL}/healthz`,
    timeout: 180_000,
    reuseExistingServer: false,
    stdout: "ignore",
    stderr: "pipe",
    env: {
      PORT: process.env.E2E_PORT,
      FIREBASE_PROJECT_ID: process.env.E2E_PROJECT_ID,
      FIREBASE_AUTH_EMULATOR_HOST: process.env.E2E_AUTH_HOST,
      FIRESTORE_EMULATOR_HOST: process.env.E2E_FIRESTORE_HOST,
      LOCAL_DATA_DIR: process.env.E2E_DATA_DIR,
      // Pages may cache role and revocation for up to 30 s in production;
      // the tests use 1 s so that freshness is observable quickly.
      AUTH_CACHE_TTL_SECONDS: "1",
      DATABASE_URL: "",
      // Two models so the picker can be tested; a tiny quota for the role "tiny".
      LLM_BASE_URL: `http://127.0.0.1:${process.env.E2E_MODEL_PORT}/v1`,
      LLM_MODELS: "test-model,test-model-b",
      // A readable name for one of them, for the model menu (tests/e2e/assistant-extras.spec.ts).
      LLM_MODEL_NAMES: "test-model-b=Test Model B",
      QUOTA_DAILY_MESSAGES: "tiny=2",
      // Only the first model sees images: the composer warns about an image for the other (tests/e2e/assistant-attachments.spec.ts).
      LLM_VISION_MODELS: "test-model",
      // A short message cap for "tiny" too, so the composer's per-role cap shows (tests/e2e/assistant-first-exchange.spec.ts).
      MESSAGE_MAX_CHARS: "tiny=50",
      LLM_TIMEOUT_MS: "5000",
      // Faults only in the test output, not a line per request.
      LOG_LEVEL: "warn",
      // The inbox tests post dozens of visitors' messages within a minute (the burst limit is a tenth of this).
      CONTACT_RATE_LIMIT_OVERALL: "2000",
      // An OIDC provider next to the defaults, for the login page's SSO buttons (tests/e2e/login-sso.spec.ts).
      AUTH_PROVIDERS: "password,google,oidc.acme",
      AUTH_PROVIDER_NAMES: "oidc.acme=Acme SSO",
      // Plans sold through the scripted Stripe server; a small token budget for "budgeted" (tests/e2e/pricing.spec.ts).
      PLANS: JSON.stringify([
        { name: "Pro", role: "pro", price: "$20 a month", description: "For daily use", stripePrice: "price_e2epro" },
      ]),
      STRIPE_SECRET_KEY: "sk_test_e2e",
      STRIPE_WEBHOOK_SECRET: E2E_STRIPE_WEBHOOK_SECRET,
      STRIPE_API_URL: `http://127.0.0.1:${process.env.E2E_STRIPE_PORT}`,
      BUDGET_DAILY_TOKENS: "budgeted=400",
      // Web search through the scripted SearXNG on this machine, allowed for its port only (docs/decisions/088).
      SEARCH_PROVIDER: "searxng",
      SEARCH_URL: `http://127.0.0.1:${process.env.E2E_SEARCH_PORT}`,
      // And the MCP reference server's port (tests/e2e/tool-servers.spec.ts).
      OUTBOUND_ALLOW: `127.0.0.1:${process.env.E2E_SEARCH_PORT},127.0.0.1:${process.env.E2E_MCP_PORT}`,
      // The tests' role may add tool servers of its own (docs/decisions/094).
      MCP_OWN_SERVER_ROLES: "toolsmith",
      LLM_MAX_OUTPUT_TOKENS: "100",
    },
  },
});
