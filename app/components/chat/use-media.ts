import { useEffect, useState } from "react";

/** Whether a media query matches, kept up to date; false in the server's render. */
export function useMedia(query: string) {
  const [matches, setMatches] = useState(false);
  useEffect(() => {
    const list = window.matchMedia(query);
    setMatches(list.matches);
    const onChange = () => setMatches(list.matches);
    list.addEventListener("change", onChange);
    return () => list.removeEventListener("change", onChange);
  }, [query]);
  return matches;
}

/** Where the conversation list is a drawer over the chat (matches chat.css). */
export const PHONE_QUERY = "(max-width: 48rem)";
