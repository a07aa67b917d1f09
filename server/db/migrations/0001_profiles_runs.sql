CREATE TABLE "findings" (
	"run_id" uuid NOT NULL,
	"id" uuid NOT NULL,
	"ord" integer NOT NULL,
	"check_slug" text NOT NULL,
	"level" text NOT NULL,
	"category" text NOT NULL,
	"message" text NOT NULL,
	"anchor" jsonb,
	"stage" text NOT NULL,
	"relaxed" boolean DEFAULT false NOT NULL,
	CONSTRAINT "findings_run_id_id_pk" PRIMARY KEY("run_id","id")
);
--> statement-breakpoint
CREATE TABLE "profile_versions" (
	"key" text NOT NULL,
	"number" integer NOT NULL,
	"yaml" text NOT NULL,
	"template" text NOT NULL,
	"created_by" text NOT NULL,
	"message" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "profile_versions_key_number_pk" PRIMARY KEY("key","number")
);
--> statement-breakpoint
CREATE TABLE "profiles" (
	"key" text PRIMARY KEY NOT NULL,
	"builtin" boolean NOT NULL,
	"maintainers" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"head_number" integer NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "runs" (
	"id" uuid PRIMARY KEY NOT NULL,
	"doc_id" uuid NOT NULL,
	"bundle_id" uuid NOT NULL,
	"version_id" uuid NOT NULL,
	"version_number" bigint NOT NULL,
	"kind" text NOT NULL,
	"status" text NOT NULL,
	"stage" text,
	"profile_key" text NOT NULL,
	"profile_version" integer,
	"error" text,
	"verdict" jsonb,
	"adopt" jsonb,
	"stages" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "findings" ADD CONSTRAINT "findings_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "profile_versions" ADD CONSTRAINT "profile_versions_key_profiles_key_fk" FOREIGN KEY ("key") REFERENCES "public"."profiles"("key") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "runs" ADD CONSTRAINT "runs_doc_id_docs_id_fk" FOREIGN KEY ("doc_id") REFERENCES "public"."docs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "runs" ADD CONSTRAINT "runs_bundle_id_bundles_id_fk" FOREIGN KEY ("bundle_id") REFERENCES "public"."bundles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "runs_doc_created" ON "runs" USING btree ("doc_id","created_at");