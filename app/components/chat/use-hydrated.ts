import { useEffect, useState } from "react";

/** False during the server render and hydration, true after: for values only the browser knows (its time zone). */
export function useHydrated(): boolean {
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  return hydrated;
}
