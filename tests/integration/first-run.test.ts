import { afterAll, afterEach, describe, expect, it } from "vitest";
import { loader as loginLoader } from "~/routes/login";
import { verifyEmailPrompt } from "~/data/verify-email-prompt.server";
import { healAll, setFault } from "../support/faults";
import { admin, appRequest, createAccount } from "../support/app-env";

/** The server side of the first run (ADR 060): the verify-email banner's data and /login's reason. */
const firebase = admin();

afterAll(async () => {
  await firebase.close();
});

afterEach(healAll);

const sessionUser = (account: { uid: string; email: string }, emailVerified: boolean) => ({
  uid: account.uid,
  email: account.email,
  displayName: null,
  photoURL: null,
  emailVerified,
});

describe("the assistant's verify-email banner", () => {
  it("is offered for an unverified password account, with the way to confirm it's them", async () => {
    const account = await createAccount(firebase, { verified: false });
    const prompt = await verifyEmailPrompt(sessionUser(account, false));
    expect(prompt).toMatchObject({
      email: account.email,
      hasPassword: true,
      hasGoogle: false,
      localMode: expect.any(Boolean),
    });
    expect(prompt?.firebase.projectId).toBeTruthy();
  });

  it("is gone as soon as the identity service says verified, even while the session still says unverified", async () => {
    const account = await createAccount(firebase, { verified: false });
    await firebase.auth.updateUser(account.uid, { emailVerified: true });
    expect(await verifyEmailPrompt(sessionUser(account, false))).toBeNull();
  });

  it("costs nothing for a verified session", async () => {
    const account = await createAccount(firebase, { verified: true });
    await setFault("identity", "refuse");
    expect(await verifyEmailPrompt(sessionUser(account, true))).toBeNull();
  });

  it("still shows (from the session's copy) when the identity service cannot be reached", async () => {
    const account = await createAccount(firebase, { verified: false });
    await setFault("identity", "refuse");
    expect(await verifyEmailPrompt(sessionUser(account, false))).toMatchObject({
      email: account.email,
      hasPassword: true,
    });
  });
});

describe("/login says why the visitor is there", () => {
  async function login(query: string) {
    const response = await loginLoader({ request: appRequest(`/login${query}`), params: {}, context: {} });
    return (await response.json()) as { reason: string | null; redirectTo: string };
  }

  it("from the redirectTo the guards set, through a fixed list", async () => {
    expect(await login("?redirectTo=%2Fnuvara")).toMatchObject({
      reason: "Log in to use the assistant.",
      redirectTo: "/nuvara",
    });
    expect(await login("?redirectTo=%2Fdashboard")).toMatchObject({ reason: "Log in to see your dashboard." });
    expect(await login("")).toMatchObject({ reason: null, redirectTo: "/" });
    expect(await login(`?redirectTo=${encodeURIComponent("https://evil.test/nuvara")}`)).toMatchObject({
      reason: null,
      redirectTo: "/",
    });
  });
});
