-- Admins may delete an account from /admin/users (docs/decisions/075); account_audit records it like the other account actions.
ALTER TABLE "account_audit" DROP CONSTRAINT "account_audit_action_check";--> statement-breakpoint
ALTER TABLE "account_audit" ADD CONSTRAINT "account_audit_action_check" CHECK ("account_audit"."action" in ('disable', 'enable', 'sign-out-everywhere', 'delete'));