CREATE TABLE "handoff_reports" (
	"id" uuid PRIMARY KEY NOT NULL,
	"handoff_id" uuid NOT NULL,
	"result" text NOT NULL,
	"body" text NOT NULL,
	"anchor" jsonb,
	"thread_id" uuid,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "handoffs" (
	"id" uuid PRIMARY KEY NOT NULL,
	"doc_id" uuid NOT NULL,
	"bundle_id" uuid NOT NULL,
	"version_id" uuid NOT NULL,
	"version_number" bigint NOT NULL,
	"label" text NOT NULL,
	"acknowledged" boolean NOT NULL,
	"verdict" jsonb,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "verification_events" (
	"run_id" uuid NOT NULL,
	"seq" integer NOT NULL,
	"name" text NOT NULL,
	"data" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "verification_events_run_id_seq_pk" PRIMARY KEY("run_id","seq")
);
--> statement-breakpoint
CREATE TABLE "verification_runs" (
	"id" uuid PRIMARY KEY NOT NULL,
	"doc_id" uuid NOT NULL,
	"bundle_id" uuid NOT NULL,
	"version_number" bigint NOT NULL,
	"status" text NOT NULL,
	"verdict" text,
	"target" jsonb NOT NULL,
	"handoff_id" uuid,
	"claims" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"outcomes" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"result" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"error" text,
	"opened_blocking_thread" boolean DEFAULT false NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "verification_waivers" (
	"id" uuid PRIMARY KEY NOT NULL,
	"doc_id" uuid NOT NULL,
	"bundle_id" uuid NOT NULL,
	"trace_id" text NOT NULL,
	"repo" text NOT NULL,
	"reason" text NOT NULL,
	"run_id" uuid,
	"status" text NOT NULL,
	"decided_by" text,
	"decided_at" timestamp with time zone,
	"rejection_reason" text,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "handoff_reports" ADD CONSTRAINT "handoff_reports_handoff_id_handoffs_id_fk" FOREIGN KEY ("handoff_id") REFERENCES "public"."handoffs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "handoffs" ADD CONSTRAINT "handoffs_doc_id_docs_id_fk" FOREIGN KEY ("doc_id") REFERENCES "public"."docs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "handoffs" ADD CONSTRAINT "handoffs_bundle_id_bundles_id_fk" FOREIGN KEY ("bundle_id") REFERENCES "public"."bundles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "verification_events" ADD CONSTRAINT "verification_events_run_id_verification_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."verification_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "verification_runs" ADD CONSTRAINT "verification_runs_doc_id_docs_id_fk" FOREIGN KEY ("doc_id") REFERENCES "public"."docs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "verification_runs" ADD CONSTRAINT "verification_runs_bundle_id_bundles_id_fk" FOREIGN KEY ("bundle_id") REFERENCES "public"."bundles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "verification_waivers" ADD CONSTRAINT "verification_waivers_doc_id_docs_id_fk" FOREIGN KEY ("doc_id") REFERENCES "public"."docs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "verification_waivers" ADD CONSTRAINT "verification_waivers_bundle_id_bundles_id_fk" FOREIGN KEY ("bundle_id") REFERENCES "public"."bundles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "handoff_reports_handoff" ON "handoff_reports" USING btree ("handoff_id","created_at");--> statement-breakpoint
CREATE INDEX "handoffs_doc_created" ON "handoffs" USING btree ("doc_id","created_at");--> statement-breakpoint
CREATE INDEX "verification_runs_doc_created" ON "verification_runs" USING btree ("doc_id","created_at");--> statement-breakpoint
CREATE INDEX "verification_waivers_doc" ON "verification_waivers" USING btree ("doc_id","trace_id");