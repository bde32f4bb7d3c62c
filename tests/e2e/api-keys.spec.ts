import type { Page } from "@playwright/test";
import { expectNoAxeViolations } from "./a11y";
import { env, expect, signIn, test } from "./fixtures";
import { reviewShots } from "./shots";
import { scriptedModel } from "./assistant-support";

/** The dashboard's API keys (docs/features.md, "API keys"): create one, its secret shown once, revoke it. */

const SIZES = [
  { name: "1280", width: 1280, height: 800 },
  { name: "390", width: 390, height: 844 },
];

/** axe on the page as it is, in the light theme and (its colours) in the dark one. */
async function expectAccessibleInBothThemes(page: Page, state: string) {
  await expectNoAxeViolations(page, `${state}, light`);
  await page.emulateMedia({ colorScheme: "dark" });
  await expectNoAxeViolations(page, `${state}, dark`, { coloursOnly: true });
  await page.emulateMedia({ colorScheme: "light" });
}

for (const size of SIZES) {
  test(`a user creates a key, copies its secret shown once, and revokes it (${size.name})`, async ({
    page,
    context,
    newAccount,
  }) => {
    // The whole journey with four axe runs: long on a slow device (E2E_CPU_SLOWDOWN) or a loaded machine.
    test.slow();
    await context.grantPermissions(["clipboard-read", "clipboard-write"]);
    await page.setViewportSize({ width: size.width, height: size.height });
    await signIn(page, await newAccount());
    await page.goto("/dashboard");
    const keys = page.getByRole("region", { name: "API keys" });
    await expect(keys.getByText("You have no API keys.")).toBeVisible();
    await expect(keys.getByText(/A key lets your own scripts and apps use the assistant/)).toBeVisible();

    // A key needs a name: the error is said, and the field has the focus again.
    await keys.getByRole("button", { name: "Create key" }).click();
    await expect(keys.getByText("Give the key a name, to tell it apart from your others.")).toBeVisible();
    await expect(keys.getByRole("textbox", { name: "Name" })).toBeFocused();
    await expect(keys.getByRole("textbox", { name: "Name" })).toHaveAttribute("aria-invalid", "true");

    await keys.getByRole("textbox", { name: "Name" }).fill("Laptop scripts");
    const expiry = keys.getByRole("combobox", { name: "Expires" });
    await expect(expiry).toHaveValue("90d");
    await expiry.selectOption({ label: "In 30 days" });
    await keys.getByRole("button", { name: "Create key" }).click();

    const box = keys.getByRole("region", { name: "Your new key “Laptop scripts”" });
    await expect(box.getByRole("heading", { name: "Your new key “Laptop scripts”" })).toBeFocused();
    await expect(box).toContainText("Copy it now: it is shown only this once.");
    const secret = (await box.getByText(/^nvk_[A-Za-z0-9_-]{43}$/).textContent())!;
    await box.getByRole("button", { name: "Copy key" }).click();
    await expect(box.getByRole("button", { name: "Copy key: Copied" })).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await expect(box.getByText(`${env.baseURL}/v1`, { exact: true })).toBeVisible();
    await expect(
      box.getByText(`curl ${env.baseURL}/v1/models -H "Authorization: Bearer ${secret}"`, { exact: true }),
    ).toBeVisible();
    // The form is empty for the next key; the list has this one.
    await expect(keys.getByRole("textbox", { name: "Name" })).toHaveValue("");
    const entry = keys.getByRole("list", { name: "Your keys" }).getByRole("listitem");
    await expect(entry).toHaveCount(1);
    await expect(entry).toContainText("Laptop scripts");
    await expect(entry).toContainText(`${secret.slice(0, 12)}…`);
    await expect(entry.getByRole("definition")).toHaveText([
      /\d{4}$/,
      "never",
      /\d{4}$/,
      "0",
      /^0 \(0 in, 0 out\)$/,
      "$0.00",
    ]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(size.width);
    await expectAccessibleInBothThemes(page, `the new key at ${size.name}`);
    await box.scrollIntoViewIfNeeded();
    await reviewShots(page, `api-keys-new-${size.name}`);

    // Never again: a reload shows the list entry with its prefix, and no secret anywhere on the page.
    await page.reload();
    await expect(entry).toContainText(`${secret.slice(0, 12)}…`);
    await expect(keys.getByRole("region", { name: /Your new key/ })).toHaveCount(0);
    expect(await page.content()).not.toContain(secret);
    await entry.scrollIntoViewIfNeeded();
    await reviewShots(page, `api-keys-list-${size.name}`);

    // Revoke asks first; Cancel goes back to the button.
    const revoke = entry.getByRole("button", { name: "Revoke Laptop scripts" });
    await revoke.click();
    const question = entry.getByRole("group", { name: "Revoke “Laptop scripts”?" });
    await expect(question).toContainText("Anything using this key stops working at once.");
    await expect(question.getByRole("button", { name: "Cancel" })).toBeFocused();
    await expectAccessibleInBothThemes(page, `the revoke question at ${size.name}`);
    await question.scrollIntoViewIfNeeded();
    await reviewShots(page, `api-keys-revoke-${size.name}`);
    await question.getByRole("button", { name: "Cancel" }).click();
    await expect(revoke).toBeFocused();

    await revoke.click();
    await question.getByRole("button", { name: "Revoke key" }).click();
    await expect(keys.getByRole("status")).toHaveText("The key “Laptop scripts” was revoked.");
    await expect(keys.getByText("You have no API keys.")).toBeVisible();
    await expect(keys.getByRole("heading", { name: "Your keys" })).toBeFocused();
    await page.reload();
    await expect(keys.getByText("You have no API keys.")).toBeVisible();
  });
}

test("a key made on the dashboard works with the API as the server serves it, and stops at once when revoked", async ({
  page,
  playwright,
  newAccount,
}) => {
  await signIn(page, await newAccount());
  await page.goto("/dashboard");
  const keys = page.getByRole("region", { name: "API keys" });
  await keys.getByRole("textbox", { name: "Name" }).fill("CI script");
  await keys.getByRole("button", { name: "Create key" }).click();
  const box = keys.getByRole("region", { name: "Your new key “CI script”" });
  const secret = (await box.getByText(/^nvk_[A-Za-z0-9_-]{43}$/).textContent())!;

  // A script's client: no cookie, only the key.
  const api = await playwright.request.newContext({
    baseURL: env.baseURL,
    extraHTTPHeaders: { Authorization: `Bearer ${secret}` },
  });
  try {
    const models = await api.get("/v1/models");
    expect(models.status()).toBe(200);
    expect(((await models.json()) as { data: Array<{ id: string }> }).data.map((model) => model.id)).toContain(
      "test-model",
    );

    await scriptedModel.enqueue({ type: "text", text: "Hello through the gateway." });
    const reply = await api.post("/v1/chat/completions", {
      data: { model: "test-model", messages: [{ role: "user", content: "Say hello" }] },
    });
    expect(reply.status()).toBe(200);
    const answer = (await reply.json()) as { choices: Array<{ message: { content: string } }>; usage: unknown };
    expect(answer.choices[0].message.content).toBe("Hello through the gateway.");
    expect(answer.usage).toBeTruthy();

    await scriptedModel.enqueue({ type: "text", text: "One two three" });
    const stream = await api.post("/v1/chat/completions", {
      data: { model: "test-model", messages: [{ role: "user", content: "Count" }], stream: true },
    });
    expect(stream.status()).toBe(200);
    expect(stream.headers()["content-type"]).toContain("text/event-stream");
    const events = (await stream.text()).split("\n").filter((line) => line.startsWith("data: "));
    expect(events.at(-1)).toBe("data: [DONE]");
    const deltas = events
      .slice(0, -1)
      .map((line) => JSON.parse(line.slice(6)) as { choices: Array<{ delta?: { content?: string } }> });
    expect(deltas.map((event) => event.choices[0]?.delta?.content ?? "").join("")).toBe("One two three");

    // The list shows what the key spent; revoking it stops the next call.
    await page.reload();
    const entry = keys.getByRole("list", { name: "Your keys" }).getByRole("listitem");
    await expect(entry.getByRole("definition").nth(3)).toHaveText("2");
    await entry.getByRole("button", { name: "Revoke CI script" }).click();
    await entry.getByRole("group", { name: "Revoke “CI script”?" }).getByRole("button", { name: "Revoke key" }).click();
    await expect(keys.getByText("You have no API keys.")).toBeVisible();
    const refused = await api.get("/v1/models");
    expect(refused.status()).toBe(401);
    expect(await refused.json()).toMatchObject({ error: { type: "authentication_error" } });
  } finally {
    await api.dispose();
  }
});

for (const size of SIZES) {
  test(`an admin turns API access off for a role: its key is refused and the dashboard says so; on again, it works (${size.name})`, async ({
    page,
    browser,
    playwright,
    newAccount,
  }) => {
    test.setTimeout(90_000);
    // A role of this test's own, so that switching it touches no other test's keys.
    const role = `switch${size.name}`;
    await page.setViewportSize({ width: size.width, height: size.height });
    await signIn(page, await newAccount({ role }));
    await page.goto("/dashboard");
    const keys = page.getByRole("region", { name: "API keys" });
    await keys.getByRole("textbox", { name: "Name" }).fill("Switched");
    await keys.getByRole("button", { name: "Create key" }).click();
    const secret = (await keys
      .getByRole("region", { name: "Your new key “Switched”" })
      .getByText(/^nvk_[A-Za-z0-9_-]{43}$/)
      .textContent())!;
    await expect(keys.getByText(/Your plan has no API access/)).toHaveCount(0);
    const api = await playwright.request.newContext({
      baseURL: env.baseURL,
      extraHTTPHeaders: { Authorization: `Bearer ${secret}` },
    });

    const adminContext = await browser.newContext({ baseURL: env.baseURL, viewport: size });
    const desk = await adminContext.newPage();
    try {
      expect((await api.get("/v1/models")).status()).toBe(200);
      await signIn(desk, await newAccount({ role: "admin" }));
      await desk.goto("/admin/api");
      await expect(desk.getByRole("heading", { name: "API access", level: 1 })).toBeVisible();
      // A role nobody listed: switched by its name.
      await desk.getByRole("textbox", { name: "Role" }).fill(role);
      await desk.getByRole("button", { name: "Turn off", exact: true }).click();
      await expect(desk.getByRole("status")).toHaveText(
        `API access is off for ${role}: their keys are refused from their next call.`,
      );
      const row = desk.getByRole("row", { name: new RegExp(`^${role} \\(${role}\\)`) });
      await expect(row.getByRole("cell").first()).toHaveText("Off");
      expect(await desk.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(size.width);
      await expectAccessibleInBothThemes(desk, `the API switch at ${size.name}`);
      await reviewShots(desk, `admin-api-off-${size.name}`);

      const refused = await api.get("/v1/models");
      expect(refused.status()).toBe(403);
      expect(await refused.json()).toMatchObject({ error: { type: "permission_error", code: "api_access_off" } });
      await page.reload();
      await expect(keys.getByText(/Your plan has no API access at the moment/)).toBeVisible();
      await keys.scrollIntoViewIfNeeded();
      await expectAccessibleInBothThemes(page, `no API access at ${size.name}`);
      await reviewShots(page, `api-keys-no-access-${size.name}`);

      await row.getByRole("button", { name: `Turn on API access for ${role}` }).click();
      await expect(desk.getByRole("status")).toHaveText(
        `API access is on for ${role}: their keys work from their next call.`,
      );
      await expect(row.getByRole("cell").first()).toHaveText("On");
      expect((await api.get("/v1/models")).status()).toBe(200);
      await page.reload();
      await expect(keys.getByText(/Your plan has no API access/)).toHaveCount(0);
    } finally {
      await api.dispose();
      await adminContext.close();
    }
  });
}
