import { useState } from "react";
import { initials } from "./plan";

/** Who is signed in: photo (or initials), name, email and plan. */
export function ProfileHeader({
  displayName,
  email,
  photoURL,
  plan,
  adminPending,
}: {
  displayName: string | null;
  email: string | null;
  photoURL: string | null;
  /** Null when the role could not be read. */
  plan: string | null;
  /** The role is admin but the email is unverified, so admin rights do not apply yet. */
  adminPending: boolean;
}) {
  // A photo that fails to load (moved, or refused by the page's policy) falls back to initials.
  const [photoFailed, setPhotoFailed] = useState(false);
  const showPhoto = Boolean(photoURL) && /^https:\/\//i.test(photoURL ?? "") && !photoFailed;
  return (
    <section className="profile" aria-label="Your profile">
      {showPhoto ? (
        <img
          className="avatar"
          src={photoURL ?? undefined}
          alt=""
          width={64}
          height={64}
          referrerPolicy="no-referrer"
          onError={() => setPhotoFailed(true)}
        />
      ) : (
        <span className="avatar initials" aria-hidden="true">
          {initials(displayName, email)}
        </span>
      )}
      <div>
        <p className="profile-name">{displayName || email}</p>
        {displayName && email ? <p className="profile-email">{email}</p> : null}
        <p>
          Plan:{" "}
          {plan ? (
            <strong className="plan-badge">{plan}</strong>
          ) : (
            <span className="fine-print">cannot be shown right now</span>
          )}
          {adminPending ? (
            <span className="fine-print"> (verify your email address for admin rights to apply)</span>
          ) : null}
        </p>
      </div>
    </section>
  );
}
