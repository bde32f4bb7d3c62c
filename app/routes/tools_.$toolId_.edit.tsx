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
import {
  getPromptTool,
  promptToolCategories,
  promptToolNotFound,
  savePromptToolForm,
  toolFormValues,
  toolStore,
  updatePromptTool,
} from "~/data/prompt-tools.server";
import { pageTitle } from "~/meta";
import toolsStylesheet from "~/styles/tools.css";

export const meta: MetaFunction<typeof loader> = ({ data }) => pageTitle(data ? `Edit ${data.name}` : "Edit prompt tool");

export const links: LinksFunction = () => [{ rel: "stylesheet", href: toolsStylesheet }];

const NO_STORE = { "Cache-Control": "no-store" };

export async function loader({ request, params }: LoaderFunctionArgs) {
  await requireAdmin(request);
  const [tool, categories] = await toolStore(async (db) => [await getPromptTool(db, params.toolId ?? ""), await promptToolCategories(db)] as const);
  if (!tool || tool.builtIn) throw promptToolNotFound();
  return json({ name: tool.name, values: toolFormValues(tool), categories }, { headers: NO_STORE });
}

export async function action({ request, params }: ActionFunctionArgs) {
  await requireAdmin(request);
  return savePromptToolForm(request, (db, input) => updatePromptTool(db, params.toolId ?? "", input));
}

export default function EditPromptTool() {
  const { name, values, categories } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  return (
    <div className="page tools-page">
      <p className="fine-print">
        <Link to="/tools">← All tools</Link>
      </p>
      <h1>Edit “{name}”</h1>
      <PromptToolForm
        values={actionData?.values ?? values}
        errors={actionData?.fieldErrors}
        categories={categories}
        submitLabel="Save changes"
      />
    </div>
  );
}
