import { json } from "@remix-run/node";
import { getConfig } from "~/config.server";
import { getDb, type Db } from "~/db/client.server";
import { logBackendFault, logBackendRecovered, withDeadline } from "~/deadline.server";

/**
 * Runs admin-area work on the database with a deadline; a fault becomes a
 * 503 page (the admin area fails closed) instead of a 500 or a hang.
 */
export async function withDatabase<T>(context: string, work: (db: Db) => Promise<T>): Promise<T> {
  try {
    const result = await withDeadline("postgres", getConfig().backendTimeoutMs, getDb().then(work));
    logBackendRecovered("postgres");
    return result;
  } catch (error) {
    logBackendFault("postgres", context, error);
    throw json({ error: "The admin data is unavailable right now. Please try again shortly." }, { status: 503 });
  }
}
