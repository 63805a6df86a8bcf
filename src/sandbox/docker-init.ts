/**
 * The first process of every docker sandbox container (its PID 1, run by the image's bash):
 * it runs one command, then ends everything the command left, writes what the limits did, and
 * exits with the command's status. See docs/design/sandbox.md ("docker").
 *
 * Arguments: STATUS_FILE INPUT_FILE -- ARGV... (INPUT_FILE may be "": stdin is /dev/null).
 *
 * - The command's environment arrives as `LAB_SANDBOX_ENV_<n>=NAME=VALUE` variables, so no
 *   value is ever in a command line (`ps` shows those to every user) and the init's own bash
 *   sees no variable of the command's (BASH_ENV, SHELLOPTS). Everything else (docker's PATH,
 *   HOME, HOSTNAME; bash's SHLVL, `_`, PWD) is removed unless given: exactly what was given.
 * - SIGTERM (`docker kill -s TERM`, at the time limit) goes on to every process but this one,
 *   as bwrap's init does, so a tool can save its work.
 * - SIGUSR2 (lab's kill: the grace after SIGTERM is over, or the run is stopped) is SIGKILL to
 *   every process but this one, which then ends as after any command: the status is still
 *   written. A command that blocks SIGTERM (bash does, while it waits to retry a refused fork)
 *   would otherwise outlive the grace, and lab's SIGKILL of the container would lose what the
 *   limits did.
 * - Its stdin is a pipe lab holds open: EOF means lab is gone (even by SIGKILL), and the
 *   command and all it started are killed; its watcher ignores SIGTERM, so this holds in the
 *   grace after the time limit too.
 * - After the command, SIGKILL to every other process until none is left; only then is the
 *   status file written (removed first, whatever the command put there), so nothing the
 *   command ran can forge it: "EXIT FORKS_REFUSED OOM_KILLS", from the container's cgroup.
 */
export const CONTAINER_INIT = `
status=$1 input=$2
shift 3
# bash's notes on the jobs it reaps must not reach the command's stderr.
exec 3>&2 2>/dev/null
envs=()
for __v in \${!LAB_SANDBOX_ENV_@}; do envs+=("\${!__v}"); unset -v "$__v"; done
given=" "
for __kv in "\${envs[@]}"; do given+="\${__kv%%=*} "; done
lost=0
trap 'kill -TERM -1 2>/dev/null' TERM
trap 'lost=1; kill -KILL -1 2>/dev/null' USR1
trap 'kill -KILL -1 2>/dev/null' USR2
# Deaf to the time limit's SIGTERM, which goes to every process: lab may still die in the grace.
( trap '' TERM; while read -r _; do :; done; kill -USR1 1 ) <&0 3>&- &
(
  extra=()
  for __kv in "\${envs[@]}"; do
    if [[ \${__kv%%=*} == _ ]] || ! export -- "$__kv"; then extra+=("$__kv"); fi
  done
  unset=()
  for __n in $(compgen -e) SHLVL _ PWD OLDPWD; do
    [[ $given == *" $__n "* ]] || unset+=(-u "$__n")
  done
  exec /usr/bin/env "\${unset[@]}" -- "\${extra[@]}" "$@" <"\${input:-/dev/null}" 2>&3 3>&-
) &
child=$!
while :; do
  wait "$child"; rc=$?
  (( rc > 128 )) || break
  kill -0 "$child" 2>/dev/null && continue
  wait "$child" 2>/dev/null; again=$?
  (( again == 127 )) || rc=$again
  break
done
n=0
while kill -KILL -1 2>/dev/null && (( n++ < 100000 )); do :; done
forks=0 ooms=0
for f in /sys/fs/cgroup/pids/pids.events /sys/fs/cgroup/pids.events; do
  [[ -r $f ]] || continue
  while read -r k v; do [[ $k == max ]] && forks=$v; done <"$f"
  break
done
for f in /sys/fs/cgroup/memory/memory.oom_control /sys/fs/cgroup/memory.events; do
  [[ -r $f ]] || continue
  while read -r k v; do [[ $k == oom_kill ]] && ooms=$v; done <"$f"
  break
done
if (( lost == 0 )); then
  rm -rf -- "$status" 2>/dev/null
  printf '%s %s %s\\n' "$rc" "$forks" "$ooms" >"$status"
fi
exit "$rc"
`;

/** What the init wrote after its command: its exit status and what the limits did. */
export interface InitStatus {
  readonly exitCode: number;
  readonly forkRefusals: number;
  readonly oomKills: number;
}

/** Parses the init's status file; null when it is missing or malformed (the init was killed). */
export function parseInitStatus(text: string): InitStatus | null {
  const match = /^(\d+) (\d+) (\d+)\n$/.exec(text);
  if (match === null) return null;
  return {
    exitCode: Number(match[1]),
    forkRefusals: Number(match[2]),
    oomKills: Number(match[3]),
  };
}
