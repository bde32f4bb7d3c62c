import { randomUUID } from "node:crypto";
import type { Page } from "@playwright/test";
import type { TestAccount } from "../support/identity";
import { env, expect, signIn, test } from "./fixtures";
import { expectNoAxeViolations } from "./a11y";
import { modelRequestFor, replies, scriptedModel, sendMessage } from "./assistant-support";
import { reviewShots } from "./shots";

/**
 * Tool servers on the Tools area and approval before a tool acts
 * (docs/decisions/090, 091), against the MCP reference server on loopback
 * (tests/e2e/global-setup.ts). Each test adds its own server, open only to
 * the role "toolsmith" (and admins), so no other test's model is offered its
 * tools, and removes it at the end.
 */

const MCP_URL = () => `http://127.0.0.1:${process.env.E2E_MCP_PORT}/mcp`;
const ROLE = "toolsmith";
const ROUTE = "routes/tools_.servers";

interface AddedServer {
  id: string;
  name: string;
  /** The function name the model calls a tool of this server by. */
  fn: (tool: string) => string;
}

function slugOf(name: string) {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, "_");
}

/** Posts the servers page's form as the signed-in admin of `page`. */
async function postServersForm(page: Page, form: Record<string, string>) {
  // As the page's own fetcher posts it: the action's JSON, not the document.
  const response = await page.request.post(`/tools/servers?_data=${encodeURIComponent(ROUTE)}`, {
    form,
    headers: { Origin: env.baseURL },
  });
  expect(response.ok(), await response.text()).toBe(true);
  return (await response.json()) as { notice?: string; error?: string };
}

/** An admin adds the reference server for the tests' role, with echo asking first. */
async function addServer(page: Page): Promise<AddedServer> {
  const name = `Everything ${randomUUID().slice(0, 6)}`;
  const added = await postServersForm(page, {
    intent: "add-server",
    name,
    url: MCP_URL(),
    auth: "none",
    roles: ROLE,
    otherRoles: "admin",
  });
  expect(added.notice).toMatch(/was added with \d+ tools/);
  const loaded = await page.request.get(`/tools/servers?_data=${encodeURIComponent(ROUTE)}`);
  const { servers } = (await loaded.json()) as { servers: Array<{ id: string; name: string }> };
  const id = servers.find((server) => server.name === name)!.id;
  await postServersForm(page, { intent: "set-tool-policy", serverId: id, tool: "echo", policy: "ask" });
  return { id, name, fn: (tool) => `${slugOf(name)}__${tool}` };
}

async function removeServer(page: Page, server: AddedServer) {
  await postServersForm(page, { intent: "delete-server", serverId: server.id, confirm: "yes" });
}

function card(page: Page) {
  return page.getByRole("region", { name: /^Allow Echo Tool from Everything/ });
}

test.describe("approval before a server's tool acts", () => {
  let adminPage: Page;
  let server: AddedServer;

  test.beforeEach(async ({ browser, newAccount }) => {
    adminPage = await browser.newPage();
    await signIn(adminPage, await newAccount({ role: "admin" }));
    server = await addServer(adminPage);
  });

  test.afterEach(async () => {
    if (server) await removeServer(adminPage, server);
    await adminPage.close();
  });

  async function askForEcho(page: Page, message: string, reply: string) {
    await scriptedModel.enqueue(
      { type: "tool-calls", calls: [{ name: server.fn("echo"), arguments: { message } }] },
      { type: "text", text: reply },
    );
    await sendMessage(page, `Please echo ${message}`);
  }

  test("approve: the reply waits on a card with the server, tool and arguments, then runs the tool and answers", async ({
    page,
    newAccount,
  }) => {
    await signIn(page, await newAccount({ role: ROLE }));
    await page.goto("/nuvara");
    await askForEcho(page, "ship it", "Echoed it.");
    await expect(card(page)).toBeVisible();
    await expect(card(page).getByText('"message": "ship it"')).toBeVisible();
    await expect(page.getByText("Thinking…")).toHaveCount(0);
    await expectNoAxeViolations(page, "an approval card");
    await reviewShots(page, "approval-card");
    await page.setViewportSize({ width: 390, height: 844 });
    await reviewShots(page, "approval-card-phone");
    await card(page).getByRole("button", { name: "Approve" }).click();
    await expect(replies(page).last().getByText("Echoed it.")).toBeVisible();
    await expect(replies(page).last().getByText("Echo Tool: approved.")).toBeVisible();
    await expect(card(page)).toHaveCount(0);
    const next = await modelRequestFor("Please echo ship it");
    expect(JSON.stringify(next.messages)).toContain("Echo: ship it");
  });

  test("deny: the tool does not run and the model is told", async ({ page, newAccount }) => {
    await signIn(page, await newAccount({ role: ROLE }));
    await page.goto("/nuvara");
    await askForEcho(page, "secret", "All right, I won't.");
    await card(page).getByRole("button", { name: "Deny" }).click();
    await expect(replies(page).last().getByText("All right, I won't.")).toBeVisible();
    await expect(replies(page).last().getByText("Echo Tool: denied. It was not run.")).toBeVisible();
    const { requests } = await scriptedModel.state();
    const sent = JSON.stringify(requests.map((request) => request.body?.messages ?? []));
    expect(sent).toContain("The user denied this call");
    expect(sent).not.toContain("Echo: secret");
  });

  test("allow for this chat: the next call in the chat runs without asking", async ({ page, newAccount }) => {
    await signIn(page, await newAccount({ role: ROLE }));
    await page.goto("/nuvara");
    await askForEcho(page, "one", "First.");
    await card(page).getByRole("button", { name: "Allow for this chat" }).click();
    await expect(replies(page).last().getByText("First.")).toBeVisible();
    await expect(replies(page).last().getByText("Echo Tool: allowed for this chat.")).toBeVisible();
    await askForEcho(page, "two", "Second.");
    await expect(replies(page).last().getByText("Second.")).toBeVisible();
    await expect(card(page)).toHaveCount(0);
    expect(JSON.stringify((await modelRequestFor("Please echo two")).messages)).toContain("Echo: two");
  });

  test("a reload while waiting shows the card again, and approving then finishes the reply", async ({
    page,
    newAccount,
  }) => {
    await signIn(page, await newAccount({ role: ROLE }));
    await page.goto("/nuvara");
    await askForEcho(page, "after reload", "Done after reload.");
    await expect(card(page)).toBeVisible();
    await expect(page).toHaveURL(/\/nuvara\/[0-9a-f-]{36}$/);
    await page.reload();
    await expect(card(page)).toBeVisible();
    await card(page).getByRole("button", { name: "Approve" }).click();
    await expect(replies(page).last().getByText("Done after reload.")).toBeVisible();
  });

  test("approved from a second tab: the first tab hears the decision and the reply", async ({
    page,
    context,
    newAccount,
  }) => {
    await signIn(page, await newAccount({ role: ROLE }));
    await page.goto("/nuvara");
    await askForEcho(page, "two tabs", "Done from the other tab.");
    await expect(card(page)).toBeVisible();
    await expect(page).toHaveURL(/\/nuvara\/[0-9a-f-]{36}$/);
    const other = await context.newPage();
    await other.goto(page.url());
    await card(other).getByRole("button", { name: "Approve" }).click();
    await expect(replies(page).last().getByText("Done from the other tab.")).toBeVisible();
    await expect(replies(page).last().getByText("Echo Tool: approved.")).toBeVisible();
    await expect(card(page)).toHaveCount(0);
    await other.close();
  });

  async function askForInput(page: Page, account: TestAccount, reply: string) {
    const tool = "trigger-elicitation-request";
    // Only the server's form is under test here: the tool runs without an approval first.
    await postServersForm(adminPage, { intent: "set-tool-policy", serverId: server.id, tool, policy: "auto" });
    await signIn(page, account);
    await page.goto("/nuvara");
    await scriptedModel.enqueue(
      { type: "tool-calls", calls: [{ name: server.fn(tool), arguments: {} }] },
      { type: "text", text: reply },
    );
    await sendMessage(page, "Ask me for my details");
    return page.getByRole("region", { name: `${server.name} asks for your input` });
  }

  test("a server asks for input: the reply shows its form, and what the user sends reaches the tool", async ({
    page,
    newAccount,
  }) => {
    const form = await askForInput(page, await newAccount({ role: ROLE }), "Thanks, noted.");
    await expect(form.getByText("Please provide inputs for the following fields:")).toBeVisible();
    // The server's defaults are filled in; the required field is marked so.
    await expect(form.getByLabel("Integer (optional)")).toHaveValue("42");
    await expect(form.getByRole("combobox", { name: "Titled Single Select Enum (optional)", exact: true })).toHaveValue(
      "hero-1",
    );
    await expect(form.getByRole("group", { name: "Untitled Multiple Select Enum (optional)" })).toBeVisible();
    await expect(page.getByText("Thinking…")).toHaveCount(0);
    await expectNoAxeViolations(page, "a tool server's form");
    await reviewShots(page, "elicitation-form");
    await page.setViewportSize({ width: 390, height: 844 });
    await reviewShots(page, "elicitation-form-phone");
    await form.getByLabel("String", { exact: true }).fill("Ada Lovelace");
    await form.getByLabel("Boolean", { exact: true }).check();
    await form.getByLabel("Integer (optional)").fill("7");
    await form
      .getByRole("combobox", { name: "Titled Single Select Enum (optional)", exact: true })
      .selectOption({ label: "Wonder Woman" });
    await form.getByRole("button", { name: "Send" }).click();
    const reply = replies(page).last();
    await expect(reply.getByText("Thanks, noted.")).toBeVisible();
    await expect(reply.getByText(`You answered ${server.name}'s request.`)).toBeVisible();
    await expect(form).toHaveCount(0);
    const sent = JSON.stringify((await modelRequestFor("Ask me for my details")).messages);
    expect(sent).toContain("- Name: Ada Lovelace");
    expect(sent).toContain("- Agreed to terms: true");
    expect(sent).toContain("- Favorite Integer: 7");
    // The raw answer the server echoes back holds the chosen value, not its label.
    expect(sent).toContain("hero-3");
  });

  test("a server asks for input and the user declines: the tool hears it and the reply goes on", async ({
    page,
    newAccount,
  }) => {
    const form = await askForInput(page, await newAccount({ role: ROLE }), "No problem.");
    await form.getByRole("button", { name: "Decline" }).click();
    const reply = replies(page).last();
    await expect(reply.getByText("No problem.")).toBeVisible();
    await expect(reply.getByText(`You declined ${server.name}'s request.`)).toBeVisible();
    const sent = JSON.stringify((await modelRequestFor("Ask me for my details")).messages);
    expect(sent).toContain("User declined to provide the requested information");
  });

  test("a long-running tool shows how far it has got under its step, until it has finished", async ({
    page,
    newAccount,
  }) => {
    const tool = "trigger-long-running-operation";
    await postServersForm(adminPage, { intent: "set-tool-policy", serverId: server.id, tool, policy: "auto" });
    await signIn(page, await newAccount({ role: ROLE }));
    await page.goto("/nuvara");
    await scriptedModel.enqueue(
      // Three steps two seconds apart: the first two reports are seen long before the end.
      { type: "tool-calls", calls: [{ name: server.fn(tool), arguments: { duration: 6, steps: 3 } }] },
      { type: "text", text: "All three steps are done." },
    );
    await sendMessage(page, "Run the long one");
    const reply = replies(page).last();
    // The step is named by the tool's title and its server, not the name the model calls it by.
    await expect(reply.getByText("Using Trigger Long Running Operation Tool · Everything")).toBeVisible();
    const progress = reply.getByRole("status").filter({ has: page.getByRole("progressbar", { name: "Progress" }) });
    await expect(progress).toHaveText(/^[12] of 3$/);
    await expect(progress.getByRole("progressbar")).toHaveAttribute("max", "3");
    await expectNoAxeViolations(page, "a tool's progress");
    await reviewShots(page, "tool-progress");
    await expect(reply.getByText("All three steps are done.")).toBeVisible({ timeout: 15_000 });
    await expect(progress).toHaveCount(0);
  });
});

test("an admin connects a server and narrows a tool to admins: a user sees, and the model is offered, only what their role may use", async ({
  page,
  browser,
  newAccount,
}) => {
  // A long journey (two accounts, a server added and removed, a reply): three times the usual time.
  test.slow();
  await signIn(page, await newAccount({ role: "admin" }));
  await page.goto("/tools");
  await page.getByRole("link", { name: "Tool servers" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Tool servers" })).toBeVisible();
  const name = `Everything ${randomUUID().slice(0, 6)}`;
  const form = page.getByRole("form", { name: "Add a server" });
  await form.getByLabel("Name").fill(name);
  await form.getByLabel("Address").fill(MCP_URL());
  await form.getByRole("checkbox", { name: "Everyone" }).uncheck();
  await form.getByRole("checkbox", { name: "Admins" }).check();
  await form.getByLabel("Other roles").fill(ROLE);
  await form.getByRole("button", { name: "Add server" }).click();
  await expect(page.getByRole("status").filter({ hasText: `“${name}” was added with` })).toBeVisible();
  await expect(form.getByLabel("Name")).toHaveValue("");
  const serverCard = page.getByRole("article", { name });
  await expect(serverCard.getByRole("heading", { name: "Get Sum Tool" })).toBeVisible();
  await expectNoAxeViolations(page, "the tool servers page (admin)");
  await reviewShots(page, "tool-servers-admin", { fullPage: true });

  // Get Sum only for admins.
  const sum = serverCard.getByRole("listitem").filter({ has: page.getByRole("heading", { name: "Get Sum Tool" }) });
  await sum.getByText(/^Who may use Get Sum Tool/).click();
  await sum
    .getByRole("checkbox", { name: ROLE })
    .waitFor({ state: "detached" })
    .catch(() => undefined);
  await sum.getByLabel("Other roles").fill("");
  await sum.getByRole("button", { name: "Save", exact: true }).last().click();
  await expect(sum.getByRole("status").filter({ hasText: "Saved: who may use get-sum." })).toBeVisible();

  const userContext = await browser.newContext();
  const user = await userContext.newPage();
  await signIn(user, await newAccount({ role: ROLE }));
  await user.goto("/tools/servers");
  const seen = user.getByRole("article", { name });
  await expect(seen.getByRole("heading", { name: "Echo Tool" })).toBeVisible();
  await expect(seen.getByRole("heading", { name: "Get Sum Tool" })).toHaveCount(0);
  await expect(seen.getByRole("button", { name: "Remove" })).toHaveCount(0);
  await expectNoAxeViolations(user, "the tool servers page (user)");
  await reviewShots(user, "tool-servers-user", { fullPage: true });
  await user.setViewportSize({ width: 390, height: 844 });
  await reviewShots(user, "tool-servers-user-phone", { fullPage: true });

  await user.goto("/nuvara");
  await scriptedModel.enqueue({ type: "text", text: "Hello." });
  await sendMessage(user, "Which tools do you have?");
  const offered = ((await modelRequestFor("Which tools do you have?")).tools ?? []).map((tool) => tool.function.name);
  expect(offered).toContain(`${slugOf(name)}__echo`);
  expect(offered).not.toContain(`${slugOf(name)}__get-sum`);
  await userContext.close();

  await serverCard.getByRole("button", { name: "Remove" }).click();
  await page.getByRole("button", { name: `Yes, remove ${name}` }).click();
  await expect(page.getByRole("status").filter({ hasText: `“${name}” was removed.` })).toBeVisible();
});

test("a user whose role may adds the reference server as their own, sees it under Your servers, and removes it", async ({
  page,
  newAccount,
}) => {
  // MCP_OWN_SERVER_ROLES is the tests' role (playwright.config.ts): docs/decisions/094.
  await signIn(page, await newAccount({ role: ROLE }));
  await page.goto("/tools/servers");
  const form = page.getByRole("form", { name: "Add your own server" });
  await expect(form).toBeVisible();
  // Only they use it: the form has no roles to choose.
  await expect(form.getByRole("group", { name: "Who may use it" })).toHaveCount(0);
  await expectNoAxeViolations(page, "the tool servers page (a user adding their own)");

  const name = `Mine ${randomUUID().slice(0, 6)}`;
  await form.getByLabel("Name").fill(name);
  await form.getByLabel("Address").fill(MCP_URL());
  await form.getByRole("button", { name: "Add server" }).click();
  await expect(page.getByRole("status").filter({ hasText: `“${name}” was added with` })).toBeVisible();
  await expect(form.getByLabel("Name")).toHaveValue("");
  const yours = page.getByRole("region", { name: "Your servers" });
  const serverCard = yours.getByRole("article", { name });
  await expect(serverCard.getByRole("heading", { name: "Echo Tool" })).toBeVisible();
  await serverCard.scrollIntoViewIfNeeded();
  await reviewShots(page, "own-servers");
  await page.setViewportSize({ width: 390, height: 844 });
  await serverCard.scrollIntoViewIfNeeded();
  await reviewShots(page, "own-servers-phone");

  await serverCard.getByRole("button", { name: "Remove" }).click();
  await page.getByRole("button", { name: `Yes, remove ${name}` }).click();
  await expect(page.getByRole("status").filter({ hasText: `“${name}” was removed.` })).toBeVisible();
  await expect(yours.getByRole("article", { name })).toHaveCount(0);
  await expect(yours.getByText("You have not added a server of your own yet")).toBeVisible();
});
