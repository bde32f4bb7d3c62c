import { json, redirect } from "@remix-run/node";
import { auth } from "@modelcontextprotocol/sdk/client/auth.js";
import { z } from "zod";
import { requireUser, type SignedIn } from "~/auth/session.server";
import { getConfig } from "~/config.server";
import { getDb } from "~/db/client.server";
import { logBackendFault } from "~/deadline.server";
import { log } from "~/log/logger.server";
import { escapeForLog } from "~/log/safe-log.server";
import {
  callbackUrl,
  deleteServerEndingSignIns,
  disconnectUser,
  finishProvider,
  isFresh,
  RegistrationRaceError,
  revokeAll,
  startProvider,
  takePendingSignIn,
} from "~/data/mcp-oauth.server";
import { findUsableMcpServer, McpSecretKeyMissing, recordMcpListing, type McpServer } from "~/data/mcp-servers.server";
import { toolStore } from "~/data/prompt-tools/prompt-tool-responses.server";
import { connectMcp } from "~/mcp/client.server";
import { finishAuthorization, type Revocation } from "~/mcp/oauth.server";
import { roleKey } from "~/settings/role-settings";
import { outboundFetch } from "~/net/outbound.server";
import { closeUserSession, listServerTools, serverFetch } from "./server-connection.server";

/**
 * Signing in to a tool server each user signs in to (docs/decisions/092):
 * "Connect" starts an OAuth authorization (discovery, registration when the
 * admin configured no client, PKCE, the resource indicator — the SDK's
 * `auth()`), the callback exchanges the code and keeps the tokens sealed,
 * "Disconnect" revokes and deletes them. Every request goes through the
 * outbound guard (docs/decisions/088). The outcome comes back to
 * /tools/servers as `?signin=<outcome>&server=<id>`, read by `signInNotice`.
 */

const NO_STORE = { "Cache-Control": "no-store" };
const START_TIMEOUT_MS = 15_000;

export const SIGN_IN_OUTCOMES = ["connected", "denied", "stale", "unknown", "failed"] as const;
export type SignInOutcome = (typeof SIGN_IN_OUTCOMES)[number];

const serverIntentSchema = z.object({
  intent: z.enum(["connect-server", "disconnect-server"]),
  serverId: z.uuid({ message: "There is no such server." }),
});

export function isSignInIntent(intent: unknown): boolean {
  return intent === "connect-server" || intent === "disconnect-server";
}

function origin(request: Request): string {
  return getConfig().appOrigin ?? new URL(request.url).origin;
}

function answer(body: { ok?: boolean; notice?: string; error?: string }, status = 200) {
  return json(body, { status, headers: NO_STORE });
}

/** The page's Connect and Disconnect buttons. */
export async function signInAction(request: Request, fields: Record<string, unknown>) {
  const session = await requireUser(request);
  const parsed = serverIntentSchema.safeParse(fields);
  if (!parsed.success) return answer({ error: parsed.error.issues[0].message }, 400);
  // A shared server the role may use, or the user's own (docs/decisions/094): never another user's.
  const server = await toolStore((db) => findUsableMcpServer(db, parsed.data.serverId, userOf(session)));
  if (!server || server.authKind !== "oauth") {
    return answer({ error: "That server is not available to you." }, 404);
  }
  if (!getConfig().toolsSecretKey) return answer({ error: new McpSecretKeyMissing().message }, 503);
  return parsed.data.intent === "connect-server"
    ? startSignIn(session, server, callbackUrl(origin(request)))
    : disconnect(session, server);
}

type Server = McpServer;

function userOf(session: SignedIn) {
  return { uid: session.user.uid, roleKey: roleKey(session) };
}

/**
 * Starts the authorization and sends the user to the authorization server.
 * A first connection without a token lets the server say where its
 * metadata and which scope it wants (its 401's WWW-Authenticate); a server
 * that lets it in is asked by the well-known addresses alone.
 */
async function startSignIn(session: SignedIn, server: Server, redirectUri: string) {
  const db = await getDb();
  const { store, provider } = startProvider(db, session.user.uid, server, redirectUri);
  try {
    try {
      const open = await connectMcp(
        { url: server.url, label: server.name, authProvider: provider, fetch: serverFetch() },
        { timeoutMs: START_TIMEOUT_MS },
      );
      await open.close();
    } catch (error) {
      if (!store.started.authorizationUrl) throw error;
    }
    if (!store.started.authorizationUrl) await auth(provider, { serverUrl: server.url, fetchFn: outboundFetch });
  } catch (error) {
    logBackendFault("mcp", `starting a sign-in to ${server.name}`, error);
    const why =
      error instanceof RegistrationRaceError
        ? error.message
        : `${server.name} could not start a sign-in: ${error instanceof Error ? error.message.slice(0, 300) : "no answer"}`;
    return answer({ error: why }, 502);
  }
  const url = store.started.authorizationUrl;
  if (!url) return answer({ error: `${server.name} did not ask for a sign-in.` }, 502);
  return redirect(url.toString(), { status: 303, headers: NO_STORE });
}

async function disconnect(session: SignedIn, server: Server) {
  const outcome = await toolStore((db) => disconnectUser(db, session.user.uid, server));
  closeUserSession(server.id, session.user.uid);
  if (!outcome) return answer({ ok: true, notice: `You were not connected to ${server.name}.` });
  return answer({
    ok: true,
    notice: outcome.revoked
      ? `Disconnected from ${server.name}; its sign-in was revoked.`
      : `Disconnected from ${server.name}; its sign-in was forgotten here (the server was not told).`,
  });
}

/**
 * Removes a server for everyone (an admin's Remove, or an owner's of their
 * own) and ends every user's sign-in to it: the tokens go with the server
 * and are then revoked at its authorization server as Disconnect revokes
 * them — without waiting, so a slow or refusing server never holds the
 * removal up. False: there was no such server.
 */
export async function removeServer(server: Server): Promise<boolean> {
  const revocations = await toolStore((db) => deleteServerEndingSignIns(db, server));
  if (!revocations) return false;
  void revokeRemovedSignIns(server, revocations);
  return true;
}

/** What the authorization server did not confirm is logged as counts: never a token, nor whose it was. */
async function revokeRemovedSignIns(server: Server, revocations: readonly Revocation[]) {
  const confirmed = await revokeAll(revocations);
  if (confirmed === revocations.length) return;
  log().warn(
    { server: server.id, tokens: revocations.length, confirmed },
    `[mcp] ${escapeForLog(server.name)} was removed; its authorization server confirmed revoking ${confirmed} of ${revocations.length} tokens`,
  );
}

const callbackSchema = z.object({
  state: z.string().min(1).max(200),
  code: z.string().min(1).max(4_000).optional(),
  error: z.string().max(200).optional(),
});

function backToPage(outcome: SignInOutcome, serverId?: string) {
  const query = new URLSearchParams({ signin: outcome, ...(serverId ? { server: serverId } : {}) });
  return redirect(`/tools/servers?${query}`, { status: 303, headers: NO_STORE });
}

/**
 * GET /tools/servers/callback: the authorization server sends the user back
 * here. The state must be one this user started, less than ten minutes ago,
 * and is used once; then the code is exchanged (with the PKCE verifier and
 * the resource) and the tokens kept sealed.
 */
export async function signInCallback(request: Request) {
  const session = await requireUser(request);
  const parsed = callbackSchema.safeParse(Object.fromEntries(new URL(request.url).searchParams));
  if (!parsed.success) return backToPage("unknown");
  const { state, code, error } = parsed.data;
  const pending = await toolStore((db) => takePendingSignIn(db, state));
  if (!pending || pending.uid !== session.user.uid) return backToPage("unknown");
  if (!isFresh(pending)) return backToPage("stale", pending.serverId);
  if (error || !code) return backToPage("denied", pending.serverId);
  const server = await toolStore((db) => findUsableMcpServer(db, pending.serverId, userOf(session)));
  if (!server || server.authKind !== "oauth") return backToPage("unknown");
  try {
    await finishAuthorization(finishProvider(await getDb(), pending), server.url, code, outboundFetch);
  } catch (failure) {
    logBackendFault("mcp", `finishing a sign-in to ${server.name}`, failure);
    return backToPage("failed", server.id);
  }
  closeUserSession(server.id, session.user.uid);
  if (listsWithOwnSignIn(session, server) && !server.listedAt) await listWithAdminSignIn(server, session.user.uid);
  return backToPage("connected", server.id);
}

/** Who lists a server's tools with their sign-in: an admin a shared server, the owner their own. */
function listsWithOwnSignIn(session: SignedIn, server: Server): boolean {
  return server.ownerUid === null ? session.isAdmin : server.ownerUid === session.user.uid;
}

/** A server each user signs in to is listed with an admin's (or its owner's) sign-in: the first to connect lists it. */
async function listWithAdminSignIn(server: Server, uid: string) {
  const listing = await listServerTools(server, uid);
  await toolStore((db) => recordMcpListing(db, server.id, listing)).catch(() => undefined);
}

/** What the page says after a sign-in came back. */
export function signInNotice(
  url: URL,
  serverName: (id: string) => string | undefined,
): { notice?: string; error?: string } | undefined {
  const outcome = url.searchParams.get("signin") as SignInOutcome | null;
  if (!outcome || !SIGN_IN_OUTCOMES.includes(outcome)) return undefined;
  const name = serverName(url.searchParams.get("server") ?? "") ?? "the server";
  switch (outcome) {
    case "connected":
      return { notice: `Connected to ${name}.` };
    case "denied":
      return { error: `The sign-in to ${name} was not approved; nothing was connected.` };
    case "stale":
      return { error: `That sign-in to ${name} took longer than 10 minutes. Please choose Connect again.` };
    case "unknown":
      return {
        error:
          "That sign-in was not started by you from this page, or was already used; nothing was connected. Choose Connect to start one.",
      };
    case "failed":
      return { error: `${name} did not complete the sign-in. Please try Connect again.` };
  }
}
