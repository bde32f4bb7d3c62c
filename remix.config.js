/** @type {import('@remix-run/dev').AppConfig} */
export default {
  ignoredRouteFiles: ["**/.*", "**/*.test.*"],
  serverModuleFormat: "esm",
  // The build's entry wraps every route's action in the one origin check
  // (ADR 047): remix-serve runs the build as it is, with no middleware of ours.
  server: "./server.ts",
  // The Firebase client SDK is imported by the login route only; the classic
  // compiler code-splits it into that route's chunk.
  future: {
    v3_fetcherPersist: true,
    v3_relativeSplatPath: true,
    v3_throwAbortReason: true,
    v3_lazyRouteDiscovery: false,
    v3_singleFetch: false,
  },
};
