import { Form, useFetcher } from "@remix-run/react";
import { useId, useState } from "react";
import { customRoles, ROLE_CHECKBOXES, roleLabel, rolesText } from "./server-roles";
import { ToolSwitch } from "./function-tool-list";
import { OAuthClientFields, ServerConnect } from "./server-connect";
import type { ServerToolView, ServerView, ToolCallView } from "~/data/mcp-server-view";
import { LocalTime } from "~/components/time/local-time";
import { APPROVAL_POLICIES, POLICY_LABELS, policiesWithin, type ApprovalPolicy } from "~/conversation/tool-approval";
import { FormOutcome } from "~/components/form-outcome";

/**
 * The Tools area's servers (docs/decisions/090): every signed-in user sees
 * the servers and tools their role may use, each tool with its on/off
 * switch; admins also add servers, choose who may use each server and tool,
 * list a server's tools again and remove it. A user whose role may adds
 * servers of their own with the same form, less the roles, and lists again
 * or removes them the same way (`own`, docs/decisions/094).
 */

type Outcome = { ok?: boolean; notice?: string; error?: string; fields?: Record<string, string> };

/** What the fetcher's last post came to, once it has settled. */
function settled(fetcher: { state: string; data?: Outcome }): { notice?: string; error?: string } {
  return fetcher.state === "idle" ? { notice: fetcher.data?.notice, error: fetcher.data?.error } : {};
}

export function ServerCard({
  server,
  isAdmin,
  own = false,
  confirmDelete,
}: {
  server: ServerView;
  isAdmin: boolean;
  /** The user's own server: they list it again and remove it, and no roles apply. */
  own?: boolean;
  confirmDelete: boolean;
}) {
  const titleId = useId();
  return (
    <li className="server-card">
      <article aria-labelledby={titleId}>
        <header className="server-head">
          <h3 id={titleId}>{server.name}</h3>
          <p className="fine-print server-url">{server.url}</p>
          <ServerState server={server} />
          <ServerConnect server={server} />
        </header>
        {own ? (
          <ServerActions server={server} confirmDelete={confirmDelete} own />
        ) : isAdmin ? (
          <ServerAdmin server={server} confirmDelete={confirmDelete} />
        ) : null}
        {server.tools.length > 0 ? (
          <ul className="function-tools" aria-label={`Tools of ${server.name}`}>
            {server.tools.map((tool) => (
              <ServerTool key={tool.name} server={server} tool={tool} isAdmin={isAdmin} />
            ))}
          </ul>
        ) : (
          <p className="empty">
            {isAdmin || own ? "No tools listed yet." : "This server offers you no tools right now."}
          </p>
        )}
      </article>
    </li>
  );
}

function ServerState({ server }: { server: ServerView }) {
  if (server.lastError) {
    return <p className="server-state error">Could not be reached: {server.lastError}</p>;
  }
  const count = server.tools.length;
  return (
    <p className="server-state">
      {count === 1 ? "1 tool" : `${count} tools`}
      {server.auth === "oauth"
        ? " · each user signs in"
        : server.auth && server.auth !== "none"
          ? ` · signed with the ${server.auth} header`
          : ""}
      {server.roles ? ` · for ${rolesText(server.roles)}` : ""}
    </p>
  );
}

function ServerTool({ server, tool, isAdmin }: { server: ServerView; tool: ServerToolView; isAdmin: boolean }) {
  const hints = [tool.readOnly ? "Reads only" : null, tool.destructive ? "Can change or delete things" : null].filter(
    Boolean,
  );
  return (
    <ToolSwitch
      id={`${server.id}-${tool.name}`}
      name={tool.title ?? tool.name}
      description={tool.description || "No description."}
      enabled={tool.enabled}
      action="/tools/servers"
      fields={{ intent: "set-mcp-tool", serverId: server.id, tool: tool.name }}
    >
      {hints.length > 0 ? <p className="tool-hints">{hints.join(" · ")}</p> : null}
      <ApprovalForm
        server={server}
        tool={tool}
        intent="set-mcp-approval"
        field="approval"
        label="Before it runs"
        choices={policiesWithin(tool.adminApproval)}
        value={tool.approval}
      />
      {isAdmin && server.roles ? (
        <>
          <ApprovalForm
            server={server}
            tool={tool}
            intent="set-tool-policy"
            field="policy"
            label="Loosest allowed for everyone"
            choices={APPROVAL_POLICIES}
            value={tool.adminApproval}
          />
          <ToolRolesForm server={server} tool={tool} />
        </>
      ) : null}
    </ToolSwitch>
  );
}

/** When a tool asks first: the user's own choice (within the admin's), or the admin's loosest. */
function ApprovalForm({
  server,
  tool,
  intent,
  field,
  label,
  choices,
  value,
}: {
  server: ServerView;
  tool: ServerToolView;
  intent: string;
  field: string;
  label: string;
  choices: readonly ApprovalPolicy[];
  value: ApprovalPolicy;
}) {
  const fetcher = useFetcher<Outcome>();
  const id = useId();
  return (
    <fetcher.Form method="post" action="/tools/servers" className="approval-form">
      <input type="hidden" name="intent" value={intent} />
      <input type="hidden" name="serverId" value={server.id} />
      <input type="hidden" name="tool" value={tool.name} />
      <label htmlFor={id}>{label}</label>
      <select id={id} name={field} defaultValue={value} key={value}>
        {choices.map((policy) => (
          <option key={policy} value={policy}>
            {POLICY_LABELS[policy]}
          </option>
        ))}
      </select>
      <button type="submit" className="button small">
        Save
      </button>
      <FormOutcome {...settled(fetcher)} />
    </fetcher.Form>
  );
}

/** Roles as checkboxes (the common ones) and a field for custom roles. */
function RolesFieldset({ legend, roles, name }: { legend: string; roles: readonly string[]; name: string }) {
  const id = useId();
  return (
    <fieldset className="roles-fieldset">
      <legend>{legend}</legend>
      {ROLE_CHECKBOXES.map((role) => (
        <label key={role} className="check">
          <input type="checkbox" name="roles" value={role} defaultChecked={roles.includes(role)} /> {roleLabel(role)}
        </label>
      ))}
      <label htmlFor={`${id}-other`} className="other-roles">
        Other roles <span className="fine-print">(comma-separated)</span>
      </label>
      <input id={`${id}-other`} name="otherRoles" defaultValue={customRoles(roles)} aria-describedby={`${name}-hint`} />
      <p id={`${name}-hint`} className="fine-print">
        “No role” is users without a plan; a custom role is the word set on /admin/users.
      </p>
    </fieldset>
  );
}

function ToolRolesForm({ server, tool }: { server: ServerView; tool: ServerToolView }) {
  const fetcher = useFetcher<Outcome>();
  const narrowed = tool.roles ?? null;
  return (
    <details className="tool-roles">
      <summary>
        Who may use {tool.title ?? tool.name}: {narrowed ? rolesText(narrowed) : "as the server"}
      </summary>
      <fetcher.Form method="post" action="/tools/servers">
        <input type="hidden" name="intent" value="set-tool-roles" />
        <input type="hidden" name="serverId" value={server.id} />
        <input type="hidden" name="tool" value={tool.name} />
        <RolesFieldset
          legend="Only these roles"
          roles={narrowed ?? server.roles ?? []}
          name={`tool-${server.id}-${tool.name}`}
        />
        <div className="form-actions">
          <button type="submit" className="button">
            Save
          </button>
          {narrowed ? (
            <button type="submit" name="follow" value="yes" className="button secondary">
              Same as the server
            </button>
          ) : null}
        </div>
        <FormOutcome {...settled(fetcher)} />
      </fetcher.Form>
    </details>
  );
}

function ServerAdmin({ server, confirmDelete }: { server: ServerView; confirmDelete: boolean }) {
  const roles = useFetcher<Outcome>();
  return (
    <div className="server-admin">
      <details>
        <summary>Who may use {server.name}</summary>
        <roles.Form method="post" action="/tools/servers">
          <input type="hidden" name="intent" value="set-roles" />
          <input type="hidden" name="serverId" value={server.id} />
          <RolesFieldset legend="Roles" roles={server.roles ?? []} name={`server-${server.id}`} />
          <button type="submit" className="button">
            Save
          </button>
          <FormOutcome {...settled(roles)} />
        </roles.Form>
      </details>
      <ServerActions server={server} confirmDelete={confirmDelete} />
    </div>
  );
}

/**
 * List tools again, and Remove (asked twice). `own`: the user's own server;
 * `removeOnly`: an admin's view of a user's own server, which only its owner lists again.
 */
function ServerActions({
  server,
  confirmDelete,
  own = false,
  removeOnly = false,
}: {
  server: ServerView;
  confirmDelete: boolean;
  own?: boolean;
  removeOnly?: boolean;
}) {
  return (
    <Form method="post" className="server-actions">
      <input type="hidden" name="serverId" value={server.id} />
      {own ? <input type="hidden" name="own" value="yes" /> : null}
      {removeOnly ? null : (
        <button type="submit" name="intent" value="refresh" className="button secondary">
          List tools again
        </button>
      )}
      {confirmDelete ? (
        <>
          <input type="hidden" name="confirm" value="yes" />
          <button type="submit" name="intent" value="delete-server" className="button danger">
            Yes, remove {server.name}
          </button>
        </>
      ) : (
        <button type="submit" name="intent" value="delete-server" className="button secondary">
          Remove
        </button>
      )}
    </Form>
  );
}

/**
 * An admin adds a server: its name, address, how it is signed in to, and who
 * may use it; `own`: a user adds one of their own, without the roles.
 */
export function AddServerForm({
  errors,
  values,
  redirectUri,
  own = false,
}: {
  redirectUri?: string;
  errors?: Record<string, string>;
  values?: Record<string, string>;
  own?: boolean;
}) {
  const [auth, setAuth] = useState(values?.auth === "header" || values?.auth === "oauth" ? values.auth : "none");
  const error = (field: string) =>
    errors?.[field] ? (
      <p id={`server-${field}-error`} className="field-error">
        {errors[field]}
      </p>
    ) : null;
  const describedBy = (field: string) => (errors?.[field] ? `server-${field}-error` : undefined);
  return (
    <Form method="post" className="tool-form add-server" aria-labelledby="add-server-title">
      <h2 id="add-server-title">{own ? "Add your own server" : "Add a server"}</h2>
      {own ? <p className="fine-print">Only you see it and can use it. It is removed with your account.</p> : null}
      <input type="hidden" name="intent" value="add-server" />
      {own ? <input type="hidden" name="own" value="yes" /> : null}
      <label htmlFor="server-name">Name</label>
      <input
        id="server-name"
        name="name"
        defaultValue={values?.name}
        required
        maxLength={80}
        aria-describedby={describedBy("name")}
        aria-invalid={Boolean(errors?.name)}
      />
      {error("name")}
      <label htmlFor="server-url">Address</label>
      <input
        id="server-url"
        name="url"
        type="url"
        placeholder="https://tools.example.com/mcp"
        defaultValue={values?.url}
        required
        aria-describedby={describedBy("url") ?? "server-url-hint"}
        aria-invalid={Boolean(errors?.url)}
      />
      <p id="server-url-hint" className="fine-print">
        The server's MCP endpoint (Streamable HTTP, or the older HTTP with server-sent events).
      </p>
      {error("url")}
      <fieldset>
        <legend>Sign-in</legend>
        <label className="check">
          <input type="radio" name="auth" value="none" checked={auth === "none"} onChange={() => setAuth("none")} />{" "}
          None
        </label>
        <label className="check">
          <input
            type="radio"
            name="auth"
            value="header"
            checked={auth === "header"}
            onChange={() => setAuth("header")}
          />{" "}
          A secret header
        </label>
        <label className="check">
          <input type="radio" name="auth" value="oauth" checked={auth === "oauth"} onChange={() => setAuth("oauth")} />{" "}
          Each user signs in (OAuth)
        </label>
      </fieldset>
      {error("auth")}
      {auth === "oauth" ? (
        <OAuthClientFields redirectUri={redirectUri} values={values} error={error} describedBy={describedBy} />
      ) : null}
      {auth === "header" ? (
        <div className="header-fields">
          <label htmlFor="server-header-name">Header name</label>
          <input
            id="server-header-name"
            name="headerName"
            defaultValue={values?.headerName ?? "Authorization"}
            aria-describedby={describedBy("headerName")}
            aria-invalid={Boolean(errors?.headerName)}
          />
          {error("headerName")}
          <label htmlFor="server-header-value">Header value</label>
          <input
            id="server-header-value"
            name="headerValue"
            type="password"
            autoComplete="off"
            placeholder="Bearer …"
            aria-describedby={describedBy("headerValue") ?? "server-header-hint"}
            aria-invalid={Boolean(errors?.headerValue)}
          />
          <p id="server-header-hint" className="fine-print">
            Kept sealed on the server and never shown again.
          </p>
          {error("headerValue")}
        </div>
      ) : null}
      {own ? null : (
        <>
          <RolesFieldset
            legend="Who may use it"
            roles={values?.roles ? values.roles.split(",") : ["*"]}
            name="new-server"
          />
          {error("roles")}
          {error("otherRoles")}
        </>
      )}
      <button type="submit" className="button primary">
        Add server
      </button>
    </Form>
  );
}

/** "Your servers" (docs/decisions/094): the user's own, with the same switches and choices as shared ones. */
export function OwnServers({
  servers,
  mayAdd,
  confirming,
}: {
  servers: ServerView[];
  mayAdd: boolean;
  confirming?: string;
}) {
  return (
    <section aria-labelledby="own-servers-title">
      <h2 id="own-servers-title">Your servers</h2>
      {mayAdd ? null : (
        <p className="banner" role="status">
          Your role may no longer use servers of its own: the assistant does not use these. You can remove them.
        </p>
      )}
      {servers.length > 0 ? (
        <ul className="server-list" aria-label="Your servers">
          {servers.map((server) => (
            <ServerCard key={server.id} server={server} isAdmin={false} own confirmDelete={confirming === server.id} />
          ))}
        </ul>
      ) : (
        <p className="empty">You have not added a server of your own yet: add one below.</p>
      )}
    </section>
  );
}

/** Admins: every user's own servers (docs/decisions/094), by owner, to see what they reach and remove one. */
export function UsersServers({ servers, confirmDelete }: { servers: ServerView[]; confirmDelete?: string }) {
  return (
    <section aria-labelledby="users-servers-title" className="users-servers">
      <h2 id="users-servers-title">Users' own servers</h2>
      {servers.length === 0 ? (
        <p className="empty">No user has added a server of their own.</p>
      ) : (
        <ul className="server-list">
          {servers.map((server) => (
            <li key={server.id} className="server-card">
              <article aria-label={`${server.name} of ${server.owner}`}>
                <header className="server-head">
                  <h3>
                    {server.name} <span className="fine-print">of {server.owner}</span>
                  </h3>
                  <p className="fine-print server-url">{server.url}</p>
                  <ServerState server={server} />
                </header>
                <ServerActions server={server} confirmDelete={confirmDelete === server.id} removeOnly />
              </article>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

const CALL_STATUS: Record<string, string> = {
  auto: "Ran without asking",
  allowed: "Allowed for the chat",
  pending: "Waiting",
  approved: "Approved",
  denied: "Denied",
  expired: "No answer in time",
  cancelled: "Stopped",
};

/** The admins' record of the latest calls of servers' tools (docs/decisions/091). */
export function ToolCallRecord({ calls }: { calls: ToolCallView[] }) {
  return (
    <section aria-labelledby="tool-calls-title" className="tool-calls">
      <h2 id="tool-calls-title">Recent tool calls</h2>
      {calls.length === 0 ? (
        <p className="empty">No server's tool has been called yet.</p>
      ) : (
        <div className="table-scroll" tabIndex={0} role="region" aria-label="Recent tool calls, scrolls sideways">
          <table>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">For</th>
                <th scope="col">Tool</th>
                <th scope="col">Arguments</th>
                <th scope="col">Approval</th>
                <th scope="col">Result</th>
              </tr>
            </thead>
            <tbody>
              {calls.map((call) => (
                <tr key={call.id}>
                  <td>
                    <LocalTime value={call.at} />
                  </td>
                  <td>{call.who}</td>
                  <td>
                    {call.tool} <span className="fine-print">({call.server})</span>
                  </td>
                  <td>
                    <code>{call.arguments}</code>
                  </td>
                  <td>
                    {CALL_STATUS[call.status] ?? call.status}
                    {call.decidedBy ? <span className="fine-print"> by {call.decidedBy}</span> : null}
                  </td>
                  <td>
                    {call.outcome ?? "—"}
                    {call.durationMs !== null ? <span className="fine-print"> · {call.durationMs} ms</span> : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
