import {
  json,
  type ActionFunctionArgs,
  type LinksFunction,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { Link, useActionData, useLoaderData } from "@remix-run/react";
import { getSessionUser, requireAdmin, requireUser, sessionHeaders } from "~/auth/session.server";
import {
  categoriesOf,
  filterCatalogue,
  type FunctionToolSummary,
  type PromptToolSummary,
} from "~/data/prompt-tools/catalogue";
import { FunctionToolList } from "~/components/tools/function-tool-list";
import { PromptToolCard, type AdminActionResult } from "~/components/tools/prompt-tool-card";
import { ToolFilters } from "~/components/tools/tool-filters";
import { readBody } from "~/http/forms.server";
import { getEnabledToolIds, setToolEnabled } from "~/data/preferences.server";
import {
  deletePromptTool,
  listPromptTools,
  resetPromptTool,
  setPromptToolEnabled,
} from "~/data/prompt-tools/prompt-tools.server";
import {
  adminToolActionSchema,
  functionSwitchSchema,
  parseCatalogueFilters,
} from "~/data/prompt-tools/prompt-tool-forms.server";
import {
  BUILT_IN_PROMPT_TOOLS,
  findBuiltInPromptTool,
  type PromptTool,
} from "~/data/prompt-tools/built-in-tools.server";
import { toolStore } from "~/data/prompt-tools/prompt-tool-responses.server";
import { BODY_LIMITS } from "~/http/body-limit.server";
import { builtInTools } from "~/llm/tools.server";
import { pageTitle } from "~/meta";
import toolsStylesheet from "~/styles/tools.css";

export const meta: MetaFunction = () => pageTitle("Tools");

export const links: LinksFunction = () => [{ rel: "stylesheet", href: toolsStylesheet }];

const NO_STORE = { "Cache-Control": "no-store" };

function summary(tool: PromptTool): PromptToolSummary {
  return {
    id: tool.id,
    name: tool.name,
    description: tool.description,
    category: tool.category,
    builtIn: tool.builtIn,
    enabled: tool.enabled,
    edited: tool.edited,
  };
}

/** Public: anyone may browse; the switches and admin controls need a session. */
export async function loader({ request }: LoaderFunctionArgs) {
  const session = await getSessionUser(request);
  const user = session.status === "signed-in" ? session : null;
  const isAdmin = Boolean(user?.isAdmin);
  const url = new URL(request.url);
  const filters = parseCatalogueFilters(url.searchParams);

  // Without the database the built-in tools still show; what needs it says so.
  const stored = await toolStore((db) => listPromptTools(db, { includeDisabled: isAdmin })).catch(() => null);
  const enabledIds = user ? await toolStore((db) => getEnabledToolIds(db, user.user.uid)).catch(() => null) : null;
  const prompts = (stored ?? BUILT_IN_PROMPT_TOOLS).map(summary);
  const functions: FunctionToolSummary[] = builtInTools().map((tool) => ({
    id: tool.id,
    name: tool.name,
    description: tool.description,
    enabled: enabledIds ? enabledIds.includes(tool.id) : null,
  }));
  const shown = filterCatalogue(prompts, functions, filters);
  const saved = url.searchParams.get("saved");
  return json(
    {
      signedIn: Boolean(user),
      isAdmin,
      filters,
      categories: categoriesOf(prompts),
      prompts: shown.prompts,
      functions: shown.functions,
      total: prompts.length + functions.length,
      savedName: saved ? (prompts.find((tool) => tool.id === saved)?.name ?? null) : null,
      storeUnavailable: stored === null || Boolean(user && enabledIds === null),
    },
    { headers: { ...sessionHeaders(session), ...(user ? NO_STORE : {}) } },
  );
}

function answer(body: AdminActionResult, status = 200) {
  return json(body, { status, headers: NO_STORE });
}

export async function action({ request }: ActionFunctionArgs) {
  const body = await readBody(request, BODY_LIMITS.small);
  if ("refusal" in body) return body.refusal;
  const intent = body.fields.intent;

  if (intent === "set-function") {
    // A signed-out visitor is sent to sign in and back here.
    const { user } = await requireUser(request);
    const parsed = functionSwitchSchema().safeParse(body.fields);
    if (!parsed.success) return answer({ error: parsed.error.issues[0].message }, 400);
    const { toolId, enabled } = parsed.data;
    try {
      await toolStore((db) => setToolEnabled(db, user.uid, toolId, enabled === "on"));
    } catch {
      return answer({ error: "Your choice could not be saved right now. Please try again shortly." }, 503);
    }
    const name = builtInTools().find((tool) => tool.id === toolId)?.name ?? toolId;
    return answer({ ok: true, notice: `${name} is ${enabled} for your chats.` });
  }

  // Every other intent changes the shared catalogue: admins only, checked freshly.
  await requireAdmin(request);
  const parsed = adminToolActionSchema().safeParse(body.fields);
  if (!parsed.success) {
    return answer(
      {
        error:
          typeof intent === "string" && ["enable", "disable", "delete", "reset"].includes(intent)
            ? "There is no such tool."
            : "Unknown action.",
      },
      400,
    );
  }
  const { intent: what, id, confirm } = parsed.data;
  const builtIn = Boolean(findBuiltInPromptTool(id));
  // A built-in tool has a default to go back to and is never deleted; an admin's tool has no default.
  if (what === "delete" && builtIn) {
    return answer(
      { error: "A built-in tool cannot be deleted: disable it to hide it, or reset it to its default." },
      400,
    );
  }
  if (what === "reset" && !builtIn) return answer({ error: "Only a built-in tool can be reset to its default." }, 400);
  if ((what === "delete" || what === "reset") && confirm !== "yes") return answer({ confirmDelete: id });
  let found: boolean;
  try {
    found = await toolStore((db) => {
      if (what === "delete") return deletePromptTool(db, id);
      if (what === "reset") return resetPromptTool(db, id);
      return setPromptToolEnabled(db, id, what === "enable");
    });
  } catch {
    return answer({ error: "The tool could not be changed right now. Please try again shortly." }, 503);
  }
  if (!found) return answer({ error: "That tool no longer exists." }, 404);
  const done = { enable: "enabled", disable: "disabled", delete: "deleted", reset: "reset to its default" }[what];
  return answer({ ok: true, notice: `The tool was ${done}.` });
}

export default function ToolsPage() {
  const { signedIn, isAdmin, filters, categories, prompts, functions, total, savedName, storeUnavailable } =
    useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const confirmDelete = actionData && "confirmDelete" in actionData ? actionData.confirmDelete : undefined;
  const nothing = prompts.length === 0 && functions.length === 0;
  return (
    <div className="page tools-page">
      <h1>Tools</h1>
      <p className="lead">
        Ready-made prompts that start a chat with the right instructions, and the functions your assistant can call.
      </p>
      <div aria-live="polite">
        {savedName ? (
          <p className="form-notice" role="status">
            “{savedName}” was saved.
          </p>
        ) : null}
        {actionData && "notice" in actionData && actionData.notice ? (
          <p className="form-notice" role="status">
            {actionData.notice}
          </p>
        ) : null}
        {actionData && "error" in actionData && actionData.error ? (
          <p className="form-error" role="alert">
            {actionData.error}
          </p>
        ) : null}
      </div>
      {storeUnavailable ? (
        <p className="banner" role="status">
          Some tools and settings cannot be loaded right now; the built-in tools still work.
        </p>
      ) : null}
      <ToolFilters filters={filters} categories={categories} />
      {isAdmin ? (
        <p className="tool-admin-bar">
          <Link to="/tools/new" className="button primary">
            New prompt tool
          </Link>
        </p>
      ) : null}
      {nothing ? (
        <p className="empty" role="status">
          No tool matches {filters.q ? `“${filters.q}”` : "this filter"} among {total} tools.{" "}
          <Link to="/tools">Show all tools</Link>
        </p>
      ) : null}
      {prompts.length > 0 ? (
        <section aria-labelledby="prompt-tools-title">
          <h2 id="prompt-tools-title">Prompt tools</h2>
          <p className="fine-print">
            {signedIn
              ? "Open one, fill in its form, and a new chat starts with its instructions."
              : "Open one to use it: you'll be asked to log in first."}
          </p>
          <ul className="tool-grid">
            {prompts.map((tool) => (
              <PromptToolCard key={tool.id} tool={tool} isAdmin={isAdmin} confirmDelete={confirmDelete === tool.id} />
            ))}
          </ul>
        </section>
      ) : null}
      {functions.length > 0 ? (
        <section aria-labelledby="function-tools-title">
          <h2 id="function-tools-title">Functions the assistant can call</h2>
          <FunctionToolList tools={functions} signedIn={signedIn} />
          {signedIn ? (
            <p className="tools-servers-link">
              <Link to="/tools/servers">Tool servers</Link>: what your assistant can do through the MCP servers
              {isAdmin ? " you connect" : " your team connected"}.
            </p>
          ) : null}
        </section>
      ) : null}
    </div>
  );
}
