import { json, redirect } from "@remix-run/node";
import { getConfig } from "~/config.server";
import { readBody } from "~/http/forms.server";
import { getDb, type Db } from "~/db/client.server";
import { logBackendFault, withDeadline } from "~/deadline.server";
import { BODY_LIMITS } from "~/http/body-limit.server";
import type { PromptTool } from "./built-in-tools.server";
import { formValues, parsePromptToolForm, type PromptToolInput } from "./prompt-tool-forms.server";
import { DuplicateToolNameError } from "./prompt-tools.server";

/** The tools pages' answers: the store's faults as a 503, a missing tool as a 404, an admin's saved form. */

/**
 * Runs `work` on the database within the backends' deadline. A fault is
 * logged and thrown as a 503 Response (pages that can do without catch it);
 * the tools' own errors (a duplicate name) pass through.
 */
export async function toolStore<T>(work: (db: Db) => Promise<T>): Promise<T> {
  try {
    return await withDeadline("postgres", getConfig().backendTimeoutMs, getDb().then(work));
  } catch (error) {
    if (error instanceof DuplicateToolNameError) throw error;
    logBackendFault("postgres", "reading or writing tools", error);
    throw json(
      { error: "Tools and their settings are unavailable right now. Please try again shortly." },
      { status: 503, headers: { "Cache-Control": "no-store" } },
    );
  }
}

const NO_STORE = { "Cache-Control": "no-store" };

export function promptToolNotFound() {
  return json({ error: "There is no such prompt tool." }, { status: 404, headers: NO_STORE });
}

/**
 * The admin's create and edit actions (after requireAdmin): a capped body,
 * validation (400 with field errors and what was typed), the save, and a
 * duplicate name as 409 on the name field. `save` answering null is a 404.
 */
export async function savePromptToolForm(
  request: Request,
  save: (db: Db, input: PromptToolInput) => Promise<PromptTool | null>,
  toolId?: string,
) {
  const body = await readBody(request, BODY_LIMITS.document);
  // Thrown, not returned: the form pages show no action `error`, their error boundary does.
  if ("refusal" in body) throw body.refusal;
  const parsed = parsePromptToolForm(body.fields, toolId);
  if (!parsed.success)
    return json({ values: parsed.values, fieldErrors: parsed.fieldErrors }, { status: 400, headers: NO_STORE });
  try {
    const tool = await toolStore((db) => save(db, parsed.data));
    if (!tool) throw promptToolNotFound();
    return redirect(`/tools?saved=${tool.id}`, { status: 303, headers: NO_STORE });
  } catch (error) {
    if (error instanceof DuplicateToolNameError) {
      return json(
        { values: formValues(body.fields), fieldErrors: { name: error.message } },
        { status: 409, headers: NO_STORE },
      );
    }
    throw error;
  }
}
