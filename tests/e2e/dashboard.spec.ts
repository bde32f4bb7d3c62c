import fs from "node:fs";
import type { BrowserContext, Page } from "@playwright/test";
import { backdateAccount, idTokenFor, pastSignInSecond } from "../support/identity";
import { replies, scriptedModel, sendMessage } from "./assistant-support";
import { env, expect, mainNav, sessionCookieOf, signIn, test } from "./fixtures";

/** /dashboard: figures, quota per role, account, data export, sign out everywhere, deleting the account. */

test.beforeEach(async () => {
  await scriptedModel.reset();
});

function section(page: Page, name: string) {
  return page.getByRole("region", { name });
}

/** Sends messages in one new chat, each waiting for its reply, as a user does. */
async function chat(page: Page, texts: string[]) {
  await page.goto("/nuvara");
  for (const [index, text] of texts.entries()) {
    await sendMessage(page, text);
    await expect(replies(page).nth(index)).toContainText(`You said: ${text}`);
    // The new chat moves to its own URL after the first reply; the next message waits for it.
    await expect(page).toHaveURL(/\/nuvara\/[0-9a-f-]{36}$/);
  }
}

/**
 * Makes this browser's session look like a sign-in of `ageSeconds` ago (the
 * emulator's cookies are unsigned). The account must have been backdated
 * before it signed in (an account newer than its sign-in would make the
 * session look revoked, and the app caches the account's state for a second).
 */
async function ageSession(context: BrowserContext, ageSeconds: number) {
  const cookie = (await context.cookies()).find((candidate) => candidate.name === "__session")!;
  const [header, payload] = cookie.value.split(".");
  const claims = JSON.parse(Buffer.from(payload, "base64url").toString());
  claims.auth_time = Math.floor(Date.now() / 1000) - ageSeconds;
  await context.addCookies([
    { ...cookie, value: `${header}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}.` },
  ]);
}

test.describe("the dashboard", () => {
  test("shows today's usage against the quota, the chart's figures and the recent conversations after chatting", async ({
    page,
    newAccount,
  }) => {
    await signIn(page, await newAccount({ displayName: "Dana Dash" }));
    await chat(page, ["first question", "second question here", "third"]);

    await page.goto("/dashboard");
    await expect(page).toHaveTitle("Dashboard · Nuvara²");
    await expect(page.getByRole("region", { name: "Your profile" })).toContainText("Dana Dash");
    await expect(page.getByRole("region", { name: "Your profile" })).toContainText("Plan: Free");
    const usage = section(page, "Usage");
    await expect(usage.getByText("3 of 20 messages used today")).toBeVisible();
    await expect(usage.getByRole("meter", { name: "Messages used today" })).toHaveAttribute("value", "3");
    await expect(
      usage.getByText(/17 messages left today on the Free plan\. The count resets at \d+ \w+ \d{4}, 00:00 UTC \(in /),
    ).toBeVisible();
    const totals = usage.getByRole("definition");
    await expect(totals.first()).toHaveText("3");

    // The charts are images with a description; their figures are in the table.
    await expect(
      usage.getByRole("img", {
        name: /Messages per day, last 30 days 3 messages from .* the busiest day was .* with 3 messages/,
      }),
    ).toBeVisible();
    await expect(usage.getByRole("img", { name: /Tokens per day, last 30 days/ })).toBeVisible();
    await usage.getByText("Show the numbers").click();
    const table = usage.getByRole("table", { name: "Messages and tokens per day, last 30 days (UTC)" });
    await expect(table.getByRole("row")).toHaveCount(31);
    const today = table.getByRole("row").last();
    await expect(today.getByRole("cell").first()).toHaveText("3");
    // The scripted model counts a token per word; its replies are "You said: …".
    await expect(today.getByRole("cell").nth(2)).toHaveText(String(2 + 2 + 2 + 3 + 2 + 1));

    const recent = section(page, "Recent conversations");
    await expect(recent.getByRole("link", { name: "first question" })).toBeVisible();
    await recent.getByRole("link", { name: "New chat" }).click();
    await expect(page).toHaveURL(/\/nuvara$/);
  });

  test("shows each role's plan and daily quota", async ({ page, newAccount }) => {
    const cases: Array<[string | undefined, string, RegExp]> = [
      [undefined, "Free", /0 of 20 messages used today/],
      ["premium", "Premium", /0 of 200 messages used today/],
      ["team", "Team", /0 of 200 messages used today/],
      ["admin", "Admin", /Your Admin plan has no daily limit/],
    ];
    for (const [role, plan, quota] of cases) {
      await page.context().clearCookies();
      await signIn(page, await newAccount({ role }));
      await page.goto("/dashboard");
      await expect(page.getByRole("region", { name: "Your profile" }), String(role)).toContainText(`Plan: ${plan}`);
      await expect(section(page, "Usage").getByText(quota), String(role)).toBeVisible();
    }
  });

  test("shows the account from the identity service and changes the display name", async ({
    page,
    newAccount,
    firebase,
  }) => {
    const account = await newAccount({ displayName: "Pat Profile" });
    await signIn(page, account);
    await page.goto("/dashboard");
    const details = section(page, "Account");
    await expect(details.getByText("Verified")).toBeVisible();
    await expect(details.getByText("Email and password")).toBeVisible();
    await expect(details.getByText(/Member since/)).toBeVisible();
    await expect(page.getByRole("region", { name: "Your profile" }).getByText("PP")).toBeVisible();

    await details.getByLabel("Display name").fill("");
    await details.getByRole("button", { name: "Save name" }).click();
    await expect(details.getByText("Enter a name.")).toBeVisible();
    await details.getByLabel("Display name").fill("Robin Renamed");
    await details.getByRole("button", { name: "Save name" }).click();
    await expect(details.getByText("Your name is now Robin Renamed.")).toBeVisible();
    await expect(page.getByRole("region", { name: "Your profile" })).toContainText("Robin Renamed");
    expect((await firebase.auth.getUser(account.uid)).displayName).toBe("Robin Renamed");
  });

  test("an unverified address: the identity service sends the verification email after the user confirms it's them", async ({
    page,
    newAccount,
  }) => {
    const account = await newAccount({ verified: false });
    await signIn(page, account);
    await page.goto("/dashboard");
    const details = section(page, "Account");
    await expect(details.getByText("Not verified")).toBeVisible();
    await details.getByRole("button", { name: "Send verification email" }).click();
    await details.getByLabel("Your current password").fill("not my password");
    await details.getByRole("button", { name: "Send verification email" }).click();
    await expect(details.getByRole("alert")).toContainText("don't match");
    await details.getByLabel("Your current password").fill(account.password);
    await details.getByRole("button", { name: "Send verification email" }).click();
    await expect(details.getByText(`We've sent a verification link to ${account.email}.`)).toBeVisible();
    const response = await fetch(`http://${env.authHost}/emulator/v1/projects/${env.projectId}/oobCodes`);
    const { oobCodes } = (await response.json()) as { oobCodes: Array<{ email: string; requestType: string }> };
    expect(oobCodes).toContainEqual(expect.objectContaining({ email: account.email, requestType: "VERIFY_EMAIL" }));
  });

  test("changes the password after the current one is confirmed; this browser stays logged in", async ({
    page,
    newAccount,
  }) => {
    const account = await newAccount();
    await signIn(page, account);
    await page.goto("/dashboard");
    const details = section(page, "Account");
    await details.getByRole("button", { name: "Change password" }).click();
    await details.getByLabel("Current password").fill(account.password);
    await details.getByLabel("New password", { exact: true }).fill("abc");
    await expect(details.getByRole("list", { name: "Password requirements" })).toContainText("At least 6 characters");
    await details.getByLabel("New password", { exact: true }).fill("a-new-secret-1");
    await details.getByLabel("New password again").fill("a-new-secret-1");
    await details.getByRole("button", { name: "Change password" }).click();
    await expect(details.getByText(/Your password was changed/)).toBeVisible();

    await page.reload();
    await expect(page.getByRole("heading", { level: 1, name: "Dashboard" })).toBeVisible();
    await expect(idTokenFor(env.authHost, account)).rejects.toThrow();
    expect(await idTokenFor(env.authHost, { email: account.email, password: "a-new-secret-1" })).toBeTruthy();
  });

  test("downloads all the user's data as JSON", async ({ page, newAccount }) => {
    const account = await newAccount({ role: "premium" });
    await signIn(page, account);
    await chat(page, ["remember this"]);
    await page.goto("/dashboard");
    const download = page.waitForEvent("download");
    await section(page, "Your data").getByRole("button", { name: "Download my data" }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/^nuvara-data-\d{4}-\d{2}-\d{2}\.json$/);
    const data = JSON.parse(fs.readFileSync((await file.path())!, "utf8"));
    expect(data.account).toMatchObject({ email: account.email, plan: "Premium" });
    expect(data.conversations[0].messages.map((message: { content: string }) => message.content)).toEqual([
      "remember this",
      "You said: remember this",
    ]);
    expect(data.usage[0].messages).toBe(1);
    await expect(page).toHaveURL(/\/dashboard$/);
  });

  test("loads no Firebase code until an account action needs it", async ({ page, newAccount }) => {
    const bodies: string[] = [];
    page.on("response", async (response) => {
      if (response.request().resourceType() === "script") bodies.push(await response.text().catch(() => ""));
    });
    await signIn(page, await newAccount());
    await page.goto("/dashboard");
    await page.waitForLoadState("networkidle");
    expect(bodies.length).toBeGreaterThan(0);
    expect(bodies.some((body) => body.includes("identitytoolkit.googleapis.com"))).toBe(false);
  });
});

test("without JavaScript the theme is saved with its own button; with it the button is never there", async ({
  page,
  browser,
  newAccount,
}) => {
  const account = await newAccount();
  const context = await browser.newContext({ baseURL: env.baseURL, javaScriptEnabled: false });
  const plain = await context.newPage();
  await signIn(plain, account);
  await plain.goto("/dashboard");
  const theme = plain.getByRole("group", { name: "Theme" });
  await theme.getByRole("radio", { name: "Dark" }).check();
  await plain.getByRole("button", { name: "Save theme" }).click();
  await expect(plain.locator("html")).toHaveAttribute("data-theme", "dark");
  await context.close();

  // With scripts the button is not drawn even before the page is live, so nothing below it moves.
  await signIn(page, account);
  await page.goto("/dashboard");
  await expect(page.getByRole("group", { name: "Theme" }).getByRole("radio", { name: "Dark" })).toBeChecked();
  await expect(page.getByRole("button", { name: "Save theme" })).toHaveCount(0);
});

test.describe("log out of all devices", () => {
  test("ends this session and the user's session in another browser", async ({ page, browser, newAccount }) => {
    const account = await newAccount();
    const other = await browser.newContext({ baseURL: env.baseURL });
    const otherPage = await other.newPage();
    await signIn(otherPage, account);
    await otherPage.goto("/dashboard");
    await expect(otherPage.getByRole("heading", { level: 1, name: "Dashboard" })).toBeVisible();
    // Signing out of all devices (below) must come in a later second than the other browser's sign-in.
    await pastSignInSecond(await sessionCookieOf(otherPage));

    await signIn(page, account);
    await page.goto("/dashboard");
    await section(page, "Your data").getByRole("button", { name: "Log out of all devices" }).click();
    await expect(page).toHaveURL(/^http:\/\/localhost:\d+\/$/);
    await expect(mainNav(page).getByRole("link", { name: "Login" })).toBeVisible();

    // The other browser is signed out within the freshness bound (1 s in these tests).
    await expect(async () => {
      await otherPage.goto("/dashboard");
      await expect(otherPage).toHaveURL(/\/login\?redirectTo=%2Fdashboard$/, { timeout: 500 });
    }).toPass({ timeout: 10_000 });
    await other.close();
  });
});

test.describe("deleting the account", () => {
  test("asks for a new login when the last one is old, then deletes everything", async ({
    page,
    context,
    newAccount,
    firebase,
  }) => {
    const account = await newAccount({ role: "premium" });
    await backdateAccount(env.authHost, env.projectId, account.uid, 3600);
    await signIn(page, account);
    await chat(page, ["soon gone"]);
    await ageSession(context, 10 * 60);

    await page.goto("/dashboard");
    const data = section(page, "Your data");
    await data.getByRole("button", { name: "Delete account…" }).click();
    await data.getByLabel(/To confirm, type your email address/).fill("wrong@example.com");
    await data.getByRole("button", { name: "Delete my account" }).click();
    await expect(data.getByText("That is not your email address. Type it exactly to confirm.")).toBeVisible();

    await data.getByLabel(/To confirm, type your email address/).fill(account.email);
    await data.getByRole("button", { name: "Delete my account" }).click();
    await expect(data.getByText("For your security, please log in again to continue.")).toBeVisible();
    // Nothing is gone yet.
    expect((await firebase.auth.getUser(account.uid)).uid).toBe(account.uid);

    await data.getByLabel("Your current password").fill(account.password);
    await data.getByRole("button", { name: "Confirm and delete my account" }).click();
    await expect(page).toHaveURL(/\/dashboard\/deleted$/);
    await expect(page.getByRole("heading", { level: 1, name: "Your account has been deleted" })).toBeVisible();
    await expect(mainNav(page).getByRole("link", { name: "Login" })).toBeVisible();

    await expect(firebase.auth.getUser(account.uid)).rejects.toMatchObject({ code: "auth/user-not-found" });
    expect((await firebase.firestore.collection("users").doc(account.email).get()).exists).toBe(false);
    await expect(idTokenFor(env.authHost, account)).rejects.toThrow();
    await page.goto("/dashboard");
    await expect(page).toHaveURL(/\/login\?redirectTo=%2Fdashboard$/);
  });

  test("with a recent login, deletes after the confirmation alone; another user's data stays", async ({
    page,
    browser,
    newAccount,
    firebase,
  }) => {
    const leaving = await newAccount();
    const staying = await newAccount({ role: "premium" });
    const stayingContext = await browser.newContext({ baseURL: env.baseURL });
    const stayingPage = await stayingContext.newPage();
    await signIn(stayingPage, staying);
    await chat(stayingPage, ["I am staying"]);

    await signIn(page, leaving);
    await page.goto("/dashboard");
    const data = section(page, "Your data");
    await data.getByRole("button", { name: "Delete account…" }).click();
    await data.getByLabel(/To confirm, type your email address/).fill(leaving.email);
    await data.getByRole("button", { name: "Delete my account" }).click();
    await expect(page).toHaveURL(/\/dashboard\/deleted$/);
    await expect(firebase.auth.getUser(leaving.uid)).rejects.toMatchObject({ code: "auth/user-not-found" });

    await stayingPage.goto("/dashboard");
    await expect(section(stayingPage, "Usage").getByText("1 of 200 messages used today")).toBeVisible();
    await expect(
      section(stayingPage, "Recent conversations").getByRole("link", { name: "I am staying" }),
    ).toBeVisible();
    await stayingContext.close();
  });
});
