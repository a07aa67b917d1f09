import { defineConfig } from "vitest/config";
import SummaryLine from "./test/reporters/summary.js";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    restoreMocks: true,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    reporters: ["default", new SummaryLine()],
  },
});
