import client from "prom-client";

/**
 * The app's Prometheus metrics (served by /metrics, app/routes/metrics.ts),
 * per process: each instance counts its own requests, so scrape every
 * instance. Labels are only ever bounded sets — route ids (never paths),
 * configured model ids, store and limit names — so a user can neither grow
 * the series without end nor appear in them.
 *
 * Kept on globalThis: a module evaluated twice (a dev rebuild, two bundles)
 * must reuse the registered metrics, which prom-client refuses to register twice.
 */
function create() {
  const registry = new client.Registry();
  // Process and runtime metrics, among them event-loop lag (nodejs_eventloop_lag_*).
  client.collectDefaultMetrics({ register: registry });
  const registers = [registry];
  let pool: { totalCount: number; idleCount: number; waitingCount: number } | undefined;
  return {
    registry,
    requests: new client.Counter({
      name: "nuvara_http_requests_total",
      help: "Loader and action calls, by Remix route id, kind (loader/action) and response status.",
      labelNames: ["route", "kind", "status"] as const,
      registers,
    }),
    requestSeconds: new client.Histogram({
      name: "nuvara_http_request_duration_seconds",
      help: "Time until a loader or action answered (its response's headers), by route id, kind and status.",
      labelNames: ["route", "kind", "status"] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    firstTokenSeconds: new client.Histogram({
      name: "nuvara_chat_first_token_seconds",
      help: "Time from starting the model request to the first part of the reply shown, by model.",
      labelNames: ["model"] as const,
      buckets: [0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60],
      registers,
    }),
    tokens: new client.Counter({
      name: "nuvara_chat_tokens_total",
      help: "Model tokens as the provider reported them, by model and direction (in: prompt, out: reply).",
      labelNames: ["model", "direction"] as const,
      registers,
    }),
    generationsRunning: new client.Gauge({
      name: "nuvara_chat_generations_running",
      help: "Replies being generated now on this instance.",
      registers,
    }),
    refusals: new client.Counter({
      name: "nuvara_limit_refusals_total",
      help: "Requests refused by a rate limit, the daily quota or an instance's admission limit (chat_admission, upload_admission), by limit name.",
      labelNames: ["limit"] as const,
      registers,
    }),
    admissionInUse: new client.Gauge({
      name: "nuvara_admission_in_use",
      help: "Requests being admitted now on this instance, by admission limit (chat_admission, upload_admission).",
      labelNames: ["limit"] as const,
      registers,
    }),
    backendFaults: new client.Counter({
      name: "nuvara_backend_faults_total",
      help: "Failed backend calls, by store and kind (timeout: no answer within the deadline; fault: an error).",
      labelNames: ["store", "kind"] as const,
      registers,
    }),
    cacheLookups: new client.Counter({
      name: "nuvara_auth_cache_lookups_total",
      help: "Session cache lookups, by cache (identity, role, revocation) and result (hit, miss).",
      labelNames: ["cache", "result"] as const,
      registers,
    }),
    mcpCalls: new client.Counter({
      name: "nuvara_mcp_tool_calls_total",
      help: "MCP tool calls, by server (the registry's label), tool and outcome (ok, error: the tool said it failed, or the failure: timeout, cancelled, protocol, transport).",
      labelNames: ["server", "tool", "outcome"] as const,
      registers,
    }),
    mcpCallSeconds: new client.Histogram({
      name: "nuvara_mcp_tool_call_duration_seconds",
      help: "Time an MCP tool call took until its outcome, by server and tool.",
      labelNames: ["server", "tool"] as const,
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
      registers,
    }),
    poolConnections: new client.Gauge({
      name: "nuvara_db_pool_connections",
      help: "The PostgreSQL pool's connections (total, idle) and queries waiting for one (waiting).",
      labelNames: ["state"] as const,
      registers,
      // Read when scraped: nothing to keep up to date in between.
      collect() {
        if (!pool) return;
        this.set({ state: "total" }, pool.totalCount);
        this.set({ state: "idle" }, pool.idleCount);
        this.set({ state: "waiting" }, pool.waitingCount);
      },
    }),
    watchPool(watched: typeof pool) {
      pool = watched;
    },
  };
}

const KEY = Symbol.for("nuvara.metrics");
const holder = globalThis as typeof globalThis & { [KEY]?: ReturnType<typeof create> };

export function metrics(): ReturnType<typeof create> {
  holder[KEY] ??= create();
  return holder[KEY];
}

/** The Prometheus text of every metric, and its content type. */
export async function scrape(): Promise<{ body: string; contentType: string }> {
  const { registry } = metrics();
  return { body: await registry.metrics(), contentType: registry.contentType };
}

export function countBackendFault(store: string, kind: "fault" | "timeout"): void {
  metrics().backendFaults.inc({ store, kind });
}

export function countCacheLookup(cache: "identity" | "role" | "revocation", hit: boolean): void {
  metrics().cacheLookups.inc({ cache, result: hit ? "hit" : "miss" });
}

export function countRefusal(limit: string): void {
  metrics().refusals.inc({ limit });
}

export function showAdmissionInUse(limit: string, inUse: number): void {
  metrics().admissionInUse.set({ limit }, inUse);
}

/**
 * A rate-limit key's name without its subject: `chat:uid:<uid>` → `chat:uid`,
 * `contact:visitors:minute` → `contact:visitors`. The subject (a uid, an
 * address, an email) must never become a label.
 */
export function limitName(key: string): string {
  // Only short lowercase words are names; anything else (a key of another shape) is cut off as a subject.
  const words = [];
  for (const part of key.split(":").slice(0, 2)) {
    if (!/^[a-z][a-z-]{0,19}$/.test(part)) break;
    words.push(part);
  }
  return words.length ? words.join(":") : "other";
}

/** The pool whose use /metrics reports (the app's, from getDb). */
export function watchPool(pool: { totalCount: number; idleCount: number; waitingCount: number }): void {
  metrics().watchPool(pool);
}

/**
 * One reply's metrics: the generation is counted as running until `end`,
 * its first shown part observed once, its tokens added once at the end.
 */
export function trackGeneration(model: string) {
  const m = metrics();
  const started = performance.now();
  let firstSeen = false;
  let ended = false;
  m.generationsRunning.inc();
  return {
    firstContent() {
      if (firstSeen || ended) return;
      firstSeen = true;
      m.firstTokenSeconds.observe({ model }, (performance.now() - started) / 1000);
    },
    end(usage: { inputTokens: number; outputTokens: number }) {
      if (ended) return;
      ended = true;
      m.generationsRunning.dec();
      if (usage.inputTokens > 0) m.tokens.inc({ model, direction: "in" }, usage.inputTokens);
      if (usage.outputTokens > 0) m.tokens.inc({ model, direction: "out" }, usage.outputTokens);
    },
  };
}

/**
 * One MCP tool call's metrics (docs/decisions/089). The caller passes only
 * bounded labels: the registry's label for the server, and a tool name the
 * server listed (anything else as "other").
 */
export function trackMcpCall(server: string, tool: string) {
  const m = metrics();
  const started = performance.now();
  return {
    end(outcome: "ok" | "error" | "timeout" | "cancelled" | "protocol" | "transport") {
      m.mcpCalls.inc({ server, tool, outcome });
      m.mcpCallSeconds.observe({ server, tool }, (performance.now() - started) / 1000);
    },
  };
}
