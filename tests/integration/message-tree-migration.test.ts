import { randomUUID } from "node:crypto";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { drizzle } from "drizzle-orm/pglite";
import { migrate } from "drizzle-orm/pglite/migrator";
import { afterAll, describe, expect, it } from "vitest";
import { branchPath } from "~/conversation/branches";

/**
 * Migration 0010 (docs/decisions/069) on data stored before the message tree:
 * an in-process PGlite is migrated up to 0009, given conversations as the old
 * schema held them, then migrated to the tree. Nothing may be lost or moved.
 */

const MIGRATIONS = path.resolve("app/db/migrations");
const work = mkdtempSync(path.join(tmpdir(), "nuvara-tree-migration-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The migrations folder as it was before the tree (journal entries before 0010). */
function migrationsBeforeTree(): string {
  const folder = path.join(work, "before");
  cpSync(MIGRATIONS, folder, { recursive: true });
  const journalPath = path.join(folder, "meta", "_journal.json");
  const journal = JSON.parse(readFileSync(journalPath, "utf8")) as { entries: Array<{ tag: string }> };
  const cut = journal.entries.findIndex((entry) => entry.tag.startsWith("0010_"));
  expect(cut).toBeGreaterThan(0);
  journal.entries = journal.entries.slice(0, cut);
  writeFileSync(journalPath, JSON.stringify(journal));
  return folder;
}

describe("migration 0010: the message tree", () => {
  it("makes every stored conversation one branch, in its old order, with its last message shown", async () => {
    const client = new PGlite({ extensions: { pg_trgm } }); // the later migrations' trigram indexes
    const db = drizzle(client);
    await migrate(db, { migrationsFolder: migrationsBeforeTree() });

    // Two conversations as the old schema stored them (no parent, no leaf), interleaved in seq, and an empty one.
    const first = randomUUID();
    const second = randomUUID();
    const empty = randomUUID();
    for (const id of [first, second, empty]) {
      await client.query("insert into conversations (id, uid, title) values ($1, 'old-user', 'Old chat')", [id]);
    }
    const stored: Array<{ id: string; conversation: string; role: "user" | "assistant"; content: string }> = [];
    const add = async (conversation: string, role: "user" | "assistant", content: string) => {
      const id = randomUUID();
      stored.push({ id, conversation, role, content });
      await client.query(
        `insert into messages (id, conversation_id, role, parts, content, status) values ($1, $2, $3, $4::jsonb, $5, $6)`,
        [
          id,
          conversation,
          role,
          JSON.stringify([{ type: "text", text: content }]),
          content,
          role === "assistant" ? "completed" : null,
        ],
      );
    };
    await add(first, "user", "Plan a trip to Lisbon");
    await add(second, "user", "What is 2+2?");
    await add(first, "assistant", "Start at Belém.");
    await add(second, "assistant", "4");
    await add(first, "user", "And on day two?");
    await add(first, "assistant", "Sintra.");

    await migrate(db, { migrationsFolder: MIGRATIONS });

    const rows = (
      await client.query<{ id: string; conversation_id: string; parent_id: string | null; content: string }>(
        "select id, conversation_id, parent_id, content from messages order by seq",
      )
    ).rows;
    // Nothing lost, nothing changed.
    expect(rows.map((row) => [row.id, row.content])).toEqual(stored.map((message) => [message.id, message.content]));
    const leaves = new Map(
      (
        await client.query<{ id: string; current_leaf_id: string | null }>(
          "select id, current_leaf_id from conversations",
        )
      ).rows.map((row) => [row.id, row.current_leaf_id]),
    );
    expect(leaves.get(empty)).toBeNull();
    for (const conversation of [first, second]) {
      const nodes = rows
        .filter((row) => row.conversation_id === conversation)
        .map((row) => ({ id: row.id, parentId: row.parent_id, content: row.content }));
      const before = stored
        .filter((message) => message.conversation === conversation)
        .map((message) => message.content);
      // The branch shown is the conversation exactly as it was, and there is no other.
      expect(leaves.get(conversation)).toBe(nodes.at(-1)!.id);
      expect(branchPath(nodes, leaves.get(conversation)).map((node) => node.content)).toEqual(before);
      expect(nodes.filter((node) => node.parentId === null)).toHaveLength(1);
    }
    await client.close();
  });
});
