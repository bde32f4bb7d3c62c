import { createContext, useContext } from "react";

/**
 * The CSP nonce of this response, for Remix's inline scripts. It lives in
 * React context on the server only (never in loader data); in the browser it
 * is "" (browsers hide nonces from the DOM), which is fine after load.
 */
const NonceContext = createContext("");

export const NonceProvider = NonceContext.Provider;

export function useNonce() {
  return useContext(NonceContext);
}
