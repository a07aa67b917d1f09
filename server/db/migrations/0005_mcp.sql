CREATE TABLE "link_checks" (
	"run_id" uuid NOT NULL,
	"bundle_id" uuid NOT NULL,
	"target_url" text NOT NULL,
	"state" text NOT NULL,
	"state_reason" text NOT NULL,
	"commit" text,
	"checked_at" timestamp with time zone NOT NULL,
	CONSTRAINT "link_checks_run_id_target_url_pk" PRIMARY KEY("run_id","target_url")
);
--> statement-breakpoint
CREATE TABLE "mcp_connections" (
	"id" uuid PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"transport" text NOT NULL,
	"command" jsonb,
	"url" text,
	"secret_env" text,
	"secret_cipher" text,
	"secret_last4" text DEFAULT '' NOT NULL,
	"tool_allowlist" jsonb NOT NULL,
	"is_search" boolean DEFAULT false NOT NULL,
	"search_tool" text DEFAULT '' NOT NULL,
	"hosts" jsonb NOT NULL,
	"fetch_tool" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "link_checks" ADD CONSTRAINT "link_checks_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "link_checks" ADD CONSTRAINT "link_checks_bundle_id_bundles_id_fk" FOREIGN KEY ("bundle_id") REFERENCES "public"."bundles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "link_checks_bundle" ON "link_checks" USING btree ("bundle_id","checked_at");