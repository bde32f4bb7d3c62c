import {
  json,
  type ActionFunctionArgs,
  type LinksFunction,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { Link, useActionData, useLoaderData, useNavigate } from "@remix-run/react";
import { useEffect } from "react";
import { requireUser, type SignedIn } from "~/auth/session.server";
import { prepareFirstMessage, toolChatUrl } from "~/components/tools/chat-handoff";
import { toolInputName } from "~/data/prompt-tools/form-fields";
import { ToolInputForm } from "~/components/tools/tool-input-form";
import { readBody } from "~/http/forms.server";
import { getPromptTool } from "~/data/prompt-tools/prompt-tools.server";
import { findBuiltInPromptTool, type PromptTool } from "~/data/prompt-tools/built-in-tools.server";
import { parseToolInputs } from "~/data/prompt-tools/prompt-tool-forms.server";
import { toolStore } from "~/data/prompt-tools/prompt-tool-responses.server";
import { refuseToolRunOverLimit } from "~/data/tool-run-limit.server";
import { BODY_LIMITS } from "~/http/body-limit.server";
import { pageTitle } from "~/meta";
import toolsStylesheet from "~/styles/tools.css";

export const meta: MetaFunction<typeof loader> = ({ data }) => pageTitle(data?.tool.name ?? "Tools");

export const links: LinksFunction = () => [{ rel: "stylesheet", href: toolsStylesheet }];

const NO_STORE = { "Cache-Control": "no-store" };

/** Using a tool needs a session: a signed-out visitor goes through /login and comes back here. */
async function openTool(session: SignedIn, id: string): Promise<PromptTool> {
  // Built-in tools open (as shipped) even while the database is away; with it, as admins edited them.
  const builtInDefault = findBuiltInPromptTool(id);
  const tool = await toolStore((db) => getPromptTool(db, id)).catch((error: unknown) => {
    if (builtInDefault) return builtInDefault;
    throw error;
  });
  // A disabled tool is gone for everyone but admins, who may still try it.
  if (!tool || (!tool.enabled && !session.isAdmin)) {
    throw json({ error: "There is no such tool. It may have been removed." }, { status: 404, headers: NO_STORE });
  }
  return tool;
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const session = await requireUser(request);
  const tool = await openTool(session, params.toolId ?? "");
  return json(
    {
      tool: {
        id: tool.id,
        name: tool.name,
        description: tool.description,
        category: tool.category,
        systemPrompt: tool.systemPrompt,
        inputFields: tool.inputFields,
        enabled: tool.enabled,
      },
    },
    { headers: NO_STORE },
  );
}

export async function action({ request, params }: ActionFunctionArgs) {
  const session = await requireUser(request);
  const tool = await openTool(session, params.toolId ?? "");
  const body = await readBody(request, BODY_LIMITS.document);
  // Thrown, not returned: this page shows no action `error`, its error boundary does.
  if ("refusal" in body) throw body.refusal;
  const parsed = parseToolInputs(tool, body.fields);
  if (!parsed.success)
    return json({ values: parsed.values, fieldErrors: parsed.fieldErrors }, { status: 400, headers: NO_STORE });
  const uid = session.user.uid;
  // Each run is limited per account (ADR 048), counted here, for valid input only. No conversation
  // is created: the new chat's first send creates it, with the tool's instructions (docs/decisions/033).
  const refused = await toolStore((db) => refuseToolRunOverLimit(db, uid, typedValues(tool, body.fields)));
  if (refused) return refused;
  // The browser puts the first message into a new chat's composer, then opens it with the tool.
  return json({ started: { toolId: tool.id, message: parsed.message } }, { headers: NO_STORE });
}

/** What the user typed, to show again in the form when the run is refused. */
function typedValues(tool: PromptTool, fields: Record<string, unknown>): string[] {
  return tool.inputFields.map((_, index) => {
    const value = fields[toolInputName(index)];
    return typeof value === "string" ? value : "";
  });
}

export default function PromptToolPage() {
  const { tool } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const started = actionData && "started" in actionData ? actionData.started : undefined;
  const navigate = useNavigate();
  useEffect(() => {
    if (started && prepareFirstMessage(started.message)) navigate(toolChatUrl(started.toolId));
  }, [started, navigate]);

  if (started) {
    // With JavaScript the chat opens at once, the message in its composer; without
    // it (or without sessionStorage) the message is shown here to copy.
    return (
      <div className="page tools-page tool-page">
        <h1>{tool.name}</h1>
        <p role="status">
          Your chat is ready. If it does not open by itself, copy your message, open the chat and paste it:
        </p>
        <p className="tool-prompt">{started.message}</p>
        <p>
          <Link to={toolChatUrl(started.toolId)} className="button primary">
            Open the chat
          </Link>
        </p>
      </div>
    );
  }
  return (
    <div className="page tools-page tool-page">
      <p className="fine-print">
        <Link to="/tools">← All tools</Link>
      </p>
      <p className="tool-category">
        {tool.category}
        {tool.enabled ? null : <span className="tool-badge off">Disabled: only admins see it</span>}
      </p>
      <h1>{tool.name}</h1>
      <p className="lead">{tool.description}</p>
      <details className="tool-instructions">
        <summary>Instructions the assistant gets</summary>
        <p className="tool-prompt">{tool.systemPrompt}</p>
      </details>
      <ToolInputForm
        fields={tool.inputFields}
        values={actionData && "values" in actionData ? actionData.values : undefined}
        errors={actionData && "fieldErrors" in actionData ? actionData.fieldErrors : undefined}
      />
    </div>
  );
}
