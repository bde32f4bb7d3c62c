import { json, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { getSessionUser } from "~/auth/session.server";
import { ContactForm } from "~/components/contact-form";
import { getConfig } from "~/config.server";
import { issueContactChallenge } from "~/data/contact-work.server";
import { getDb } from "~/db/client.server";
import { logBackendFault, withDeadline } from "~/deadline.server";
import { SignedOutNotice } from "~/components/signed-out-notice";
import { useRootData } from "~/root";
import { pageTitle } from "~/meta";

export const meta: MetaFunction = () => [
  ...pageTitle(),
  {
    name: "description",
    content: "Nuvara² is a self-hostable AI assistant: chat, tools and a dashboard, with login through Firebase.",
  },
];

/**
 * A visitor's contact form needs a challenge to answer (docs/decisions/076);
 * a new one on every load, so each message is its own work. Without
 * PostgreSQL there is none, and the form says it cannot send right now.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const state = await getSessionUser(request);
  if (state.status === "signed-in") return json({ contactChallenge: null });
  const contactChallenge = await withDeadline(
    "postgres",
    getConfig().backendTimeoutMs,
    getDb().then((db) => issueContactChallenge(db)),
  ).catch((error: unknown) => {
    logBackendFault("postgres", "issuing a contact challenge", error);
    return null;
  });
  return json({ contactChallenge });
}

export default function Home() {
  const { contactChallenge } = useLoaderData<typeof loader>();
  const data = useRootData();
  const user = data?.user;
  const name = user?.displayName || user?.email;
  return (
    <div className="page home">
      <SignedOutNotice signedIn={Boolean(user)} />
      <section className="hero" aria-labelledby="hero-title">
        <h1 id="hero-title">
          Nuvara<sup>2</sup>
        </h1>
        <p className="lead">
          Your own AI assistant: ask questions, draft and improve writing, explain code and work through problems — on
          models you choose, on a server you control.
        </p>
        {user ? (
          <>
            <p>Welcome back{name ? `, ${name}` : ""}.</p>
            <p className="actions">
              <Link className="button primary" to="/nuvara">
                Open the assistant
              </Link>
              <Link className="button" to="/dashboard">
                Your dashboard
              </Link>
            </p>
          </>
        ) : (
          <p className="actions">
            <Link className="button primary" to="/login" prefetch="none">
              Log in
            </Link>
            <Link className="button" to="/login?mode=signup" prefetch="none">
              Create an account
            </Link>
          </p>
        )}
      </section>
      <section className="features" aria-label="What Nuvara² does">
        <article>
          <h2>Assistant</h2>
          <p>Chat with streaming replies, keep your conversations, and pick the model that fits the task.</p>
        </article>
        <article>
          <h2>Tools</h2>
          <p>
            Ready-made prompts for summarising, translating and explaining code, plus a calculator and converters the
            assistant can use.
          </p>
        </article>
        <article>
          <h2>Dashboard</h2>
          <p>Your usage, your plan and your account in one place.</p>
        </article>
        <article>
          <h2>Private by design</h2>
          <p>
            Your login stays on the server, in a cookie that scripts on the page cannot read, and your conversations are
            kept in this site's own database.
          </p>
        </article>
      </section>
      <ContactForm signedInEmail={user?.email} challenge={contactChallenge} />
    </div>
  );
}
