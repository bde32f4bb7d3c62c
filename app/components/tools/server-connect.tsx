import { Form } from "@remix-run/react";
import type { ServerView } from "~/data/mcp-server-view";

/**
 * A server each user signs in to (docs/decisions/092): the user's state
 * with it and the one button that changes it. Connect is a plain form post,
 * so the browser follows the answer to the authorization server.
 */
export function ServerConnect({ server }: { server: ServerView }) {
  if (!server.connection) return null;
  const { connection } = server;
  return (
    <div className="server-connect">
      <p className={connection === "reconnect" ? "server-state error" : "server-state"}>
        {connection === "connected"
          ? "You are connected: the assistant may use its tools for you."
          : connection === "reconnect"
            ? "Your sign-in has ended: reconnect for the assistant to use its tools again."
            : "Sign in to this server for the assistant to use its tools for you."}
      </p>
      <Form method="post" action="/tools/servers" reloadDocument={connection !== "connected"}>
        <input type="hidden" name="serverId" value={server.id} />
        {connection === "connected" ? (
          <button type="submit" name="intent" value="disconnect-server" className="button secondary">
            Disconnect
          </button>
        ) : (
          <button type="submit" name="intent" value="connect-server" className="button primary">
            {connection === "reconnect" ? "Reconnect" : "Connect"}
          </button>
        )}
      </Form>
    </div>
  );
}

/** The add-server form's fields for OAuth: a client the admin registered, or none (the app registers itself). */
export function OAuthClientFields({
  redirectUri,
  values,
  error,
  describedBy,
}: {
  redirectUri?: string;
  values?: Record<string, string>;
  error: (field: string) => React.ReactNode;
  describedBy: (field: string) => string | undefined;
}) {
  return (
    <div className="header-fields">
      <p id="server-oauth-hint" className="fine-print">
        Each user connects with their own account at the server. Register this redirect URI at its authorization server
        if it asks for one: <code>{redirectUri ?? "/tools/servers/callback"}</code>. Leave the client empty when the
        server lets apps register themselves.
      </p>
      <label htmlFor="server-oauth-client-id">Client ID (optional)</label>
      <input
        id="server-oauth-client-id"
        name="oauthClientId"
        defaultValue={values?.oauthClientId}
        autoComplete="off"
        aria-describedby={describedBy("oauthClientId") ?? "server-oauth-hint"}
      />
      {error("oauthClientId")}
      <label htmlFor="server-oauth-client-secret">Client secret (optional)</label>
      <input
        id="server-oauth-client-secret"
        name="oauthClientSecret"
        type="password"
        autoComplete="off"
        aria-describedby={describedBy("oauthClientSecret") ?? "server-oauth-secret-hint"}
      />
      <p id="server-oauth-secret-hint" className="fine-print">
        Kept sealed on the server and never shown again.
      </p>
      {error("oauthClientSecret")}
    </div>
  );
}
