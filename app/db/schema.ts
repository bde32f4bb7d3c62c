/**
 * The product's own data in PostgreSQL, one file per area under schema/.
 * Firestore holds only users/{email} (the role record); everything else lives
 * here, with real constraints. After a change: `npm run db:generate`.
 */
export * from "./schema/auth";
export * from "./schema/inbox";
export * from "./schema/tools";
export * from "./schema/chat";
export * from "./schema/runs";
export * from "./schema/attachments";
export * from "./schema/billing";
export * from "./schema/mcp";
export * from "./schema/api";
export * from "./schema/notices";
export * from "./schema/memory";
export * from "./schema/notify";
export * from "./schema/imports";
