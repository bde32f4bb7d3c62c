import type { SessionUser } from "~/auth/session.server";

export function SignedInAs({ user, role }: { user: SessionUser; role: string }) {
  return (
    <p className="signed-in-as">
      Logged in as <strong>{user.displayName || user.email || user.uid}</strong>
      {user.displayName && user.email ? ` (${user.email})` : null}
      {role ? ` · role: ${role}` : null}
    </p>
  );
}
