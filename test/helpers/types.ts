/** Response types of the API, inferred from the same zod schemas the server validates with. */
import type { z } from "@hono/zod-openapi";
import type {
  BundleListSchema,
  BundleSchema,
  SpecDocSchema,
  VersionSchema,
  WriteResultSchema,
} from "../../server/schemas/common.js";

export type BundleList = z.infer<typeof BundleListSchema>;
export type Bundle = z.infer<typeof BundleSchema>;
export type SpecDoc = z.infer<typeof SpecDocSchema>;
export type Version = z.infer<typeof VersionSchema>;
export type WriteResult = z.infer<typeof WriteResultSchema>;
export interface Items<T> {
  items: T[];
  next_cursor?: string;
}
export interface FileItem {
  path: string;
  size: number;
  sha256: string;
  media_type: string;
  text: boolean;
}
export interface FileList {
  version: Version;
  items: FileItem[];
}
export interface Diff {
  from: Version;
  to: Version;
  files: Array<{ path: string; change: string; additions: number; deletions: number; patch?: string }>;
  sections: Array<{ heading_path: string[]; change: string; additions: number; deletions: number }>;
}
