export {
  anchorAt,
  anchorAtBytes,
  locateQuote,
  reanchor,
  CONTEXT_CHARS,
  contextStart,
  contextEnd,
  type Anchor,
  type LocateOptions,
} from "./anchor.js";
export { safeText, safeJson } from "./safe-text.js";
export { reanchorMany, byteChange, type ByteChange, type ReanchorManyInput } from "./reanchor-many.js";
