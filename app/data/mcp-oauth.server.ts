import { and, eq, isNull, lt, sql } from "drizzle-orm";
import { getConfig } from "~/config.server";
import type { Db } from "~/db/client.server";
import {
  mcpOauthClients,
  mcpOauthPending,
  mcpOauthTokens,
  mcpServers,
  type McpOauthDiscovery,
  type McpOauthTokenRow,
} from "~/db/schema";
import {
  McpOAuthProvider,
  revokeToken,
  type ForgetWhat,
  type McpOAuthStore,
  type OAuthClientInformationMixed,
  type OAuthDiscoveryState,
  type OAuthTokens,
  type Revocation,
} from "~/mcp/oauth.server";
import { configuredOauthClient, findMcpServer, McpSecretKeyMissing, type McpServer } from "./mcp-servers.server";
import { openSecret, sealSecret } from "./sealed-secrets.server";
import { outboundFetch } from "~/net/outbound.server";

/**
 * Per-user OAuth for MCP servers (docs/decisions/092): the client the app is
 * at each server's authorization server (configured by the admin, or
 * registered dynamically and kept per server), the sign-ins users started,
 * and each user's tokens — every secret sealed under TOOLS_SECRET_KEY and
 * bound to its row (sealed-secrets.server.ts). The stores here are what
 * app/mcp/oauth.server.ts's provider reads and writes, one per moment of the
 * flow: starting a sign-in, finishing it, and using the tokens in a reply.
 */

/** A started sign-in is refused, and swept, after this long. */
export const PENDING_TTL_MS = 10 * 60_000;

export type McpConnectionState = "connected" | "reconnect";

function key(): Buffer {
  const found = getConfig().toolsSecretKey;
  if (!found) throw new McpSecretKeyMissing();
  return found;
}

const seal = (value: string, context: string) => sealSecret(key(), value, context);
const open = (sealed: string, context: string) => openSecret(key(), sealed, context);

/** The database, or a transaction: what only reads needs. */
type Reader = Pick<Db, "select">;

const contexts = {
  registeredSecret: (serverId: string) => `mcp-oauth-client:${serverId}`,
  token: (uid: string, serverId: string, kind: "access" | "refresh") => `mcp-oauth-token:${uid}:${serverId}:${kind}`,
  pending: (state: string, kind: "verifier" | "client") => `mcp-oauth-pending:${state}:${kind}`,
};

// ---- the registered client ------------------------------------------------------

async function registeredClient(
  db: Reader,
  serverId: string,
  redirectUri: string,
): Promise<OAuthClientInformationMixed | undefined> {
  const [row] = await db.select().from(mcpOauthClients).where(eq(mcpOauthClients.serverId, serverId));
  // Registered for another redirect URI (APP_URL changed): the authorization server would refuse it.
  if (!row || row.redirectUri !== redirectUri) return undefined;
  const secret = row.clientSecretSealed ? open(row.clientSecretSealed, contexts.registeredSecret(serverId)) : undefined;
  return {
    ...(row.registration as object),
    client_id: row.clientId,
    ...(secret ? { client_secret: secret } : {}),
    issuer: row.issuer,
  } as OAuthClientInformationMixed;
}

export class RegistrationRaceError extends Error {
  constructor() {
    super("Another sign-in registered the app at this server just now. Please try again.");
  }
}

/**
 * Keeps a registration. The first one for a server wins: a second made at
 * the same moment is refused (RegistrationRaceError), so every user's tokens
 * belong to the one kept. One for another authorization server or redirect
 * URI replaces the old.
 */
async function saveRegisteredClient(
  db: Db,
  serverId: string,
  redirectUri: string,
  client: OAuthClientInformationMixed,
) {
  const { client_id, client_secret, issuer, ...registration } = client as OAuthClientInformationMixed & {
    issuer?: string;
  };
  if (!issuer) return; // Only stamped registrations are kept; the SDK stamps what it registered.
  const values = {
    serverId,
    issuer,
    redirectUri,
    clientId: client_id,
    clientSecretSealed: client_secret ? seal(client_secret, contexts.registeredSecret(serverId)) : null,
    registration: registration as Record<string, unknown>,
  };
  const kept = await db
    .insert(mcpOauthClients)
    .values(values)
    .onConflictDoUpdate({
      target: mcpOauthClients.serverId,
      set: values,
      setWhere: sql`${mcpOauthClients.clientId} = ${client_id} or ${mcpOauthClients.issuer} <> ${issuer} or ${mcpOauthClients.redirectUri} <> ${redirectUri}`,
    })
    .returning({ clientId: mcpOauthClients.clientId });
  if (kept.length === 0) throw new RegistrationRaceError();
}

async function forgetRegisteredClient(db: Db, serverId: string, clientId: string) {
  await db
    .delete(mcpOauthClients)
    .where(and(eq(mcpOauthClients.serverId, serverId), eq(mcpOauthClients.clientId, clientId)));
}

/** The server's client for a new sign-in: the admin's, or the one registered for this redirect URI. */
async function clientFor(db: Db, server: McpServer, redirectUri: string) {
  return configuredOauthClient(server) ?? (await registeredClient(db, server.id, redirectUri));
}

// ---- starting a sign-in -----------------------------------------------------------

export interface StartedSignIn {
  /** Where to send the user; set once the SDK asked for the user's approval. */
  authorizationUrl?: URL;
}

/**
 * The store while a user starts a sign-in: no tokens (a new grant is asked
 * for), the client as above (registered on the way if there is none), and
 * when the SDK has the authorization URL, the pending row written: state,
 * user, server, the verifier and client sealed.
 */
export function startStore(
  db: Db,
  uid: string,
  server: McpServer,
  redirectUri: string,
): McpOAuthStore & { started: StartedSignIn } {
  let verifier: string | undefined;
  let discovery: OAuthDiscoveryState | undefined;
  let client: OAuthClientInformationMixed | undefined;
  const started: StartedSignIn = {};
  return {
    started,
    async client() {
      client ??= await clientFor(db, server, redirectUri);
      return client;
    },
    async saveClient(info) {
      client = info;
      if (!server.oauthClientId) await saveRegisteredClient(db, server.id, redirectUri, info);
    },
    tokens: async () => undefined,
    async saveTokens() {
      throw new Error("tokens are not issued before the user approves");
    },
    async codeVerifier() {
      if (!verifier) throw new Error("no sign-in was started");
      return verifier;
    },
    async saveCodeVerifier(value) {
      verifier = value;
    },
    discovery: async () => discovery,
    async saveDiscovery(state) {
      discovery = state;
    },
    async forget(what: ForgetWhat) {
      if (what === "all" || what === "client") client = undefined;
      if (what === "all" || what === "discovery") discovery = undefined;
    },
    async authorizationNeeded(url, state) {
      if (!verifier || !client || !state) throw new Error("the sign-in has no verifier, client or state");
      const now = new Date();
      await db.delete(mcpOauthPending).where(lt(mcpOauthPending.createdAt, new Date(now.getTime() - PENDING_TTL_MS)));
      await db.insert(mcpOauthPending).values({
        state,
        uid,
        serverId: server.id,
        codeVerifierSealed: seal(verifier, contexts.pending(state, "verifier")),
        clientSealed: seal(JSON.stringify(client), contexts.pending(state, "client")),
        redirectUri,
        discovery: (discovery as McpOauthDiscovery | undefined) ?? null,
      });
      started.authorizationUrl = url;
    },
  };
}

// ---- finishing it -----------------------------------------------------------------

export type PendingSignIn = typeof mcpOauthPending.$inferSelect;

/** Takes the sign-in started with this state (once: it is deleted as it is read). */
export async function takePendingSignIn(db: Db, state: string): Promise<PendingSignIn | undefined> {
  const [row] = await db.delete(mcpOauthPending).where(eq(mcpOauthPending.state, state)).returning();
  return row;
}

export function isFresh(pending: PendingSignIn, now = Date.now()): boolean {
  return now - pending.createdAt.getTime() <= PENDING_TTL_MS;
}

/** The store while the callback exchanges the code: everything as the sign-in started; the tokens are kept for the user. */
export function finishStore(db: Db, pending: PendingSignIn): McpOAuthStore {
  const client = JSON.parse(
    open(pending.clientSealed, contexts.pending(pending.state, "client")),
  ) as OAuthClientInformationMixed;
  const verifier = open(pending.codeVerifierSealed, contexts.pending(pending.state, "verifier"));
  const discovery = pending.discovery ?? undefined;
  return {
    client: async () => client,
    // The SDK stamps a client it had not stamped yet; the one used at the start is what counts.
    saveClient: async () => undefined,
    tokens: async () => undefined,
    saveTokens: (tokens) => keepNewTokens(db, pending.uid, pending.serverId, tokens, client.client_id, discovery),
    codeVerifier: async () => verifier,
    saveCodeVerifier: async () => undefined,
    discovery: async () => discovery,
    saveDiscovery: async () => undefined,
    forget: async () => undefined,
    async authorizationNeeded() {
      throw new Error("the authorization server did not accept the code");
    },
  };
}

function expiryOf(tokens: OAuthTokens): Date | null {
  return typeof tokens.expires_in === "number" ? new Date(Date.now() + tokens.expires_in * 1000) : null;
}

function tokenColumns(uid: string, serverId: string, tokens: OAuthTokens) {
  return {
    accessTokenSealed: seal(tokens.access_token, contexts.token(uid, serverId, "access")),
    refreshTokenSealed: tokens.refresh_token
      ? seal(tokens.refresh_token, contexts.token(uid, serverId, "refresh"))
      : null,
    tokenType: tokens.token_type || "Bearer",
    expiresAt: expiryOf(tokens),
    scope: tokens.scope ?? null,
    reconnectAt: null,
    updatedAt: new Date(),
  };
}

/** A new grant: the user's tokens for the server, replacing any they had. */
async function keepNewTokens(
  db: Db,
  uid: string,
  serverId: string,
  tokens: OAuthTokens,
  clientId: string,
  discovery: McpOauthDiscovery | undefined,
) {
  const values = { uid, serverId, ...tokenColumns(uid, serverId, tokens), clientId, discovery: discovery ?? null };
  await db
    .insert(mcpOauthTokens)
    .values(values)
    .onConflictDoUpdate({ target: [mcpOauthTokens.uid, mcpOauthTokens.serverId], set: values });
}

/** A refreshed pair: kept only while the user is still connected (a Disconnect meanwhile wins). */
async function keepRefreshedTokens(db: Db, uid: string, serverId: string, tokens: OAuthTokens) {
  await db
    .update(mcpOauthTokens)
    .set(tokenColumns(uid, serverId, tokens))
    .where(and(eq(mcpOauthTokens.uid, uid), eq(mcpOauthTokens.serverId, serverId)));
}

// ---- using the tokens -------------------------------------------------------------

async function tokenRow(db: Db, uid: string, serverId: string): Promise<McpOauthTokenRow | undefined> {
  const [row] = await db
    .select()
    .from(mcpOauthTokens)
    .where(and(eq(mcpOauthTokens.uid, uid), eq(mcpOauthTokens.serverId, serverId)));
  return row;
}

function openTokens(row: McpOauthTokenRow): OAuthTokens | undefined {
  if (!row.accessTokenSealed) return undefined;
  const expiresIn = row.expiresAt ? Math.floor((row.expiresAt.getTime() - Date.now()) / 1000) : undefined;
  return {
    access_token: open(row.accessTokenSealed, contexts.token(row.uid, row.serverId, "access")),
    token_type: row.tokenType,
    ...(row.refreshTokenSealed
      ? { refresh_token: open(row.refreshTokenSealed, contexts.token(row.uid, row.serverId, "refresh")) }
      : {}),
    ...(expiresIn !== undefined ? { expires_in: expiresIn } : {}),
    ...(row.scope ? { scope: row.scope } : {}),
    ...(row.discovery ? { issuer: row.discovery.authorizationServerUrl } : {}),
  };
}

/**
 * The store a reply's connection uses: the user's tokens read afresh on
 * every request (another instance may have refreshed them), a refreshed
 * pair kept, and when the authorization server refused them and the SDK
 * would send the user to sign in again, the row marked "reconnect" instead —
 * unless another instance changed the tokens meanwhile. It never registers
 * a client nor starts a sign-in.
 */
export function userStore(db: Db, uid: string, server: McpServer): McpOAuthStore {
  let seen: McpOauthTokenRow | undefined;
  let refused = false;
  return {
    async client() {
      seen ??= await tokenRow(db, uid, server.id);
      const client = configuredOauthClient(server) ?? (await registeredClientById(db, server.id, seen?.clientId));
      // Without its secret a confidential client's refresh is refused, which is what marks "reconnect".
      return client ?? (seen ? { client_id: seen.clientId } : undefined);
    },
    async saveClient() {
      throw new Error("a reply does not register the app");
    },
    async tokens() {
      if (refused) return undefined;
      seen = await tokenRow(db, uid, server.id);
      return seen && !seen.reconnectAt ? openTokens(seen) : undefined;
    },
    async saveTokens(tokens) {
      const row = seen ?? (await tokenRow(db, uid, server.id));
      const refresh = tokens.refresh_token ?? (row ? openTokens(row)?.refresh_token : undefined);
      await keepRefreshedTokens(db, uid, server.id, { ...tokens, ...(refresh ? { refresh_token: refresh } : {}) });
      refused = false;
    },
    async codeVerifier() {
      throw new Error("a reply does not start a sign-in");
    },
    saveCodeVerifier: async () => undefined,
    async discovery() {
      seen ??= await tokenRow(db, uid, server.id);
      return seen?.discovery ?? undefined;
    },
    async saveDiscovery(state) {
      await db
        .update(mcpOauthTokens)
        .set({ discovery: state as McpOauthDiscovery })
        .where(and(eq(mcpOauthTokens.uid, uid), eq(mcpOauthTokens.serverId, server.id)));
    },
    async forget(what) {
      if (what === "all" || what === "tokens") refused = true;
      if ((what === "all" || what === "client") && !server.oauthClientId && seen) {
        await forgetRegisteredClient(db, server.id, seen.clientId);
      }
    },
    async authorizationNeeded() {
      refused = false;
      await markReconnect(db, uid, server.id, seen?.accessTokenSealed ?? null);
    },
  };
}

async function registeredClientById(db: Reader, serverId: string, clientId: string | undefined) {
  if (!clientId) return undefined;
  const [row] = await db.select().from(mcpOauthClients).where(eq(mcpOauthClients.serverId, serverId));
  if (!row || row.clientId !== clientId) return undefined;
  return registeredClient(db, serverId, row.redirectUri);
}

/** Marks the user's connection as needing a new sign-in, if its tokens are still the ones that were refused. */
async function markReconnect(db: Db, uid: string, serverId: string, refusedAccess: string | null) {
  await db
    .update(mcpOauthTokens)
    .set({ reconnectAt: new Date(), updatedAt: new Date() })
    .where(
      and(
        eq(mcpOauthTokens.uid, uid),
        eq(mcpOauthTokens.serverId, serverId),
        isNull(mcpOauthTokens.reconnectAt),
        refusedAccess === null
          ? isNull(mcpOauthTokens.accessTokenSealed)
          : eq(mcpOauthTokens.accessTokenSealed, refusedAccess),
      ),
    );
}

/** Per server id, the user's state with each OAuth server they signed in to. */
export async function connectionStates(db: Db, uid: string): Promise<Map<string, McpConnectionState>> {
  const rows = await db
    .select({ serverId: mcpOauthTokens.serverId, reconnectAt: mcpOauthTokens.reconnectAt })
    .from(mcpOauthTokens)
    .where(eq(mcpOauthTokens.uid, uid));
  return new Map(rows.map((row) => [row.serverId, row.reconnectAt ? "reconnect" : "connected"]));
}

// ---- ending it ----------------------------------------------------------------------

async function revocationsOf(db: Reader, server: McpServer | undefined, row: McpOauthTokenRow): Promise<Revocation[]> {
  const client = (server ? configuredOauthClient(server) : undefined) ??
    (await registeredClientById(db, row.serverId, row.clientId)) ?? { client_id: row.clientId };
  const tokens = openTokens(row);
  const discovery = row.discovery ?? undefined;
  const revocations: Revocation[] = [];
  if (row.refreshTokenSealed) {
    const refresh = open(row.refreshTokenSealed, contexts.token(row.uid, row.serverId, "refresh"));
    revocations.push({ discovery, client, token: refresh, hint: "refresh_token" });
  }
  if (tokens) revocations.push({ discovery, client, token: tokens.access_token, hint: "access_token" });
  return revocations;
}

/**
 * Revokes the user's tokens at the authorization server (RFC 7009, when it
 * has the endpoint) and deletes them. Resolves to whether the server
 * confirmed a revocation; the tokens are deleted either way.
 */
export async function disconnectUser(
  db: Db,
  uid: string,
  server: McpServer,
): Promise<{ revoked: boolean } | undefined> {
  const row = await tokenRow(db, uid, server.id);
  if (!row) return undefined;
  let revoked = false;
  try {
    for (const revocation of await revocationsOf(db, server, row)) {
      revoked = (await revokeToken(revocation, outboundFetch)) || revoked;
    }
  } finally {
    await db.delete(mcpOauthTokens).where(and(eq(mcpOauthTokens.uid, uid), eq(mcpOauthTokens.serverId, server.id)));
  }
  return { revoked };
}

/** Each row's revocations (refresh token first); a row whose tokens cannot be opened (a changed key) gives none. */
async function revocationsOfRows(
  db: Reader,
  rows: readonly McpOauthTokenRow[],
  serverOf: (row: McpOauthTokenRow) => Promise<McpServer | undefined>,
): Promise<Revocation[][]> {
  return Promise.all(
    rows.map(async (row) => {
      try {
        return await revocationsOf(db, await serverOf(row), row);
      } catch {
        return [];
      }
    }),
  );
}

/**
 * What to revoke once an account is deleted (read before its rows go): a
 * refresh token per server, else the access token. A token that cannot be
 * opened (a changed key) is left out.
 */
export async function revocationsForAccount(db: Db, uid: string): Promise<Revocation[]> {
  const rows = await db.select().from(mcpOauthTokens).where(eq(mcpOauthTokens.uid, uid));
  const each = await revocationsOfRows(db, rows, (row) => findMcpServer(db, row.serverId));
  return each.flatMap((revocations) => revocations.slice(0, 1));
}

/**
 * Deletes a server, and with it (they cascade) every user's tokens, its
 * registered client and the sign-ins started; resolves to every token to
 * revoke at its authorization server, as Disconnect would (but a token that
 * cannot be opened, under a changed key), or undefined when there was no
 * such server. The tokens are read with the server's row
 * locked, so a sign-in finishing meanwhile (its insert waits on the lock,
 * then fails) leaves no token behind unread.
 */
export async function deleteServerEndingSignIns(db: Db, server: McpServer): Promise<Revocation[] | undefined> {
  return db.transaction(async (tx) => {
    const [locked] = await tx
      .select({ id: mcpServers.id })
      .from(mcpServers)
      .where(eq(mcpServers.id, server.id))
      .for("update");
    if (!locked) return undefined;
    const rows = await tx.select().from(mcpOauthTokens).where(eq(mcpOauthTokens.serverId, server.id));
    const each = await revocationsOfRows(tx, rows, async () => server);
    await tx.delete(mcpServers).where(eq(mcpServers.id, server.id));
    return each.flat();
  });
}

/** How many revocations are sent at once: a server many users signed in to is not sent them all together. */
const REVOKING_AT_ONCE = 8;

/** Revokes each, at most a few seconds each and a few at a time, never failing; resolves to how many were confirmed. */
export async function revokeAll(revocations: readonly Revocation[]): Promise<number> {
  let next = 0;
  let confirmed = 0;
  async function revokeInTurn() {
    while (next < revocations.length) {
      const revocation = revocations[next++];
      if (await revokeToken(revocation, outboundFetch)) confirmed += 1;
    }
  }
  await Promise.all(Array.from({ length: Math.min(REVOKING_AT_ONCE, revocations.length) }, revokeInTurn));
  return confirmed;
}

// ---- providers ------------------------------------------------------------------------

/** Where authorization servers send users back (the redirect URI an admin registers). */
export const CALLBACK_PATH = "/tools/servers/callback";
const CLIENT_NAME = "Nuvara";

export function callbackUrl(origin: string): string {
  return `${origin}${CALLBACK_PATH}`;
}

/** The provider a reply's connection uses: the user's tokens, refreshed as needed (userStore). */
export function userProvider(db: Db, uid: string, server: McpServer): McpOAuthProvider {
  const origin = getConfig().appOrigin ?? "http://localhost";
  return new McpOAuthProvider(userStore(db, uid, server), {
    redirectUrl: callbackUrl(origin),
    clientName: CLIENT_NAME,
  });
}

/** The provider a user's sign-in starts with; `store.started` says where to send them. */
export function startProvider(db: Db, uid: string, server: McpServer, redirectUri: string) {
  const store = startStore(db, uid, server, redirectUri);
  return { store, provider: new McpOAuthProvider(store, { redirectUrl: redirectUri, clientName: CLIENT_NAME }) };
}

/** The provider the callback exchanges the code with. */
export function finishProvider(db: Db, pending: PendingSignIn): McpOAuthProvider {
  return new McpOAuthProvider(finishStore(db, pending), { redirectUrl: pending.redirectUri, clientName: CLIENT_NAME });
}
