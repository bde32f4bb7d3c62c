import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

/** Builds the app when build/index.js is missing or older than any source. */
const SOURCES = ["app", "server.ts", "remix.config.js", "package.json", "package-lock.json", "tsconfig.json"];
export const SERVER_BUILD = path.resolve("build/index.js");

function newestMtime(target: string): number {
  if (!fs.existsSync(target)) return 0;
  const stat = fs.statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of fs.readdirSync(target)) newest = Math.max(newest, newestMtime(path.join(target, entry)));
  return newest;
}

export function buildIfStale(log: (line: string) => void = console.log) {
  const built = fs.existsSync(SERVER_BUILD) ? fs.statSync(SERVER_BUILD).mtimeMs : 0;
  const sources = Math.max(...SOURCES.map(newestMtime));
  if (built >= sources) return;
  log(built ? "Sources changed since the last build: building…" : "No build yet: building…");
  const result = spawnSync(process.execPath, [path.resolve("node_modules/@remix-run/dev/dist/cli.js"), "build"], {
    stdio: "inherit",
    env: { ...process.env, NODE_ENV: "production" },
  });
  if (result.status !== 0) throw new Error("The build failed.");
}
