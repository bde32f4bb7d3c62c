import { z } from "zod";
import { INBOX_KINDS } from "~/db/schema";
import { storableString } from "~/text/storable-text";
import { decodeCursor } from "./inbox.server";

/*
 * The admin inbox's query string (/admin/messages). Kept out of the route
 * module: a zod schema built at a module's top level stays in the browser's
 * bundle (the compiler cannot tell it is unused there), and zod there is
 * shared with, and weighs on, every page that loads any of it (ADR 051).
 */

const blankToUndefined = (value: unknown) => (value === "" || value === null ? undefined : value);
const cursor = z.preprocess(
  blankToUndefined,
  z
    .string()
    .max(200)
    .refine((value) => decodeCursor(value) !== undefined, "That page link is not valid.")
    .optional(),
);

export const inboxQuerySchema = z.object({
  status: z.preprocess(blankToUndefined, z.enum(["inbox", "new", "read", "archived", "all"]).default("inbox")),
  kind: z.preprocess(blankToUndefined, z.enum(INBOX_KINDS).optional()),
  // A NUL would make the search query fail (a 503); a clear 400 instead (docs/security.md).
  q: z.preprocess(blankToUndefined, storableString().trim().max(200, "Search for at most 200 characters.").optional()),
  after: cursor,
  before: cursor,
});
