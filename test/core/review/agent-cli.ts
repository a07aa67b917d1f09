/**
 * A coding-agent CLI for tests: reads the prompt on stdin (as an `agent_cli` backend sends
 * it), answers with the scripted model's JSON for the schema the prompt names.
 * Run as `node --import <tsx> test/core/review/agent-cli.ts`.
 */
import { readFileSync } from "node:fs";
import { scriptedAnswer } from "./scripted-model.js";

const input = readFileSync(0, "utf8");
const name = /It must satisfy this JSON Schema \(`([\w-]+)`\)/.exec(input)?.[1] ?? "";
const cut = input.indexOf("\n\nAnswer with one JSON object only");
const schemaArg = process.argv.indexOf("--schema");
const schema: unknown = schemaArg > 0 ? JSON.parse(readFileSync(process.argv[schemaArg + 1]!, "utf8")) : {};
process.stdout.write(
  JSON.stringify(scriptedAnswer(name, cut >= 0 ? input.slice(0, cut) : input, schema)) + "\n",
);
