import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pinClock } from "~/time/clock.server";
import { resetConfig } from "~/config.server";
import { getEnabledToolIds } from "~/data/preferences.server";
import { getDb } from "~/db/client.server";
import { conversations } from "~/db/schema";
import { action as catalogueAction, loader as catalogueLoader } from "~/routes/tools";
import { action as useToolAction, loader as toolLoader } from "~/routes/tools_.$toolId";
import { action as editAction, loader as editLoader } from "~/routes/tools_.$toolId_.edit";
import { action as newAction, loader as newLoader } from "~/routes/tools_.new";
import { intoThisMinute } from "../support/clock";
import { startModelServer, type ModelServer } from "../support/model-server";
import { admin, APP_ORIGIN, appRequest, createAccount, sessionCookieFor } from "../support/app-env";
import { firstMessage, postChat } from "./chat-support";

/** /tools: the public catalogue, function switches, using a prompt tool, and admins managing prompt tools. */
const firebase = admin();
let model: ModelServer;

beforeAll(async () => {
  model = await startModelServer({ models: ["test-model"] });
  Object.assign(process.env, { LLM_BASE_URL: model.url, LLM_MODELS: "test-model" });
  resetConfig();
});

afterAll(async () => {
  delete process.env.LLM_BASE_URL;
  delete process.env.LLM_MODELS;
  resetConfig();
  await model.close();
  await firebase.close();
});

type Handler = (args: LoaderFunctionArgs & ActionFunctionArgs) => Promise<Response>;

/** Runs a loader or action; a thrown Response (redirect, 403, 404) is returned like an answer. */
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
  // Loosely typed on purpose: each test reads the fields it checks.
  const body = (type.includes("json") ? await response.json() : null) as Record<string, never> | null;
  return { status: response.status, location: response.headers.get("Location"), body: body ?? {} };
}

async function catalogue(query = "", cookie?: string) {
  const { body } = await run(catalogueLoader as Handler, `/tools${query}`, { cookie });
  return body as unknown as {
    signedIn: boolean;
    isAdmin: boolean;
    categories: string[];
    prompts: Array<{ id: string; name: string; category: string; enabled: boolean; builtIn: boolean }>;
    functions: Array<{ id: string; name: string; enabled: boolean | null }>;
  };
}

async function session(role?: string) {
  const account = await createAccount(firebase, { role });
  return { account, cookie: await sessionCookieFor(account) };
}

const TOOL_FORM = {
  name: "Haiku",
  category: "fun",
  description: "Turns a topic into a haiku.",
  systemPrompt: "Write a haiku (5-7-5 syllables) about the user's topic. Reply with the haiku only.",
  field0Label: "Topic",
  field0Kind: "line",
  field0Required: "on",
};

describe("the catalogue", () => {
  it("is public: the built-in prompt tools and the functions, with no switches for a signed-out visitor", async () => {
    const data = await catalogue();
    expect(data.signedIn).toBe(false);
    expect(data.prompts.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(["Summarize", "Translate", "Improve writing", "Explain code", "Draft an email"]),
    );
    expect(data.functions.map((tool) => [tool.name, tool.enabled])).toEqual([
      ["Calculator", null],
      ["Current date and time", null],
      ["Unit converter", null],
    ]);
    expect(data.categories).toEqual(expect.arrayContaining(["Code", "Language", "Writing", "Assistant functions"]));
  });

  it("searches names and descriptions, and filters by category", async () => {
    expect((await catalogue("?q=email")).prompts.map((tool) => tool.name)).toEqual(["Draft an email"]);
    const units = await catalogue("?q=units");
    expect(units.prompts).toEqual([]);
    expect(units.functions.map((tool) => tool.name)).toEqual(["Unit converter"]);
    const code = await catalogue("?category=Code");
    expect(code.prompts.map((tool) => tool.name)).toEqual(["Explain code"]);
    expect(code.functions).toEqual([]);
    const functions = await catalogue("?category=Assistant%20functions");
    expect(functions.prompts).toEqual([]);
    expect(functions.functions).toHaveLength(3);
    expect((await catalogue("?q=nothing-like-this")).prompts).toEqual([]);
  });
});

describe("function tools: each user's switch, which the assistant respects", () => {
  it("a user switches the calculator off; the model is no longer offered it, for that user only", async () => {
    const { account, cookie } = await session();
    const other = await session();
    const off = await run(catalogueAction as Handler, "/tools", {
      cookie,
      form: { intent: "set-function", toolId: "calculator", enabled: "off" },
    });
    expect(off).toMatchObject({ status: 200, body: { ok: true, notice: "Calculator is off for your chats." } });
    expect((await catalogue("", cookie)).functions.find((tool) => tool.id === "calculator")?.enabled).toBe(false);
    expect(await getEnabledToolIds(await getDb(), account.uid)).toEqual(["current_datetime", "convert_units"]);

    const offered = async (who: string) => {
      model.reset();
      await (await postChat(firstMessage("what is 2+2?"), { cookie: who })).text();
      const request = model.requests.find((entry) => entry.path === "/v1/chat/completions");
      // Memory's tools (docs/decisions/103) are not switched here.
      return (request?.body?.tools ?? [])
        .map((tool) => tool.function.name)
        .filter((name) => name !== "remember" && name !== "forget")
        .sort();
    };
    expect(await offered(cookie)).toEqual(["convert_units", "current_datetime"]);
    expect(await offered(other.cookie)).toEqual(["calculator", "convert_units", "current_datetime"]);

    await run(catalogueAction as Handler, "/tools", {
      cookie,
      form: { intent: "set-function", toolId: "calculator", enabled: "on" },
    });
    expect(await offered(cookie)).toEqual(["calculator", "convert_units", "current_datetime"]);
  });

  it("needs a session, and a known tool", async () => {
    const signedOut = await run(catalogueAction as Handler, "/tools", {
      form: { intent: "set-function", toolId: "calculator", enabled: "off" },
    });
    expect(signedOut).toMatchObject({ status: 302, location: "/login?redirectTo=%2Ftools" });
    const { cookie } = await session();
    const unknown = await run(catalogueAction as Handler, "/tools", {
      cookie,
      form: { intent: "set-function", toolId: "rm_rf", enabled: "off" },
    });
    expect(unknown).toMatchObject({ status: 400, body: { error: "There is no such function." } });
  });
});

describe("using a prompt tool", () => {
  it("goes through login for a signed-out visitor", async () => {
    const result = await run(toolLoader as Handler, "/tools/summarize", { params: { toolId: "summarize" } });
    expect(result).toMatchObject({ status: 302, location: "/login?redirectTo=%2Ftools%2Fsummarize" });
  });

  it("opening a tool hands its first message to a new chat and creates no conversation", async () => {
    const { account, cookie } = await session();
    const page = await run(toolLoader as Handler, "/tools/translate", { cookie, params: { toolId: "translate" } });
    expect(page.body).toMatchObject({
      tool: { name: "Translate", inputFields: [{ label: "Text to translate" }, { label: "Translate into" }] },
    });

    const started = await run(useToolAction as Handler, "/tools/translate", {
      cookie,
      params: { toolId: "translate" },
      form: { input0: "Good morning", input1: "French" },
    });
    expect(started.status).toBe(200);
    // The answers, under their labels, are the first message the browser puts into the new chat.
    const { toolId, message } = (started.body as unknown as { started: { toolId: string; message: string } }).started;
    expect(toolId).toBe("translate");
    expect(message).toBe("Text to translate:\nGood morning\n\nTranslate into:\nFrench");
    // The chat's first send creates the conversation (tests/integration/chat-first-exchange.test.ts).
    expect(await (await getDb()).select().from(conversations).where(eq(conversations.uid, account.uid))).toEqual([]);
  });

  it("gives back what was typed with the missing answers marked", async () => {
    const { account, cookie } = await session();
    const result = await run(useToolAction as Handler, "/tools/translate", {
      cookie,
      params: { toolId: "translate" },
      form: { input0: "Keep this text", input1: "  " },
    });
    expect(result).toMatchObject({
      status: 400,
      body: { values: ["Keep this text", "  "], fieldErrors: { input1: "Fill in “Translate into”." } },
    });
    expect(await (await getDb()).select().from(conversations).where(eq(conversations.uid, account.uid))).toEqual([]);
  });

  it("is limited per account: too many runs in a minute → 429 with Retry-After, what was typed kept", async () => {
    Object.assign(process.env, { TOOL_RUN_RATE_LIMIT_PER_MINUTE: "3" });
    resetConfig();
    // The limit counts in fixed minutes of the app's clock: held still 20 s into one, the minute cannot end mid-test.
    pinClock(intoThisMinute(20));
    try {
      const { account, cookie } = await session();
      const runTool = useToolAction as Handler;
      const runOnce = (text: string) =>
        runTool({
          request: appRequest("/tools/summarize", {
            method: "POST",
            cookie,
            headers: { Origin: APP_ORIGIN, "Content-Type": "application/x-www-form-urlencoded" },
            body: new URLSearchParams({ input0: text }).toString(),
          }),
          params: { toolId: "summarize" },
          context: {},
        });
      for (let i = 0; i < 3; i++) expect((await runOnce(`text ${i}`)).status).toBe(200);
      const refused = await runOnce("one too many");
      expect(refused.status).toBe(429);
      expect(refused.headers.get("Retry-After")).toBe("40");
      expect(await refused.json()).toMatchObject({
        values: ["one too many", ""],
        fieldErrors: {
          form: "You've started a lot of tool chats in a short time. Please wait 40 seconds and try again.",
        },
      });
      // Counted when the tool page hands off, though no conversation is created there.
      expect(await (await getDb()).select().from(conversations).where(eq(conversations.uid, account.uid))).toEqual([]);
      // Another account is not affected.
      const other = await session();
      const elsewhere = await run(useToolAction as Handler, "/tools/summarize", {
        cookie: other.cookie,
        params: { toolId: "summarize" },
        form: { input0: "hi" },
      });
      expect(elsewhere.status).toBe(200);
    } finally {
      pinClock(undefined);
      delete process.env.TOOL_RUN_RATE_LIMIT_PER_MINUTE;
      resetConfig();
    }
  });

  it("answers 404 for an unknown tool", async () => {
    const { cookie } = await session();
    for (const toolId of ["no-such-tool", "00000000-0000-4000-8000-000000000000", "../../etc/passwd"]) {
      expect((await run(toolLoader as Handler, `/tools/x`, { cookie, params: { toolId } })).status).toBe(404);
    }
  });
});

describe("admins manage prompt tools", () => {
  it("refuses every admin action to other users (403) and to signed-out visitors (log in), changing nothing", async () => {
    const { cookie } = await session("premium");
    const unverifiedAdmin = (await session("admin")).account;
    await firebase.auth.updateUser(unverifiedAdmin.uid, { emailVerified: false });
    const adminCookie = (await session("admin")).cookie;
    const created = await run(newAction as Handler, "/tools/new", {
      cookie: adminCookie,
      form: { ...TOOL_FORM, name: "Guarded tool" },
    });
    const id = new URL(created.location!, APP_ORIGIN).searchParams.get("saved")!;
    const notAdmins = [cookie, await sessionCookieFor(unverifiedAdmin)];

    for (const who of notAdmins) {
      expect((await run(newLoader as Handler, "/tools/new", { cookie: who })).status).toBe(403);
      expect((await run(newAction as Handler, "/tools/new", { cookie: who, form: TOOL_FORM })).status).toBe(403);
      expect(
        (await run(editLoader as Handler, `/tools/${id}/edit`, { cookie: who, params: { toolId: id } })).status,
      ).toBe(403);
      expect(
        (
          await run(editAction as Handler, `/tools/${id}/edit`, {
            cookie: who,
            params: { toolId: id },
            form: TOOL_FORM,
          })
        ).status,
      ).toBe(403);
      for (const intent of ["disable", "enable", "delete"]) {
        expect(
          (await run(catalogueAction as Handler, "/tools", { cookie: who, form: { intent, id, confirm: "yes" } }))
            .status,
        ).toBe(403);
      }
    }
    const signedOut = await run(newAction as Handler, "/tools/new", { form: TOOL_FORM });
    expect(signedOut).toMatchObject({ status: 302, location: "/login?redirectTo=%2Ftools%2Fnew" });
    expect((await catalogue()).prompts.find((tool) => tool.id === id)).toMatchObject({
      name: "Guarded tool",
      enabled: true,
    });
    expect((await catalogue("?q=haiku")).prompts.filter((tool) => tool.name === "Haiku")).toEqual([]);
  });

  it("validates a new tool, answering field errors with everything typed", async () => {
    const { cookie } = await session("admin");
    const form = {
      ...TOOL_FORM,
      name: "",
      systemPrompt: "x".repeat(4_001),
      field0Label: "",
      field1Label: "Tone",
      field1Kind: "pdf",
    };
    const result = await run(newAction as Handler, "/tools/new", { cookie, form });
    expect(result.status).toBe(400);
    const body = result.body as unknown as {
      fieldErrors: Record<string, string>;
      values: { name: string; systemPrompt: string; fields: Array<{ label: string }> };
    };
    expect(body.fieldErrors).toMatchObject({
      name: "Enter a name.",
      systemPrompt: "The instructions must be at most 4000 characters.",
      field1Kind: "Choose a kind of input.",
    });
    expect(body.values.systemPrompt).toHaveLength(4_001);
    expect(body.values.fields[1].label).toBe("Tone");

    const none = await run(newAction as Handler, "/tools/new", {
      cookie,
      form: { ...TOOL_FORM, name: "No inputs", field0Label: "" },
    });
    expect(none.body).toMatchObject({ fieldErrors: { inputFields: "Add at least one input, for example “Text”." } });
    const builtInName = await run(newAction as Handler, "/tools/new", {
      cookie,
      form: { ...TOOL_FORM, name: "summarize" },
    });
    expect(builtInName.body).toMatchObject({ fieldErrors: { name: "A built-in tool already has this name." } });
  });

  it("creates, edits, disables, enables and deletes a tool", async () => {
    const { cookie } = await session("admin");
    const user = await session();
    const name = `Haiku ${Date.now()}`;
    const created = await run(newAction as Handler, "/tools/new", { cookie, form: { ...TOOL_FORM, name } });
    expect(created.status).toBe(303);
    const id = new URL(created.location!, APP_ORIGIN).searchParams.get("saved")!;
    // "fun" joins no existing category; it is kept as typed.
    expect((await catalogue(`?q=${encodeURIComponent(name)}`)).prompts).toEqual([
      expect.objectContaining({ id, name, category: "fun", builtIn: false, enabled: true }),
    ]);
    // A second tool with the same name (any case) is refused.
    const duplicate = await run(newAction as Handler, "/tools/new", {
      cookie,
      form: { ...TOOL_FORM, name: name.toUpperCase() },
    });
    expect(duplicate).toMatchObject({
      status: 409,
      body: { fieldErrors: { name: "Another tool already has this name." } },
    });

    const edited = await run(editAction as Handler, `/tools/${id}/edit`, {
      cookie,
      params: { toolId: id },
      form: { ...TOOL_FORM, name, category: "writing", description: "Now with a season." },
    });
    expect(edited.status).toBe(303);
    // "writing" joins the built-in "Writing" category.
    expect((await catalogue(`?q=${encodeURIComponent(name)}`)).prompts[0]).toMatchObject({ category: "Writing" });

    const disabled = await run(catalogueAction as Handler, "/tools", { cookie, form: { intent: "disable", id } });
    expect(disabled.body).toMatchObject({ ok: true, notice: "The tool was disabled." });
    expect((await catalogue(`?q=${encodeURIComponent(name)}`, user.cookie)).prompts).toEqual([]);
    expect(
      (await run(toolLoader as Handler, `/tools/${id}`, { cookie: user.cookie, params: { toolId: id } })).status,
    ).toBe(404);
    expect((await catalogue(`?q=${encodeURIComponent(name)}`, cookie)).prompts[0]).toMatchObject({ enabled: false });

    await run(catalogueAction as Handler, "/tools", { cookie, form: { intent: "enable", id } });
    expect(
      (await run(toolLoader as Handler, `/tools/${id}`, { cookie: user.cookie, params: { toolId: id } })).status,
    ).toBe(200);

    const asked = await run(catalogueAction as Handler, "/tools", { cookie, form: { intent: "delete", id } });
    expect(asked.body).toEqual({ confirmDelete: id });
    expect((await catalogue(`?q=${encodeURIComponent(name)}`)).prompts).toHaveLength(1);
    const deleted = await run(catalogueAction as Handler, "/tools", {
      cookie,
      form: { intent: "delete", id, confirm: "yes" },
    });
    expect(deleted.body).toMatchObject({ ok: true, notice: "The tool was deleted." });
    expect((await catalogue(`?q=${encodeURIComponent(name)}`)).prompts).toEqual([]);
    const again = await run(catalogueAction as Handler, "/tools", {
      cookie,
      form: { intent: "delete", id, confirm: "yes" },
    });
    expect(again.status).toBe(404);
  });
});
