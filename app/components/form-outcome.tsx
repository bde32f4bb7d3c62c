import type { ReactNode } from "react";

/**
 * What a form's last post came to, where a screen reader hears it: a notice
 * (polite status) or an error (an alert). `children` go first in the same
 * live region (a "Sending…" line, say).
 */
export function FormOutcome({ notice, error, children }: { notice?: string; error?: string; children?: ReactNode }) {
  return (
    <div aria-live="polite">
      {children}
      {notice ? (
        <p className="form-notice" role="status">
          {notice}
        </p>
      ) : null}
      {error ? (
        <p className="form-error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}
