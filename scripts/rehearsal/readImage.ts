import { readFileSync } from 'node:fs';

/** What a container of the image starts with, read from the Dockerfile's last stage. */
export type Image = { workdir: string; env: Record<string, string>; entrypoint: string[]; cmd: string[] };

/** The Dockerfile's last stage: WORKDIR, ENV, ENTRYPOINT and CMD (exec form), as a container runtime reads them. */
export function readImage(dockerfile: string): Image {
  const lines = readFileSync(dockerfile, 'utf8')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
  const stages: string[][] = [];
  for (const line of lines) {
    if (/^FROM\s/i.test(line)) stages.push([]);
    stages.at(-1)?.push(line);
  }
  const image: Image = { workdir: '/', env: {}, entrypoint: [], cmd: [] };
  for (const line of stages.at(-1) ?? []) {
    const [instruction = '', ...rest] = line.split(/\s+/);
    const argument = rest.join(' ');
    switch (instruction.toUpperCase()) {
      case 'WORKDIR':
        image.workdir = argument;
        break;
      case 'ENV':
        for (const pair of argument.match(/[A-Za-z_][A-Za-z0-9_]*=("[^"]*"|\S*)/g) ?? []) {
          const at = pair.indexOf('=');
          image.env[pair.slice(0, at)] = pair.slice(at + 1).replace(/^"(.*)"$/, '$1');
        }
        break;
      case 'ENTRYPOINT':
        image.entrypoint = JSON.parse(argument) as string[];
        // A new ENTRYPOINT drops the CMD of earlier stages, as Docker does.
        break;
      case 'CMD':
        image.cmd = JSON.parse(argument) as string[];
        break;
    }
  }
  return image;
}
