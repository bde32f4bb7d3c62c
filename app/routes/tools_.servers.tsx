import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useActionData, useLoaderData } from "@remix-run/react";
import {
  AddServerForm,
  OwnServers,
  ServerCard,
  ToolCallRecord,
  UsersServers,
} from "~/components/tools/mcp-server-views";
import { pageTitle } from "~/meta";
import { serversAction, serversPage } from "~/tools/servers-page.server";
import toolsStylesheet from "~/styles/tools.css";
import { FormOutcome } from "~/components/form-outcome";

export const meta: MetaFunction = () => pageTitle("Tool servers");

export const links: LinksFunction = () => [{ rel: "stylesheet", href: toolsStylesheet }];

export const loader = ({ request }: LoaderFunctionArgs) => serversPage(request);

export const action = ({ request }: ActionFunctionArgs) => serversAction(request);

export default function ToolServersPage() {
  const page = useLoaderData<typeof loader>();
  const { isAdmin, mayAddOwn, servers, ownServers, usersServers, calls, storeDown } = page;
  // A sign-in that came back (docs/decisions/092) speaks until the page's own forms do.
  const outcome = useActionData<typeof action>() ?? ("notice" in page || "error" in page ? page : undefined);
  const confirming = outcome && "confirmDelete" in outcome ? outcome.confirmDelete : undefined;
  const redirectUri = "redirectUri" in page && typeof page.redirectUri === "string" ? page.redirectUri : undefined;
  const formKey = outcome && "notice" in outcome ? outcome.notice : "add-server";
  const errors = outcome && "errors" in outcome ? outcome.errors : undefined;
  const values = outcome && "values" in outcome ? outcome.values : undefined;
  return (
    <div className="page tools-page">
      <p className="breadcrumb">
        <Link to="/tools">Tools</Link>
      </p>
      <h1>Tool servers</h1>
      <p className="lead">
        MCP servers give the assistant abilities beyond talking. Switch off a tool and the assistant will not use it in
        your chats.
      </p>
      <FormOutcome
        notice={outcome && "notice" in outcome ? outcome.notice : undefined}
        error={outcome && "error" in outcome ? outcome.error : undefined}
      />
      {storeDown ? (
        <p className="banner" role="status">
          The tool servers can't be loaded right now. Please try again shortly.
        </p>
      ) : null}
      {servers.length > 0 ? (
        <ul className="server-list">
          {servers.map((server) => (
            <ServerCard key={server.id} server={server} isAdmin={isAdmin} confirmDelete={confirming === server.id} />
          ))}
        </ul>
      ) : storeDown ? null : (
        <p className="empty">
          {isAdmin ? "No server is connected yet: add one below." : "No tool server is available to you yet."}
        </p>
      )}
      {!isAdmin && (mayAddOwn || ownServers.length > 0) ? (
        <OwnServers servers={ownServers} mayAdd={mayAddOwn} confirming={confirming} />
      ) : null}
      {isAdmin || mayAddOwn ? (
        <AddServerForm
          // A server added: the form starts empty again (a refusal keeps what was typed).
          key={formKey}
          own={!isAdmin}
          redirectUri={redirectUri}
          errors={errors}
          values={values}
        />
      ) : null}
      {isAdmin && !storeDown ? <UsersServers servers={usersServers} confirmDelete={confirming} /> : null}
      {isAdmin && !storeDown ? <ToolCallRecord calls={calls} /> : null}
    </div>
  );
}
