import { useState } from "react";

export interface Typed {
  email: string;
  password: string;
}

/**
 * The email and password fields and whether the password shows. Held by the
 * page, not by one form: what was typed stays through a switch between the
 * sign-in, sign-up and reset forms.
 */
export function useCredentials() {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [showPassword, setShowPassword] = useState(false);

  /** What a submitted form's fields hold, which the fields then keep. */
  function takeTyped(form: HTMLFormElement): Typed {
    // What the fields hold, not only the state: text typed before the page
    // finished loading (hydration) never reached onChange.
    const typed = new FormData(form);
    const typedEmail = String(typed.get("email") ?? email).trim();
    const typedPassword = String(typed.get("password") ?? password);
    setEmail(typedEmail);
    setPassword(typedPassword);
    return { email: typedEmail, password: typedPassword };
  }

  return { email, setEmail, password, setPassword, showPassword, setShowPassword, takeTyped };
}

export type Credentials = ReturnType<typeof useCredentials>;
