import path from "node:path";
import { buildIfStale, SERVER_BUILD } from "./build-if-stale";
import {
  printLocalBanner,
  readLaunch,
  serverEnv,
  spawnNode,
  startLocalBackends,
  superviseAlone,
  superviseWithBackends,
} from "./local/launch";

/**
 * `npm start`. With a real Firebase project configured it is remix-serve
 * alone. Otherwise (local mode) it first starts the Auth emulator, a
 * Firestore emulator and embedded PostgreSQL on this machine, seeds the demo
 * accounts, and prints them. Ctrl-C stops everything it started.
 *
 *   npm start                 local mode, data kept in .local/
 *   npm start -- --fresh      local mode, starting from empty data
 *
 * Local mode listens on 127.0.0.1 only unless HOST is set (it accepts
 * unsigned emulator tokens: scripts/listen-host.ts).
 */
const launch = readLaunch();

buildIfStale();

const serve = (env: NodeJS.ProcessEnv) =>
  spawnNode([path.resolve("node_modules/@remix-run/serve/dist/cli.js"), SERVER_BUILD], {
    ...env,
    NODE_ENV: "production",
  });

if (launch.config.mode === "real") {
  for (const line of launch.listen.notice) console.log(line);
  superviseAlone(serve(serverEnv(launch)));
} else {
  const stack = await startLocalBackends(launch);
  superviseWithBackends(serve(serverEnv(launch, stack.env)), stack);
  printLocalBanner(launch, stack, "is starting");
}
