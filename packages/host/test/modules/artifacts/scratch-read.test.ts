/**
 * The secure scratch read against real files in a temporary directory: every attack case of
 * reliability A1..A6 and A8 must be refused with a message naming the path and the reason.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import {
  appendFileSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  renameSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ScratchRefusal, readScratchFile } from "../../../src/modules/artifacts/scratch-read.js";
import { png } from "./media-samples.js";

const MAX = 20 * 1_048_576;

function dirs(): { root: string; scratch: string; outside: string; done: () => void } {
  const root = mkdtempSync(join(tmpdir(), "octet-scratch-"));
  const scratch = join(root, "scratch");
  const outside = join(root, "outside");
  mkdirSync(scratch);
  mkdirSync(outside);
  return { root, scratch, outside, done: () => rmSync(root, { recursive: true, force: true }) };
}

async function refusedWith(p: Promise<unknown>, pattern: RegExp): Promise<void> {
  await assert.rejects(p, (err: Error) => {
    assert.ok(err instanceof ScratchRefusal, `a refusal, not ${err.name}`);
    assert.match(err.message, pattern);
    return true;
  });
}

test("ART-07: a regular single-link file of the declared size is read exactly, as a private snapshot", async () => {
  const d = dirs();
  try {
    const bytes = png();
    mkdirSync(join(d.scratch, "shots"));
    writeFileSync(join(d.scratch, "shots", "a.png"), bytes);
    const got = await readScratchFile(d.scratch, "shots/a.png", bytes.length, MAX);
    assert.deepEqual(got, bytes);
    writeFileSync(join(d.scratch, "shots", "a.png"), Buffer.alloc(bytes.length, 7));
    assert.deepEqual(got, bytes, "a later write to the file does not change the snapshot");
  } finally {
    d.done();
  }
});

test("ART-07: a leaf symlink is refused, even to a valid file inside the scratch directory (A1)", async () => {
  const d = dirs();
  try {
    writeFileSync(join(d.outside, "secret"), "top secret");
    symlinkSync(join(d.outside, "secret"), join(d.scratch, "leaf.png"));
    await refusedWith(readScratchFile(d.scratch, "leaf.png", 10, MAX), /"leaf\.png" is a symbolic link/);
    writeFileSync(join(d.scratch, "real.png"), "0123456789");
    symlinkSync("real.png", join(d.scratch, "inner.png"));
    await refusedWith(readScratchFile(d.scratch, "inner.png", 10, MAX), /is a symbolic link/);
  } finally {
    d.done();
  }
});

test("ART-07: a symlinked intermediate directory is refused (A2: /etc/hostname through scratch/evil/)", async () => {
  const d = dirs();
  try {
    symlinkSync("/etc", join(d.scratch, "evil"));
    await refusedWith(readScratchFile(d.scratch, "evil/hostname", 1, MAX), /component "evil" is a symbolic link/);
    mkdirSync(join(d.scratch, "a"));
    symlinkSync(d.outside, join(d.scratch, "a", "b"));
    writeFileSync(join(d.outside, "x.png"), "0123456789");
    await refusedWith(readScratchFile(d.scratch, "a/b/x.png", 10, MAX), /component "a\/b" is a symbolic link/);
    writeFileSync(join(d.scratch, "file"), "x");
    await refusedWith(readScratchFile(d.scratch, "file/x.png", 1, MAX), /component "file" is not a directory/);
    await refusedWith(readScratchFile(d.scratch, "none/x.png", 1, MAX), /directory "none" does not exist/);
    await refusedWith(readScratchFile(d.scratch, "missing.png", 1, MAX), /"missing\.png" does not exist/);
  } finally {
    d.done();
  }
});

test("ART-07: swapping a directory for a symlink between checks and open never reads outside (A3)", async () => {
  const d = dirs();
  const outsideBytes = Buffer.from("OUTSIDE-CONTENT!");
  const insideBytes = Buffer.from("inside--content!");
  writeFileSync(join(d.outside, "x.png"), outsideBytes);
  mkdirSync(join(d.scratch, "real"));
  writeFileSync(join(d.scratch, "real", "x.png"), insideBytes);
  symlinkSync(d.outside, join(d.scratch, "link"));
  // A separate process swaps scratch/d between the real directory and the symlink, as fast as it can.
  const swapper = spawn(
    process.execPath,
    [
      "-e",
      `
    const { renameSync } = require("node:fs");
    const dir = ${JSON.stringify(d.scratch)};
    for (;;) {
      try { renameSync(dir + "/real", dir + "/d"); renameSync(dir + "/d", dir + "/real"); } catch {}
      try { renameSync(dir + "/link", dir + "/d"); renameSync(dir + "/d", dir + "/link"); } catch {}
    }`,
    ],
    { stdio: "ignore" },
  );
  try {
    let escapes = 0;
    for (let i = 0; i < 2000; i++) {
      try {
        const got = await readScratchFile(d.scratch, "d/x.png", outsideBytes.length, MAX);
        if (got.equals(outsideBytes)) escapes++;
      } catch {
        // Refused (a link, missing, or outside): what must happen whenever d is the symlink.
      }
    }
    assert.equal(escapes, 0, "no read returned the file outside the scratch directory");
  } finally {
    swapper.kill("SIGKILL");
    d.done();
  }
});

test("ART-07: a FIFO is refused at once instead of blocking (A4), and so are sockets and directories", async () => {
  const d = dirs();
  const server = createServer();
  try {
    execFileSync("mkfifo", [join(d.scratch, "pipe.wav")]);
    const started = Date.now();
    await refusedWith(readScratchFile(d.scratch, "pipe.wav", 10, MAX), /"pipe\.wav" is not a regular file \(a FIFO\)/);
    assert.ok(Date.now() - started < 2000, "the FIFO open did not wait for a writer");
    await new Promise<void>((resolve) => server.listen(join(d.scratch, "sock.wav"), resolve));
    await refusedWith(readScratchFile(d.scratch, "sock.wav", 10, MAX), /"sock\.wav" is not a regular file/);
    mkdirSync(join(d.scratch, "dir.wav"));
    await refusedWith(
      readScratchFile(d.scratch, "dir.wav", 10, MAX),
      /"dir\.wav" is not a regular file \(a directory\)/,
    );
  } finally {
    server.close();
    d.done();
  }
});

test("ART-07: a file with a second hard link is refused: nlink must be 1 (A6)", async () => {
  const d = dirs();
  try {
    writeFileSync(join(d.outside, "secret"), "0123456789");
    linkSync(join(d.outside, "secret"), join(d.scratch, "hard.png"));
    await refusedWith(
      readScratchFile(d.scratch, "hard.png", 10, MAX),
      /"hard\.png" has 2 hard links; exactly 1 is required/,
    );
  } finally {
    d.done();
  }
});

test(
  "ART-08, ART-12: the size is checked on the descriptor before reading: declared size and the 20 MiB " + "bound (A8)",
  async () => {
    const d = dirs();
    try {
      writeFileSync(join(d.scratch, "a.png"), "0123456789");
      await refusedWith(readScratchFile(d.scratch, "a.png", 9, MAX), /"a\.png" is 10 bytes, not the declared size 9/);
      await refusedWith(readScratchFile(d.scratch, "a.png", 11, MAX), /is 10 bytes, not the declared size 11/);
      writeFileSync(join(d.scratch, "big.wav"), Buffer.alloc(MAX + 1));
      await refusedWith(
        readScratchFile(d.scratch, "big.wav", MAX, MAX),
        new RegExp(`is ${MAX + 1} bytes, over the ${MAX}-byte artifact limit`),
      );
      writeFileSync(join(d.scratch, "max.wav"), Buffer.alloc(MAX));
      assert.equal((await readScratchFile(d.scratch, "max.wav", MAX, MAX)).length, MAX, "exactly at the bound is read");
    } finally {
      d.done();
    }
  },
);

test(
  "ART-07: a file that grows or shrinks after the checks is refused: exactly size bytes, " + "then EOF (A5)",
  async () => {
    const d = dirs();
    try {
      const file = join(d.scratch, "a.png");
      writeFileSync(file, "0123456789");
      await refusedWith(
        readScratchFile(d.scratch, "a.png", 10, MAX, undefined, () => appendFileSync(file, "X")),
        /grew while it was read/,
      );
      writeFileSync(file, "0123456789");
      await refusedWith(
        readScratchFile(d.scratch, "a.png", 10, MAX, undefined, () => truncateSync(file, 4)),
        /shrank while it was read: 4 of the declared 10 bytes/,
      );
      // Replaced by rename after the open: the descriptor still reads the original bytes.
      writeFileSync(file, "0123456789");
      const other = join(d.scratch, "b.png");
      writeFileSync(other, "abcdefghij");
      const got = await readScratchFile(d.scratch, "a.png", 10, MAX, undefined, () => renameSync(other, file));
      assert.equal(got.toString(), "0123456789");
    } finally {
      d.done();
    }
  },
);

test("ART-07: with a real concurrent appender every read is refused or exactly the declared bytes (A5)", async () => {
  const d = dirs();
  const file = join(d.scratch, "grow.wav");
  writeFileSync(file, "");
  const appender = spawn(
    process.execPath,
    [
      "-e",
      `
    const { appendFileSync } = require("node:fs");
    for (let i = 0; i < 200000; i++) appendFileSync(${JSON.stringify(file)}, "x");`,
    ],
    { stdio: "ignore" },
  );
  try {
    let refused = 0;
    for (let i = 0; i < 200; i++) {
      try {
        const got = await readScratchFile(d.scratch, "grow.wav", 64, MAX);
        assert.equal(got.length, 64);
      } catch (err) {
        assert.match((err as Error).message, /bytes, not the declared size|grew while|shrank while/);
        refused++;
      }
    }
    assert.ok(refused > 0, "a growing file was refused at least once");
  } finally {
    appender.kill("SIGKILL");
    d.done();
  }
});
