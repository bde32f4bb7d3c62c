import { json } from "@remix-run/node";

/** Any unknown path: a real 404, rendered by the shared error boundary. */
export function loader() {
  throw json(
    { error: "We couldn't find that page. It may have moved, or the address may be mistyped." },
    { status: 404 },
  );
}

export function action() {
  throw json({ error: "Not found." }, { status: 404 });
}

export default function NotFound() {
  return null;
}
