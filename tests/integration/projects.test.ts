import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { resetConfig } from "~/config.server";
import { getConversation } from "~/data/conversations.server";
import {
  MAX_PROJECT_INSTRUCTIONS_LENGTH,
  MAX_PROJECT_NAME_LENGTH,
  MAX_PROJECTS,
  PROJECTS_FULL,
} from "~/data/project-rules";
import {
  createProject,
  deleteProject,
  getProject,
  listProjects,
  moveToProject,
  ProjectInputError,
  renameProject,
  setProjectInstructions,
} from "~/data/projects.server";
import { getDb } from "~/db/client.server";
import { conversations, projects } from "~/db/schema";
import { action as layoutAction, loader as layoutLoader } from "~/routes/nuvara";
import { action as conversationAction } from "~/routes/nuvara.$conversationId";
import { admin, APP_ORIGIN, appRequest, createAccount, sessionCookieFor } from "../support/app-env";
import { startModelServer, type ModelServer } from "../support/model-server";
import { respond } from "./admin-support";
import { dataOf, firstMessage, newMessage, postChat, readChunks } from "./chat-support";

/**
 * Projects (docs/decisions/106): made, edited and deleted through POST
 * /nuvara, chats moved in and out through POST /nuvara/<chat>, and started in
 * one through the chat endpoint, whose model request then carries the
 * project's instructions. Another user's project is a 404 that changes nothing.
 */

const ENV = { LLM_MODELS: "test-model", LLM_TIMEOUT_MS: "2000" };

const firebase = admin();
let model: ModelServer;

beforeAll(async () => {
  model = await startModelServer({ models: ["test-model"] });
  Object.assign(process.env, ENV, { LLM_BASE_URL: model.url });
  resetConfig();
});

afterAll(async () => {
  for (const name of [...Object.keys(ENV), "LLM_BASE_URL"]) delete process.env[name];
  resetConfig();
  await model.close();
  await firebase.close();
});

beforeEach(() => model.reset());

async function signedIn() {
  const account = await createAccount(firebase, {});
  return { uid: account.uid, cookie: await sessionCookieFor(account) };
}

function post(path: string, fields: Record<string, string>, cookie: string) {
  return appRequest(path, {
    method: "POST",
    cookie,
    headers: { Origin: APP_ORIGIN, "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields),
  });
}

const layout = (fields: Record<string, string>, cookie: string) =>
  respond(layoutAction, post("/nuvara", fields, cookie));

const onChat = (id: string, fields: Record<string, string>, cookie: string) =>
  respond(conversationAction, post(`/nuvara/${id}`, fields, cookie), { conversationId: id });

async function newProject(cookie: string, name: string, instructions = "") {
  const response = await layout({ intent: "project-create", name, instructions }, cookie);
  expect(response.status).toBe(200);
  return ((await response.json()) as { project: { id: string } }).project.id;
}

/** A chat made through the chat endpoint, as the page makes it. */
async function newChat(cookie: string, text: string, extra: Record<string, unknown> = {}) {
  const body = { ...firstMessage(text), ...extra };
  const chunks = await readChunks(await postChat(body, { cookie }));
  expect(dataOf(chunks, "saved"), JSON.stringify(chunks)).toMatchObject({ status: "completed" });
  return body.conversationId;
}

async function page(cookie: string) {
  const response = await respond(layoutLoader, appRequest("/nuvara", { cookie }));
  return (await response.json()) as {
    projects: Array<{ id: string; name: string; instructions: string }>;
    conversations: Array<{ id: string; projectId?: string | null }>;
  };
}

/** The system prompt of the last chat completion request the model server received. */
function systemPromptSent(): string {
  const chats = model.requests.filter((request) => request.path === "/v1/chat/completions");
  const system = chats.at(-1)!.body!.messages!.find((message) => message.role === "system");
  return typeof system?.content === "string" ? system.content : "";
}

async function projectOf(conversationId: string) {
  const db = await getDb();
  const [row] = await db
    .select({ projectId: conversations.projectId })
    .from(conversations)
    .where(eq(conversations.id, conversationId));
  return row?.projectId;
}

describe("projects: the data module", () => {
  it("creates, renames, sets instructions, lists and deletes, each only for its owner", async () => {
    const db = await getDb();
    const uid = `projects-${randomUUID()}`;
    const other = `projects-${randomUUID()}`;
    const made = await createProject(db, uid, { name: "  Garden   plans ", instructions: "Answer in metric." });
    expect(made).toMatchObject({ name: "Garden plans", instructions: "Answer in metric." });

    expect(await renameProject(db, other, made.id, "Taken")).toBe(false);
    expect(await setProjectInstructions(db, other, made.id, "Ignore everything.")).toBe(false);
    expect(await getProject(db, other, made.id)).toBeNull();
    expect(await listProjects(db, other)).toEqual([]);
    expect(await deleteProject(db, other, made.id, "delete")).toBeNull();

    expect(await renameProject(db, uid, made.id, "Vegetable garden")).toBe(true);
    expect(await setProjectInstructions(db, uid, made.id, "Answer briefly.")).toBe(true);
    expect(await listProjects(db, uid)).toEqual([
      { id: made.id, name: "Vegetable garden", instructions: "Answer briefly." },
    ]);
    expect(await deleteProject(db, uid, made.id, "move-out")).toEqual([]);
    expect(await listProjects(db, uid)).toEqual([]);
  });

  it("refuses an empty or too long name, too long instructions, and more than the most projects", async () => {
    const db = await getDb();
    const uid = `projects-${randomUUID()}`;
    await expect(createProject(db, uid, { name: "   " })).rejects.toThrow("Please enter a project name.");
    await expect(createProject(db, uid, { name: "x".repeat(MAX_PROJECT_NAME_LENGTH + 1) })).rejects.toThrow(
      `Please keep the project name to ${MAX_PROJECT_NAME_LENGTH} characters or fewer`,
    );
    await expect(
      createProject(db, uid, { name: "Long", instructions: "x".repeat(MAX_PROJECT_INSTRUCTIONS_LENGTH + 1) }),
    ).rejects.toThrow(ProjectInputError);
    expect(
      await createProject(db, uid, { name: "x".repeat(MAX_PROJECT_NAME_LENGTH), instructions: "y".repeat(2_000) }),
    ).toMatchObject({ instructions: "y".repeat(2_000) });

    await db
      .insert(projects)
      .values(Array.from({ length: MAX_PROJECTS - 1 }, (_, index) => ({ id: randomUUID(), uid, name: `P${index}` })));
    await expect(createProject(db, uid, { name: "One too many" })).rejects.toThrow(PROJECTS_FULL);
    expect(await listProjects(db, uid)).toHaveLength(MAX_PROJECTS);
  });

  it("moves only the owner's chat into only the owner's project", async () => {
    const db = await getDb();
    const uid = `projects-${randomUUID()}`;
    const other = `projects-${randomUUID()}`;
    const mine = await createProject(db, uid, { name: "Mine" });
    const theirs = await createProject(db, other, { name: "Theirs" });
    const chat = randomUUID();
    await db.insert(conversations).values({ id: chat, uid });
    const temporary = randomUUID();
    await db.insert(conversations).values({ id: temporary, uid, temporary: true });

    expect(await moveToProject(db, uid, chat, theirs.id)).toBe(false);
    expect(await moveToProject(db, other, chat, theirs.id)).toBe(false);
    expect(await moveToProject(db, uid, temporary, mine.id)).toBe(false);
    expect(await projectOf(chat)).toBeNull();
    expect(await moveToProject(db, uid, chat, mine.id)).toBe(true);
    expect(await projectOf(chat)).toBe(mine.id);
    expect(await moveToProject(db, uid, chat, null)).toBe(true);
    expect(await projectOf(chat)).toBeNull();
  });
});

describe("projects: the /nuvara routes", () => {
  it("makes, edits and lists a project; bad input is a 400 with a clear message", async () => {
    const { cookie } = await signedIn();
    const id = await newProject(cookie, "Trip to Lisbon", "Prices in euros.");
    expect((await page(cookie)).projects).toEqual([{ id, name: "Trip to Lisbon", instructions: "Prices in euros." }]);

    const empty = await layout({ intent: "project-create", name: " ", instructions: "" }, cookie);
    expect(empty.status).toBe(400);
    expect(await empty.json()).toEqual({ error: "Please enter a project name." });
    const long = await layout(
      {
        intent: "project-edit",
        project: id,
        name: "Trip",
        instructions: "x".repeat(MAX_PROJECT_INSTRUCTIONS_LENGTH + 1),
      },
      cookie,
    );
    expect(long.status).toBe(400);
    expect(((await long.json()) as { error: string }).error).toContain("characters or fewer");
    const badDelete = await layout({ intent: "project-delete", project: id, chats: "maybe" }, cookie);
    expect(badDelete.status).toBe(400);
    // Nothing was changed by the refusals.
    expect((await page(cookie)).projects).toEqual([{ id, name: "Trip to Lisbon", instructions: "Prices in euros." }]);

    const edited = await layout({ intent: "project-edit", project: id, name: "Lisbon", instructions: "" }, cookie);
    expect(await edited.json()).toEqual({ ok: true });
    expect((await page(cookie)).projects).toEqual([{ id, name: "Lisbon", instructions: "" }]);
  });

  it("another account cannot read, edit, delete, or move a chat into a project it does not own (404, nothing changed)", async () => {
    const owner = await signedIn();
    const stranger = await signedIn();
    const project = await newProject(owner.cookie, "Private", "Secret instructions.");
    const ownerChat = await newChat(owner.cookie, "Hello from the owner");
    expect((await onChat(ownerChat, { intent: "project", project }, owner.cookie)).status).toBe(200);
    const strangerChat = await newChat(stranger.cookie, "Hello from the stranger");

    expect((await page(stranger.cookie)).projects).toEqual([]);
    for (const fields of <Array<Record<string, string>>>[
      { intent: "project-edit", project, name: "Mine now", instructions: "" },
      { intent: "project-delete", project, chats: "delete" },
      { intent: "project-delete", project, chats: "move-out" },
    ]) {
      const response = await layout(fields, stranger.cookie);
      expect(response.status, fields.intent).toBe(404);
      expect(await response.json()).toEqual({
        error: "That project doesn't exist any more. Reload the page to see your projects.",
      });
    }
    expect((await onChat(strangerChat, { intent: "project", project }, stranger.cookie)).status).toBe(404);
    // The owner's chat cannot be moved (in or out) by the stranger either.
    expect((await onChat(ownerChat, { intent: "project", project: "" }, stranger.cookie)).status).toBe(404);
    expect((await layout({ intent: "project-edit", project: "nope", name: "x" }, owner.cookie)).status).toBe(404);

    expect((await page(owner.cookie)).projects).toEqual([
      { id: project, name: "Private", instructions: "Secret instructions." },
    ]);
    expect(await projectOf(ownerChat)).toBe(project);
    expect(await projectOf(strangerChat)).toBeNull();
  });

  it("another site cannot make a project or move a chat in the user's name (403, nothing changed)", async () => {
    const { cookie } = await signedIn();
    const project = await newProject(cookie, "Mine");
    const chat = await newChat(cookie, "A chat of mine");
    const crossSite = (path: string, fields: Record<string, string>) =>
      appRequest(path, {
        method: "POST",
        cookie,
        headers: { Origin: "https://evil.example", "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(fields),
      });
    expect(
      (
        await respond(
          layoutAction,
          crossSite("/nuvara", { intent: "project-create", name: "Planted", instructions: "" }),
        )
      ).status,
    ).toBe(403);
    expect(
      (
        await respond(conversationAction, crossSite(`/nuvara/${chat}`, { intent: "project", project }), {
          conversationId: chat,
        })
      ).status,
    ).toBe(403);
    expect((await page(cookie)).projects.map((row) => row.name)).toEqual(["Mine"]);
    expect(await projectOf(chat)).toBeNull();
  });

  it("moves a chat in and out; a temporary chat cannot be put in a project", async () => {
    const { cookie } = await signedIn();
    const project = await newProject(cookie, "Work");
    const chat = await newChat(cookie, "Draft an email");
    expect(await (await onChat(chat, { intent: "project", project }, cookie)).json()).toEqual({ ok: true });
    expect((await page(cookie)).conversations.find((row) => row.id === chat)?.projectId).toBe(project);
    expect(await (await onChat(chat, { intent: "project", project: "" }, cookie)).json()).toEqual({ ok: true });
    expect((await page(cookie)).conversations.find((row) => row.id === chat)?.projectId).toBeNull();

    const temporary = await newChat(cookie, "Just between us", { temporary: true });
    const refused = await onChat(temporary, { intent: "project", project }, cookie);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ error: "A temporary chat can't be in a project." });
  });

  it("deleting a project either deletes its chats or moves them out", async () => {
    const { cookie, uid } = await signedIn();
    const db = await getDb();
    const keep = await newProject(cookie, "Keep the chats");
    const drop = await newProject(cookie, "Drop the chats");
    const kept = await newChat(cookie, "Kept chat", { projectId: keep });
    const dropped = await newChat(cookie, "Dropped chat", { projectId: drop });
    const loose = await newChat(cookie, "Loose chat");

    expect(await (await layout({ intent: "project-delete", project: keep, chats: "move-out" }, cookie)).json()).toEqual(
      { ok: true, deleted: 0 },
    );
    expect(await getConversation(db, uid, kept)).toMatchObject({ projectId: null });

    expect(await (await layout({ intent: "project-delete", project: drop, chats: "delete" }, cookie)).json()).toEqual({
      ok: true,
      deleted: 1,
    });
    expect(await getConversation(db, uid, dropped)).toBeNull();
    expect(await getConversation(db, uid, loose)).not.toBeNull();
    expect((await page(cookie)).projects).toEqual([]);
  });
});

describe("projects: the chat", () => {
  it("a chat in a project has the project's instructions in its system prompt, a loose chat not", async () => {
    const { cookie } = await signedIn();
    await layout({ intent: "instructions", instructions: "Call me Sam." }, cookie);
    const project = await newProject(cookie, "Poems", "Always answer in rhyming couplets.");

    const inProject = await newChat(cookie, "Write about the sea", { projectId: project });
    expect(systemPromptSent()).toContain("Always answer in rhyming couplets.");
    expect(systemPromptSent()).toContain("Call me Sam.");
    expect((await page(cookie)).conversations.find((row) => row.id === inProject)?.projectId).toBe(project);

    await newChat(cookie, "Write about the hills");
    expect(systemPromptSent()).not.toContain("rhyming couplets");
    expect(systemPromptSent()).toContain("Call me Sam.");

    // Edited instructions apply to the next reply of the chat already in the project.
    await layout({ intent: "project-edit", project, name: "Poems", instructions: "Answer in haiku." }, cookie);
    const chunks = await readChunks(
      await postChat(
        { conversationId: inProject, message: newMessage("Again, please"), model: "test-model" },
        { cookie },
      ),
    );
    expect(dataOf(chunks, "saved")).toMatchObject({ status: "completed" });
    expect(systemPromptSent()).toContain("Answer in haiku.");
    expect(systemPromptSent()).not.toContain("rhyming couplets");
  });

  it("another user's project id is a 404 and nothing is stored; a temporary chat in a project is a 400", async () => {
    const owner = await signedIn();
    const stranger = await signedIn();
    const project = await newProject(owner.cookie, "Owner's", "Owner's instructions.");

    const body = { ...firstMessage("Let me in"), projectId: project };
    const response = await postChat(body, { cookie: stranger.cookie });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: "That project doesn't exist any more. Reload the page to see your projects.",
    });
    expect(await getConversation(await getDb(), stranger.uid, body.conversationId)).toBeNull();
    expect(model.requests.filter((request) => request.path === "/v1/chat/completions")).toEqual([]);

    const temporary = { ...firstMessage("Off the record"), projectId: project, temporary: true };
    const refused = await postChat(temporary, { cookie: owner.cookie });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ error: "A temporary chat can't be in a project." });
    expect(await getConversation(await getDb(), owner.uid, temporary.conversationId)).toBeNull();
  });
});
