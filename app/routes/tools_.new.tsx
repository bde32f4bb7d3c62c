import {
  json,
  type ActionFunctionArgs,
  type LinksFunction,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { Link, useActionData, useLoaderData } from "@remix-run/react";
import { requireAdmin } from "~/auth/session.server";
import { EMPTY_PROMPT_TOOL, PromptToolForm } from "~/components/tools/prompt-tool-form";
import { createPromptTool, promptToolCategories } from "~/data/prompt-tools/prompt-tools.server";
import { savePromptToolForm, toolStore } from "~/data/prompt-tools/prompt-tool-responses.server";
import { pageTitle } from "~/meta";
import toolsStylesheet from "~/styles/tools.css";

export const meta: MetaFunction = () => pageTitle("New prompt tool");

export const links: LinksFunction = () => [{ rel: "stylesheet", href: toolsStylesheet }];

const NO_STORE = { "Cache-Control": "no-store" };

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAdmin(request);
  return json({ categories: await toolStore(promptToolCategories) }, { headers: NO_STORE });
}

export async function action({ request }: ActionFunctionArgs) {
  await requireAdmin(request);
  return savePromptToolForm(request, createPromptTool);
}

export default function NewPromptTool() {
  const { categories } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  return (
    <div className="page tools-page">
      <p className="fine-print">
        <Link to="/tools">← All tools</Link>
      </p>
      <h1>New prompt tool</h1>
      <p>A prompt tool starts a chat with your instructions and a small form. Everyone can use it once it is saved.</p>
      <PromptToolForm
        values={actionData?.values ?? EMPTY_PROMPT_TOOL}
        errors={actionData?.fieldErrors}
        categories={categories}
        submitLabel="Create tool"
      />
    </div>
  );
}
