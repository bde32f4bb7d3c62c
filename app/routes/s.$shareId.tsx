import type {
  ActionFunctionArgs,
  HeadersFunction,
  LinksFunction,
  LoaderFunctionArgs,
  MetaFunction,
} from "@remix-run/node";
import { Form, Link, useLoaderData, useNavigation } from "@remix-run/react";
import { continueShare, loadPublicShare, PUBLIC_SHARE_HEADERS } from "~/chat/share-pages.server";
import { LocalTime } from "~/components/time/local-time";
import { AppErrorBoundary } from "~/components/error-boundary";
import { SharedTranscript } from "~/components/share/shared-transcript";
import { pageTitle } from "~/meta";
import chatStyles from "~/styles/chat.css";
import shareStyles from "~/styles/share.css";

/** /s/<id>: a conversation someone shared, read-only, for anyone (ADR 054). */

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  ...pageTitle(data?.share.title ?? "Shared conversation"),
  // Also on the 404 a revoked link becomes: neither is for search engines.
  { name: "robots", content: "noindex" },
];

export const links: LinksFunction = () => [
  { rel: "stylesheet", href: chatStyles },
  { rel: "stylesheet", href: shareStyles },
];

// The loader's own headers, and the same on errors (a revoked link's 404).
export const headers: HeadersFunction = ({ loaderHeaders, errorHeaders }) => {
  const headers = new Headers(PUBLIC_SHARE_HEADERS);
  for (const [name, value] of errorHeaders ?? loaderHeaders) headers.set(name, value);
  return headers;
};

export function loader({ request, params }: LoaderFunctionArgs) {
  return loadPublicShare(request, params.shareId);
}

export function action({ request, params }: ActionFunctionArgs) {
  return continueShare(request, params.shareId);
}

export default function SharedConversationPage() {
  const { share, signedIn, loginPath } = useLoaderData<typeof loader>();
  const navigation = useNavigation();
  return (
    <article className="page shared-page" aria-labelledby="shared-title">
      <h1 id="shared-title">{share.title}</h1>
      <p className="shared-meta">
        {share.displayName ? `Shared by ${share.displayName}` : "Shared conversation"}
        {" · "}
        <LocalTime value={share.createdAt} />
      </p>
      <SharedTranscript messages={share.messages} shareId={share.id} />
      <div className="shared-continue">
        {signedIn ? (
          <Form method="post">
            <input type="hidden" name="intent" value="continue" />
            <button type="submit" className="button primary" disabled={navigation.state !== "idle"}>
              Continue this conversation
            </button>
          </Form>
        ) : (
          <Link to={loginPath} className="button primary">
            Log in to continue
          </Link>
        )}
        <p>{signedIn ? "You get your own copy; this link stays as it is." : "Continuing makes a copy of your own."}</p>
      </div>
    </article>
  );
}

export const ErrorBoundary = AppErrorBoundary;
