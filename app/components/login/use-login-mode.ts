import { useSearchParams } from "@remix-run/react";
import { useState } from "react";

export type LoginMode = "signin" | "signup" | "reset";

/** Which form shows: sign-in, unless the address asks for sign-up or reset (`?mode=`) and there is a password form. */
export function useLoginMode(withPassword: boolean) {
  const [searchParams] = useSearchParams();
  const initialMode = withPassword ? searchParams.get("mode") : null;
  return useState<LoginMode>(initialMode === "signup" || initialMode === "reset" ? initialMode : "signin");
}
