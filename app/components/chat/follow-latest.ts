import { useCallback, useEffect, useRef, useState } from "react";

/** How near the bottom (px) still counts as "at the latest message". */
const AT_BOTTOM_PX = 32;

/**
 * Keeps a scrolling transcript at its latest message — on opening, and while
 * a reply streams in — until the user scrolls up to read; from then on the
 * view stays where they put it and `away` is true (a "Jump to latest" button
 * shows). Scrolling back down, or `jump()`, resumes following.
 *
 * The content's growth is watched with a ResizeObserver rather than on each
 * render, so content that lays itself out later (code highlighting, math)
 * is followed too.
 */
export function useFollowLatest() {
  const scroller = useRef<HTMLDivElement>(null);
  const content = useRef<HTMLDivElement>(null);
  const following = useRef(true);
  const [away, setAway] = useState(false);

  const distanceFromBottom = () => {
    const element = scroller.current;
    return element ? element.scrollHeight - element.scrollTop - element.clientHeight : 0;
  };

  const jump = useCallback(() => {
    const element = scroller.current;
    following.current = true;
    setAway(false);
    if (element) element.scrollTop = element.scrollHeight;
  }, []);

  useEffect(() => {
    const element = scroller.current;
    const inner = content.current;
    if (!element || !inner) return;
    element.scrollTop = element.scrollHeight;
    let lastTop = element.scrollTop;

    // Only a move up stops following. The scroll event of a scroll the code
    // made arrives a frame later, when the reply may have grown again (a busy
    // or slow device renders several chunks per frame): it is then short of
    // the bottom but not above where it was, and the next resize catches up.
    const onScroll = () => {
      const top = element.scrollTop;
      const movedUp = top < lastTop - 1;
      lastTop = top;
      if (distanceFromBottom() <= AT_BOTTOM_PX) following.current = true;
      else if (movedUp) following.current = false;
      setAway(!following.current);
    };
    const onResize = () => {
      if (following.current) element.scrollTop = element.scrollHeight;
      else onScroll();
    };
    element.addEventListener("scroll", onScroll, { passive: true });
    const observer = new ResizeObserver(onResize);
    observer.observe(inner);
    observer.observe(element);
    return () => {
      element.removeEventListener("scroll", onScroll);
      observer.disconnect();
    };
  }, []);

  return { scroller, content, away, jump };
}

/**
 * Run inline right after the server-rendered transcript, so a conversation is
 * shown at its latest message from the first paint, before the page's code
 * has loaded.
 */
export const scrollToLatestScript = `(function(){var t=document.getElementById("transcript");if(t)t.scrollTop=t.scrollHeight})()`;
