import { useFetcher, useSearchParams } from "@remix-run/react";
import { useEffect, useId, useRef, useState } from "react";

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
  invalid: { ok: false, text: "Your message could not be sent: please check your email address and message, then try again." },
  limited: { ok: false, text: "You've sent a lot of messages in a short time. Please try again in a little while." },
  unavailable: { ok: false, text: "Your message could not be sent right now. Please try again in a little while." },
};

/**
 * "Contact us": posts to /api/contact with a fetcher, so what was typed stays
 * on the page whatever the answer; without JavaScript it is a plain form post.
 * A signed-in user's identity is attached by the server.
 */
export function ContactForm({ signedInEmail }: { signedInEmail?: string | null }) {
  const fetcher = useFetcher<ContactResult>();
  const [searchParams] = useSearchParams();
  const formRef = useRef<HTMLFormElement>(null);
  const id = useId();
  const [length, setLength] = useState(0);
  // Until hydration the browser's own checks guard a plain post; after it,
  // the server's field errors show in the page.
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);

  const result = fetcher.state === "idle" ? fetcher.data : undefined;
  useEffect(() => {
    if (result?.ok) {
      formRef.current?.reset();
      setLength(0);
    }
  }, [result]);

  const errors = result?.fieldErrors ?? {};
  const outcome = fetcher.data === undefined ? DOCUMENT_OUTCOMES[searchParams.get("contact") ?? ""] : undefined;
  const sending = fetcher.state !== "idle";
  const over = length > CONTACT_LIMITS.message;

  const describe = (field: keyof typeof errors, extra?: string) =>
    [errors[field] ? `${id}-${field}-error` : null, extra].filter(Boolean).join(" ") || undefined;

  return (
    <section id="contact" className="contact-section" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Contact us</h2>
      <p className="fine-print">
        {signedInEmail ? `Questions, ideas or problems? We'll reply to ${signedInEmail}.` : "Questions, ideas or problems? Tell us and we'll reply by email."}
      </p>
      <fetcher.Form ref={formRef} method="post" action="/api/contact" className="auth-form" noValidate={hydrated}>
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
            {errors.email ? <p id={`${id}-email-error`} className="form-error">{errors.email}</p> : null}
            <label htmlFor={`${id}-name`}>Your name (optional)</label>
            <input
              id={`${id}-name`}
              name="name"
              autoComplete="name"
              maxLength={CONTACT_LIMITS.name}
              aria-invalid={errors.name ? true : undefined}
              aria-describedby={describe("name")}
            />
            {errors.name ? <p id={`${id}-name-error`} className="form-error">{errors.name}</p> : null}
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
        {errors.message ? <p id={`${id}-message-error`} className="form-error">{errors.message}</p> : null}
        <div className="visually-hidden" aria-hidden="true">
          <label htmlFor={`${id}-hp`}>Leave this field empty</label>
          <input id={`${id}-hp`} name={HONEYPOT_FIELD} tabIndex={-1} autoComplete="off" />
        </div>
        <p>
          <button type="submit" className="button primary" disabled={sending}>
            {sending ? "Sending…" : "Send message"}
          </button>
        </p>
        <div aria-live="polite">
          {result?.ok ? <p className="form-notice" role="status">{result.message}</p> : null}
          {result?.error ? <p className="form-error" role="alert">{result.error}</p> : null}
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
