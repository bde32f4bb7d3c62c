-- History and inbox search read substrings through trigram indexes, not every row (docs/decisions/102).
CREATE EXTENSION IF NOT EXISTS "pg_trgm";--> statement-breakpoint
CREATE INDEX "inbox_messages_sender_email_trgm_idx" ON "inbox_messages" USING gin ("sender_email" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "inbox_messages_sender_name_trgm_idx" ON "inbox_messages" USING gin ("sender_name" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "messages_content_trgm_idx" ON "messages" USING gin ("content" gin_trgm_ops);