/**
 * Summarises V8 CPU profiles (`.cpuprofile`, as BENCH_PROFILE=1 writes them): self time by package
 * or source folder, and the top functions. `npx tsx bench/tools/profile-summary.ts <file>…`
 */
import fs from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** Where a frame's code lives: a package, one of our folders, Node's internals, or V8 itself. */
function areaOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1] as string;
  if (url.startsWith('node:')) return 'node:internal';
  const ours = /\/(src|bench|scripts)\/([^/]+)/.exec(url);
  if (ours) return `${ours[1]}/${ours[2]}`;
  if (url.includes('workflow-bundle')) return 'workflow-bundle';
  return url.slice(-40);
}

function summarise(file: string): void {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, index) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0)));
  const totalUs = [...selfUs.values()].reduce((a, b) => a + b, 0);
  const byArea = new Map<string, number>();
  const byFunction = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const frame = (byId.get(id) as ProfileNode).callFrame;
    const area = areaOf(frame.url, frame.functionName);
    byArea.set(area, (byArea.get(area) ?? 0) + us);
    const name = `${frame.functionName || '(anonymous)'} ${area}:${frame.lineNumber + 1}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + us);
  }
  const idleUs = byArea.get('(idle)') ?? 0;
  const busyUs = totalUs - idleUs;
  const line = (label: string, us: number) =>
    `  ${(us / 1000).toFixed(0).padStart(7)} ms ${((us / busyUs) * 100).toFixed(1).padStart(5)} %  ${label}`;
  process.stdout.write(`${file}\n  busy ${(busyUs / 1e6).toFixed(1)} s of ${(totalUs / 1e6).toFixed(1)} s\n`);
  for (const [area, us] of [...byArea]
    .filter(([a]) => a !== '(idle)')
    .sort((a, b) => b[1] - a[1])
    .slice(0, 15))
    process.stdout.write(`${line(area, us)}\n`);
  process.stdout.write('  top functions:\n');
  for (const [name, us] of [...byFunction]
    .filter(([n]) => !n.startsWith('(idle)'))
    .sort((a, b) => b[1] - a[1])
    .slice(0, 25))
    process.stdout.write(`${line(name, us)}\n`);
}

for (const file of process.argv.slice(2)) summarise(file);
