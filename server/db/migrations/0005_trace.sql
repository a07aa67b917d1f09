CREATE TABLE "run_upstream" (
	"run_id" uuid NOT NULL,
	"bundle_id" uuid NOT NULL,
	"version_number" bigint NOT NULL,
	CONSTRAINT "run_upstream_run_id_bundle_id_pk" PRIMARY KEY("run_id","bundle_id")
);
--> statement-breakpoint
ALTER TABLE "run_upstream" ADD CONSTRAINT "run_upstream_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "run_upstream" ADD CONSTRAINT "run_upstream_bundle_id_bundles_id_fk" FOREIGN KEY ("bundle_id") REFERENCES "public"."bundles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "run_upstream_bundle" ON "run_upstream" USING btree ("bundle_id");