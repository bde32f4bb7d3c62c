-- The admins' choice of API access per role; a role without a row follows API_ROLES (docs/decisions/100).
CREATE TABLE "api_role_access" (
	"role_key" text PRIMARY KEY NOT NULL,
	"enabled" boolean NOT NULL,
	"changed_by" text NOT NULL,
	"changed_at" timestamp with time zone DEFAULT now() NOT NULL
);
