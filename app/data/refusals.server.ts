import { sql } from "drizzle-orm";
import { utcDay } from "~/time/day";
import type { Db } from "~/db/client.server";
import { limitRefusals } from "~/db/schema";
import { logBackendFault } from "~/deadline.server";

export type RefusedAt = "quota" | "budget";

/**
 * Counts a send refused at a limit, for the admin usage page. Never delays
 * or fails the refusal: a lost count is logged.
 */
export function recordRefusal(db: Db, uid: string, limit: RefusedAt, now = new Date()): void {
  void db
    .execute(
      sql`
      insert into ${limitRefusals} (uid, day, "limit", count) values (${uid}, ${utcDay(now)}::date, ${limit}, 1)
      on conflict (uid, day, "limit") do update set count = ${limitRefusals.count} + 1
    `,
    )
    .catch((error) => logBackendFault("postgres", "counting a refusal", error));
}
