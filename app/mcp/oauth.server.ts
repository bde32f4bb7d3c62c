/**
 * OAuth 2.1 for MCP servers (docs/decisions/092), on the SDK's client auth
 * helpers: discovery (RFC 9728, RFC 8414), dynamic client registration
 * (RFC 7591), PKCE, resource indicators (RFC 8707) and refresh are the
 * SDK's `auth()`. This module is the provider the SDK drives, over a store
 * its owner supplies (the database for the app's users, memory for the
 * conformance client), and the revocation (RFC 7009) the SDK has no helper for.
 */
import {
  auth,
  selectClientAuthMethod,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
} from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  AuthorizationServerMetadata,
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";

export type { OAuthClientInformationMixed, OAuthDiscoveryState, OAuthTokens };

export type ForgetWhat = "all" | "client" | "tokens" | "verifier" | "discovery";

/** Where a provider keeps what the SDK hands it. Every method may be async. */
export interface McpOAuthStore {
  client(): Promise<OAuthClientInformationMixed | undefined>;
  saveClient(client: OAuthClientInformationMixed): Promise<void>;
  tokens(): Promise<OAuthTokens | undefined>;
  saveTokens(tokens: OAuthTokens): Promise<void>;
  codeVerifier(): Promise<string>;
  saveCodeVerifier(verifier: string): Promise<void>;
  discovery(): Promise<OAuthDiscoveryState | undefined>;
  saveDiscovery(state: OAuthDiscoveryState): Promise<void>;
  /** The SDK found these unusable (a refused grant or client): forget them. */
  forget(what: ForgetWhat): Promise<void>;
  /** The user must approve (again) at this address; `state` is what it carries. */
  authorizationNeeded(url: URL, state: string): Promise<void>;
}

export interface McpOAuthOptions {
  /** Where the authorization server sends the user back; unset only for non-interactive grants. */
  redirectUrl: string;
  clientName: string;
  /** A client ID metadata document (https) the authorization server may fetch instead of a registration. */
  clientMetadataUrl?: string;
  /** The `state` to send; default: 32 random bytes. */
  state?: () => string;
}

const OFFLINE_ACCESS = "offline_access";

function randomState(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
}

/**
 * The token endpoint's client authentication to ask for when registering:
 * a secret when the authorization server takes one (RFC 8414's default is
 * client_secret_basic), none otherwise.
 */
function registrationAuthMethod(metadata: AuthorizationServerMetadata | undefined): string {
  const supported = metadata?.token_endpoint_auth_methods_supported;
  if (!supported || supported.includes("client_secret_basic")) return "client_secret_basic";
  if (supported.includes("client_secret_post")) return "client_secret_post";
  return "none";
}

/**
 * The provider the SDK's transports and `auth()` call. The app is a
 * confidential web client that wants to act for the user while they are
 * away, so it registers for refresh tokens and asks for `offline_access`
 * where the authorization server lists it (SEP-2207).
 */
export class McpOAuthProvider implements OAuthClientProvider {
  private discovered?: OAuthDiscoveryState;
  private sentState?: string;

  constructor(
    private readonly store: McpOAuthStore,
    private readonly options: McpOAuthOptions,
  ) {}

  get redirectUrl(): string {
    return this.options.redirectUrl;
  }

  get clientMetadataUrl(): string | undefined {
    return this.options.clientMetadataUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.options.clientName,
      redirect_uris: [this.options.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: registrationAuthMethod(this.discovered?.authorizationServerMetadata),
    };
  }

  state(): string {
    this.sentState = (this.options.state ?? randomState)();
    return this.sentState;
  }

  clientInformation() {
    return this.store.client();
  }

  saveClientInformation(client: OAuthClientInformationMixed) {
    return this.store.saveClient(client);
  }

  tokens() {
    return this.store.tokens();
  }

  saveTokens(tokens: OAuthTokens) {
    return this.store.saveTokens(tokens);
  }

  codeVerifier() {
    return this.store.codeVerifier();
  }

  saveCodeVerifier(verifier: string) {
    return this.store.saveCodeVerifier(verifier);
  }

  async discoveryState() {
    this.discovered ??= await this.store.discovery();
    return this.discovered;
  }

  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovered = state;
    return this.store.saveDiscovery(state);
  }

  invalidateCredentials(what: ForgetWhat) {
    if (what === "all" || what === "discovery") this.discovered = undefined;
    return this.store.forget(what);
  }

  redirectToAuthorization(url: URL) {
    const scopes = this.discovered?.authorizationServerMetadata?.scopes_supported ?? [];
    const scope = url.searchParams.get("scope");
    if (scope !== null && scopes.includes(OFFLINE_ACCESS) && !scope.split(" ").includes(OFFLINE_ACCESS)) {
      url.searchParams.set("scope", `${scope} ${OFFLINE_ACCESS}`);
      // OpenID Connect grants offline access only with consent asked for.
      if (!url.searchParams.getAll("prompt").includes("consent")) url.searchParams.append("prompt", "consent");
    }
    return this.store.authorizationNeeded(url, this.sentState ?? url.searchParams.get("state") ?? "");
  }
}

/**
 * Exchanges an authorization code for tokens (with the PKCE verifier and the
 * resource the store's discovery state names), saving them through the store.
 */
export async function finishAuthorization(
  provider: McpOAuthProvider,
  serverUrl: string,
  code: string,
  fetchFn?: typeof fetch,
): Promise<void> {
  const result = await auth(provider, { serverUrl, authorizationCode: code, ...(fetchFn ? { fetchFn } : {}) });
  if (result !== "AUTHORIZED") throw new Error("The authorization server did not issue tokens.");
}

export interface Revocation {
  discovery?: OAuthDiscoveryState;
  client: OAuthClientInformationMixed;
  /** The refresh token when there is one (revoking it ends the grant), else the access token. */
  token: string;
  hint: "refresh_token" | "access_token";
}

/**
 * Revokes a token at the authorization server's RFC 7009 endpoint, when its
 * metadata names one; false when there is none or it refused. Never throws.
 */
export async function revokeToken(revocation: Revocation, fetchFn: typeof fetch = fetch): Promise<boolean> {
  const metadata = revocation.discovery?.authorizationServerMetadata as
    | (AuthorizationServerMetadata & {
        revocation_endpoint?: string;
        revocation_endpoint_auth_methods_supported?: string[];
      })
    | undefined;
  if (!metadata?.revocation_endpoint) return false;
  const { client } = revocation;
  const headers = new Headers({ "Content-Type": "application/x-www-form-urlencoded" });
  const body = new URLSearchParams({ token: revocation.token, token_type_hint: revocation.hint });
  const supported =
    metadata.revocation_endpoint_auth_methods_supported ?? metadata.token_endpoint_auth_methods_supported ?? [];
  const method = selectClientAuthMethod(client, supported);
  if (method === "client_secret_basic" && client.client_secret) {
    headers.set("Authorization", `Basic ${btoa(`${client.client_id}:${client.client_secret}`)}`);
  } else {
    body.set("client_id", client.client_id);
    if (method === "client_secret_post" && client.client_secret) body.set("client_secret", client.client_secret);
  }
  try {
    const response = await fetchFn(metadata.revocation_endpoint, {
      method: "POST",
      headers,
      body,
      signal: AbortSignal.timeout(5_000),
    });
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  }
}
