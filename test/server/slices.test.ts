/**
 * Work in slices of the request loop (server/slices.ts): a large doc's bytes decoded a
 * megabyte at a time give exactly the text and the `invalid` flag of decoding them at once.
 */
import { describe, expect, it } from "vitest";
import { decodeText } from "../../core/lint/engine.js";
import { decodeInSlices, slices } from "../../server/slices.js";

const MB = 1024 * 1024;

/** `n` bytes of text: ASCII, with `insert` placed so it straddles each megabyte boundary. */
function straddling(n: number, insert: string): Uint8Array {
  const out = Buffer.alloc(n, "a");
  const bytes = Buffer.from(insert);
  for (let at = MB - 1; at + bytes.length < n; at += MB) bytes.copy(out, at);
  return new Uint8Array(out);
}

describe("decodeInSlices", () => {
  const cases: Array<[string, Uint8Array]> = [
    ["empty", new Uint8Array()],
    ["a BOM and text", new Uint8Array(Buffer.from("\uFEFF# Title\r\nBody 🚀\n"))],
    ["a 4-byte emoji across each megabyte boundary", straddling(3 * MB + 17, "🚀")],
    ["a 3-byte character across each megabyte boundary", straddling(2 * MB + 5, "日")],
    [
      "an invalid byte and a cut-off sequence",
      new Uint8Array([...Buffer.from("ok "), 0xff, ...Buffer.from(" then "), 0xe6, 0x97]),
    ],
    [
      "a sequence cut off at a megabyte boundary",
      (() => {
        const b = straddling(MB + 10, "");
        b[MB - 1] = 0xf0;
        b[MB] = 0x9f;
        return b;
      })(),
    ],
  ];

  it.each(cases)("%s: the same text and invalid flag as decodeText", async (_name, bytes) => {
    const got = await decodeInSlices(bytes, slices(0));
    const want = decodeText(bytes);
    expect(got.invalid).toBe(want.invalid);
    expect(got.text === want.text).toBe(true);
  });

  it("gives the loop a turn between megabytes", async () => {
    let turns = 0;
    const timer = setInterval(() => turns++, 0);
    try {
      await decodeInSlices(straddling(8 * MB, "é"), slices(0));
    } finally {
      clearInterval(timer);
    }
    expect(turns).toBeGreaterThan(0);
  });
});
