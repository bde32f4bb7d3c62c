import { useState } from "react";

/**
 * True from the first time `open` is true. A dialog loaded on demand (React.lazy,
 * to keep it out of the page's first load) stays mounted after that, so closing
 * it returns focus the way a native <dialog> does.
 */
export function useOpenedOnce(open: boolean): boolean {
  const [opened, setOpened] = useState(open);
  if (open && !opened) setOpened(true);
  return opened || open;
}
