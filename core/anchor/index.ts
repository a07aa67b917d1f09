export {
  anchorAt,
  anchorAtBytes,
  locateQuote,
  reanchor,
  CONTEXT_CHARS,
  type Anchor,
  type LocateOptions,
} from "./anchor.js";
