// How tests/docs/docs.test.js reads a page (README.md, docs/*.md): its code blocks, the commands of
// its ```sh blocks, and what the test does with each (docs/testing.md has the rules).

export const NOT_RUN = /#.*\bnot run by make test-docs\b(?::\s*(.*))?$/;
export const UNTIL_CTRL_C = /#.*\buntil Ctrl-C\b/;
export const EXITS = /#.*\bexits (\d+)\b/;

/**
 * The code blocks of a page: `{lang, lines: [{text, line}], line, marker}`, `marker` the
 * `<!-- docs-test: ... -->` comment right before the block, if any, and `after` true when the block
 * comes right after the previous one (nothing but blank lines between).
 */
export function codeBlocks(text) {
  const blocks = [];
  const lines = text.split("\n");
  let current;
  let marker;
  let lastEnd = -2;
  for (const [i, line] of lines.entries()) {
    if (current) {
      if (/^```\s*$/.test(line)) {
        blocks.push(current);
        current = undefined;
        lastEnd = i;
      } else {
        current.lines.push({ text: line, line: i + 1 });
      }
      continue;
    }
    const fence = /^```(\S*)\s*$/.exec(line);
    const comment = /^<!--\s*docs-test:\s*(.*?)\s*-->\s*$/.exec(line);
    if (fence) {
      const between = lines.slice(lastEnd + 1, i).filter((l) => l.trim() !== "");
      current = { lang: fence[1], lines: [], line: i + 1, marker, after: blocks.length > 0 && between.length === 0 };
      marker = undefined;
    } else if (comment) {
      marker = comment[1];
    } else if (line.trim() !== "") {
      marker = undefined;
    }
  }
  return blocks;
}

/** The commands of a sh block: continuation lines joined; blank and comment lines left out. */
export function commands(block) {
  const out = [];
  let pending;
  for (const { text, line } of block.lines) {
    const joined = pending ? `${pending.text}\n${text}` : text;
    const start = pending ? pending.line : line;
    if (/\\$/.test(text)) {
      pending = { text: joined, line: start };
      continue;
    }
    pending = undefined;
    if (joined.trim() === "" || joined.trim().startsWith("#")) {
      continue;
    }
    out.push({ text: joined, line: start });
  }
  return out;
}

/** What a page asks of the test: its steps in order (run, start, skip, expect output) or its errors. */
export function plan(page, text) {
  const steps = [];
  const errors = [];
  const blocks = codeBlocks(text);
  for (const [i, block] of blocks.entries()) {
    const where = `${page}:${block.line}`;
    if (block.lang === "sh") {
      for (const command of commands(block)) {
        const at = `${page}:${command.line}`;
        const notRun = NOT_RUN.exec(command.text);
        if (notRun) {
          if (!notRun[1]?.trim()) {
            errors.push(`${at}: \`not run by make test-docs\` gives no reason: ${command.text}`);
          }
          steps.push({ kind: "skip", at, block: i, command: command.text, reason: notRun[1]?.trim() });
        } else if (UNTIL_CTRL_C.test(command.text)) {
          steps.push({ kind: "start", at, block: i, command: command.text });
        } else {
          steps.push({ kind: "run", at, block: i, command: command.text, status: Number(EXITS.exec(command.text)?.[1] ?? 0) });
        }
      }
      continue;
    }
    if (block.lang !== "text" && block.lang !== "") {
      continue; // js, rust (a doctest), yaml...: not shell lines
    }
    const shown = block.lines.map((l) => l.text).join("\n");
    const previous = blocks[i - 1];
    const file = /^the text of (\S+)$/.exec(block.marker ?? "");
    if (block.marker === "not output") {
      continue;
    } else if (file) {
      steps.push({ kind: "file", at: where, block: i, file: file[1], shown });
    } else if (block.after && previous?.lang === "sh") {
      const last = steps.at(-1);
      if (last?.kind !== "run" || last.block !== i - 1) {
        errors.push(`${where}: an output block after a sh block whose last line is not run to its end`);
      } else {
        last.shown = shown;
      }
    } else {
      errors.push(`${where}: a ${block.lang || "bare"} block that is no command's output: put it right after the sh block whose last line prints it, or mark it (tests/docs/docs.test.js)`);
    }
  }
  return { steps, errors };
}

