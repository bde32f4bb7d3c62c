import rehypeKatex from "rehype-katex";
import remarkMath from "remark-math";
import type { Options } from "react-markdown";

/**
 * LaTeX in replies, rendered by KaTeX as MathML: the browser draws it
 * (Chromium, Firefox and Safari render MathML Core), screen readers read it,
 * and no KaTeX stylesheet or font is needed. A chunk of its own, loaded only
 * for a reply that has math (./markdown.tsx, ADR 056).
 *
 * Safe for model output: `trust: false` refuses \href, \url, \includegraphics
 * and the \html… commands; `maxExpand` and `maxSize` bound macro expansion and
 * sizes; an error shows the source in red instead of failing the reply.
 */
export const mathPlugins: Pick<Options, "remarkPlugins" | "rehypePlugins"> = {
  // A lone $ is a dollar: ./math-text.ts turns the $x$ that is math into $$x$$ first.
  remarkPlugins: [[remarkMath, { singleDollarTextMath: false }]],
  rehypePlugins: [
    [
      rehypeKatex,
      { output: "mathml", throwOnError: false, strict: "ignore", trust: false, maxExpand: 500, maxSize: 50 },
    ],
  ],
};
