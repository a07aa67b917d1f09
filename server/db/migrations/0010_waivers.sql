CREATE TABLE "doc_approvals" (
	"doc_id" uuid NOT NULL,
	"version_id" uuid NOT NULL,
	"version_number" bigint NOT NULL,
	"by" text NOT NULL,
	"by_name" text NOT NULL,
	"comment" text,
	"approved_at" timestamp with time zone NOT NULL,
	CONSTRAINT "doc_approvals_doc_id_version_id_by_pk" PRIMARY KEY("doc_id","version_id","by")
);
--> statement-breakpoint
CREATE TABLE "inbox_seen" (
	"user_id" text PRIMARY KEY NOT NULL,
	"seen_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "review_requests" (
	"doc_id" uuid NOT NULL,
	"reviewer_id" text NOT NULL,
	"reviewer_name" text NOT NULL,
	"requested_by" text NOT NULL,
	"requested_at" timestamp with time zone NOT NULL,
	CONSTRAINT "review_requests_doc_id_reviewer_id_pk" PRIMARY KEY("doc_id","reviewer_id")
);
--> statement-breakpoint
CREATE TABLE "waivers" (
	"id" uuid PRIMARY KEY NOT NULL,
	"doc_id" uuid NOT NULL,
	"bundle_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"status" text NOT NULL,
	"reason" text NOT NULL,
	"finding_id" uuid,
	"check_slug" text,
	"level" text,
	"anchor" jsonb,
	"trace_id" text,
	"upstream" text,
	"profile_key" text NOT NULL,
	"approvals_needed" integer NOT NULL,
	"approvers" text NOT NULL,
	"approvals" jsonb NOT NULL,
	"rejection_reason" text,
	"decided_by" text,
	"withdrawn_by" text,
	"source" text NOT NULL,
	"created_by" text NOT NULL,
	"created_by_name" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "doc_approvals" ADD CONSTRAINT "doc_approvals_doc_id_docs_id_fk" FOREIGN KEY ("doc_id") REFERENCES "public"."docs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "review_requests" ADD CONSTRAINT "review_requests_doc_id_docs_id_fk" FOREIGN KEY ("doc_id") REFERENCES "public"."docs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "waivers" ADD CONSTRAINT "waivers_doc_id_docs_id_fk" FOREIGN KEY ("doc_id") REFERENCES "public"."docs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "waivers" ADD CONSTRAINT "waivers_bundle_id_bundles_id_fk" FOREIGN KEY ("bundle_id") REFERENCES "public"."bundles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "waivers_doc" ON "waivers" USING btree ("doc_id","created_at");--> statement-breakpoint
CREATE INDEX "waivers_status" ON "waivers" USING btree ("status");