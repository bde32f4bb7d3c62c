import { useState } from "react";
import type { PublicFirebaseConfig } from "~/auth/firebase-client";
import { LocalTime } from "~/components/time/local-time";
import { ReauthForm } from "./reauth-form";

export interface AccountView {
  email: string | null;
  emailVerified: boolean;
  providers: Array<{ id: string; label: string }>;
  hasPassword: boolean;
  createdAt: string | null;
  lastSignInAt: string | null;
}

/** What the identity service knows of the account (email, sign-in methods, dates), with the email's verification. */
export function AccountFacts({
  account,
  firebase,
  localMode,
}: {
  account: AccountView;
  firebase: PublicFirebaseConfig;
  localMode: boolean;
}) {
  return (
    <dl className="account-facts">
      <div>
        <dt>Email</dt>
        <dd>
          {account.email ?? "—"}{" "}
          {account.emailVerified ? (
            <span className="verified">Verified</span>
          ) : (
            <>
              <span className="unverified">Not verified</span>
              {account.email ? (
                <VerifyEmail account={account} email={account.email} firebase={firebase} localMode={localMode} />
              ) : null}
            </>
          )}
        </dd>
      </div>
      <div>
        <dt>Login methods</dt>
        <dd>{account.providers.length > 0 ? account.providers.map((provider) => provider.label).join(", ") : "—"}</dd>
      </div>
      <div>
        <dt>Member since</dt>
        <dd>
          <LocalTime value={account.createdAt} />
        </dd>
      </div>
      <div>
        <dt>Last login</dt>
        <dd>
          <LocalTime value={account.lastSignInAt} />
        </dd>
      </div>
    </dl>
  );
}

/**
 * The identity service sends the verification email for a signed-in client
 * user only, and the browser keeps no Firebase session: so the user confirms
 * it's them first (which also counts as a recent sign-in).
 */
function VerifyEmail({
  account,
  email,
  firebase,
  localMode,
}: {
  account: AccountView;
  email: string;
  firebase: PublicFirebaseConfig;
  localMode: boolean;
}) {
  const [open, setOpen] = useState(false);
  const [sent, setSent] = useState(false);
  if (sent) {
    return (
      <p className="form-notice" role="status">
        We've sent a verification link to {email}. Open it, then reload this page.
        {localMode ? " In local mode the Auth emulator prints the link in its log." : ""}
      </p>
    );
  }
  if (!open) {
    return (
      <p>
        <button type="button" className="button small" onClick={() => setOpen(true)}>
          Send verification email
        </button>
      </p>
    );
  }
  return (
    <ReauthForm
      firebase={firebase}
      email={email}
      hasPassword={account.hasPassword}
      hasGoogle={account.providers.some((provider) => provider.id === "google.com")}
      intro="To send the verification email, confirm it's you."
      submitLabel="Send verification email"
      onConfirmed={async (user) => {
        const { sendVerification } = await import("./identity-client");
        await sendVerification(user);
        setSent(true);
      }}
      onCancel={() => setOpen(false)}
    />
  );
}
