import { randomUUID } from "node:crypto";
import type { Server as HttpServer, IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createMcpExpressApp } from "@modelcontextprotocol/sdk/server/express.js";
import { mcpAuthRouter, getOAuthProtectedResourceMetadataUrl } from "@modelcontextprotocol/sdk/server/auth/router.js";
import { requireBearerAuth } from "@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js";
import { InvalidGrantError, InvalidTokenError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import type { AuthorizationParams, OAuthServerProvider } from "@modelcontextprotocol/sdk/server/auth/provider.js";
import type { OAuthRegisteredClientsStore } from "@modelcontextprotocol/sdk/server/auth/clients.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import type {
  OAuthClientInformationFull,
  OAuthTokenRevocationRequest,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

/**
 * An OAuth-protected MCP server and its authorization server, both built
 * with the SDK and listening on 127.0.0.1 in the test's process (two ports,
 * as a real deployment has two origins): the resource server publishes its
 * protected resource metadata (RFC 9728) and checks bearer tokens issued for
 * its URL (RFC 8707); the authorization server (the SDK's mcpAuthRouter over
 * an in-memory provider adapted from the SDK's demo) registers clients
 * (RFC 7591), approves every authorization at once (no login page: a test
 * follows the redirect itself), checks PKCE, issues access tokens that live
 * `accessTokenSeconds` with rotating refresh tokens, and revokes (RFC 7009).
 */
export interface OAuthMcpServer {
  /** The MCP endpoint: what an admin adds. */
  url: string;
  issuer: string;
  /** What the authorization server saw, for assertions. */
  readonly seen: {
    registrations: OAuthClientInformationFull[];
    authorizations: AuthorizationParams[];
    refreshes: number;
    revoked: string[];
    /** Every pair issued, in order (a code's, then each refresh's). */
    grants: Array<{ access: string; refresh: string }>;
    /** Bearer tokens the MCP endpoint accepted. */
    accepted: string[];
  };
  /** Whether the authorization server would still take this refresh token. */
  refreshTokenIsLive(token: string): boolean;
  /** A client registered out of band (what an admin configures). */
  preRegister(client: { client_id: string; client_secret: string; redirect_uris: string[] }): void;
  /** Forgets every token it issued (as a server that revoked a user's grant): access and refresh are refused. */
  revokeEverything(): void;
  close(): Promise<void>;
}

type Response = Parameters<OAuthServerProvider["authorize"]>[2];
type App = ReturnType<typeof createMcpExpressApp>;
type Request = IncomingMessage & { auth?: AuthInfo; body?: unknown };
type Reply = ServerResponse & { json(body: unknown): void; status(code: number): ServerResponse };

interface Grant {
  clientId: string;
  scopes: string[];
  resource?: URL;
}

interface Issued extends Grant {
  expiresAt: number;
}

class ClientsStore implements OAuthRegisteredClientsStore {
  readonly clients = new Map<string, OAuthClientInformationFull>();
  constructor(private readonly seen: OAuthClientInformationFull[]) {}
  getClient(clientId: string) {
    return this.clients.get(clientId);
  }
  registerClient(client: Omit<OAuthClientInformationFull, "client_id" | "client_id_issued_at">) {
    const full = { ...client, client_id: randomUUID(), client_id_issued_at: Math.floor(Date.now() / 1000) };
    this.clients.set(full.client_id, full);
    this.seen.push(full);
    return full;
  }
}

class TestAuthProvider implements OAuthServerProvider {
  readonly clientsStore: ClientsStore;
  private codes = new Map<string, { params: AuthorizationParams; clientId: string }>();
  readonly access = new Map<string, Issued>();
  readonly refresh = new Map<string, Grant>();

  constructor(
    private readonly seen: OAuthMcpServer["seen"],
    private readonly accessTokenSeconds: number,
    private readonly resource: () => string,
  ) {
    this.clientsStore = new ClientsStore(seen.registrations);
  }

  async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: Response) {
    this.seen.authorizations.push(params);
    const code = randomUUID();
    this.codes.set(code, { params, clientId: client.client_id });
    const target = new URL(params.redirectUri);
    target.searchParams.set("code", code);
    if (params.state !== undefined) target.searchParams.set("state", params.state);
    res.redirect(target.toString());
  }

  async challengeForAuthorizationCode(_client: OAuthClientInformationFull, code: string) {
    const found = this.codes.get(code);
    if (!found) throw new InvalidGrantError("unknown authorization code");
    return found.params.codeChallenge;
  }

  async exchangeAuthorizationCode(
    client: OAuthClientInformationFull,
    code: string,
    _verifier?: string,
    redirectUri?: string,
    resource?: URL,
  ): Promise<OAuthTokens> {
    const found = this.codes.get(code);
    this.codes.delete(code);
    if (!found || found.clientId !== client.client_id)
      throw new InvalidGrantError("the code was not issued to this client");
    if (redirectUri !== found.params.redirectUri) throw new InvalidGrantError("redirect_uri differs");
    if (String(resource) !== String(found.params.resource) || String(resource) !== this.resource()) {
      throw new InvalidGrantError("the resource is not this server's");
    }
    return this.issue({ clientId: client.client_id, scopes: found.params.scopes ?? [], resource });
  }

  async exchangeRefreshToken(client: OAuthClientInformationFull, token: string): Promise<OAuthTokens> {
    const grant = this.refresh.get(token);
    if (!grant || grant.clientId !== client.client_id) throw new InvalidGrantError("refresh token is not valid");
    // Rotated: the old refresh token is spent.
    this.refresh.delete(token);
    this.seen.refreshes += 1;
    return this.issue(grant);
  }

  private issue(grant: Grant): OAuthTokens {
    const accessToken = `at-${randomUUID()}`;
    const refreshToken = `rt-${randomUUID()}`;
    this.access.set(accessToken, { ...grant, expiresAt: Date.now() + this.accessTokenSeconds * 1000 });
    this.refresh.set(refreshToken, grant);
    this.seen.grants.push({ access: accessToken, refresh: refreshToken });
    return {
      access_token: accessToken,
      token_type: "Bearer",
      expires_in: this.accessTokenSeconds,
      refresh_token: refreshToken,
      ...(grant.scopes.length ? { scope: grant.scopes.join(" ") } : {}),
    };
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const issued = this.access.get(token);
    if (!issued) throw new InvalidTokenError("unknown token");
    return {
      token,
      clientId: issued.clientId,
      scopes: issued.scopes,
      // Rounded up: a token is never taken for expired before its lifetime is over.
      expiresAt: Math.ceil(issued.expiresAt / 1000),
      ...(issued.resource ? { resource: issued.resource } : {}),
    };
  }

  async revokeToken(client: OAuthClientInformationFull, request: OAuthTokenRevocationRequest) {
    const grant = this.refresh.get(request.token) ?? this.access.get(request.token);
    if (!grant || grant.clientId !== client.client_id) return;
    this.seen.revoked.push(request.token);
    this.refresh.delete(request.token);
    this.access.delete(request.token);
  }
}

function listen(app: App): Promise<{ server: HttpServer; origin: string }> {
  return new Promise((resolve, reject) => {
    const server = app.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve({ server, origin: `http://127.0.0.1:${port}` });
    });
    server.on("error", reject);
  });
}

function mcpServer(): Server {
  const server = new Server({ name: "oauth-tools", version: "0.0.1" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [
      {
        name: "whoami",
        description: "Says which client's token it was called with.",
        inputSchema: { type: "object", properties: {} },
        // Reads only: a reply runs it without asking first (docs/decisions/091).
        annotations: { readOnlyHint: true },
      },
      {
        name: "echo",
        description: "Echoes a message.",
        inputSchema: { type: "object", properties: { message: { type: "string" } } },
      },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const text =
      request.params.name === "whoami"
        ? `client ${extra.authInfo?.clientId ?? "none"}`
        : `Echo: ${String(request.params.arguments?.message ?? "")}`;
    return { content: [{ type: "text", text }] };
  });
  return server;
}

export async function startOAuthMcpServer({ accessTokenSeconds = 3600 } = {}): Promise<OAuthMcpServer> {
  const seen: OAuthMcpServer["seen"] = {
    registrations: [],
    authorizations: [],
    refreshes: 0,
    revoked: [],
    grants: [],
    accepted: [],
  };
  let mcpUrl = "";
  const provider = new TestAuthProvider(seen, accessTokenSeconds, () => mcpUrl);

  const authApp = createMcpExpressApp({ host: "127.0.0.1" });
  const authListening = await listen(authApp);
  const issuer = new URL(`${authListening.origin}/`);

  const resourceApp = createMcpExpressApp({ host: "127.0.0.1" });
  const resourceListening = await listen(resourceApp);
  mcpUrl = `${resourceListening.origin}/mcp`;

  authApp.use(
    mcpAuthRouter({
      provider,
      issuerUrl: issuer,
      resourceServerUrl: new URL(mcpUrl),
      authorizationOptions: { rateLimit: false },
      tokenOptions: { rateLimit: false },
      clientRegistrationOptions: { rateLimit: false },
      revocationOptions: { rateLimit: false },
    }),
  );

  // The resource server's own metadata (RFC 9728), naming the authorization server.
  const metadataUrl = getOAuthProtectedResourceMetadataUrl(new URL(mcpUrl));
  resourceApp.get(new URL(metadataUrl).pathname, (_req: Request, res: Reply) => {
    res.json({ resource: mcpUrl, authorization_servers: [issuer.href] });
  });
  resourceApp.all(
    "/mcp",
    requireBearerAuth({ verifier: provider, resourceMetadataUrl: metadataUrl, expectedResource: new URL(mcpUrl) }),
    async (req: Request, res: Reply) => {
      seen.accepted.push(req.auth!.token);
      if (req.method !== "POST") {
        res.status(405).end();
        return;
      }
      const server = mcpServer();
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on("close", () => void transport.close().then(() => server.close()));
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    },
  );

  const close = (server: HttpServer) =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });

  return {
    url: mcpUrl,
    issuer: issuer.href,
    seen,
    refreshTokenIsLive: (token) => provider.refresh.has(token),
    preRegister(client) {
      provider.clientsStore.clients.set(client.client_id, {
        ...client,
        token_endpoint_auth_method: "client_secret_post",
        grant_types: ["authorization_code", "refresh_token"],
      });
    },
    revokeEverything() {
      provider.access.clear();
      provider.refresh.clear();
    },
    close: () => Promise.all([close(authListening.server), close(resourceListening.server)]).then(() => undefined),
  };
}
