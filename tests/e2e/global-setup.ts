import http from "node:http";
import type { FullConfig } from "@playwright/test";
import { startSearchServer } from "../support/search-server";
import { startReferenceServer } from "../support/mcp-reference-server";
import { E2E_STRIPE_WEBHOOK_SECRET, startStripeServer } from "../support/stripe-server";
import {
  startModelServer,
  type FailureMode,
  type ModelServer,
  type RequestOutcome,
  type ScriptedReply,
} from "../support/model-server";

/**
 * Starts the scripted model server the app under test talks to (LLM_BASE_URL
 * in playwright.config.ts), on the port chosen there, and a small control
 * endpoint beside it, so tests in the worker processes can script replies and
 * read what the app sent (tests/e2e/assistant-support.ts), and the scripted
 * search engine (tests/support/search-server.ts) the app's web search asks, and
 * the MCP reference server (tests/support/mcp-reference-server.ts) on E2E_MCP_PORT.
 *
 *   POST /enqueue   {"replies": [...]}      queue scripted replies
 *   POST /enqueue-title {"match": "…", "reply": {...}}  a title for the chat whose first message carries match
 *   POST /failure   {"mode": {...} | null}  answer everything this way
 *   POST /reset                             forget replies, requests and failure mode
 *   GET  /state                             requests (path, body, outcome) and abortedCount
 */
export default async function globalSetup(_config: FullConfig) {
  const model = await startModelServer({
    port: Number(process.env.E2E_MODEL_PORT),
    models: ["test-model", "test-model-b"],
  });
  const outcomes = new WeakMap<object, RequestOutcome>();
  const control = http.createServer((req, res) => {
    void handle(model, outcomes, req, res).catch((error: unknown) => {
      res.writeHead(500, { "content-type": "text/plain" }).end(String(error));
    });
  });
  await new Promise<void>((resolve) =>
    control.listen(Number(process.env.E2E_MODEL_CONTROL_PORT), "127.0.0.1", resolve),
  );
  const stripe = await startStripeServer({
    port: Number(process.env.E2E_STRIPE_PORT),
    webhookUrl: `http://localhost:${process.env.E2E_PORT}/api/stripe/webhook`,
    webhookSecret: E2E_STRIPE_WEBHOOK_SECRET,
  });
  // Its default results point at its own pages; the tests script only the model.
  const search = await startSearchServer({ port: Number(process.env.E2E_SEARCH_PORT) });
  const mcp = await startReferenceServer("streamableHttp", { port: Number(process.env.E2E_MCP_PORT) });

  return async () => {
    await mcp.stop();
    await search.close();
    await stripe.close();
    await new Promise((resolve) => control.close(resolve));
    await model.close();
  };
}

async function handle(
  model: ModelServer,
  outcomes: WeakMap<object, RequestOutcome>,
  req: http.IncomingMessage,
  res: http.ServerResponse,
) {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>) : {};
  const ok = (data: unknown = {}) =>
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(data));

  if (req.method === "POST" && req.url === "/enqueue") {
    model.enqueue(...(body.replies as ScriptedReply[]));
    return ok();
  }
  if (req.method === "POST" && req.url === "/enqueue-title") {
    model.enqueueTitle(body.match as string, body.reply as ScriptedReply);
    return ok();
  }
  if (req.method === "POST" && req.url === "/failure") {
    model.setFailureMode((body.mode as FailureMode | null) ?? null);
    return ok();
  }
  if (req.method === "POST" && req.url === "/reset") {
    model.reset();
    return ok();
  }
  if (req.method === "GET" && req.url === "/state") {
    for (const request of model.requests) {
      void request.outcome.then((outcome) => outcomes.set(request, outcome));
    }
    // Let outcomes that are already settled be recorded.
    await new Promise((resolve) => setImmediate(resolve));
    return ok({
      abortedCount: model.abortedCount,
      queuedReplies: model.queuedReplies,
      titleRequests: model.titleRequests.map((request) => ({ body: request.body })),
      requests: model.requests.map((request) => ({
        path: request.path,
        body: request.body,
        outcome: outcomes.get(request) ?? "open",
      })),
    });
  }
  res.writeHead(404).end();
}
