CREATE TABLE "repohost_bundles" (
	"bundle_id" uuid PRIMARY KEY NOT NULL,
	"source_id" uuid NOT NULL,
	"folder" text NOT NULL,
	"repo_version_id" uuid,
	"draft_base" text,
	"ahead" boolean DEFAULT false NOT NULL,
	"pr_url" text,
	"pr_number" integer
);
--> statement-breakpoint
CREATE TABLE "repohost_connection" (
	"id" text PRIMARY KEY NOT NULL,
	"token_sealed" text NOT NULL,
	"token_last4" text NOT NULL,
	"api_url" text NOT NULL,
	"login" text,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "repohost_deliveries" (
	"id" text PRIMARY KEY NOT NULL,
	"event" text NOT NULL,
	"received_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "repohost_sources" (
	"id" uuid PRIMARY KEY NOT NULL,
	"url" text NOT NULL,
	"owner" text NOT NULL,
	"repo" text NOT NULL,
	"branch" text NOT NULL,
	"path" text NOT NULL,
	"installation_id" bigint,
	"is_private" boolean DEFAULT false NOT NULL,
	"last_commit" text,
	"etag" text,
	"last_synced_at" timestamp with time zone,
	"sync_error" text,
	"accepted" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "repohost_versions" (
	"version_id" uuid PRIMARY KEY NOT NULL,
	"commit" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "repohost_bundles" ADD CONSTRAINT "repohost_bundles_bundle_id_bundles_id_fk" FOREIGN KEY ("bundle_id") REFERENCES "public"."bundles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "repohost_bundles" ADD CONSTRAINT "repohost_bundles_source_id_repohost_sources_id_fk" FOREIGN KEY ("source_id") REFERENCES "public"."repohost_sources"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "repohost_versions" ADD CONSTRAINT "repohost_versions_version_id_versions_id_fk" FOREIGN KEY ("version_id") REFERENCES "public"."versions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "repohost_bundles_folder" ON "repohost_bundles" USING btree ("source_id","folder");