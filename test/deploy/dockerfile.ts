import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../support/service-process.js';

export interface Instruction {
  /** Upper case: FROM, RUN, COPY ... */
  readonly keyword: string;
  /** The rest of the instruction, continuation lines joined. */
  readonly args: string;
}

export interface Stage {
  /** The FROM line's image and stage name (`FROM node:24-slim AS build`). */
  readonly image: string;
  readonly name: string | undefined;
  readonly instructions: readonly Instruction[];
}

/** The repository's Dockerfile, stage by stage (comments dropped, `\` continuations joined). */
export function readDockerfile(path = join(ROOT, 'Dockerfile')): Stage[] {
  const text = readFileSync(path, 'utf8').replace(/\\\r?\n/g, ' ');
  const stages: { image: string; name: string | undefined; instructions: Instruction[] }[] = [];
  for (const line of text.split('\n').map((raw) => raw.trim())) {
    if (line === '' || line.startsWith('#')) continue;
    const [, keyword = '', args = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    if (keyword.toUpperCase() === 'FROM') {
      const [image = '', as, name] = args.split(/\s+/);
      stages.push({ image, name: as?.toUpperCase() === 'AS' ? name : undefined, instructions: [] });
    } else {
      stages.at(-1)?.instructions.push({ keyword: keyword.toUpperCase(), args });
    }
  }
  return stages;
}

/** The arguments of each `keyword` instruction of a stage. */
export function argsOf(stage: Stage, keyword: string): string[] {
  return stage.instructions.filter((instruction) => instruction.keyword === keyword).map((instruction) => instruction.args);
}

/** An exec-form (JSON array) instruction's words, e.g. CMD ["node", "dist/main.js"]. */
export function execForm(args: string): string[] {
  const words: unknown = JSON.parse(args);
  if (!Array.isArray(words) || !words.every((word) => typeof word === 'string')) throw new Error(`not exec form: ${args}`);
  return words;
}
