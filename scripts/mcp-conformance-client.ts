/**
 * The client the MCP conformance suite drives (scripts/mcp-conformance.ts):
 * for each of its client scenarios the suite starts a scenario server and
 * runs this with the server's URL as the last argument and the scenario's
 * name in MCP_CONFORMANCE_SCENARIO. It does what the scenario asks through
 * the app's own client (app/mcp/client.server.ts), nothing else, and exits
 * 0 when every step worked.
 *
 * The OAuth scenarios (auth/…) run the app's own OAuth provider
 * (app/mcp/oauth.server.ts, docs/decisions/092) over a store in memory: the
 * suite's authorization server approves at once and redirects to the
 * redirect URI with a code, so "the user's browser" is one fetch that does
 * not follow that redirect; the code is then exchanged as the app's callback
 * does, and the scenario's steps run again with the tokens. Pre-registered
 * and client-credentials scenarios take their client from
 * MCP_CONFORMANCE_CONTEXT.
 *
 *   MCP_CONFORMANCE_SCENARIO=tools_call tsx scripts/mcp-conformance-client.ts http://localhost:1234/mcp
 */
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { ClientCredentialsProvider, PrivateKeyJwtProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import { z } from "zod";
import { connectMcp, type McpConnectOptions, type McpSession } from "~/mcp/client.server";
import {
  finishAuthorization,
  McpOAuthProvider,
  type McpOAuthStore,
  type OAuthClientInformationMixed,
  type OAuthDiscoveryState,
  type OAuthTokens,
} from "~/mcp/oauth.server";

type Scenario = (url: string) => Promise<void>;

async function withSession(
  url: string,
  options: McpConnectOptions & { authProvider?: OAuthClientProvider },
  work: (session: McpSession) => Promise<void>,
) {
  const { authProvider, ...connectOptions } = options;
  const session = await connectMcp(
    { url, label: "conformance", ...(authProvider ? { authProvider } : {}) },
    connectOptions,
  );
  try {
    await work(session);
  } finally {
    await session.close();
  }
}

/** Calls `name` and fails unless the tool answered without error. */
async function callOk(session: McpSession, name: string, args: Record<string, unknown>) {
  const outcome = await session.callTool(name, args);
  if (outcome.isError) throw new Error(`${name} failed: ${outcome.failure ?? "tool error"}: ${outcome.text}`);
  console.log(outcome.text);
}

async function requireTool(session: McpSession, name: string) {
  const tools = await session.listTools();
  if (!tools.some((tool) => tool.name === name)) throw new Error(`the server lists no ${name} tool`);
}

const SCENARIOS: Record<string, Scenario> = {
  // Initialize, then list the tools: the handshake's checks.
  initialize: (url) => withSession(url, {}, async (session) => void (await session.listTools())),
  tools_call: (url) =>
    withSession(url, {}, async (session) => {
      await requireTool(session, "add_numbers");
      await callOk(session, "add_numbers", { a: 5, b: 3 });
    }),
  // Accepting with no content: the client fills in the form's defaults (SEP-1034).
  "elicitation-sep1034-client-defaults": (url) =>
    withSession(url, { onElicitation: async () => ({ action: "accept", content: {} }) }, async (session) => {
      await requireTool(session, "test_client_elicitation_defaults");
      await callOk(session, "test_client_elicitation_defaults", {});
    }),
  // The server closes the call's stream after a retry field: the SDK reconnects (SEP-1699).
  "sse-retry": (url) =>
    withSession(url, {}, async (session) => {
      await requireTool(session, "test_reconnection");
      await callOk(session, "test_reconnection", {});
    }),
};

// ---- OAuth ----------------------------------------------------------------------

/** Never fetched: the suite's authorization server redirects to it and the client reads the code off the redirect. */
const REDIRECT_URL = "http://localhost:3000/callback";
/** The client ID metadata document the suite expects in auth/basic-cimd. */
const CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json";
/** A request answered 401 or 403 is authorized again at most this many times (auth/scope-retry-limit). */
const MAX_AUTHORIZATIONS = 3;

const contextSchema = z
  .object({
    client_id: z.string().optional(),
    client_secret: z.string().optional(),
    private_key_pem: z.string().optional(),
    signing_algorithm: z.string().optional(),
  })
  .passthrough();

function conformanceContext() {
  const raw = process.env.MCP_CONFORMANCE_CONTEXT;
  return raw ? contextSchema.parse(JSON.parse(raw)) : {};
}

/** The app's store, in memory; "the browser" fetches the authorization URL and keeps the code it is sent back with. */
function memoryStore(preset?: OAuthClientInformationMixed): McpOAuthStore & { takeCode(): string | undefined } {
  let client = preset;
  let tokens: OAuthTokens | undefined;
  let verifier: string | undefined;
  let discovery: OAuthDiscoveryState | undefined;
  let code: string | undefined;
  return {
    client: async () => client,
    async saveClient(info) {
      client = info;
    },
    tokens: async () => tokens,
    async saveTokens(next) {
      tokens = next;
    },
    async codeVerifier() {
      if (!verifier) throw new Error("no authorization was started");
      return verifier;
    },
    async saveCodeVerifier(next) {
      verifier = next;
    },
    discovery: async () => discovery,
    async saveDiscovery(next) {
      discovery = next;
    },
    async forget(what) {
      if (what === "all" || what === "tokens") tokens = undefined;
      if ((what === "all" || what === "client") && !preset) client = undefined;
      if (what === "all" || what === "discovery") discovery = undefined;
      if (what === "all" || what === "verifier") verifier = undefined;
    },
    async authorizationNeeded(url, state) {
      const approved = await fetch(url, { redirect: "manual" });
      await approved.body?.cancel();
      const back = new URL(approved.headers.get("location") ?? "", url);
      if (back.searchParams.get("state") !== state) throw new Error("the authorization server sent another state back");
      code = back.searchParams.get("code") ?? undefined;
      if (!code) throw new Error(`the authorization was not granted: ${back.searchParams.get("error") ?? "no code"}`);
    },
    takeCode() {
      const taken = code;
      code = undefined;
      return taken;
    },
  };
}

/** Lists the tools and calls the suite's test tool when there is one: what every auth scenario's server offers. */
async function useServer(session: McpSession) {
  const tools = await session.listTools();
  if (tools.some((tool) => tool.name === "test-tool")) await callOk(session, "test-tool", {});
}

/**
 * Runs the steps, and each time the SDK asked for the user's approval (a
 * 401, or a 403 asking for more scope), exchanges the code as the app's
 * callback does and runs them again with the new tokens.
 */
async function withAuthorizationCode(url: string, options: { preset?: OAuthClientInformationMixed; cimd?: boolean }) {
  const store = memoryStore(options.preset);
  const provider = new McpOAuthProvider(store, {
    redirectUrl: REDIRECT_URL,
    clientName: "nuvara-conformance",
    ...(options.cimd ? { clientMetadataUrl: CLIENT_METADATA_URL } : {}),
  });
  for (let authorizations = 0; ; authorizations++) {
    try {
      await withSession(url, { authProvider: provider }, useServer);
      return;
    } catch (error) {
      const code = store.takeCode();
      if (!code || authorizations >= MAX_AUTHORIZATIONS - 1) throw error;
      await finishAuthorization(provider, url, code);
    }
  }
}

function withClientCredentials(url: string, authProvider: OAuthClientProvider) {
  return withSession(url, { authProvider }, useServer);
}

function requireContext<K extends keyof ReturnType<typeof conformanceContext>>(...keys: K[]) {
  const context = conformanceContext();
  for (const key of keys) if (!context[key]) throw new Error(`MCP_CONFORMANCE_CONTEXT has no ${String(key)}`);
  return context as Required<Pick<typeof context, K>>;
}

const AUTH_SCENARIOS: Record<string, Scenario> = {
  "auth/basic-cimd": (url) => withAuthorizationCode(url, { cimd: true }),
  "auth/pre-registration": (url) => {
    const { client_id, client_secret } = requireContext("client_id", "client_secret");
    return withAuthorizationCode(url, { preset: { client_id, client_secret } });
  },
  "auth/client-credentials-basic": (url) => {
    const { client_id, client_secret } = requireContext("client_id", "client_secret");
    return withClientCredentials(
      url,
      new ClientCredentialsProvider({ clientId: client_id, clientSecret: client_secret }),
    );
  },
  "auth/client-credentials-jwt": (url) => {
    const { client_id, private_key_pem, signing_algorithm } = requireContext(
      "client_id",
      "private_key_pem",
      "signing_algorithm",
    );
    return withClientCredentials(
      url,
      new PrivateKeyJwtProvider({ clientId: client_id, privateKey: private_key_pem, algorithm: signing_algorithm }),
    );
  },
};

/** Every other auth/ scenario is the authorization code flow with dynamic registration. */
function scenarioFor(name: string): Scenario | undefined {
  if (SCENARIOS[name]) return SCENARIOS[name];
  if (AUTH_SCENARIOS[name]) return AUTH_SCENARIOS[name];
  if (name.startsWith("auth/")) return (url) => withAuthorizationCode(url, {});
  return undefined;
}

async function main() {
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
  const url = process.argv.at(-1) ?? "";
  const run = scenarioFor(scenario);
  if (!run) {
    console.error(`Scenario not supported by this client: ${scenario || "(none)"}`);
    process.exit(2);
  }
  await run(url);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
