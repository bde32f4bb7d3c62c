import { isRouteErrorResponse, Link, useRouteError } from "@remix-run/react";

/** The one error boundary: friendly words per status, never a stack trace. */
const MESSAGES: Record<number, { title: string; text: string }> = {
  400: {
    title: "That request didn't work",
    text: "Something in the request was not right. Please check and try again.",
  },
  401: { title: "Please log in", text: "You need to log in to see this page." },
  403: { title: "Not allowed", text: "You don't have access to this page." },
  404: {
    title: "Page not found",
    text: "We couldn't find that page. It may have moved, or the address may be mistyped.",
  },
  405: { title: "Not allowed", text: "That kind of request isn't supported here." },
  413: { title: "Too large", text: "What you sent is too large." },
  429: { title: "Slow down a little", text: "Too many requests in a short time. Please wait a moment and try again." },
  503: {
    title: "Temporarily unavailable",
    text: "A service this page needs isn't answering right now. Please try again shortly.",
  },
};

const FALLBACK = { title: "Something went wrong", text: "An unexpected error happened on our side. Please try again." };

export function errorTitle(error: unknown): string {
  const status = isRouteErrorResponse(error) ? error.status : 500;
  return (MESSAGES[status] ?? FALLBACK).title;
}

export function AppErrorBoundary() {
  const error = useRouteError();
  const status = isRouteErrorResponse(error) ? error.status : 500;
  const detail =
    isRouteErrorResponse(error) && error.data && typeof error.data === "object" && "error" in error.data
      ? String((error.data as { error: unknown }).error)
      : null;
  const { title, text } = MESSAGES[status] ?? FALLBACK;
  return (
    <section className="page error-page" aria-labelledby="error-title">
      <p className="error-status">{status}</p>
      <h1 id="error-title">{title}</h1>
      <p>{detail ?? text}</p>
      <p>
        <Link to="/">Go to the home page</Link>
      </p>
    </section>
  );
}
