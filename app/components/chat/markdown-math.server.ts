// The server renders math in place; in the browser this module is empty (a
// `.server` module), so ./markdown.tsx loads ./markdown-math as a chunk only
// for a reply that has math (ADR 056).
export { mathPlugins } from "./markdown-math";
