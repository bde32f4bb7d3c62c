import { useEffect, useRef, useState, type ReactNode } from "react";

/**
 * A part of a reply wider than the reading column (a table, a line of code)
 * that scrolls sideways in its own box instead of pushing out of the column.
 * Once it is wider than its box it says so:
 *
 * - a fade on each side that has more content, updated as it scrolls;
 * - it can be reached with Tab and scrolled with the arrow keys (tabindex 0),
 *   and is named for screen readers (role region, `label`), as WCAG 2.1.1
 *   and axe's scrollable-region-focusable ask.
 *
 * Measured after render (the server and the first render know no widths),
 * and again only when the box or its content changes size, so a block that
 * grows while a reply streams costs no layout on every update.
 */
export function ScrollRegion({
  label,
  className,
  children,
}: {
  /** What it is ("Table", "Code"): the name says it scrolls sideways. */
  label: string;
  className: string;
  /** One element: the wide content. */
  children: ReactNode;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const edges = useOverflowEdges(ref);
  const scrolls = edges.left || edges.right;
  return (
    <div
      className={`scroll-x${edges.left ? " more-left" : ""}${edges.right ? " more-right" : ""}`}
      data-scrolls={scrolls ? "" : undefined}
    >
      <div
        ref={ref}
        className={className}
        tabIndex={scrolls ? 0 : undefined}
        role={scrolls ? "region" : undefined}
        aria-label={scrolls ? `${label}, scrolls sideways` : undefined}
      >
        {children}
      </div>
    </div>
  );
}

interface Edges {
  left: boolean;
  right: boolean;
}

/** Whether the box has content hidden past its left and right edges. */
function useOverflowEdges(ref: React.RefObject<HTMLElement | null>): Edges {
  const [edges, setEdges] = useState<Edges>({ left: false, right: false });
  useEffect(() => {
    const box = ref.current;
    if (!box) return;
    const measure = () => {
      // A pixel of slack: zoom and subpixel widths leave scrollWidth a fraction over clientWidth.
      const hidden = box.scrollWidth - box.clientWidth;
      const left = hidden > 1 && box.scrollLeft > 1;
      const right = hidden > 1 && box.scrollLeft < hidden - 1;
      setEdges((current) => (current.left === left && current.right === right ? current : { left, right }));
    };
    measure();
    box.addEventListener("scroll", measure, { passive: true });
    if (typeof ResizeObserver === "undefined") return () => box.removeEventListener("scroll", measure);
    const observer = new ResizeObserver(measure);
    observer.observe(box);
    if (box.firstElementChild) observer.observe(box.firstElementChild);
    return () => {
      box.removeEventListener("scroll", measure);
      observer.disconnect();
    };
  }, [ref]);
  return edges;
}
