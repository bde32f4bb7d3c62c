import type { ActionFunctionArgs } from "@remix-run/node";
import { z } from "zod";
import { isSameOrigin } from "~/auth/request.server";
import { getSessionUser } from "~/auth/session.server";
import { CONTACT_LIMITS, HONEYPOT_FIELD } from "~/components/contact-form";
import { WORK_FIELDS } from "~/data/contact-work";
import { getConfig } from "~/config.server";
import { checkWindowedLimits, contactLimitRules, type ContactSender } from "~/data/contact-limits.server";
import { spendContactWork, type WorkRefusal } from "~/data/contact-work.server";
import { addContactMessage, type Sender } from "~/data/inbox.server";
import { backToReferrer, fieldErrors, isDocumentSubmission, problem, readBody, tooMany } from "~/http/forms.server";
import { getDb } from "~/db/client.server";
import { isAccountDeleted } from "~/data/account-lock.server";
import { logBackendFault, withDeadline } from "~/deadline.server";
import { apiRoute } from "~/http/api-route.server";
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from "~/text/storable-text";

/**
 * POST /api/contact: the "Contact us" form (home page and dashboard). A
 * signed-in user's identity comes from the session, never from the form; a
 * visitor gives an email address and the work the page asked of their
 * browser (docs/decisions/076). 201 when stored (or when the honeypot caught
 * a bot, which must not learn that it was caught).
 */

// Every text field refuses what PostgreSQL cannot store (NUL, lone surrogates) before
// any work: otherwise the insert fails and the sender sees a 503 forever (docs/security.md).
const storable = [isStorableText, { message: UNSTORABLE_TEXT_MESSAGE }] as const;

const message = z
  .string({ error: "Please write a message." })
  .refine(...storable)
  .trim()
  .min(1, "Please write a message.")
  .max(
    CONTACT_LIMITS.message,
    `Please keep your message to ${CONTACT_LIMITS.message.toLocaleString("en")} characters or fewer.`,
  );

const signedInSchema = z.object({ message });

const visitorSchema = z.object({
  message,
  email: z
    .string({ error: "Please enter your email address so we can reply." })
    .refine(...storable)
    .trim()
    .min(1, "Please enter your email address so we can reply.")
    .max(CONTACT_LIMITS.email, "That email address is too long.")
    .pipe(z.email("Please enter a valid email address, like name@example.com.")),
  name: z
    .string()
    .refine(...storable)
    .trim()
    .max(CONTACT_LIMITS.name, `Please keep your name to ${CONTACT_LIMITS.name} characters or fewer.`)
    .optional(),
});

const SENT = { ok: true, message: "Thanks! Your message was sent. We'll get back to you by email." };

const AGAIN = "Please send your message again.";
/** Why a visitor's message was refused for its work, and what the page without scripts is told. */
const WORK_REFUSALS: Record<WorkRefusal, { error: string; outcome: string }> = {
  missing: {
    error:
      "To send a message without logging in, your browser does a moment's work that keeps spam out, and that needs JavaScript. Turn JavaScript on and try again, or log in to send it.",
    outcome: "needs-script",
  },
  invalid: { error: "Your message could not be checked. Reload the page, then send it again.", outcome: "expired" },
  expired: { error: `This form was open for a long time. ${AGAIN}`, outcome: "expired" },
  used: { error: `That check was used already. ${AGAIN}`, outcome: "expired" },
};

export const action = apiRoute(async ({ request }: ActionFunctionArgs) => {
  if (request.method !== "POST") return problem(405, { error: "Use POST." }, { Allow: "POST" });
  // A signed-in user's identity is attached: another site must not post in their name.
  if (!isSameOrigin(request)) return problem(403, { error: "Cross-origin requests are refused." });
  const body = await readBody(request);
  if ("refusal" in body) return body.refusal;
  const document = isDocumentSubmission(request);
  const answer = (response: Response, outcome: string) =>
    document ? backToReferrer(request, "contact", outcome, "contact") : response;

  const honeypot = body.fields[HONEYPOT_FIELD];
  if (typeof honeypot === "string" && honeypot.trim() !== "") {
    return answer(problem(201, SENT), "sent");
  }

  const session = await getSessionUser(request);
  const signedIn = session.status === "signed-in" && session.user.email ? session : undefined;
  let sender: Sender;
  let text: string;
  if (signedIn) {
    const parsed = signedInSchema.safeParse(body.fields);
    if (!parsed.success) return answer(problem(400, { fieldErrors: fieldErrors(parsed.error) }), "invalid");
    const { user, role } = signedIn;
    sender = { email: user.email!, uid: user.uid, name: user.displayName, role, verified: user.emailVerified };
    text = parsed.data.message;
  } else {
    const parsed = visitorSchema.safeParse(body.fields);
    if (!parsed.success) return answer(problem(400, { fieldErrors: fieldErrors(parsed.error) }), "invalid");
    sender = {
      email: parsed.data.email.toLowerCase(),
      uid: null,
      name: parsed.data.name || null,
      role: "",
      verified: null,
    };
    text = parsed.data.message;
  }
  try {
    const db = await withDeadline("postgres", getConfig().backendTimeoutMs, getDb());
    // Before any allowance is counted: a message without valid work spends none of it.
    if (!sender.uid) {
      const refusal = await withDeadline(
        "postgres",
        getConfig().backendTimeoutMs,
        spendContactWork(db, body.fields[WORK_FIELDS.challenge], body.fields[WORK_FIELDS.nonce]),
      );
      if (refusal)
        return answer(
          problem(400, { error: WORK_REFUSALS[refusal].error, work: refusal }),
          WORK_REFUSALS[refusal].outcome,
        );
    }
    const limited = await checkWindowedLimits(db, contactLimitRules(request, limitedAs(sender)));
    if (limited) return answer(tooMany("messages", limited.retryAfterSeconds), "limited");
    await withDeadline("postgres", getConfig().backendTimeoutMs, addContactMessage(db, sender, text));
  } catch (error) {
    // Deleted while this was on its way: nothing was stored, and there is no account to answer for.
    if (isAccountDeleted(error)) return answer(problem(401, { error: "This account has been deleted." }), "deleted");
    logBackendFault("postgres", "storing a contact message", error);
    return answer(
      problem(503, { error: "Your message could not be sent right now. Please try again in a little while." }),
      "unavailable",
    );
  }
  return answer(problem(201, SENT), "sent");
});

/** A verified account is limited as itself; an unverified one by its own allowance; a visitor by the visitors'. */
function limitedAs(sender: Sender): ContactSender {
  if (!sender.uid) return { kind: "visitor", email: sender.email.toLowerCase() };
  return sender.verified
    ? { kind: "verified-account", uid: sender.uid }
    : { kind: "unverified-account", uid: sender.uid };
}

export const loader = apiRoute(() => problem(405, { error: "Use POST." }, { Allow: "POST" }));
