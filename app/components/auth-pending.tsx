import { createContext, useContext, useState, type ReactNode } from "react";
import { useNavigation } from "@remix-run/react";

/**
 * While a sign-in or sign-out is in flight in the browser the nav shows a
 * pending state instead of links that are about to be wrong. The login page
 * marks the Firebase part of a sign-in; the session and logout submissions
 * are seen through Remix's navigation state.
 */
type Pending = "signing-in" | "signing-out" | null;

const AuthPendingContext = createContext<{
  pending: Pending;
  setPending: (pending: Pending) => void;
}>({ pending: null, setPending: () => {} });

export function AuthPendingProvider({ children }: { children: ReactNode }) {
  const [pending, setPending] = useState<Pending>(null);
  return <AuthPendingContext.Provider value={{ pending, setPending }}>{children}</AuthPendingContext.Provider>;
}

export function useSetAuthPending() {
  return useContext(AuthPendingContext).setPending;
}

export function useAuthPending(): Pending {
  const { pending } = useContext(AuthPendingContext);
  const navigation = useNavigation();
  if (navigation.state !== "idle") {
    if (navigation.formAction === "/api/auth/logout") return "signing-out";
    if (navigation.formAction === "/api/auth/session") return "signing-in";
  }
  return pending;
}
