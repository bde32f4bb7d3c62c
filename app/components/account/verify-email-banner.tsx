import { useEffect, useRef, useState, type RefObject } from "react";
import type { PublicFirebaseConfig } from "~/auth/firebase-client";
import { ReauthForm } from "~/components/dashboard/reauth-form";

export interface VerifyEmailBannerProps {
  email: string;
  hasPassword: boolean;
  hasGoogle: boolean;
  firebase: PublicFirebaseConfig;
  localMode: boolean;
}

/**
 * Shown in the assistant while the account's address is unverified: the link
 * went out at sign-up, and it can be sent again. The identity service sends
 * it only for a signed-in client user and the browser keeps no Firebase
 * session, so "Send it again" first asks the user to confirm it's them (as the
 * dashboard does); the Firebase SDK loads then, not with the page.
 */
export function VerifyEmailBanner(props: VerifyEmailBannerProps) {
  const { dismissed, dismiss, reopen } = useDismissed(props.email);
  const chip = useRef<HTMLButtonElement>(null);
  const hide = useRef<HTMLButtonElement>(null);
  // Focus follows the control that replaced the one just pressed (never on the first render).
  const moved = useRef(false);
  useEffect(() => {
    if (!moved.current) return;
    (dismissed ? chip : hide).current?.focus();
  }, [dismissed]);
  if (dismissed) {
    return (
      <button
        ref={chip}
        type="button"
        className="chip-button verify-chip"
        onClick={() => {
          moved.current = true;
          reopen();
        }}
      >
        Verify email
      </button>
    );
  }
  return (
    <BannerBody
      {...props}
      hideRef={hide}
      onHide={() => {
        moved.current = true;
        dismiss();
      }}
    />
  );
}

/**
 * Hidden to a small chip, remembered in this browser for this account: the
 * reminder takes a good part of a phone's screen, and the chip keeps it one
 * press away. Storage may be unavailable (privacy settings): then it is
 * hidden for this page only.
 */
function useDismissed(email: string) {
  const key = `nuvara.verify-banner.${email}`;
  const [dismissed, setDismissed] = useState(false);
  useEffect(() => {
    try {
      setDismissed(localStorage.getItem(key) === "hidden");
    } catch {
      /* shown */
    }
  }, [key]);
  const remember = (hidden: boolean) => {
    setDismissed(hidden);
    try {
      if (hidden) localStorage.setItem(key, "hidden");
      else localStorage.removeItem(key);
    } catch {
      /* remembered for this page only */
    }
  };
  return { dismissed, dismiss: () => remember(true), reopen: () => remember(false) };
}

function BannerBody({
  email,
  hasPassword,
  hasGoogle,
  firebase,
  localMode,
  hideRef,
  onHide,
}: VerifyEmailBannerProps & { hideRef: RefObject<HTMLButtonElement>; onHide: () => void }) {
  const [open, setOpen] = useState(false);
  const [sent, setSent] = useState(false);
  return (
    <section className="verify-banner" aria-labelledby="verify-banner-title">
      <div className="verify-banner-head">
        <h2 id="verify-banner-title">Verify your email address</h2>
        <button ref={hideRef} type="button" className="chip-button verify-hide" onClick={onHide}>
          Hide
        </button>
      </div>
      {sent ? (
        <p className="form-notice" role="status">
          We've sent a new link to {email}. Open it, then reload this page.
          {localMode ? " In local mode the Auth emulator prints the link in its log." : ""}
        </p>
      ) : (
        <p>
          We sent a link to <strong>{email}</strong> when you signed up. Open it to confirm the address is yours.{" "}
          {open ? null : (
            <button type="button" className="link-button" onClick={() => setOpen(true)}>
              Send the link again
            </button>
          )}
        </p>
      )}
      {open && !sent ? (
        <ReauthForm
          firebase={firebase}
          email={email}
          hasPassword={hasPassword}
          hasGoogle={hasGoogle}
          intro="To send the link again, confirm it's you."
          submitLabel="Send the link again"
          onConfirmed={async (user) => {
            const { sendVerification } = await import("~/components/dashboard/identity-client");
            await sendVerification(user);
            setSent(true);
            setOpen(false);
          }}
          onCancel={() => setOpen(false)}
        />
      ) : null}
    </section>
  );
}
