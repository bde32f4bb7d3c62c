import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { resetConfig } from "~/config.server";
import { getDb } from "~/db/client.server";
import { mcpServers } from "~/db/schema";
import type { ApprovalPolicy } from "~/conversation/tool-approval";
import { addMcpServer, recordMcpListing, setMcpToolPolicy } from "~/data/mcp-servers.server";
import { closeServerSessions, listServerTools } from "~/tools/server-connection.server";
import { action, loader } from "~/routes/tools_.servers";
import { startModelServer, type ModelServer } from "./model-server";
import { startReferenceServer, type ReferenceServer } from "./mcp-reference-server";
import { admin, APP_ORIGIN, appRequest, createAccount, sessionCookieFor } from "./app-env";

/**
 * What the integration tests of servers' tools share: for the file, the
 * scripted model and the MCP reference server over real HTTP, with `env`
 * set (and cleared after); before each test, no server left and no
 * connection pooled; accounts signed in with a role; and the servers page
 * (/tools/servers) called in-process as the browser would.
 */
export function toolServerSuite(env: Record<string, string>) {
  const firebase = admin();
  let model: ModelServer | undefined;
  let everything: ReferenceServer | undefined;

  beforeAll(async () => {
    [model, everything] = await Promise.all([
      startModelServer({ models: ["test-model"] }),
      startReferenceServer("streamableHttp"),
    ]);
    Object.assign(process.env, env, { LLM_BASE_URL: model.url });
    resetConfig();
  });

  afterAll(async () => {
    for (const name of [...Object.keys(env), "LLM_BASE_URL"]) delete process.env[name];
    resetConfig();
    await closeServerSessions();
    await Promise.all([model?.close(), everything?.stop(), firebase.close()]);
  });

  beforeEach(async () => {
    model?.reset();
    await closeServerSessions();
    await (await getDb()).delete(mcpServers);
  });

  return {
    /** The scripted model; started before the file's first test. */
    get model(): ModelServer {
      if (!model) throw new Error("the model server starts before the file's first test");
      return model;
    },
    /** The reference server ("Everything"); started before the file's first test. */
    get everything(): ReferenceServer {
      if (!everything) throw new Error("the reference server starts before the file's first test");
      return everything;
    },
    async signedIn(role?: string) {
      const account = await createAccount(firebase, { role });
      return { account, cookie: await sessionCookieFor(account) };
    },
    /** The Everything reference server, as an admin adds it for every role, with these tools' approval set; its id. */
    async addEverything(policies: Record<string, ApprovalPolicy> = {}): Promise<string> {
      const db = await getDb();
      const server = (await addMcpServer(
        db,
        { name: "Everything", url: this.everything.url, roles: ["*"] },
        "admin@example.com",
      ))!;
      await recordMcpListing(db, server.id, await listServerTools(server));
      for (const [tool, policy] of Object.entries(policies)) await setMcpToolPolicy(db, server.id, tool, policy);
      return server.id;
    },
    /** The tool messages the model was sent back, as text. */
    toolResultsSent(): string {
      return JSON.stringify(
        (model?.requests ?? [])
          .filter((request) => request.path === "/v1/chat/completions")
          .flatMap((request) => request.body!.messages!.filter((message) => message.role === "tool")),
      );
    },
    /** The function names the model was offered in its last request. */
    offeredTools(): string[] {
      const chats = (model?.requests ?? []).filter((request) => request.path === "/v1/chat/completions");
      return (chats.at(-1)?.body?.tools ?? []).map((tool) => tool.function.name);
    },
  };
}

export interface ServerCardBody {
  id: string;
  name: string;
  owner?: string;
  auth?: string;
  roles?: string[];
  tools: Array<{ name: string; enabled: boolean }>;
}

/** What the servers page's loader and action answer, as far as the tests read it. */
export interface ServersPageBody {
  ok?: boolean;
  notice?: string;
  error?: string;
  errors?: Record<string, string>;
  values?: Record<string, string>;
  confirmDelete?: string;
  mayAddOwn?: boolean;
  servers?: ServerCardBody[];
  ownServers?: ServerCardBody[];
  usersServers?: ServerCardBody[];
}

type Handler = (args: LoaderFunctionArgs & ActionFunctionArgs) => Promise<Response>;

/** Calls the loader or action in-process; a thrown Response is the answer too. */
async function answerOf(handler: Handler, request: Request) {
  let response: Response;
  try {
    response = await handler({ request, params: {}, context: {} });
  } catch (thrown) {
    if (!(thrown instanceof Response)) throw thrown;
    response = thrown;
  }
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : {}) as ServersPageBody };
}

/** The servers page as this user's browser loads it. */
export function openServersPage(cookie: string) {
  return answerOf(loader as Handler, appRequest("/tools/servers", { cookie }));
}

/** A form posted to the servers page; a field given a list is sent once per value (a checkbox group). */
export function postServersPage(cookie: string, form: Record<string, string | string[]>) {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(form)) {
    for (const one of Array.isArray(value) ? value : [value]) body.append(name, one);
  }
  const request = appRequest("/tools/servers", {
    method: "POST",
    cookie,
    headers: { Origin: APP_ORIGIN, "Content-Type": "application/x-www-form-urlencoded" },
    body: body.toString(),
  });
  return answerOf(action as Handler, request);
}
