import { ConfigError, getConfig } from "~/config.server";

/**
 * Run when the server build is loaded (server.ts): the whole configuration is
 * read and validated before remix-serve listens. A bad variable ends the
 * process at once with a non-zero code and the reason, so a supervisor or an
 * orchestrator sees a failed start, never a server that answers 500 forever
 * (docs/operations.md, "Boot").
 */
export function validateConfigurationAtBoot(exit: (code: number) => never = process.exit): void {
  try {
    getConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`Nuvara² cannot start: ${error.message}`);
    exit(1);
  }
}
