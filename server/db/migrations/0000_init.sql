CREATE TABLE "blobs" (
	"sha256" text PRIMARY KEY NOT NULL,
	"size" bigint NOT NULL,
	"content" "bytea" NOT NULL
);
--> statement-breakpoint
CREATE TABLE "bundles" (
	"id" uuid PRIMARY KEY NOT NULL,
	"source_kind" text NOT NULL,
	"slug" text NOT NULL,
	"title" text NOT NULL,
	"visibility" text,
	"head_version_id" uuid,
	"head_number" bigint DEFAULT 0 NOT NULL,
	"gone_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "disk_files" (
	"bundle_id" uuid NOT NULL,
	"path" text NOT NULL,
	"size" bigint NOT NULL,
	"mtime_ms" bigint NOT NULL,
	"sha256" text NOT NULL,
	CONSTRAINT "disk_files_bundle_id_path_pk" PRIMARY KEY("bundle_id","path")
);
--> statement-breakpoint
CREATE TABLE "dismissed_docs" (
	"path" text PRIMARY KEY NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "docs" (
	"id" uuid PRIMARY KEY NOT NULL,
	"bundle_id" uuid NOT NULL,
	"path" text NOT NULL,
	"profile_key" text NOT NULL,
	"status" text DEFAULT 'draft' NOT NULL,
	"problems" jsonb,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "settings" (
	"key" text PRIMARY KEY NOT NULL,
	"value" jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "version_files" (
	"version_id" uuid NOT NULL,
	"path" text NOT NULL,
	"sha256" text NOT NULL,
	"size" bigint NOT NULL,
	CONSTRAINT "version_files_version_id_path_pk" PRIMARY KEY("version_id","path")
);
--> statement-breakpoint
CREATE TABLE "versions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"bundle_id" uuid NOT NULL,
	"number" bigint NOT NULL,
	"created_by" text NOT NULL,
	"message" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "disk_files" ADD CONSTRAINT "disk_files_bundle_id_bundles_id_fk" FOREIGN KEY ("bundle_id") REFERENCES "public"."bundles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "docs" ADD CONSTRAINT "docs_bundle_id_bundles_id_fk" FOREIGN KEY ("bundle_id") REFERENCES "public"."bundles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "version_files" ADD CONSTRAINT "version_files_version_id_versions_id_fk" FOREIGN KEY ("version_id") REFERENCES "public"."versions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "versions" ADD CONSTRAINT "versions_bundle_id_bundles_id_fk" FOREIGN KEY ("bundle_id") REFERENCES "public"."bundles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "bundles_source_slug" ON "bundles" USING btree ("source_kind","slug");--> statement-breakpoint
CREATE UNIQUE INDEX "docs_bundle" ON "docs" USING btree ("bundle_id");--> statement-breakpoint
CREATE INDEX "version_files_sha" ON "version_files" USING btree ("sha256");--> statement-breakpoint
CREATE UNIQUE INDEX "versions_bundle_number" ON "versions" USING btree ("bundle_id","number");