import { startLocalStack, type LocalStackOptions } from "../local/stack";

/**
 * The local stack (Auth emulator, Firestore emulator, PGlite) in a process of
 * its own, for the benchmark and the load test: in the measuring process the
 * in-process Firestore emulator and PGlite would share an event loop with
 * the load generator, and every figure would carry that wait, which `npm
 * start` (stack and app beside each other, no load generator) never has.
 *
 * Started by scripts/perf/app-under-test.ts with the options as JSON in
 * argv[2]; prints the stack's variables as one JSON line, stops on SIGTERM.
 */
const options = JSON.parse(process.argv[2]) as LocalStackOptions;
const stack = await startLocalStack(options);
await stack.admin.close();
process.stdout.write(`${JSON.stringify(stack.env)}\n`);

let stopping = false;
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    void stack.stop().finally(() => process.exit(0));
  });
}
