import type { ActionFunctionArgs } from "@remix-run/node";
import { z } from "zod";
import { clientAddress, isSameOrigin } from "~/auth/request.server";
import { getSessionUser } from "~/auth/session.server";
import { getConfig } from "~/config.server";
import { addReport, findReportedExchange } from "~/data/inbox.server";
import { backToReferrer, fieldErrors, isDocumentSubmission, problem, readBody, tooMany } from "~/http/forms.server";
import { checkHourlyLimits, type LimitRule } from "~/data/rate-limits.server";
import { getDb } from "~/db/client.server";
import { REPORT_REASONS } from "~/db/schema";
import { isAccountDeleted } from "~/data/account-lock.server";
import { logBackendFault, withDeadline } from "~/deadline.server";
import { apiRoute } from "~/http/api-route.server";
import { storableString } from "~/text/storable-text";

/**
 * POST /api/reports: a signed-in user reports one of their assistant replies
 * (form or JSON `{ messageId, reason, comment }`). The reply and the user
 * message before it are copied into the report, so admins see the exchange
 * without browsing conversations, even after it is deleted. 201 when stored.
 */

const MAX_REPORT_COMMENT = 2_000;

const reportSchema = z.object({
  messageId: z
    .string({ error: "Which reply? The message id is missing." })
    .trim()
    .pipe(z.guid("That reply does not exist.")),
  reason: z.enum(REPORT_REASONS, { error: "Choose a reason: harmful, wrong or other." }),
  // A NUL or a lone surrogate would fail the insert: a 503 the reporter could never get past (docs/security.md).
  comment: storableString()
    .trim()
    .max(
      MAX_REPORT_COMMENT,
      `Please keep your comment to ${MAX_REPORT_COMMENT.toLocaleString("en")} characters or fewer.`,
    )
    .default(""),
});

export const action = apiRoute(async ({ request }: ActionFunctionArgs) => {
  if (request.method !== "POST") return problem(405, { error: "Use POST." }, { Allow: "POST" });
  // The report is made in the signed-in user's name: another site must not make it.
  if (!isSameOrigin(request)) return problem(403, { error: "Cross-origin requests are refused." });
  const body = await readBody(request);
  if ("refusal" in body) return body.refusal;
  const answer = (response: Response, outcome: string) =>
    isDocumentSubmission(request) ? backToReferrer(request, "report", outcome) : response;

  const session = await getSessionUser(request);
  if (session.status !== "signed-in") {
    if (session.degraded)
      return problem(503, { error: "Login cannot be checked right now. Please try again shortly." });
    return answer(problem(401, { error: "Please log in to report a reply." }), "signed-out");
  }
  const parsed = reportSchema.safeParse(body.fields);
  if (!parsed.success) return answer(problem(400, { fieldErrors: fieldErrors(parsed.error) }), "invalid");
  const { messageId, reason, comment } = parsed.data;
  const { user, role } = session;

  const timeout = getConfig().backendTimeoutMs;
  try {
    const db = await withDeadline("postgres", timeout, getDb());
    const limited = await checkHourlyLimits(db, reportLimits(request, user.uid));
    if (limited) return answer(tooMany("reports", limited.retryAfterSeconds), "limited");
    const exchange = await withDeadline("postgres", timeout, findReportedExchange(db, user.uid, messageId));
    if (!exchange)
      return answer(problem(404, { error: "That reply was not found in your conversations." }), "not-found");
    const sender = {
      email: user.email ?? `${user.uid} (no email)`,
      uid: user.uid,
      name: user.displayName,
      role,
      verified: user.emailVerified,
    };
    const report = await withDeadline("postgres", timeout, addReport(db, sender, { reason, comment, exchange }));
    return answer(
      problem(201, { ok: true, id: report.id, message: "Thanks! Your report was sent to the admins." }),
      "sent",
    );
  } catch (error) {
    // Deleted while this was on its way: nothing was stored, and there is no account to answer for.
    if (isAccountDeleted(error)) return answer(problem(401, { error: "This account has been deleted." }), "deleted");
    logBackendFault("postgres", "storing a report", error);
    return answer(
      problem(503, { error: "Your report could not be sent right now. Please try again in a little while." }),
      "unavailable",
    );
  }
});

export const loader = apiRoute(() => problem(405, { error: "Use POST." }, { Allow: "POST" }));

/** Per account, and per client address where the proxy tells it. */
function reportLimits(request: Request, uid: string): LimitRule[] {
  const limits = getConfig().inboxLimits;
  const rules: LimitRule[] = [];
  const address = clientAddress(request);
  if (address) rules.push({ key: `report:ip:${address}`, limit: limits.reportPerAddress });
  rules.push({ key: `report:uid:${uid}`, limit: limits.reportPerAccount });
  return rules;
}
