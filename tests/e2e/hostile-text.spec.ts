import type { Page } from "@playwright/test";
import { env, expect, signIn, test } from "./fixtures";

/**
 * Markup typed into text fields, seen in a real browser: every place that
 * shows what users and admins typed (the admin inbox, the tools catalogue and
 * a tool's page, the conversation list) shows it as literal text, and nothing
 * of it runs — no dialog, no script, no image request. The integration test
 * tests/integration/bad-input.test.ts checks the escaping of every field; this
 * one checks what the browser makes of it.
 */
const tag = Math.random().toString(36).slice(2, 8);
const SCRIPT = `<script>window.__pwned=1</script>`;
const IMAGE = `<img src=/pwned-${tag}.png onerror="window.__pwned=1;alert(1)">`;
const PAYLOAD = `${SCRIPT}${IMAGE} ${tag}`;

const headers = { Origin: env.baseURL };

/** Watches a page for anything the payload could make happen. */
function watch(page: Page) {
  const happened: string[] = [];
  page.on("dialog", (dialog) => {
    happened.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  page.on("request", (request) => {
    if (request.url().includes(`pwned-${tag}`)) happened.push(`request: ${request.url()}`);
  });
  return happened;
}

async function expectInert(page: Page, path: string, happened: string[]) {
  await page.goto(path);
  await expect(page.getByText(SCRIPT).first()).toBeVisible();
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  expect(await page.locator(`img[src*="pwned-${tag}"]`).count()).toBe(0);
  expect(happened).toEqual([]);
}

test("script typed into titles, messages and tool definitions shows as text and never runs", async ({
  page,
  newAccount,
}) => {
  const happened = watch(page);
  await signIn(page, await newAccount({ role: "admin" }));

  // A visitor's contact message, and a prompt tool whose every field holds markup.
  expect(
    (
      await page.request.post("/api/contact", {
        form: { email: `x-${tag}@example.com`, name: IMAGE, message: PAYLOAD },
        headers,
      })
    ).status(),
  ).toBe(201);
  const created = await page.request.post("/tools/new", {
    form: {
      name: `${SCRIPT} ${tag}`,
      category: "Hostile",
      description: PAYLOAD,
      systemPrompt: PAYLOAD,
      field0Label: SCRIPT,
      field0Kind: "line",
      field0Required: "on",
    },
    headers,
    maxRedirects: 0,
  });
  expect(created.status()).toBe(303);
  const toolId = new URL(created.headers().location, env.baseURL).searchParams.get("saved")!;

  // A conversation started from the tool (it exists once its first exchange is stored), renamed to markup.
  const conversationId = crypto.randomUUID();
  const firstExchange = await page.request.post("/api/chat", {
    data: {
      conversationId,
      create: true,
      toolId,
      model: "test-model",
      message: { id: crypto.randomUUID(), role: "user", parts: [{ type: "text", text: "hello" }] },
    },
    headers,
  });
  expect(firstExchange.status()).toBe(200);
  expect(await firstExchange.text()).toContain('"type":"data-saved"');
  const renamed = await page.request.post(
    `/nuvara/${conversationId}?_data=${encodeURIComponent("routes/nuvara.$conversationId")}`,
    {
      form: { intent: "rename", title: PAYLOAD },
      headers,
    },
  );
  expect(renamed.status()).toBe(200);

  for (const path of [`/admin/messages?q=${tag}`, "/tools?q=" + tag, `/tools/${toolId}`, "/nuvara"]) {
    await expectInert(page, path, happened);
  }
  // The message itself, opened from the inbox.
  await page.goto(`/admin/messages?q=${tag}`);
  await page
    .getByRole("link", { name: /window\.__pwned/ })
    .first()
    .click();
  await expect(page).toHaveURL(/\/admin\/messages\/[0-9a-f-]{36}(\?q=[^&]+)?$/);
  await expect(page.getByText(PAYLOAD.slice(0, 30)).first()).toBeVisible();
  expect(happened).toEqual([]);
});
