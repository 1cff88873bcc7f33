import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCommand } from '../../../src/proc/run.js';
import {
  addFilePatch,
  type OfferedTool,
  shellCall,
  writeCall,
  writeFileCommand,
} from '../../../src/simulators/model-api/tools.js';

const offered = (...names: string[]): OfferedTool[] => names.map((name) => ({ name, freeform: false }));

let dir: string | undefined;
afterEach(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('tool calls for write and shell replies', () => {
  const write = { path: 'a.txt', content: 'x\n' };

  it("picks each CLI's own file-writing tool", () => {
    expect(writeCall(write, offered('Bash', 'Read', 'Write'))).toEqual({
      name: 'Write',
      form: 'json',
      arguments: { file_path: 'a.txt', content: 'x\n' },
    });
    expect(writeCall(write, offered('run_shell_command', 'write_file'))).toEqual({
      name: 'write_file',
      form: 'json',
      arguments: { file_path: 'a.txt', content: 'x\n' },
    });
    expect(writeCall(write, offered('bash', 'write'))).toMatchObject({
      name: 'write',
      arguments: { filePath: 'a.txt', content: 'x\n' },
    });
    expect(writeCall(write, [{ name: 'apply_patch', freeform: true }])).toEqual({
      name: 'apply_patch',
      form: 'freeform',
      input: addFilePatch('a.txt', 'x\n'),
    });
  });

  it("picks each CLI's own shell tool", () => {
    const names = [
      ['Bash', { command: 'ls', description: 'Run a command' }],
      ['run_shell_command', { command: 'ls' }],
      ['bash', { command: 'ls', description: 'Run a command' }],
      ['exec_command', { cmd: 'ls' }],
      ['shell_command', { command: 'ls' }],
      ['shell', { command: ['bash', '-lc', 'ls'] }],
    ] as const;
    for (const [name, args] of names)
      expect(shellCall('ls', offered('view_image', name))).toMatchObject({ name, arguments: args });
    expect(shellCall('ls', offered('Write', 'Read'))).toBeUndefined();
  });

  it('writes through the shell when no file tool is offered; nothing when neither is', () => {
    expect(writeCall(write, offered('exec_command'))).toEqual({
      name: 'exec_command',
      form: 'json',
      arguments: { cmd: writeFileCommand('a.txt', 'x\n') },
    });
    expect(writeCall(write, offered('Read'))).toBeUndefined();
  });

  it('builds an Add File patch with one + line per line', () => {
    expect(addFilePatch('d/a.txt', 'one\n\ntwo\n')).toBe(
      '*** Begin Patch\n*** Add File: d/a.txt\n+one\n+\n+two\n*** End Patch\n',
    );
    expect(addFilePatch('a.txt', 'no newline')).toBe(
      '*** Begin Patch\n*** Add File: a.txt\n+no newline\n*** End Patch\n',
    );
  });

  it('builds a shell command that writes the content exactly, creating folders', async () => {
    dir = await mkdtemp(join(tmpdir(), 'harmflow-tools-'));
    const content = 'it\'s "quoted" $HOME `x` \\n\nsecond line %s';
    const command = writeFileCommand("sub dir/it's.txt", content);
    const result = await runCommand('bash', ['-c', command], { cwd: dir, timeoutMs: 10_000 });
    expect(result.exitCode).toBe(0);
    expect(await readFile(join(dir, "sub dir/it's.txt"), 'utf8')).toBe(content);
  });
});
