import { test as base, expect, type Page } from "@playwright/test";
import { emulatorAdmin, type EmulatorAdmin } from "../../scripts/local/admin-client";
import { createAccount, idTokenFor, type TestAccount } from "../support/identity";
import { scriptedModel } from "./assistant-support";

/**
 * Browser-test fixtures. Tests log in by minting a real session (emulator ID
 * token → the app's own session endpoint), except the tests of the login UI.
 */
export const env = {
  projectId: process.env.E2E_PROJECT_ID!,
  authHost: process.env.E2E_AUTH_HOST!,
  firestoreHost: process.env.E2E_FIRESTORE_HOST!,
  baseURL: `http://localhost:${process.env.E2E_PORT}`,
};

export async function signIn(page: Page, account: Pick<TestAccount, "email" | "password">) {
  const idToken = await idTokenFor(env.authHost, account);
  const response = await page.request.post("/api/auth/session", {
    data: { idToken },
    headers: { Origin: env.baseURL },
  });
  expect(response.status()).toBe(204);
}

export const test = base.extend<
  {
    newAccount: (options?: Parameters<typeof createAccount>[1]) => Promise<TestAccount>;
    cpuSlowdown: number;
    freshModel: void;
  },
  { firebase: EmulatorAdmin }
>({
  // Every test starts with the scripted model as new: replies a failed test queued never answer the next one.
  freshModel: [
    async ({}, use) => {
      await scriptedModel.reset();
      await use();
    },
    { auto: true },
  ],
  firebase: [
    async ({}, use) => {
      const admin = emulatorAdmin(env.projectId, env.authHost, env.firestoreHost);
      await use(admin);
      await admin.close();
    },
    { scope: "worker" },
  ],
  // A slow device (`test.use({ cpuSlowdown: 6 })`): races a fast machine never shows come up every time.
  // E2E_CPU_SLOWDOWN runs every browser test that way, to shake out timing assumptions.
  cpuSlowdown: [Number(process.env.E2E_CPU_SLOWDOWN ?? 1), { option: true }],
  page: async ({ page, cpuSlowdown }, use, testInfo) => {
    if (cpuSlowdown > 1) {
      // A device this much slower takes this much longer for the same journey: the tests wait for
      // conditions, and the test's time limit is only the net under a hang.
      testInfo.setTimeout(testInfo.timeout * cpuSlowdown);
      const cdp = await page.context().newCDPSession(page);
      await cdp.send("Emulation.setCPUThrottlingRate", { rate: cpuSlowdown });
    }
    await use(page);
  },
  newAccount: async ({ firebase }, use) => {
    await use((options) => createAccount(firebase, options));
  },
});

export { expect };

/** The session cookie of the page's browser context (its value), as the app set it at sign-in. */
export async function sessionCookieOf(page: Page): Promise<string> {
  const cookie = (await page.context().cookies()).find((candidate) => candidate.name === "__session");
  if (!cookie) throw new Error("The page is not logged in.");
  return cookie.value;
}

/** The site navigation landmark. */
export function mainNav(page: Page) {
  return page.getByRole("navigation", { name: "Main" });
}
