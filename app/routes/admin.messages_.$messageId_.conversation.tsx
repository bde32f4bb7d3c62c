import {
  json,
  type HeadersFunction,
  type LinksFunction,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { requireAdmin } from "~/auth/session.server";
import { SharedTranscript } from "~/components/share/shared-transcript";
import { openReportedConversation } from "~/data/inbox-replies.server";
import { getInboxMessage } from "~/data/inbox.server";
import { withDatabase } from "~/http/with-database.server";
import { pageTitle } from "~/meta";
import chatStyles from "~/styles/chat.css";
import shareStyles from "~/styles/share.css";

/**
 * /admin/messages/<id>/conversation: the conversation a report came from,
 * read-only, as its owner sees it now. Admins read a user's conversation
 * only through a report, and each opening is written to the admin audit log
 * in the same transaction as the read (docs/decisions/063).
 */

export const meta: MetaFunction = () => pageTitle("Reported conversation");

export const links: LinksFunction = () => [
  { rel: "stylesheet", href: chatStyles },
  { rel: "stylesheet", href: shareStyles },
];

const NO_STORE = { "Cache-Control": "no-store" };

export const headers: HeadersFunction = () => NO_STORE;

export async function loader({ request, params }: LoaderFunctionArgs) {
  // Every loader under /admin checks the role freshly, never from the auth caches (ADR 002).
  const { user } = await requireAdmin(request);
  const id = params.messageId ?? "";
  const found = await withDatabase("opening a reported conversation", async (db) => {
    const message = await getInboxMessage(db, id);
    if (!message || message.kind !== "report") return { message: undefined, conversation: null };
    return {
      message,
      conversation: await openReportedConversation(db, { uid: user.uid, email: user.email ?? "" }, message),
    };
  });
  if (!found.message)
    throw json({ error: "That report does not exist or was deleted." }, { status: 404, headers: NO_STORE });
  if (!found.conversation) {
    throw json(
      { error: "The user has deleted this conversation. The report keeps the exchange they reported." },
      { status: 404, headers: NO_STORE },
    );
  }
  return json(
    {
      messageId: found.message.id,
      reporter: found.message.senderEmail,
      reportedReplyId: found.message.exchange?.messageId ?? null,
      title: found.conversation.title,
      messages: found.conversation.messages,
    },
    { headers: NO_STORE },
  );
}

export default function ReportedConversation() {
  const { messageId, reporter, reportedReplyId, title, messages } = useLoaderData<typeof loader>();
  const reportedIndex = messages.findIndex((message) => message.id === reportedReplyId);
  return (
    <article className="reported-conversation" aria-labelledby="conversation-title">
      <p>
        <Link to={`/admin/messages/${messageId}`}>← Back to the report</Link>
      </p>
      <h1 id="conversation-title">{title || "Untitled conversation"}</h1>
      <p className="notice-box" role="note">
        Read-only: the conversation {reporter} reported from, as it is now. Your opening of it was recorded in the admin
        audit log.
        {reportedIndex === -1
          ? " The reported reply is no longer in it (edited or regenerated since)."
          : ` The reported reply is message ${reportedIndex + 1} of ${messages.length}.`}
      </p>
      <SharedTranscript messages={messages} />
    </article>
  );
}
