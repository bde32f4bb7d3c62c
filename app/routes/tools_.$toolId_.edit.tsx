import {
  json,
  type ActionFunctionArgs,
  type LinksFunction,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { Link, useActionData, useLoaderData } from "@remix-run/react";
import { requireAdmin } from "~/auth/session.server";
import { PromptToolForm } from "~/components/tools/prompt-tool-form";
import { getPromptTool, promptToolCategories, updatePromptTool } from "~/data/prompt-tools/prompt-tools.server";
import { promptToolNotFound, savePromptToolForm, toolStore } from "~/data/prompt-tools/prompt-tool-responses.server";
import { toolFormValues } from "~/data/prompt-tools/prompt-tool-forms.server";
import { pageTitle } from "~/meta";
import toolsStylesheet from "~/styles/tools.css";

export const meta: MetaFunction<typeof loader> = ({ data }) =>
  pageTitle(data ? `Edit ${data.name}` : "Edit prompt tool");

export const links: LinksFunction = () => [{ rel: "stylesheet", href: toolsStylesheet }];

const NO_STORE = { "Cache-Control": "no-store" };

export async function loader({ request, params }: LoaderFunctionArgs) {
  await requireAdmin(request);
  const [tool, categories] = await toolStore(
    async (db) => [await getPromptTool(db, params.toolId ?? ""), await promptToolCategories(db)] as const,
  );
  if (!tool) throw promptToolNotFound();
  return json(
    { name: tool.name, values: toolFormValues(tool), categories, builtIn: tool.builtIn, edited: tool.edited },
    { headers: NO_STORE },
  );
}

export async function action({ request, params }: ActionFunctionArgs) {
  await requireAdmin(request);
  const id = params.toolId ?? "";
  return savePromptToolForm(request, (db, input) => updatePromptTool(db, id, input), id);
}

export default function EditPromptTool() {
  const { name, values, categories, builtIn, edited } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  return (
    <div className="page tools-page">
      <p className="fine-print">
        <Link to="/tools">← All tools</Link>
      </p>
      <h1>Edit “{name}”</h1>
      {builtIn ? (
        <p>
          This tool is built in. Your changes apply for everyone;{" "}
          {edited
            ? "“Reset to default” on the tools page brings back the original."
            : "you can reset it to its original from the tools page at any time."}
        </p>
      ) : null}
      <PromptToolForm
        values={actionData?.values ?? values}
        errors={actionData?.fieldErrors}
        categories={categories}
        submitLabel="Save changes"
      />
    </div>
  );
}
