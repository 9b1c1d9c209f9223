import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { ARTIFACT_MIME_TYPES, type ArtifactMimeType } from "@octet/protocol";
import { mediaSignatureProblem } from "../../../src/modules/artifacts/media-signature.js";
import { SAMPLES, aac, gif, m4a, mp3, png } from "./media-samples.js";

const MIMES = Object.keys(ARTIFACT_MIME_TYPES) as ArtifactMimeType[];

test("ART-09, ART-10: a real sample of each supported format passes its own check and no other", () => {
  for (const mime of MIMES) {
    const bytes = SAMPLES[mime]();
    assert.equal(mediaSignatureProblem(bytes, mime), null, `${mime} sample accepted`);
    for (const other of MIMES.filter((m) => m !== mime)) {
      const problem = mediaSignatureProblem(bytes, other);
      assert.ok(problem !== null, `a ${mime} sample is refused as ${other}`);
    }
  }
});

test(
  "ART-09: truncated media are refused at every length (FLAC up to its first frame header, which carries " +
    "no length)",
  () => {
    // Frame streams have no overall length: a cut exactly between frames (or Ogg pages, or top-level MP4 boxes)
    // is itself a
    // complete shorter stream, so those lengths are skipped; every cut inside a unit is refused.
    const whole: Partial<Record<ArtifactMimeType, Set<number>>> = {
      "audio/mpeg": new Set([15 + 2 * 417]),
      "audio/aac": new Set([2 * 24]),
      "audio/opus": new Set([opusHeaderPages()]),
      "audio/mp4": new Set([SAMPLES["audio/mp4"]().length - 12]), // without the trailing 12-byte mdat box
    };
    for (const mime of MIMES) {
      const bytes = SAMPLES[mime]();
      // FLAC frames state no length, so the walk ends at the first frame's sync code.
      const upTo = mime === "audio/flac" ? bytes.length - 5 : bytes.length;
      for (let n = 0; n < upTo; n++) {
        if (whole[mime]?.has(n)) {
          assert.equal(
            mediaSignatureProblem(bytes.subarray(0, n), mime),
            null,
            `${mime} cut between units at ${n} is a complete stream`,
          );
          continue;
        }
        assert.ok(
          mediaSignatureProblem(bytes.subarray(0, n), mime) !== null,
          `${mime} cut to ${n} of ${bytes.length} bytes is refused`,
        );
      }
    }
  },
);

/** The length of the sample's two Ogg header pages (OpusHead and OpusTags). */
function opusHeaderPages(): number {
  const b = SAMPLES["audio/opus"]();
  let o = 0;
  for (let page = 0; page < 2; page++) o += 27 + b[o + 26]! + b[o + 27]!;
  return o;
}

test(
  "ART-09: polyglots are refused: bytes after the format's own end (a ZIP behind a PNG, data behind " +
    "GIF/JPEG/RIFF/MP4/Ogg/MPEG/ADTS)",
  () => {
    const zip = Buffer.from("PK\u0003\u0004hidden archive", "latin1");
    const withZip = Buffer.concat([png(), zip]);
    assert.match(
      mediaSignatureProblem(withZip, "image/png")!,
      new RegExp(`${zip.length} bytes after the end of the PNG data`),
    );
    for (const mime of MIMES.filter((m) => m !== "audio/flac")) {
      const bytes = Buffer.concat([SAMPLES[mime](), Buffer.from([0x00, 0x00])]);
      assert.ok(mediaSignatureProblem(bytes, mime) !== null, `${mime} followed by 2 more bytes is refused`);
    }
    // A file that is both: GIF data behind a PNG is refused as either.
    const both = Buffer.concat([png(), gif()]);
    assert.ok(mediaSignatureProblem(both, "image/png") !== null && mediaSignatureProblem(both, "image/gif") !== null);
  },
);

test("ART-09: MPEG audio and AAC need at least 2 consecutive frame headers; a lone sync word is not audio", () => {
  assert.match(
    mediaSignatureProblem(mp3(1, false), "audio/mpeg")!,
    /fewer than 2 consecutive frames|no second consecutive frame header/,
  );
  assert.equal(mediaSignatureProblem(mp3(2, false), "audio/mpeg"), null);
  assert.equal(mediaSignatureProblem(mp3(2, true), "audio/mpeg"), null, "an ID3v2 tag may come first");
  const second = mp3(2, false);
  second[417 + 2] = 0xa0; // the second frame changes sample rate: not a consecutive header of the same stream
  assert.ok(mediaSignatureProblem(second, "audio/mpeg") !== null);
  const lone = Buffer.concat([Buffer.from([0xff, 0xfb, 0x90, 0x64]), Buffer.from("<html>not audio</html>", "latin1")]);
  assert.ok(mediaSignatureProblem(lone, "audio/mpeg") !== null, "one sync word in front of anything (file-type #210)");
  assert.match(mediaSignatureProblem(aac(1), "audio/aac")!, /fewer than 2/);
  const tagged = Buffer.concat([mp3(2, false), Buffer.from("TAG", "latin1"), Buffer.alloc(125)]);
  assert.equal(mediaSignatureProblem(tagged, "audio/mpeg"), null, "an ID3v1 trailer is allowed");
});

test("ART-09: MP4 audio must have a sound track and no video track", () => {
  assert.match(mediaSignatureProblem(m4a("vide"), "audio/mp4")!, /video track/);
  assert.match(mediaSignatureProblem(m4a("text"), "audio/mp4")!, /no sound track/);
});

test("ART-09: the checkers never throw and never accept random bytes", () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 256 }), fc.constantFrom(...MIMES), (bytes, mime) => {
      const problem = mediaSignatureProblem(bytes, mime);
      return typeof problem === "string";
    }),
    { numRuns: 3000 },
  );
  // Mutations of real samples: whatever the checker says, it says it without throwing.
  fc.assert(
    fc.property(fc.constantFrom(...MIMES), fc.nat(), fc.integer({ min: 0, max: 255 }), (mime, at, value) => {
      const bytes = SAMPLES[mime]();
      bytes[at % bytes.length] = value;
      const problem = mediaSignatureProblem(bytes, mime);
      return problem === null || typeof problem === "string";
    }),
    { numRuns: 3000 },
  );
});
