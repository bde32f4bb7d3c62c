-- The newest-first lists read these in order only if they sort as ORDER BY … DESC does (NULLS FIRST);
-- drizzle-kit had written them NULLS LAST. docs/benchmarks.md, "Scale curves", has the plans before and after.
DROP INDEX "inbox_messages_created_idx";--> statement-breakpoint
DROP INDEX "conversations_uid_updated_idx";--> statement-breakpoint
CREATE INDEX "inbox_messages_created_idx" ON "inbox_messages" USING btree ("created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "conversations_uid_updated_idx" ON "conversations" USING btree ("uid","updated_at" DESC NULLS FIRST);