CREATE TABLE "held_links" (
	"bundle_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"target" text NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "held_links_bundle_id_kind_target_pk" PRIMARY KEY("bundle_id","kind","target")
);
--> statement-breakpoint
ALTER TABLE "held_links" ADD CONSTRAINT "held_links_bundle_id_bundles_id_fk" FOREIGN KEY ("bundle_id") REFERENCES "public"."bundles"("id") ON DELETE cascade ON UPDATE no action;