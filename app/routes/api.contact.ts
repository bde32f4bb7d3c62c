import type { ActionFunctionArgs } from "@remix-run/node";
import { z } from "zod";
import { clientAddress, isSameOrigin } from "~/auth/request.server";
import { getSessionUser } from "~/auth/session.server";
import { CONTACT_LIMITS, HONEYPOT_FIELD } from "~/components/contact-form";
import { getConfig } from "~/config.server";
import { addContactMessage, type Sender } from "~/data/inbox.server";
import {
  backToReferrer,
  checkHourlyLimits,
  fieldErrors,
  isDocumentSubmission,
  problem,
  readBody,
  tooMany,
  type LimitRule,
} from "~/data/inbox-input.server";
import { getDb } from "~/db/client.server";
import { logBackendFault, withDeadline } from "~/deadline.server";
import { apiRoute } from "~/http/api-route.server";

/**
 * POST /api/contact: the "Contact us" form (home page and dashboard). A
 * signed-in user's identity comes from the session, never from the form; a
 * visitor gives an email address. 201 when stored (or when the honeypot
 * caught a bot, which must not learn that it was caught).
 */

const message = z
  .string({ error: "Please write a message." })
  .trim()
  .min(1, "Please write a message.")
  .max(CONTACT_LIMITS.message, `Please keep your message to ${CONTACT_LIMITS.message.toLocaleString("en")} characters or fewer.`);

const signedInSchema = z.object({ message });

const visitorSchema = z.object({
  message,
  email: z
    .string({ error: "Please enter your email address so we can reply." })
    .trim()
    .min(1, "Please enter your email address so we can reply.")
    .max(CONTACT_LIMITS.email, "That email address is too long.")
    .pipe(z.email("Please enter a valid email address, like name@example.com.")),
  name: z.string().trim().max(CONTACT_LIMITS.name, `Please keep your name to ${CONTACT_LIMITS.name} characters or fewer.`).optional(),
});

const SENT = { ok: true, message: "Thanks! Your message was sent. We'll get back to you by email." };

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
    sender = { email: signedIn.user.email!, uid: signedIn.user.uid, name: signedIn.user.displayName, role: signedIn.role };
    text = parsed.data.message;
  } else {
    const parsed = visitorSchema.safeParse(body.fields);
    if (!parsed.success) return answer(problem(400, { fieldErrors: fieldErrors(parsed.error) }), "invalid");
    sender = { email: parsed.data.email.toLowerCase(), uid: null, name: parsed.data.name || null, role: "" };
    text = parsed.data.message;
  }

  try {
    const db = await withDeadline("postgres", getConfig().backendTimeoutMs, getDb());
    const limited = await checkHourlyLimits(db, contactLimits(request, sender.email));
    if (limited) return answer(tooMany("messages", limited.retryAfterSeconds), "limited");
    await withDeadline("postgres", getConfig().backendTimeoutMs, addContactMessage(db, sender, text));
  } catch (error) {
    logBackendFault("postgres", "storing a contact message", error);
    return answer(problem(503, { error: "Your message could not be sent right now. Please try again in a little while." }), "unavailable");
  }
  return answer(problem(201, SENT), "sent");
});

export const loader = apiRoute(() => problem(405, { error: "Use POST." }, { Allow: "POST" }));

/** Per client address where the proxy tells it, per email address, then overall. */
function contactLimits(request: Request, email: string): LimitRule[] {
  const limits = getConfig().inboxLimits;
  const rules: LimitRule[] = [];
  const address = clientAddress(request);
  if (address) rules.push({ key: `contact:ip:${address}`, limit: limits.contactPerAddress });
  rules.push({ key: `contact:email:${email}`, limit: limits.contactPerEmail });
  rules.push({ key: "contact:all", limit: limits.contactOverall });
  return rules;
}
