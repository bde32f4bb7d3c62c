import fs from "node:fs";
import { canHoldRole, userDoc, usersCollection } from "~/auth/roles.server";
import type { EmulatorAdmin } from "./admin-client";

/**
 * The in-process Firestore emulator keeps its state in memory, so local mode
 * saves the users collection to a JSON file (every few seconds when it
 * changed, and at exit) and restores it at start.
 */
export async function restoreUsers(admin: EmulatorAdmin, file: string) {
  if (!fs.existsSync(file)) return;
  const docs = JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, Record<string, unknown>>;
  // A hand-edited file may name an address no users/{email} record can have (docs/decisions/075).
  const [keyable, skipped] = [
    Object.keys(docs).filter(canHoldRole),
    Object.keys(docs).filter((id) => !canHoldRole(id)),
  ];
  if (skipped.length > 0)
    console.warn(`Skipped ${skipped.length} record(s) in ${file} whose address cannot hold a role.`);
  await Promise.all(keyable.map((id) => userDoc(id, admin.firestore).set(docs[id])));
}

export function keepUsersSaved(admin: EmulatorAdmin, file: string, everyMs = 2_000) {
  let last = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "";
  async function save() {
    const snapshot = await usersCollection(admin.firestore).get();
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
