import { getConfig } from "~/config.server";
import { getDb } from "~/db/client.server";
import { logBackendFault, withDeadline } from "~/deadline.server";
import { removeAllPushSubscriptions } from "~/data/push-subscriptions.server";

/**
 * Sign out everywhere forgets every device told about the account's replies
 * (docs/decisions/101). The sessions are what matters most and are already
 * revoked: a store that fails here is logged, and the sign-out goes on.
 */
export async function forgetPushDevices(uid: string): Promise<void> {
  try {
    const db = await getDb();
    await withDeadline("postgres", getConfig().backendTimeoutMs, removeAllPushSubscriptions(db, uid));
  } catch (error) {
    logBackendFault("postgres", "forgetting push devices at sign-out everywhere", error);
  }
}
