import { useFetcher, useRevalidator, useSearchParams } from "@remix-run/react";
import { useCallback, useEffect, useId, useRef, useState, type FormEvent } from "react";
import { solveChallenge, WORK_FIELDS, type ContactChallenge } from "~/data/contact-work";

/** Limits shared by the form and POST /api/contact, which enforces them. */
export const CONTACT_LIMITS = { message: 5_000, email: 254, name: 100 } as const;

/** Hidden from people, filled by bots: a message with it set is dropped. */
export const HONEYPOT_FIELD = "website";

interface ContactResult {
  ok?: boolean;
  message?: string;
  error?: string;
  fieldErrors?: Partial<Record<"email" | "name" | "message" | "form", string>>;
}

/** What a post without JavaScript came back with (api.contact.ts redirects with ?contact=…). */
const DOCUMENT_OUTCOMES: Record<string, { ok: boolean; text: string }> = {
  sent: { ok: true, text: "Thanks! Your message was sent. We'll get back to you by email." },
  invalid: {
    ok: false,
    text: "Your message could not be sent: please check your email address and message, then try again.",
  },
  limited: { ok: false, text: "You've sent a lot of messages in a short time. Please try again in a little while." },
  unavailable: { ok: false, text: "Your message could not be sent right now. Please try again in a little while." },
  "needs-script": {
    ok: false,
    text: "Your message was not sent: without logging in, sending needs JavaScript (your browser does a moment's work that keeps spam out). Turn JavaScript on and try again, or log in to send it.",
  },
  expired: { ok: false, text: "Your message was not sent: this page was open for a long time. Please send it again." },
};

/** A challenge is asked for again this long before it expires (a slow device may take a while to answer it). */
const EXPIRY_MARGIN_MS = 5 * 60 * 1000;

/**
 * The next unused, unexpired challenge: the one the page's loader gave, or a
 * fresh one (the loader asked again) once that one was used or is too old.
 * Each submission makes the loaders run again, which brings the next one.
 */
function useNextChallenge(challenge: ContactChallenge | null) {
  const revalidator = useRevalidator();
  const latest = useRef({ challenge, receivedAt: Date.now() });
  const used = useRef(new Set<string>());
  const waiting = useRef<Array<(next: ContactChallenge | null) => void>>([]);
  useEffect(() => {
    latest.current = { challenge, receivedAt: Date.now() };
  }, [challenge]);
  // Whoever waits gets what the loader answered once it has (the same null again, when it could not issue one).
  useEffect(() => {
    if (revalidator.state === "idle")
      for (const resolve of waiting.current.splice(0)) resolve(latest.current.challenge);
  }, [challenge, revalidator.state]);
  return useCallback(async (): Promise<ContactChallenge | null> => {
    const { challenge: current, receivedAt } = latest.current;
    const fresh =
      current &&
      !used.current.has(current.token) &&
      Date.now() - receivedAt < current.expiresInSeconds * 1000 - EXPIRY_MARGIN_MS;
    const next = fresh
      ? current
      : await new Promise<ContactChallenge | null>((resolve) => {
          waiting.current.push(resolve);
          revalidator.revalidate();
        });
    if (next) used.current.add(next.token);
    return next;
  }, [revalidator]);
}

/**
 * "Contact us": posts to /api/contact with a fetcher, so what was typed stays
 * on the page whatever the answer; without JavaScript it is a plain form post.
 * A signed-in user's identity is attached by the server. A visitor's browser
 * first answers the page's challenge (docs/decisions/076), with its progress
 * shown; without JavaScript a visitor is told sending needs it.
 */
export function ContactForm({
  signedInEmail,
  challenge = null,
}: {
  signedInEmail?: string | null;
  challenge?: ContactChallenge | null;
}) {
  const fetcher = useFetcher<ContactResult>();
  const [searchParams] = useSearchParams();
  const formRef = useRef<HTMLFormElement>(null);
  const id = useId();
  const [length, setLength] = useState(0);
  // Until hydration the browser's own checks guard a plain post; after it,
  // the server's field errors show in the page.
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);

  const nextChallenge = useNextChallenge(challenge);
  // While the browser does the work: tries so far, out of about how many.
  const [working, setWorking] = useState<{ tries: number; expected: number } | null>(null);
  const [workError, setWorkError] = useState<string | null>(null);

  const result = fetcher.state === "idle" && !working ? fetcher.data : undefined;
  // Each answer is acted on once: the same answer shows again when the work of the next message ends.
  const handled = useRef<unknown>(null);
  useEffect(() => {
    if (result?.ok && handled.current !== result) {
      handled.current = result;
      formRef.current?.reset();
      setLength(0);
    }
  }, [result]);

  const errors = result?.fieldErrors ?? {};
  const outcome = fetcher.data === undefined ? DOCUMENT_OUTCOMES[searchParams.get("contact") ?? ""] : undefined;
  const sending = fetcher.state !== "idle" || working !== null;

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    if (signedInEmail) return; // an account is known by its session: no work
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    setWorkError(null);
    setWorking({ tries: 0, expected: 1 });
    try {
      const current = await nextChallenge();
      if (!current) {
        setWorkError("The contact form is unavailable right now. Please try again in a little while.");
        return;
      }
      const expected = 2 ** current.difficulty;
      setWorking({ tries: 0, expected });
      const nonce = await solveChallenge(current, (tries) => setWorking({ tries, expected }));
      data.set(WORK_FIELDS.challenge, current.token);
      data.set(WORK_FIELDS.nonce, nonce);
      fetcher.submit(data, { method: "post", action: "/api/contact" });
    } catch (error) {
      setWorkError(error instanceof Error ? error.message : "Your message could not be prepared. Please try again.");
    } finally {
      setWorking(null);
    }
  }
  const over = length > CONTACT_LIMITS.message;

  const describe = (field: keyof typeof errors, extra?: string) =>
    [errors[field] ? `${id}-${field}-error` : null, extra].filter(Boolean).join(" ") || undefined;

  return (
    <section id="contact" className="contact-section" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Contact us</h2>
      <p className="fine-print">
        {signedInEmail
          ? `Questions, ideas or problems? We'll reply to ${signedInEmail}.`
          : "Questions, ideas or problems? Tell us and we'll reply by email."}
      </p>
      <fetcher.Form
        ref={formRef}
        method="post"
        action="/api/contact"
        className="auth-form"
        noValidate={hydrated}
        onSubmit={onSubmit}
      >
        {/* Said to every visitor, not in <noscript>: a browser that blocks scripts may still parse that as unread text. */}
        {signedInEmail ? null : (
          <p className="fine-print">
            Before sending, your browser does a moment&apos;s work that keeps spam out, which needs JavaScript. Without
            it, <a href="/login">log in</a> to send your message.
          </p>
        )}
        {signedInEmail ? null : (
          <>
            <label htmlFor={`${id}-email`}>Your email</label>
            <input
              id={`${id}-email`}
              name="email"
              type="email"
              autoComplete="email"
              required
              maxLength={CONTACT_LIMITS.email}
              aria-invalid={errors.email ? true : undefined}
              aria-describedby={describe("email")}
            />
            {errors.email ? (
              <p id={`${id}-email-error`} className="form-error">
                {errors.email}
              </p>
            ) : null}
            <label htmlFor={`${id}-name`}>Your name (optional)</label>
            <input
              id={`${id}-name`}
              name="name"
              autoComplete="name"
              maxLength={CONTACT_LIMITS.name}
              aria-invalid={errors.name ? true : undefined}
              aria-describedby={describe("name")}
            />
            {errors.name ? (
              <p id={`${id}-name-error`} className="form-error">
                {errors.name}
              </p>
            ) : null}
          </>
        )}
        <label htmlFor={`${id}-message`}>Message</label>
        {/* No maxLength: it would silently cut a long paste; the counter and the server say so instead. */}
        <textarea
          id={`${id}-message`}
          name="message"
          rows={5}
          required
          onChange={(event) => setLength(event.currentTarget.value.length)}
          aria-invalid={errors.message || over ? true : undefined}
          aria-describedby={describe("message", `${id}-count`)}
        />
        <p id={`${id}-count`} className={over ? "form-error" : "fine-print"}>
          {length.toLocaleString("en")} / {CONTACT_LIMITS.message.toLocaleString("en")} characters
        </p>
        {errors.message ? (
          <p id={`${id}-message-error`} className="form-error">
            {errors.message}
          </p>
        ) : null}
        <div className="visually-hidden" aria-hidden="true">
          <label htmlFor={`${id}-hp`}>Leave this field empty</label>
          <input id={`${id}-hp`} name={HONEYPOT_FIELD} tabIndex={-1} autoComplete="off" />
        </div>
        <p>
          <button type="submit" className="button primary" disabled={sending}>
            {sending ? "Sending…" : "Send message"}
          </button>
        </p>
        {working ? (
          // Tries against about how many are needed on average: a guess, so it never shows done before it is.
          <progress
            className="contact-work"
            aria-label="Preparing your message"
            max={100}
            value={Math.min(95, Math.round((working.tries / working.expected) * 100))}
          />
        ) : null}
        <div aria-live="polite">
          {working ? (
            <p className="fine-print" role="status">
              Preparing your message (a moment&apos;s check that keeps spam out)…
            </p>
          ) : null}
          {result?.ok ? (
            <p className="form-notice" role="status">
              {result.message}
            </p>
          ) : null}
          {result?.error ? (
            <p className="form-error" role="alert">
              {result.error}
            </p>
          ) : null}
          {workError ? (
            <p className="form-error" role="alert">
              {workError}
            </p>
          ) : null}
          {outcome ? (
            <p className={outcome.ok ? "form-notice" : "form-error"} role={outcome.ok ? "status" : "alert"}>
              {outcome.text}
            </p>
          ) : null}
        </div>
      </fetcher.Form>
    </section>
  );
}
