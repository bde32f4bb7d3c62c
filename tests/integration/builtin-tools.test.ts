import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { getPromptTool, resetPromptTool, setPromptToolEnabled } from "~/data/prompt-tools/prompt-tools.server";
import { getDb } from "~/db/client.server";
import { action as catalogueAction, loader as catalogueLoader } from "~/routes/tools";
import { action as useToolAction, loader as toolLoader } from "~/routes/tools_.$toolId";
import { action as editAction, loader as editLoader } from "~/routes/tools_.$toolId_.edit";
import { action as newAction } from "~/routes/tools_.new";
import { admin, APP_ORIGIN, appRequest, createAccount, sessionCookieFor } from "../support/app-env";

/** Built-in prompt tools edited, hidden and reset by admins (prompt_tool_overrides). */
const firebase = admin();
afterAll(() => firebase.close());

type Handler = (args: LoaderFunctionArgs & ActionFunctionArgs) => Promise<Response>;

async function run(
  handler: Handler,
  path: string,
  {
    cookie,
    form,
    params = {},
  }: { cookie?: string; form?: Record<string, string>; params?: Record<string, string> } = {},
) {
  const request = form
    ? appRequest(path, {
        method: "POST",
        cookie,
        headers: { Origin: APP_ORIGIN, "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(form).toString(),
      })
    : appRequest(path, { cookie });
  let response: Response;
  try {
    response = await handler({ request, params, context: {} });
  } catch (thrown) {
    if (!(thrown instanceof Response)) throw thrown;
    response = thrown;
  }
  const type = response.headers.get("Content-Type") ?? "";
  const body = (type.includes("json") ? await response.json() : null) as Record<string, never> | null;
  return { status: response.status, location: response.headers.get("Location"), body: body ?? {} };
}

interface Summary {
  id: string;
  name: string;
  description: string;
  category: string;
  enabled: boolean;
  builtIn: boolean;
  edited?: boolean;
}

async function catalogue(cookie?: string): Promise<Summary[]> {
  const { body } = await run(catalogueLoader as Handler, "/tools", { cookie });
  return (body as unknown as { prompts: Summary[] }).prompts;
}

async function session(role?: string) {
  const account = await createAccount(firebase, { role });
  return { account, cookie: await sessionCookieFor(account) };
}

const TOOL = "improve-writing";
const EDIT = {
  name: "Polish my text",
  category: "writing",
  description: "Tidy a text for a newsletter.",
  systemPrompt: "You polish newsletter texts. Keep the author's voice.",
  field0Label: "Your text",
  field0Kind: "text",
  field0Required: "on",
  field1Label: "Audience",
  field1Kind: "line",
};

// Files run one at a time; each test leaves the built-in tool as shipped for the others.
afterEach(async () => {
  const db = await getDb();
  await resetPromptTool(db, TOOL);
  await setPromptToolEnabled(db, TOOL, true);
});

describe("editing a built-in prompt tool", () => {
  it("an admin's edit is what everyone gets (catalogue, tool page, form), kept in PostgreSQL; reset brings back the default", async () => {
    const { cookie } = await session("admin");
    const user = await session();

    const form = await run(editLoader as Handler, `/tools/${TOOL}/edit`, { cookie, params: { toolId: TOOL } });
    expect(form.status).toBe(200);
    expect(form.body).toMatchObject({
      name: "Improve writing",
      builtIn: true,
      edited: false,
      values: { systemPrompt: expect.stringMatching(/^You are an editor/) },
    });

    const saved = await run(editAction as Handler, `/tools/${TOOL}/edit`, {
      cookie,
      params: { toolId: TOOL },
      form: EDIT,
    });
    expect(saved).toMatchObject({ status: 303, location: `/tools?saved=${TOOL}` });

    // Read back from the database, as after a restart.
    const stored = await getPromptTool(await getDb(), TOOL);
    expect(stored).toMatchObject({
      name: "Polish my text",
      category: "Writing", // joins the built-in category
      systemPrompt: "You polish newsletter texts. Keep the author's voice.",
      builtIn: true,
      edited: true,
      enabled: true,
    });
    expect(stored!.inputFields).toEqual([
      { label: "Your text", kind: "text", required: true },
      { label: "Audience", kind: "line", required: false },
    ]);

    expect((await catalogue(user.cookie)).find((tool) => tool.id === TOOL)).toMatchObject({
      name: "Polish my text",
      description: "Tidy a text for a newsletter.",
    });
    const page = await run(toolLoader as Handler, `/tools/${TOOL}`, { cookie: user.cookie, params: { toolId: TOOL } });
    expect(page.body).toMatchObject({
      tool: { name: "Polish my text", inputFields: [{ label: "Your text" }, { label: "Audience" }] },
    });
    const started = await run(useToolAction as Handler, `/tools/${TOOL}`, {
      cookie: user.cookie,
      params: { toolId: TOOL },
      form: { input0: "Hello all", input1: "Members" },
    });
    expect(started.body).toMatchObject({
      started: { toolId: TOOL, message: "Your text:\nHello all\n\nAudience:\nMembers" },
    });

    // Reset asks first, then restores the shipped tool.
    const asked = await run(catalogueAction as Handler, "/tools", { cookie, form: { intent: "reset", id: TOOL } });
    expect(asked.body).toEqual({ confirmDelete: TOOL });
    expect((await getPromptTool(await getDb(), TOOL))!.name).toBe("Polish my text");
    const reset = await run(catalogueAction as Handler, "/tools", {
      cookie,
      form: { intent: "reset", id: TOOL, confirm: "yes" },
    });
    expect(reset.body).toMatchObject({ ok: true, notice: "The tool was reset to its default." });
    const back = await getPromptTool(await getDb(), TOOL);
    expect(back).toMatchObject({
      name: "Improve writing",
      edited: false,
      systemPrompt: expect.stringMatching(/^You are an editor/),
    });
    // The default's hints come back with it.
    expect(back!.inputFields[1]).toMatchObject({ label: "Tone", hint: "For example: friendly, or formal" });
  });

  it("keeps a built-in's name for itself only; other names stay unique across built-in and admins' tools", async () => {
    const { cookie } = await session("admin");
    // Saving under its own name is fine; taking another built-in's name is not.
    const own = await run(editAction as Handler, `/tools/${TOOL}/edit`, {
      cookie,
      params: { toolId: TOOL },
      form: { ...EDIT, name: "Improve writing" },
    });
    expect(own.status).toBe(303);
    const taken = await run(editAction as Handler, `/tools/${TOOL}/edit`, {
      cookie,
      params: { toolId: TOOL },
      form: { ...EDIT, name: "translate" },
    });
    expect(taken).toMatchObject({
      status: 400,
      body: { fieldErrors: { name: "A built-in tool already has this name." }, values: { name: "translate" } },
    });

    // An edited built-in name is taken for admins' new tools too.
    await run(editAction as Handler, `/tools/${TOOL}/edit`, { cookie, params: { toolId: TOOL }, form: EDIT });
    const clash = await run(newAction as Handler, "/tools/new", { cookie, form: { ...EDIT, name: "polish MY text" } });
    expect(clash).toMatchObject({
      status: 409,
      body: { fieldErrors: { name: "Another tool already has this name." } },
    });
  });

  it("non-admins can neither open the edit form nor save, hide or reset a built-in tool", async () => {
    const user = await session("premium");
    expect(
      (await run(editLoader as Handler, `/tools/${TOOL}/edit`, { cookie: user.cookie, params: { toolId: TOOL } }))
        .status,
    ).toBe(403);
    expect(
      (
        await run(editAction as Handler, `/tools/${TOOL}/edit`, {
          cookie: user.cookie,
          params: { toolId: TOOL },
          form: EDIT,
        })
      ).status,
    ).toBe(403);
    for (const intent of ["disable", "reset"]) {
      expect(
        (
          await run(catalogueAction as Handler, "/tools", {
            cookie: user.cookie,
            form: { intent, id: TOOL, confirm: "yes" },
          })
        ).status,
      ).toBe(403);
    }
    expect(await getPromptTool(await getDb(), TOOL)).toMatchObject({ name: "Improve writing", enabled: true });
  });
});

describe("hiding a built-in prompt tool", () => {
  it("is hidden from users and cannot be opened by them; admins still see it marked; showing it again keeps an edit", async () => {
    const { cookie } = await session("admin");
    const user = await session();
    await run(editAction as Handler, `/tools/${TOOL}/edit`, { cookie, params: { toolId: TOOL }, form: EDIT });

    const hidden = await run(catalogueAction as Handler, "/tools", { cookie, form: { intent: "disable", id: TOOL } });
    expect(hidden.body).toMatchObject({ ok: true, notice: "The tool was disabled." });
    expect((await catalogue(user.cookie)).some((tool) => tool.id === TOOL)).toBe(false);
    expect((await catalogue()).some((tool) => tool.id === TOOL)).toBe(false);
    expect(
      (await run(toolLoader as Handler, `/tools/${TOOL}`, { cookie: user.cookie, params: { toolId: TOOL } })).status,
    ).toBe(404);
    expect((await catalogue(cookie)).find((tool) => tool.id === TOOL)).toMatchObject({
      enabled: false,
      edited: true,
      name: "Polish my text",
    });

    await run(catalogueAction as Handler, "/tools", { cookie, form: { intent: "enable", id: TOOL } });
    expect((await catalogue(user.cookie)).find((tool) => tool.id === TOOL)).toMatchObject({
      name: "Polish my text",
      enabled: true,
    });
  });

  it("a built-in tool cannot be deleted, and an admin's tool has no default to reset to", async () => {
    const { cookie } = await session("admin");
    const del = await run(catalogueAction as Handler, "/tools", {
      cookie,
      form: { intent: "delete", id: TOOL, confirm: "yes" },
    });
    expect(del).toMatchObject({
      status: 400,
      body: { error: "A built-in tool cannot be deleted: disable it to hide it, or reset it to its default." },
    });
    const other = await run(catalogueAction as Handler, "/tools", {
      cookie,
      form: { intent: "reset", id: "00000000-0000-4000-8000-000000000000", confirm: "yes" },
    });
    expect(other).toMatchObject({ status: 400, body: { error: "Only a built-in tool can be reset to its default." } });
    const unknown = await run(catalogueAction as Handler, "/tools", {
      cookie,
      form: { intent: "disable", id: "no-such-tool" },
    });
    expect(unknown).toMatchObject({ status: 400, body: { error: "There is no such tool." } });
    expect((await catalogue()).find((tool) => tool.id === TOOL)).toMatchObject({
      name: "Improve writing",
      enabled: true,
    });
  });
});
