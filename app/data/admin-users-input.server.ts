import { z } from "zod";
import { isStorableText, storableString, UNSTORABLE_TEXT_MESSAGE } from "~/text/storable-text";
import { roleKeyProblem } from "~/auth/roles.server";

/*
 * What /admin/users accepts: its query string and the role change form.
 * Kept out of the route module: a zod schema built at a module's top level
 * stays in the browser's bundle (the compiler cannot tell it is unused
 * there), and zod there is shared with, and weighs on, every page that loads
 * any of it (ADR 051).
 */

const blankToUndefined = (value: unknown) => (value === "" || value === null ? undefined : value);

export const usersQuerySchema = z.object({
  // Text that cannot be stored cannot be searched for either: a clear 400, not a backend fault (docs/security.md).
  q: z.preprocess(blankToUndefined, storableString().trim().max(254, "Search for at most 254 characters.").optional()),
  page: z.preprocess(
    blankToUndefined,
    storableString("That page link is not valid.").max(2048, "That page link is not valid.").optional(),
  ),
});

/** What a role may be: the presets, or a custom value (a billing plan's name, say). */
const CUSTOM_ROLE = /^[a-z0-9][a-z0-9_-]{0,31}$/;

export const roleChangeSchema = z
  .object({
    email: z
      .string({ error: "Which user? The email address is missing." })
      .refine(isStorableText, { message: UNSTORABLE_TEXT_MESSAGE })
      .trim()
      .toLowerCase()
      .max(254, "That email address is too long.")
      // Before the email check, which would call such an address invalid: it is one, it just cannot hold a role.
      .superRefine((email, ctx) => {
        const problem = roleKeyProblem(email);
        if (problem)
          ctx.addIssue({
            code: "custom",
            message: `This address can't hold a role: ${problem}, which a role record can't be named by.`,
          });
      })
      .pipe(z.email("That is not a valid email address.")),
    role: z.enum(["admin", "premium", "none", "custom"], { error: "Choose a role." }),
    customRole: z.preprocess(blankToUndefined, storableString().trim().optional()),
    // Granting admin is asked once more; the second post carries confirm=yes.
    confirm: z.literal("yes").optional().catch(undefined),
  })
  .transform((input, ctx) => {
    const confirmed = input.confirm === "yes";
    if (input.role !== "custom")
      return { email: input.email, role: input.role === "none" ? "" : input.role, confirmed };
    if (!input.customRole || !CUSTOM_ROLE.test(input.customRole)) {
      ctx.addIssue({
        code: "custom",
        path: ["customRole"],
        message: "A custom role is 1 to 32 lowercase letters, digits, - or _, starting with a letter or digit.",
      });
      return z.NEVER;
    }
    const role = input.customRole === "none" ? "" : input.customRole;
    return { email: input.email, role, confirmed };
  });

/**
 * Disable, enable, sign out everywhere or delete: the account by its uid (its
 * email is looked up, not trusted). Deleting is asked once more: the second
 * post carries confirm=yes.
 */
export const accountActionSchema = z.object({
  intent: z.enum(["disable", "enable", "sign-out-everywhere", "delete"], { error: "Unknown action." }),
  confirm: z.literal("yes").optional().catch(undefined),
  uid: z
    .string({ error: "Which account? Its id is missing." })
    .refine(isStorableText, { message: UNSTORABLE_TEXT_MESSAGE })
    .pipe(z.string().min(1, "Which account? Its id is missing.").max(128, "That account id is not valid.")),
});
