-- The admins' choice of memory per role; a role without a row follows MEMORY_ROLES (docs/decisions/105).
CREATE TABLE "memory_role_access" (
	"role_key" text PRIMARY KEY NOT NULL,
	"enabled" boolean NOT NULL,
	"changed_by" text NOT NULL,
	"changed_at" timestamp with time zone DEFAULT now() NOT NULL
);
