import { Component, type ReactNode } from "react";

/*
 * The small, dependency-free parts of reply rendering: what links may point
 * to, the plain-text form of a reply, and the boundary that falls back to
 * it. Kept apart from the Markdown pipeline (./markdown-render.tsx) so that
 * they cost the first load next to nothing.
 */

const ALLOWED_PROTOCOLS = new Set(["http:", "https:", "mailto:"]);

export function safeUrl(url: string | undefined | null): string | null {
  if (!url) return null;
  try {
    // No base: a relative URL does not parse, and is refused with the rest.
    const parsed = new URL(url.trim());
    return ALLOWED_PROTOCOLS.has(parsed.protocol) ? parsed.href : null;
  } catch {
    return null;
  }
}

/** The reply as preformatted text: readable, escaped like all React text, and linear to render. */
export function PlainReply({ children }: { children: string }): ReactNode {
  return (
    <div className="markdown markdown-plain">
      <pre>{children}</pre>
    </div>
  );
}

/**
 * Catches what a render throws below it in the browser (a reply streamed in,
 * a hydration), so one message falls back to plain text and the rest of the
 * page stays. Server rendering ignores error boundaries: there the try/catch
 * in Markdown does this job.
 */
export class PlainOnError extends Component<{ text: string; children: ReactNode }, { failed: boolean }> {
  state = { failed: false };

  static getDerivedStateFromError() {
    return { failed: true };
  }

  componentDidUpdate(previous: { text: string }) {
    // A streamed reply grows: its new text may render again.
    if (this.state.failed && previous.text !== this.props.text) this.setState({ failed: false });
  }

  render() {
    return this.state.failed ? <PlainReply>{this.props.text}</PlainReply> : this.props.children;
  }
}
