import { useEffect, useLayoutEffect } from "react";

/** A layout effect in the browser (it runs before the browser handles the next input); on the server, where none runs, no warning. */
export const useBrowserLayoutEffect = typeof document === "undefined" ? useEffect : useLayoutEffect;
