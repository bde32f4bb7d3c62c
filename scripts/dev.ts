import path from "node:path";
import { freePort } from "./local/ports";
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
 * `npm run dev`: the edit-and-reload loop. Local mode's backends start once
 * (as `npm start` starts them, demo accounts included) and keep their data;
 * `remix dev` builds the app in development mode into .cache/dev (never over
 * the production build in build/) and rebuilds it on every save; remix-serve,
 * in development mode, imports each new build into the same process
 * (`--manual`: no restart, so no moment when the page's update finds no
 * server) and the open pages update or reload (the root's <LiveReload />, over
 * a WebSocket on a free port, or DEV_LIVE_RELOAD_PORT). What must stay one per
 * process across builds (the database pool) hangs off globalThis.
 * With a real project configured it is the same loop against that project.
 */
const launch = readLaunch();
const reloadPort = process.env.DEV_LIVE_RELOAD_PORT || String(await freePort());

const remix = path.resolve("node_modules/@remix-run/dev/dist/cli.js");
// remix dev splits its command on spaces (no quoting) and puts node_modules/.bin first on PATH.
const serve = "remix-serve .cache/dev/build/index.js";

function develop(env: NodeJS.ProcessEnv) {
  // remix.config.js builds into .cache/dev when NUVARA_DEV_BUILD is set.
  return spawnNode([remix, "dev", "--manual", "--port", reloadPort, "--command", serve], {
    ...env,
    NODE_ENV: "development",
    NUVARA_DEV_BUILD: "1",
  });
}

if (launch.config.mode === "real") {
  superviseAlone(develop(serverEnv(launch)));
} else {
  const stack = await startLocalBackends(launch);
  superviseWithBackends(develop(serverEnv(launch, stack.env)), stack);
  printLocalBanner(launch, stack, "is starting in development mode (rebuilds and reloads on save)");
}
