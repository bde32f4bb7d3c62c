import fs from "node:fs";
import type { EmulatorAdmin } from "./admin-client";

/**
 * The in-process Firestore emulator keeps its state in memory, so local mode
 * saves the users collection to a JSON file (every few seconds when it
 * changed, and at exit) and restores it at start.
 */
export async function restoreUsers(admin: EmulatorAdmin, file: string) {
  if (!fs.existsSync(file)) return;
  const docs = JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, Record<string, unknown>>;
  await Promise.all(
    Object.entries(docs).map(([id, data]) => admin.firestore.collection("users").doc(id).set(data)),
  );
}

export function keepUsersSaved(admin: EmulatorAdmin, file: string, everyMs = 2_000) {
  let last = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "";
  async function save() {
    const snapshot = await admin.firestore.collection("users").get();
    const docs = Object.fromEntries(snapshot.docs.map((doc) => [doc.id, doc.data()]));
    const text = JSON.stringify(docs, null, 2);
    if (text !== last) {
      fs.writeFileSync(`${file}.tmp`, text);
      fs.renameSync(`${file}.tmp`, file);
      last = text;
    }
  }
  const timer = setInterval(() => save().catch(() => undefined), everyMs);
  return {
    async stop() {
      clearInterval(timer);
      await save().catch((error) => console.error("Could not save the users records:", error.message));
    },
  };
}
