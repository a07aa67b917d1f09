// The dashboard's build: `vite build web` (npm run build:web) writes dist/web, which
// server/web-static.ts serves at `/`. Relative paths here are from this folder.
import { defineConfig } from "vite";
import preact from "@preact/preset-vite";

export default defineConfig({
  plugins: [preact()],
  base: "/",
  build: {
    outDir: "../dist/web",
    emptyOutDir: true,
    // One small script and one stylesheet: no CDN, nothing fetched from elsewhere.
    assetsInlineLimit: 0,
    sourcemap: false,
    target: "es2022",
  },
});
