import {
  json,
  redirect,
  type ActionFunctionArgs,
  type LinksFunction,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { Link, useActionData, useLoaderData } from "@remix-run/react";
import { requireAdmin } from "~/auth/session.server";
import { PromptToolForm } from "~/components/tools/prompt-tool-form";
import { readBody } from "~/data/inbox-input.server";
import {
  DuplicateToolNameError,
  formValues,
  getPromptTool,
  parsePromptToolForm,
  promptToolCategories,
  toolFormValues,
  toolStore,
  updatePromptTool,
} from "~/data/prompt-tools.server";
import { pageTitle } from "~/meta";
import toolsStylesheet from "~/styles/tools.css";

export const meta: MetaFunction<typeof loader> = ({ data }) => pageTitle(data ? `Edit ${data.name}` : "Edit prompt tool");

export const links: LinksFunction = () => [{ rel: "stylesheet", href: toolsStylesheet }];

const NO_STORE = { "Cache-Control": "no-store" };

const notFound = () => json({ error: "There is no such prompt tool, or it is built in and cannot be edited." }, { status: 404, headers: NO_STORE });

export async function loader({ request, params }: LoaderFunctionArgs) {
  await requireAdmin(request);
  const [tool, categories] = await toolStore(async (db) => [await getPromptTool(db, params.toolId ?? ""), await promptToolCategories(db)] as const);
  if (!tool || tool.builtIn) throw notFound();
  return json({ name: tool.name, values: toolFormValues(tool), categories }, { headers: NO_STORE });
}

export async function action({ request, params }: ActionFunctionArgs) {
  await requireAdmin(request);
  const body = await readBody(request, 64 * 1024);
  if ("refusal" in body) return body.refusal;
  const parsed = parsePromptToolForm(body.fields);
  if (!parsed.success) return json({ values: parsed.values, fieldErrors: parsed.fieldErrors }, { status: 400, headers: NO_STORE });
  try {
    const tool = await toolStore((db) => updatePromptTool(db, params.toolId ?? "", parsed.data));
    if (!tool) throw notFound();
    return redirect(`/tools?saved=${tool.id}`, { status: 303, headers: NO_STORE });
  } catch (error) {
    if (error instanceof DuplicateToolNameError) {
      return json({ values: formValues(body.fields), fieldErrors: { name: error.message } }, { status: 409, headers: NO_STORE });
    }
    throw error;
  }
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
