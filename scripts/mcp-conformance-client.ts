/**
 * The client the MCP conformance suite drives (scripts/mcp-conformance.ts):
 * for each of its client scenarios the suite starts a scenario server and
 * runs this with the server's URL as the last argument and the scenario's
 * name in MCP_CONFORMANCE_SCENARIO. It does what the scenario asks through
 * the app's own client (app/mcp/client.server.ts), nothing else, and exits
 * 0 when every step worked.
 *
 *   MCP_CONFORMANCE_SCENARIO=tools_call tsx scripts/mcp-conformance-client.ts http://localhost:1234/mcp
 */
import { connectMcp, type McpConnectOptions, type McpSession } from "~/mcp/client.server";

type Scenario = (url: string) => Promise<void>;

async function withSession(url: string, options: McpConnectOptions, work: (session: McpSession) => Promise<void>) {
  const session = await connectMcp({ url, label: "conformance" }, options);
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

async function main() {
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
  const url = process.argv.at(-1) ?? "";
  const run = SCENARIOS[scenario];
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
