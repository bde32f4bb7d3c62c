import { randomUUID } from "node:crypto";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import type { UIMessageChunk } from "ai";
import { readChunks } from "~/components/chat/ui-message-stream";
import type { ToolApprovalView } from "~/conversation/tool-approval";
import type { RecordedRequest, ScriptedReply } from "../../tests/support/model-server";
import {
  chatBody,
  freshDatabase,
  machineLine,
  option,
  percentile,
  startAppUnderTest,
  writeBenchmarks,
  type AppUnderTest,
} from "./app-under-test";
import { startTimedMcpServer, WAIT_TOOL, type ServedCall, type TimedMcpServer } from "./timed-mcp-server";

/**
 * `npm run bench -- --tools`: the app's time around an MCP server's own time
 * when the model calls a server's tool (docs/decisions/089, 090, 091). One
 * instance on a fresh database on the PostgreSQL server (or embedded PGlite
 * with `--database-url ""`), the scripted model answering at once, and an
 * SDK-built MCP server on loopback in this process (scripts/perf/timed-mcp-server.ts)
 * whose tool waits `--tool-ms` and notes its handler's start and return.
 * An admin adds the server through /tools/servers, as on the Tools area, for
 * one role and lets its tool run without asking; a second user of that role
 * chose to be asked first, and the bench approves each card as soon as it
 * reads it; a user of another role, offered no server, stands for the app
 * before a server was added.
 *
 * Per call: (a) the handler's time; (b) the app's, from the reply's
 * `tool-input-available` chunk to its `tool-output-available` chunk as this
 * client reads them (both come the same way, so the relay's delay cancels);
 * overhead b − a. Every reply is also timed whole, against replies with no
 * tool and with the built-in calculator, with and without the server offered.
 *
 *   npm run bench -- --tools [--calls 30] [--tool-ms 20] [--reconnects 5] [--no-write]
 *                            [--database-url postgresql://postgres@127.0.0.1:5432/test]
 */
const serverDatabaseUrl = option("database-url", "postgresql://postgres@127.0.0.1:5432/test");
const callCount = Number(option("calls", "30"));
const toolMs = Number(option("tool-ms", "20"));
const reconnectCount = Number(option("reconnects", "5"));
const MODEL = "bench-model";
const SERVER_NAME = "Bench";
/** The function name the app gives the tool (app/chat/server-tools.server.ts serverSlug, then the tool's name). */
const MCP_FUNCTION = `bench__${WAIT_TOOL}`;
const TOOLS_PAGE = "/tools/servers?_data=routes/tools_.servers";

const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const median = (values: number[]) => percentile(sorted(values), 50);
const p95 = (values: number[]) => percentile(sorted(values), 95);
const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
const ms = (value: number, digits = 1) => (Number.isFinite(value) ? `${value.toFixed(digits)} ms` : "—");

/** When this client read each point of one reply, and the model requests it made (performance.now()). */
interface ReplyTimes {
  postedAt: number;
  inputAt: number;
  outputAt: number;
  cardAt: number;
  approvedAt: number;
  endedAt: number;
  modelRequests: RecordedRequest[];
  toolCallId?: string;
}

interface Bench {
  app: AppUnderTest;
  admin: SignedIn;
  /** The server is open to their role; its tool runs without asking. */
  user: SignedIn;
  /** The same role, but they chose to be asked first (set-mcp-approval). */
  careful: SignedIn;
  /** A role the server is not open to: their replies are as before any server was added. */
  outsider: SignedIn;
  mcp: TimedMcpServer;
}

type SignedIn = { cookie: string };

/** The role the server is open to; the outsider's is another. */
const SERVER_ROLE = "premium";

export async function benchTools(): Promise<void> {
  const loadAtStart = os.loadavg()[0];
  console.log(`Tool calls: ${callCount} replies of each kind, the server's tool waiting ${toolMs} ms…`);
  const mcp = await startTimedMcpServer();
  const database = serverDatabaseUrl ? await freshDatabase(serverDatabaseUrl, "tools") : undefined;
  const app = await startAppUnderTest({
    name: "tools",
    models: [MODEL],
    databaseUrl: database?.url,
    logFile: path.join(os.tmpdir(), `nuvara-bench-tools-${process.pid}.log`),
    env: {
      LOG_LEVEL: "warn",
      // The tool server is on loopback, which the outbound guard refuses unless allowed (docs/decisions/088).
      OUTBOUND_ALLOW: "127.0.0.1",
      CHAT_RATE_LIMIT_PER_MINUTE: "10000",
      QUOTA_DAILY_MESSAGES: "*=unlimited",
      TOOL_CALLS_PER_MINUTE: "10000",
    },
  });
  try {
    const bench: Bench = {
      app,
      mcp,
      admin: await app.signIn("admin"),
      user: await app.signIn(SERVER_ROLE, "tools-user"),
      careful: await app.signIn(SERVER_ROLE, "tools-careful"),
      outsider: await app.signIn("basic", "tools-outsider"),
    };
    const figures = await measure(bench);
    const records = database ? await toolCallRecords(app.databaseUrl) : new Map<string, RecordedCall>();
    const roundTripMs = database ? await postgresRoundTripMs(app.databaseUrl) : NaN;
    const report = reportOf(figures, mcp, records, {
      roundTripMs,
      onServer: Boolean(database),
      loads: [loadAtStart, os.loadavg()[0]],
    });
    console.log(report);
    if (!process.argv.includes("--no-write")) writeBenchmarks("tools", report);
  } finally {
    await app.stop();
    await mcp.close();
    await database?.drop();
  }
}

interface Figures {
  noneWithout: ReplyTimes[];
  calcWithout: ReplyTimes[];
  noneWith: ReplyTimes[];
  calcWith: ReplyTimes[];
  firstCall: ReplyTimes[];
  reconnected: ReplyTimes[];
  pooled: ReplyTimes[];
  asked: ReplyTimes[];
  listsPerReply: number;
}

/**
 * Every kind of reply in turn, so the machine's noise falls on all of them alike: the outsider's
 * stand for replies before any server was added, the careful user's for a tool that must ask.
 */
async function measure(bench: Bench): Promise<Figures> {
  const chats = await startConversations(bench);
  const serverId = await addServer(bench);
  await setToolPolicy(bench, serverId, "auto");
  await chooseToBeAsked(bench, serverId);
  const firstCall = [await reply(bench, chats.mcp, mcpScript("first"))];
  await reply(bench, chats.asked, mcpScript("asked-warm-up"), { approve: true });

  const listsBefore = bench.mcp.requestsByMethod.get("tools/list") ?? 0;
  const none = (chat: Chat) => () => reply(bench, chat, [text()]);
  const calculator = (chat: Chat) => () => reply(bench, chat, calculatorScript());
  const called = { pooled: 0, asked: 0 };
  const replies = await inTurn({
    noneWithout: none(chats.noneWithout),
    calcWithout: calculator(chats.calcWithout),
    noneWith: none(chats.noneWith),
    calcWith: calculator(chats.calcWith),
    pooled: () => reply(bench, chats.mcp, mcpScript(`pooled-${called.pooled++}`)),
    asked: () => reply(bench, chats.asked, mcpScript(`asked-${called.asked++}`), { approve: true }),
  });
  const listsPerReply = ((bench.mcp.requestsByMethod.get("tools/list") ?? 0) - listsBefore) / (6 * callCount);

  const reconnected: ReplyTimes[] = [];
  for (let i = 0; i < reconnectCount; i++) {
    // Saving the tool's policy changes the server's record: the next reply connects again (app/tools/server-connection.server.ts).
    await setToolPolicy(bench, serverId, "auto");
    reconnected.push(await reply(bench, chats.mcp, mcpScript(`reconnected-${i}`)));
  }
  return { ...replies, firstCall, reconnected, listsPerReply };
}

type Chat = { id: string; started: boolean; as: SignedIn };

/** A conversation per kind of reply, each begun untimed (a new chat is stored and titled), the calculator warmed up. */
async function startConversations(bench: Bench) {
  const chats = {
    noneWithout: conversation(bench.outsider),
    calcWithout: conversation(bench.outsider),
    noneWith: conversation(bench.user),
    calcWith: conversation(bench.user),
    mcp: conversation(bench.user),
    asked: conversation(bench.careful),
  };
  for (const chat of Object.values(chats)) await reply(bench, chat, [text()]);
  for (let i = 0; i < 3; i++) await reply(bench, chats.calcWithout, calculatorScript());
  return chats;
}

/** `callCount` rounds, each kind of reply once a round. */
async function inTurn<Kind extends string>(
  kinds: Record<Kind, () => Promise<ReplyTimes>>,
): Promise<Record<Kind, ReplyTimes[]>> {
  const entries = Object.entries(kinds) as Array<[Kind, () => Promise<ReplyTimes>]>;
  const times = Object.fromEntries(entries.map(([kind]) => [kind, [] as ReplyTimes[]])) as Record<Kind, ReplyTimes[]>;
  for (let round = 0; round < callCount; round++) {
    for (const [kind, send] of entries) times[kind].push(await send());
  }
  return times;
}

function conversation(as: SignedIn): Chat {
  return { id: randomUUID(), started: false, as };
}

const text = (): ScriptedReply => ({ type: "text", text: "Done." });

function calculatorScript(): ScriptedReply[] {
  return [{ type: "tool-calls", calls: [{ name: "calculator", arguments: { expression: "6 * 7" } }] }, text()];
}

function mcpScript(tag: string): ScriptedReply[] {
  return [
    { type: "tool-calls", calls: [{ id: `call_${tag}`, name: MCP_FUNCTION, arguments: { ms: toolMs, tag } }] },
    text(),
  ];
}

/** Sends one message and reads the whole reply, noting when each chunk that matters arrived. */
async function reply(bench: Bench, chat: Chat, script: ScriptedReply[], { approve = false } = {}): Promise<ReplyTimes> {
  const { app } = bench;
  const firstRequest = app.model.requests.length;
  app.model.enqueue(...script);
  const times: ReplyTimes = {
    postedAt: performance.now(),
    inputAt: NaN,
    outputAt: NaN,
    cardAt: NaN,
    approvedAt: NaN,
    endedAt: NaN,
    modelRequests: [],
  };
  const response = await fetch(`${app.baseUrl}/api/chat`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: app.baseUrl, cookie: chat.as.cookie },
    body: chatBody(MODEL, "Wait a moment, please.", { conversationId: chat.id, create: !chat.started }),
  });
  if (!response.ok || !response.body) throw new Error(`chat: ${response.status} ${await response.text()}`);
  chat.started = true;
  let approval: Promise<void> | undefined;
  for await (const chunk of readChunks(response.body)) {
    const at = performance.now();
    const card = approve ? pendingCard(chunk) : undefined;
    if (chunk.type === "tool-input-available") [times.inputAt, times.toolCallId] = [at, chunk.toolCallId];
    else if (chunk.type === "tool-output-available") times.outputAt = at;
    else if (card) {
      times.cardAt = at;
      // Not awaited: the reply goes on being read while the decision is on its way.
      approval = approveCall(app, chat.as, card.approvalId).then(() => void (times.approvedAt = performance.now()));
    } else if (chunk.type === "error" || chunk.type === "tool-output-error") {
      throw new Error(`the reply failed: ${JSON.stringify(chunk)}`);
    }
  }
  times.endedAt = performance.now();
  await approval;
  times.modelRequests = app.model.requests
    .slice(firstRequest)
    .filter((request) => request.path === "/v1/chat/completions");
  return times;
}

/** An approval card still waiting for its answer (app/chat/tool-approval.server.ts). */
function pendingCard(chunk: UIMessageChunk): ToolApprovalView | undefined {
  if (chunk.type !== "data-approval") return undefined;
  const view = chunk.data as ToolApprovalView;
  return view.status === "pending" ? view : undefined;
}

/** What the card's Approve button sends (POST /api/tool-approvals). */
async function approveCall(app: AppUnderTest, owner: SignedIn, approvalId: string): Promise<void> {
  const response = await fetch(`${app.baseUrl}/api/tool-approvals`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: app.baseUrl, cookie: owner.cookie },
    body: JSON.stringify({ approvalId, decision: "approve" }),
  });
  if (!response.ok) throw new Error(`approving: ${response.status} ${await response.text()}`);
}

/** A form on the Tools area's server page, sent as the admin unless told; its action's JSON answer. */
async function toolsForm({ app, admin }: Bench, fields: Record<string, string>, as: SignedIn = admin) {
  const response = await fetch(`${app.baseUrl}${TOOLS_PAGE}`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: app.baseUrl, cookie: as.cookie },
    body: new URLSearchParams(fields).toString(),
  });
  const answer = (await response.json()) as { ok?: boolean; notice?: string; error?: string };
  if (!response.ok || !answer.ok) throw new Error(`${fields.intent}: ${response.status} ${JSON.stringify(answer)}`);
  return answer;
}

/** Adds the bench's server for one role, as an admin does on /tools/servers; its id, from the page's loader. */
async function addServer(bench: Bench): Promise<string> {
  const added = await toolsForm(bench, {
    intent: "add-server",
    name: SERVER_NAME,
    url: bench.mcp.url,
    auth: "none",
    roles: SERVER_ROLE,
  });
  console.log(added.notice);
  const page = await fetch(`${bench.app.baseUrl}${TOOLS_PAGE}`, { headers: { cookie: bench.admin.cookie } });
  const { servers } = (await page.json()) as { servers: Array<{ id: string; name: string }> };
  const server = servers.find((candidate) => candidate.name === SERVER_NAME);
  if (!server) throw new Error("the server added is not on the Tools area");
  return server.id;
}

async function setToolPolicy(bench: Bench, serverId: string, policy: "auto" | "ask") {
  await toolsForm(bench, { intent: "set-tool-policy", serverId, tool: WAIT_TOOL, policy });
}

/** The careful user tightens the admin's "auto" to "ask" for themselves, on the same page. */
async function chooseToBeAsked(bench: Bench, serverId: string) {
  await toolsForm(bench, { intent: "set-mcp-approval", serverId, tool: WAIT_TOOL, approval: "ask" }, bench.careful);
}

/** The app's own record of each call (tool_calls), by the model's call id. */
interface RecordedCall {
  durationMs: number;
  /** performance.now() in this process when the gate's insert ran (the row's created_at). */
  recordedAt: number;
  /** When the owner's decision was written (decided_at); NaN when no one was asked. */
  decidedAt: number;
}

async function toolCallRecords(databaseUrl: string): Promise<Map<string, RecordedCall>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{
      tool_call_id: string;
      duration_ms: number;
      created_ms: string;
      decided_ms: string | null;
    }>(
      "select tool_call_id, duration_ms, extract(epoch from created_at) * 1000 as created_ms, " +
        "extract(epoch from decided_at) * 1000 as decided_ms from tool_calls",
    );
    // created_at is the database's clock (now(), at the insert): the same machine's, in ms since 1970.
    const toBenchClock = (epochMs: number) => epochMs - performance.timeOrigin;
    return new Map(
      rows.map((row) => [
        row.tool_call_id,
        {
          durationMs: row.duration_ms,
          recordedAt: toBenchClock(Number(row.created_ms)),
          decidedAt: row.decided_ms === null ? NaN : toBenchClock(Number(row.decided_ms)),
        },
      ]),
    );
  } finally {
    await client.end();
  }
}

/** One statement's round trip from a Node client to the same database: what each of the gate's writes costs at least. */
async function postgresRoundTripMs(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const times: number[] = [];
    for (let i = 0; i < 50; i++) {
      const started = performance.now();
      await client.query("select 1");
      times.push(performance.now() - started);
    }
    return median(times);
  } finally {
    await client.end();
  }
}

/** One call of the server's tool, taken apart (ms). */
interface CallFigures {
  handler: number;
  appTime: number;
  overhead: number;
  /** Tool call read → the request at the server: the gate, the outbound guard, a connection, the SDK client. */
  toServer: number;
  /** Of toServer: tool call read → the gate's insert (the rate limit's count before it). */
  toRecord: number;
  /** Around the handler, in the server's SDK (request arrived → handler; handler returned → answer sent). */
  serverSdk: number;
  /** Answer sent → result read: the SDK client, the call's duration written, the AI SDK, the relay. */
  fromServer: number;
  /** Result read → the model asked again (the AI SDK's next step). */
  toNextStep: number;
  /** The model's tool call sent → the client reads it (the app takes it in and relays it). */
  toClient: number;
  /** The model's tool call sent → the model asked again. */
  modelWaited: number;
  recordedMs: number;
  /** Card read → approval answered (POST /api/tool-approvals). */
  approval: number;
  /** Card read → the request at the server. */
  cardToServer: number;
  /** Card read → the decision written (decided_at). */
  cardToDecision: number;
  /** The decision written → the request at the server. */
  decisionToServer: number;
  whole: number;
  toModel: number;
  /** 1 when the call's request came on a TCP connection of its own, else 0. */
  newConnection: number;
}

function callFigures(times: ReplyTimes, served: ServedCall, record: RecordedCall | undefined): CallFigures {
  const [first, second] = times.modelRequests;
  const handler = served.returnedAt - served.startedAt;
  const appTime = times.outputAt - times.inputAt;
  return {
    handler,
    appTime,
    overhead: appTime - handler,
    toServer: served.arrivedAt - times.inputAt,
    toRecord: record ? record.recordedAt - times.inputAt : NaN,
    serverSdk: served.startedAt - served.arrivedAt + (served.sentAt - served.returnedAt),
    fromServer: times.outputAt - served.sentAt,
    toNextStep: second.receivedAt - times.outputAt,
    toClient: times.inputAt - (first.endedAt ?? NaN),
    modelWaited: modelWaited(times),
    recordedMs: record?.durationMs ?? NaN,
    approval: times.approvedAt - times.cardAt,
    cardToServer: served.arrivedAt - times.cardAt,
    cardToDecision: (record?.decidedAt ?? NaN) - times.cardAt,
    decisionToServer: served.arrivedAt - (record?.decidedAt ?? NaN),
    whole: times.endedAt - times.postedAt,
    toModel: first.receivedAt - times.postedAt,
    newConnection: served.onNewConnection ? 1 : 0,
  };
}

/** The model's tool call sent (its answer ended) → the model asked again. */
function modelWaited({ modelRequests: [first, second] }: ReplyTimes): number {
  return second.receivedAt - (first.endedAt ?? NaN);
}

function callsOf(replies: ReplyTimes[], mcp: TimedMcpServer, records: Map<string, RecordedCall>): CallFigures[] {
  return replies.map((times) => {
    const served = mcp.calls.get(times.toolCallId!.replace(/^call_/, ""));
    if (!served) throw new Error(`the server never saw ${times.toolCallId}`);
    return callFigures(times, served, records.get(times.toolCallId!));
  });
}

interface Context {
  roundTripMs: number;
  listsPerReply: number;
}

/** Longer than this from card to call, a wait was likely not woken and ran to its poll (app/chat/tool-approval.server.ts). */
const POLL_SUSPECT_MS = 400;

const pick = (calls: CallFigures[], key: keyof CallFigures) => calls.map((call) => call[key]);

interface RunFacts {
  roundTripMs: number;
  onServer: boolean;
  /** The load average (1 minute) at the start and at the end. */
  loads: [number, number];
}

function reportOf(figures: Figures, mcp: TimedMcpServer, records: Map<string, RecordedCall>, run: RunFacts): string {
  const first = callsOf(figures.firstCall, mcp, records);
  const reconnected = callsOf(figures.reconnected, mcp, records);
  const pooled = callsOf(figures.pooled, mcp, records);
  const asked = callsOf(figures.asked, mcp, records);
  const builtIn = figures.calcWith.map((times) => times.outputAt - times.inputAt);
  logSlowApprovals(asked);
  const store = run.onServer ? "the PostgreSQL server (a fresh database)" : "embedded PGlite";
  return [
    "## Tool calls (MCP): the app's time around the server's",
    "",
    `\`npm run bench -- --tools\` on ${new Date().toISOString().slice(0, 10)}, ${machineLine()}, load average ` +
      `${run.loads[0].toFixed(1)} at the start and ${run.loads[1].toFixed(1)} at the end; one instance on ${store}, the scripted model answering at once. ` +
      "The MCP server is built with the SDK (Streamable HTTP) on 127.0.0.1 in the bench's process " +
      `(scripts/perf/timed-mcp-server.ts); its one tool waits ${toolMs} ms. An admin adds it on /tools/servers ` +
      "(over HTTP, with `OUTBOUND_ALLOW=127.0.0.1`) for one role and sets the tool to run without asking. A user of " +
      "that role calls it; a second one chose to be asked first, and the bench approves each card as soon as it " +
      "reads it (POST /api/tool-approvals); a user of another role, offered no server, stands for the app before a " +
      "server was added. Each kind of reply goes to a conversation of its own, follow-ups after an untimed first " +
      "message, and the kinds take turns, so the machine's noise falls on all of them alike.",
    "",
    "**The server's time (a)**: its handler, from its start to its return. **The app's time (b)**: from the reply's " +
      "`tool-input-available` chunk (the model's tool call, taken in) to its `tool-output-available` chunk (the " +
      "result), as the client reads them: both come the same way, so the relay's delay cancels out, and the time " +
      "the AI SDK then takes to ask the model again is left out (it is below, and it is the same for any tool). " +
      "Overhead = b − a, median and p95. The last column is the same stretch as the model server sees it: from the " +
      "end of its answer with the tool call to the reply's next request, which also holds the app's taking in of " +
      "the answer and its next step.",
    "",
    "| calls | n | server's handler (a), median | the app's time (b), median | overhead b − a, median | p95 | " +
      "model server's view, median |",
    "|---|---|---|---|---|---|---|",
    overheadRow("first call on the instance (the reply connected to the server before the model was asked)", first),
    overheadRow("first call on a new connection (after the admin saved the tool's policy)", reconnected),
    overheadRow("later calls, pooled connection, runs without asking", pooled),
    overheadRow("must ask first, approved as soon as the card is read", asked),
    `| built-in calculator (no server), for comparison | ${builtIn.length} | — | ${ms(median(builtIn))} | ` +
      `${ms(median(builtIn))} | ${ms(p95(builtIn))} | ${ms(median(figures.calcWith.map(modelWaited)))} |`,
    "",
    ...summary(pooled, asked, run.roundTripMs),
    "",
    ...attribution(pooled, asked, figures.calcWith, {
      roundTripMs: run.roundTripMs,
      listsPerReply: figures.listsPerReply,
    }),
    "",
    ...wholeReplies(figures, { first, reconnected }),
    "",
  ].join("\n");
}

/** What the overhead mostly is, from this run's figures. */
function summary(pooled: CallFigures[], asked: CallFigures[], roundTripMs: number): string[] {
  const overhead = median(pick(pooled, "overhead"));
  return [
    `In short: on this machine a call of a server's tool costs the reply ${ms(overhead)} beyond the server's own ` +
      `time (median; p95 ${ms(p95(pick(pooled, "overhead")))}), and ${ms(median(pick(asked, "overhead")))} when it ` +
      "must ask and is approved at once. Little of it is PostgreSQL's: the gate and the record write three times " +
      `(the rate count, the call's row, its duration) at about ${ms(roundTripMs, 2)} a round trip. No DNS lookup is ` +
      "made for an address (a server named by a host name adds one to each request). Of the rest, " +
      `${ms(median(pick(pooled, "serverSdk")))} is the server's own SDK around its handler; the remainder is work on ` +
      "the app's CPU — the AI SDK, the gate's code, the outbound guard, the MCP SDK's client on a new TCP connection " +
      "for each request — and it grows with the machine's load (see the load average above).",
  ];
}

/** The approvals that took long, taken apart, for the person running the bench. */
function logSlowApprovals(asked: CallFigures[]) {
  for (const call of asked.filter((one) => one.cardToServer > POLL_SUSPECT_MS)) {
    console.log(
      `slow approval: card → decision written ${ms(call.cardToDecision)}, decision → request at the server ` +
        `${ms(call.decisionToServer)}, approval answered ${ms(call.approval)} after the card`,
    );
  }
}

function overheadRow(label: string, calls: CallFigures[]): string {
  return (
    `| ${label} | ${calls.length} | ${ms(median(pick(calls, "handler")))} | ${ms(median(pick(calls, "appTime")))} | ` +
    `${ms(median(pick(calls, "overhead")))} | ${ms(p95(pick(calls, "overhead")))} | ` +
    `${ms(median(pick(calls, "modelWaited")))} |`
  );
}

function attribution(pooled: CallFigures[], asked: CallFigures[], calculator: ReplyTimes[], context: Context) {
  const m = (calls: CallFigures[], key: keyof CallFigures) => ms(median(pick(calls, key)));
  const recordedBeyond = median(pooled.map((call) => call.recordedMs - call.handler));
  const slowApprovals = asked.filter((call) => call.cardToServer > POLL_SUSPECT_MS).length;
  return [
    `Where the overhead goes, pooled calls without asking (medians of ${pooled.length}; the server's points are ` +
      "read on its own clock, which is the bench's, and the gate's insert from its row's created_at):",
    "",
    "| stretch | time | what happens in it |",
    "|---|---|---|",
    `| tool call read → its request arrives at the server | ${m(pooled, "toServer")} | the AI SDK starts the tool; ` +
      "the gate counts the call against the account's rate (one PostgreSQL write) and records it (one insert); the " +
      "outbound guard checks the address (a literal: no DNS lookup) and opens a new TCP connection (it reuses none, " +
      "docs/decisions/088); the SDK client sends the POST |",
    `| of which: tool call read → the gate's insert | ${m(pooled, "toRecord")} | the AI SDK, the rate limit's write |`,
    `| the server's SDK around its handler | ${m(pooled, "serverSdk")} | the server's side: reading the request, ` +
      "answering it as an event stream |",
    `| answer sent → result read | ${m(pooled, "fromServer")} | the SDK client reads the event stream; the result ` +
      "is framed for the model; the call's duration is written (one PostgreSQL update); the AI SDK emits the result |",
    `| result read → the model asked again | ${m(pooled, "toNextStep")} | the AI SDK's next step (any tool) |`,
    `| the model's tool call sent → read by the client | ${m(pooled, "toClient")} | the app takes the model's ` +
      "answer in and relays the chunk (not in b) |",
    `| the model's tool call sent → the model asked again | ${m(pooled, "modelWaited")} | all of it, as the model ` +
      `server sees it; with the calculator: ${ms(median(calculator.map(modelWaited)))} |`,
    "",
    `One PostgreSQL round trip (\`select 1\`) from a Node client on this machine: ${ms(context.roundTripMs, 2)}. ` +
      "The call's own record (tool_calls.duration_ms, whole ms: the MCP round trip as the app times it) exceeds the " +
      `handler by ${ms(recordedBeyond)} (median). Calls whose request came on a new TCP connection: ` +
      `${sum(pick(pooled, "newConnection"))} of ${pooled.length}. A pooled connection keeps the server's list of tools ` +
      `(tools/list requests per reply on it: ${context.listsPerReply.toFixed(2)}).`,
    "",
    `Asking first (medians of ${asked.length}): the card read → the decision written (POST /api/tool-approvals: ` +
      `the session, the conditional update) ${m(asked, "cardToDecision")}; the decision written → the call's ` +
      `request at the server ${m(asked, "decisionToServer")}; the approval's answer read ${m(asked, "approval")} ` +
      `after the card. Calls whose request reached the server over ${POLL_SUSPECT_MS} ms after the card: ` +
      `${slowApprovals} of ${asked.length} (the gate looks again every 500 ms, and a decision taken on its own ` +
      "instance wakes it at once).",
  ];
}

function wholeReplies(figures: Figures, cold: { first: CallFigures[]; reconnected: CallFigures[] }): string[] {
  const row = (label: string, replies: ReplyTimes[]) => {
    const whole = replies.map((times) => times.endedAt - times.postedAt);
    const toModel = replies.map((times) => times.modelRequests[0].receivedAt - times.postedAt);
    return `| ${label} | ${replies.length} | ${ms(median(toModel))} | ${ms(median(whole))} | ${ms(p95(whole))} |`;
  };
  return [
    "Whole replies: from the POST to the reply's end, and to the model's first request (the model answers at once, " +
      "so this is the app's time plus the tool's):",
    "",
    "| reply | n | POST → model asked, median | whole reply, median | p95 |",
    "|---|---|---|---|---|",
    row("no tool, the role offered no server", figures.noneWithout),
    row("built-in calculator, the role offered no server", figures.calcWithout),
    row("no tool, the server's tool offered", figures.noneWith),
    row("built-in calculator, the server's tool offered", figures.calcWith),
    row("the server's tool, pooled connection", figures.pooled),
    row("the server's tool, must ask, approved at once", figures.asked),
    row("the server's tool, first call on a new connection", figures.reconnected),
    row("the server's tool, first call on the instance", figures.firstCall),
    "",
    `Connecting (initialize, then tools/list) falls before the model is asked: first reply on the instance ` +
      `${ms(median(pick(cold.first, "toModel")))}, on a new connection ${ms(median(pick(cold.reconnected, "toModel")))} ` +
      "(median) from POST to the model's first request.",
  ];
}
