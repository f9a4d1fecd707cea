import { readFileSync } from 'node:fs';

/** Linux's clock tick (USER_HZ): /proc counts CPU time in hundredths of a second. */
export const TICK_MS = 10;

/** The fields of /proc/<pid>/stat after the command's name (which may hold spaces and parentheses). */
function statFields(pid: number | 'self'): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** CPU milliseconds (user + system, every thread) a process has used so far. */
export function cpuMsOf(pid: number | 'self'): number {
  const fields = statFields(pid);
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

/** CPU milliseconds of this process's children it has waited for (and of theirs, waited for in turn). */
export function childrenCpuMs(): number {
  const fields = statFields('self');
  return (Number(fields[13]) + Number(fields[14])) * TICK_MS;
}
