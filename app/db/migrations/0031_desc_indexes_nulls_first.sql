-- The newest-first lists of audits, feedback, shares and API keys read in index order, as 0028 did for the inbox and chats (NULLS FIRST).
DROP INDEX "account_audit_created_idx";--> statement-breakpoint
DROP INDEX "admin_audit_created_idx";--> statement-breakpoint
DROP INDEX "admin_audit_message_idx";--> statement-breakpoint
DROP INDEX "role_audit_created_idx";--> statement-breakpoint
DROP INDEX "message_feedback_updated_idx";--> statement-breakpoint
DROP INDEX "shared_conversations_uid_idx";--> statement-breakpoint
DROP INDEX "api_keys_uid_idx";--> statement-breakpoint
CREATE INDEX "account_audit_created_idx" ON "account_audit" USING btree ("created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "admin_audit_created_idx" ON "admin_audit" USING btree ("created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "admin_audit_message_idx" ON "admin_audit" USING btree ("message_id","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "role_audit_created_idx" ON "role_audit" USING btree ("created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "message_feedback_updated_idx" ON "message_feedback" USING btree ("updated_at" DESC NULLS FIRST,"message_id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "shared_conversations_uid_idx" ON "shared_conversations" USING btree ("uid","created_at" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "api_keys_uid_idx" ON "api_keys" USING btree ("uid","created_at" DESC NULLS FIRST);