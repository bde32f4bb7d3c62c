import { defineConfig } from "drizzle-kit";

// `npx drizzle-kit generate` writes a new SQL migration after a schema change;
// the app applies pending migrations at start (app/db/client.server.ts).
export default defineConfig({
  dialect: "postgresql",
  schema: "./app/db/schema.ts",
  out: "./app/db/migrations",
});
