import { and, eq, isNotNull, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "~/db/client.server";
import { userPreferences, userToolSettings } from "~/db/schema";
import { builtInToolIds } from "~/llm/tools.server";
import { writeForAccount } from "./account-lock.server";

/** A user's assistant preferences: custom instructions and which function tools the assistant may call. */

export async function getCustomInstructions(db: Db, uid: string): Promise<string> {
  const [row] = await db
    .select({ text: userPreferences.customInstructions })
    .from(userPreferences)
    .where(eq(userPreferences.uid, uid))
    .limit(1);
  return row?.text ?? "";
}

export async function setCustomInstructions(db: Db, uid: string, text: string): Promise<void> {
  const value = text.trim();
  // Under the account's lock: nothing is written for a deleted account (docs/decisions/045).
  await writeForAccount(db, uid, (tx) =>
    tx
      .insert(userPreferences)
      .values({ uid, customInstructions: value })
      .onConflictDoUpdate({ target: userPreferences.uid, set: { customInstructions: value, updatedAt: sql`now()` } }),
  );
}

/** Ids of the built-in tools this user lets the assistant call (all of them unless switched off). */
export async function getEnabledToolIds(db: Db, uid: string): Promise<string[]> {
  const rows = await db
    .select({ toolId: userToolSettings.toolId, enabled: userToolSettings.enabled })
    .from(userToolSettings)
    .where(eq(userToolSettings.uid, uid));
  return enabledToolIds(rows.filter((row) => !row.enabled).map((row) => row.toolId));
}

/** The built-in tools the assistant may call: all but those switched off. */
export function enabledToolIds(switchedOff: Iterable<string>): string[] {
  const off = new Set(switchedOff);
  return builtInToolIds().filter((id) => !off.has(id));
}

export class UnknownToolError extends Error {}

export async function setToolEnabled(db: Db, uid: string, toolId: string, enabled: boolean): Promise<void> {
  if (!builtInToolIds().includes(toolId)) throw new UnknownToolError(`There is no built-in tool "${toolId}".`);
  await saveToolSwitch(db, uid, toolId, enabled);
}

/**
 * A user's switch for one tool: a built-in's id, or a server's tool
 * (app/data/mcp-servers.server.ts mcpToolSwitchId) the caller has checked
 * the user may use.
 */
export async function saveToolSwitch(db: Db, uid: string, switchId: string, enabled: boolean): Promise<void> {
  await writeForAccount(db, uid, (tx) =>
    tx
      .insert(userToolSettings)
      .values({ uid, toolId: switchId, enabled })
      .onConflictDoUpdate({
        target: [userToolSettings.uid, userToolSettings.toolId],
        set: { enabled, updatedAt: sql`now()` },
      }),
  );
}

/** The tool switches this user turned off, built-in and servers' alike. */
export async function getSwitchedOffToolIds(db: Db, uid: string): Promise<Set<string>> {
  const rows = await db
    .select({ toolId: userToolSettings.toolId })
    .from(userToolSettings)
    .where(and(eq(userToolSettings.uid, uid), eq(userToolSettings.enabled, false)));
  return new Set(rows.map((row) => row.toolId));
}

export const THEMES = ["system", "light", "dark"] as const;
export type Theme = (typeof THEMES)[number];

export const themeSchema = z.enum(THEMES, { error: "Choose System, Light or Dark." });

/** The colour theme the user picked ("system" until they pick one). */
export async function getTheme(db: Db, uid: string): Promise<Theme> {
  const [row] = await db
    .select({ theme: userPreferences.theme })
    .from(userPreferences)
    .where(eq(userPreferences.uid, uid))
    .limit(1);
  return row?.theme ?? "system";
}

export async function setTheme(db: Db, uid: string, theme: Theme): Promise<void> {
  await writeForAccount(db, uid, (tx) =>
    tx
      .insert(userPreferences)
      .values({ uid, theme })
      .onConflictDoUpdate({ target: userPreferences.uid, set: { theme, updatedAt: sql`now()` } }),
  );
}

/** A user's own approval for a server's tool (null: the admin's); the caller checked they may use it. */
export async function saveToolApproval(db: Db, uid: string, switchId: string, approval: string | null): Promise<void> {
  await writeForAccount(db, uid, (tx) =>
    tx
      .insert(userToolSettings)
      .values({ uid, toolId: switchId, enabled: true, approval })
      .onConflictDoUpdate({
        target: [userToolSettings.uid, userToolSettings.toolId],
        set: { approval, updatedAt: sql`now()` },
      }),
  );
}

/** The user's own approvals for servers' tools, by switch id. */
export async function getToolApprovals(db: Db, uid: string): Promise<Map<string, string>> {
  const rows = await db
    .select({ toolId: userToolSettings.toolId, approval: userToolSettings.approval })
    .from(userToolSettings)
    .where(and(eq(userToolSettings.uid, uid), isNotNull(userToolSettings.approval)));
  return new Map(rows.map((row) => [row.toolId, row.approval ?? ""]));
}

/** How the user is told a reply is done (docs/decisions/101): its first words in the notice, and email without push. */
export interface NotifyPreferences {
  preview: boolean;
  email: boolean;
}

export async function getNotifyPreferences(db: Db, uid: string): Promise<NotifyPreferences> {
  const [row] = await db
    .select({ preview: userPreferences.notifyPreview, email: userPreferences.notifyEmail })
    .from(userPreferences)
    .where(eq(userPreferences.uid, uid))
    .limit(1);
  return row ?? { preview: false, email: false };
}

export async function setNotifyPreferences(db: Db, uid: string, change: Partial<NotifyPreferences>): Promise<void> {
  const set = {
    ...(change.preview === undefined ? {} : { notifyPreview: change.preview }),
    ...(change.email === undefined ? {} : { notifyEmail: change.email }),
  };
  if (Object.keys(set).length === 0) return;
  await writeForAccount(db, uid, (tx) =>
    tx
      .insert(userPreferences)
      .values({ uid, ...set })
      .onConflictDoUpdate({ target: userPreferences.uid, set: { ...set, updatedAt: sql`now()` } }),
  );
}
