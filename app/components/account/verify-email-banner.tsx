import { useState } from "react";
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
export function VerifyEmailBanner({ email, hasPassword, hasGoogle, firebase, localMode }: VerifyEmailBannerProps) {
  const [open, setOpen] = useState(false);
  const [sent, setSent] = useState(false);
  return (
    <section className="verify-banner" aria-labelledby="verify-banner-title">
      <h2 id="verify-banner-title">Verify your email address</h2>
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
