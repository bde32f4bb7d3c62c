import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadChatContext } from "~/data/chat-context.server";
import { addMemory, forgetMemory, setMemoryEnabled, updateMemory } from "~/data/memories.server";
import { openDatabase, type Db } from "~/db/client.server";
import { testDatabases } from "../support/databases";

/** Memories in the data layer (docs/decisions/103), on PGlite and on the PostgreSQL server. */
describe.each(testDatabases())("memories on $name", ({ url }) => {
  let db: Db;
  beforeAll(async () => {
    db = await openDatabase(url);
  });
  afterAll(() => db.$client.end());

  const recall = (uid: string, text: string, temporary = false) =>
    loadChatContext(db, uid, randomUUID(), { id: randomUUID(), text, temporary });

  it("recalls by full-text rank against the message's words (any of them, stemmed), then the latest", async () => {
    const uid = `memory-${randomUUID()}`;
    await addMemory(db, uid, { text: "Is learning to play the cello.", source: "user" });
    await addMemory(db, uid, { text: "Lives in Lyon with two cats.", source: "model" });
    await addMemory(db, uid, { text: "Prefers short answers.", source: "user" });

    const cats = await recall(uid, "My cat keeps scratching the sofa, any tips?");
    expect(cats.memories.map((memory) => memory.text)).toEqual([
      "Lives in Lyon with two cats.",
      "Prefers short answers.",
      "Is learning to play the cello.",
    ]);
    // Nothing matches (or only stop words): the latest changed first.
    const none = await recall(uid, "what is it?");
    expect(none.memories.map((memory) => memory.text)).toEqual([
      "Prefers short answers.",
      "Lives in Lyon with two cats.",
      "Is learning to play the cello.",
    ]);
    // Characters that mean something to tsquery are only words here.
    const odd = await recall(uid, "cello's & | ! ( ) :* 'quoted' \\ \"practice\"");
    expect(odd.memories[0].text).toBe("Is learning to play the cello.");
    // An edit makes it the latest.
    await updateMemory(db, uid, cats.memories[2].id, "Is learning to play the cello, slowly.");
    expect((await recall(uid, "hello")).memories[0].text).toBe("Is learning to play the cello, slowly.");
  });

  it("reads nothing when memory is off or the chat is temporary, and only the user's own", async () => {
    const uid = `memory-${randomUUID()}`;
    await addMemory(db, uid, { text: "Has a dog.", source: "user" });
    expect((await recall(`memory-${randomUUID()}`, "dog")).memories).toEqual([]);
    expect((await recall(uid, "dog", true)).memories).toEqual([]);
    await setMemoryEnabled(db, uid, false);
    const off = await recall(uid, "dog");
    expect(off).toMatchObject({ memoryEnabled: false, memories: [] });
    await setMemoryEnabled(db, uid, true);
    expect((await recall(uid, "dog")).memories.map((memory) => memory.text)).toEqual(["Has a dog."]);
  });

  it("the same fact saved twice is kept once; forget deletes the one named, and nothing when it is unclear", async () => {
    const uid = `memory-${randomUUID()}`;
    const first = await addMemory(db, uid, { text: "Likes green tea.", source: "model" });
    const again = await addMemory(db, uid, { text: "likes green tea.", source: "model" });
    expect(again).toMatchObject({ ok: true, id: first.ok ? first.id : "" });
    await addMemory(db, uid, { text: "Likes black tea.", source: "model" });
    expect(await forgetMemory(db, uid, "tea")).toEqual([]);
    expect(await forgetMemory(db, uid, "GREEN tea")).toEqual(["Likes green tea."]);
    expect((await recall(uid, "tea")).memories.map((memory) => memory.text)).toEqual(["Likes black tea."]);
  });
});
