// `npm run dev` (scripts/dev.ts) builds into .cache/dev, so a development
// build never lands where `npm start` and remix-serve expect the production one.
const devBuild = process.env.NUVARA_DEV_BUILD === "1";

/** @type {import('@remix-run/dev').AppConfig} */
export default {
  ...(devBuild
    ? { serverBuildPath: ".cache/dev/build/index.js", assetsBuildDirectory: ".cache/dev/public/build" }
    : {}),
  ignoredRouteFiles: ["**/.*", "**/*.test.*"],
  serverModuleFormat: "esm",
  // The build's entry wraps every route's action in the one origin check
  // (ADR 047): remix-serve runs the build as it is, with no middleware of ours.
  server: "./server.ts",
  // The Firebase client SDK is imported by the login route only; the classic
  // compiler code-splits it into that route's chunk.
  // Every v3 flag the classic compiler passes through is on but single fetch:
  // ADR 079 says what it changes and what enabling it takes.
  future: {
    v3_fetcherPersist: true,
    v3_relativeSplatPath: true,
    v3_throwAbortReason: true,
    v3_lazyRouteDiscovery: true,
    v3_singleFetch: false,
  },
};
