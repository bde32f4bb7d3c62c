import { and, eq, sql } from "drizzle-orm";
import type { Db } from "~/db/client.server";
import { tabPresence } from "~/db/schema";

/**
 * Whether any of a user's tabs is visible now, wherever it was loaded
 * (docs/decisions/101): a visible tab reports itself every HEARTBEAT_SECONDS,
 * each report keeps its row for VISIBLE_FOR_SECONDS, and a tab that hides or
 * closes deletes its row. A tab that vanishes without a word counts for at
 * most VISIBLE_FOR_SECONDS.
 */

/** How often a visible tab reports (the browser's half: app/components/notify/use-tab-presence.ts). */
export const HEARTBEAT_SECONDS = 20;
/** A report counts this long: two heartbeats and a margin, so one late heartbeat does not count as hidden. */
export const VISIBLE_FOR_SECONDS = 50;

export async function reportTab(db: Db, uid: string, tab: string, visible: boolean): Promise<void> {
  if (!visible) {
    await db.delete(tabPresence).where(and(eq(tabPresence.uid, uid), eq(tabPresence.tab, tab)));
    return;
  }
  const until = sql`now() + make_interval(secs => ${VISIBLE_FOR_SECONDS})`;
  await db
    .insert(tabPresence)
    .values({ uid, tab, visibleUntil: until })
    .onConflictDoUpdate({ target: [tabPresence.uid, tabPresence.tab], set: { visibleUntil: until } });
  // The user's rows that ran out go here, so the table stays as small as the tabs open now.
  await db.delete(tabPresence).where(and(eq(tabPresence.uid, uid), sql`${tabPresence.visibleUntil} < now()`));
}

export async function anyTabVisible(db: Db, uid: string): Promise<boolean> {
  const rows = await db
    .select({ tab: tabPresence.tab })
    .from(tabPresence)
    .where(and(eq(tabPresence.uid, uid), sql`${tabPresence.visibleUntil} >= now()`))
    .limit(1);
  return rows.length > 0;
}
