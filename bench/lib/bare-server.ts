/**
 * The baseline of the store benchmark: a bare Hono route on @hono/node-server, the
 * same HTTP stack as the real server with nothing behind it.
 *
 * Run as `node --import tsx bench/lib/bare-server.ts <port>`; it listens on 127.0.0.1
 * and stops on SIGTERM.
 */
import { serve } from "@hono/node-server";
import { Hono } from "hono";

const port = Number(process.argv[2] ?? "0");
const app = new Hono();
app.get("/x", (c) => c.json({ ok: true }));
const server = serve({ fetch: app.fetch, port, hostname: "127.0.0.1" });
process.once("SIGTERM", () => server.close(() => process.exit(0)));
