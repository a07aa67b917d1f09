/**
 * The arguments of a subcommand: parsed strictly, `--help` printed, and a bad argument
 * answered on stderr with exit code 2 (the code a usage error has in every command).
 */
import { parseArgs, type ParseArgsConfig } from "node:util";

type ParseArgsOptionsConfig = NonNullable<ParseArgsConfig["options"]>;

/** A bad argument a command's own parser found: its message goes to stderr, exit code 2. */
export class UsageError extends Error {}

/**
 * `parseArgs`, strict, positionals allowed; a bad argument becomes a UsageError naming it
 * in the first sentence of Node's message ("Unknown option '--x'").
 */
export function strictArgs<const O extends ParseArgsOptionsConfig>(argv: string[], options: O) {
  try {
    return parseArgs({ args: argv, allowPositionals: true, strict: true, options });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new UsageError((message.split(/\.\s|\n/)[0] ?? message).trim());
  }
}

/**
 * Runs a command's own parser: its options; or, when it asked for help (usage printed) or
 * threw a UsageError (written to stderr), the exit code to answer (0 or 2).
 */
export function parseOrUsage<T>(
  command: string,
  parse: () => T | "help",
  usage: string,
): { options: T } | { exit: number } {
  let parsed: T | "help";
  try {
    parsed = parse();
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`spec-review ${command}: ${err.message} (see spec-review ${command} --help)\n`);
    return { exit: 2 };
  }
  if (parsed === "help") {
    process.stdout.write(usage);
    return { exit: 0 };
  }
  return { options: parsed };
}

/** Writes `spec-review <command>: <message> (try --help)` to stderr; answers exit code 2. */
export function usageError(command: string, message: string): number {
  process.stderr.write(`spec-review ${command}: ${message} (try --help)\n`);
  return 2;
}

/**
 * Parses `argv` with `options` (which include `help`); answers the parsed values, or the
 * exit code when there is nothing more to do (0 after printing `usage`, 2 on a bad argument).
 */
export function commandArgs<const O extends ParseArgsOptionsConfig>(
  command: string,
  argv: string[],
  options: O,
  usage: string,
) {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, strict: true, options });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return usageError(command, (message.split(/\.\s/)[0] ?? message).trim());
  }
  if ((parsed.values as { help?: boolean }).help) {
    process.stdout.write(usage);
    return 0;
  }
  return parsed;
}
