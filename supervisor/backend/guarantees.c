// SPDX-License-Identifier: GPL-2.0
/*
 * Backend room: the guarantee table (guarantees.h), one row per rule or bypass class and one
 * column per backend, reached through the backend's ops (wd_backend_ops.column).
 */
#include <string.h>

#include "supervisor/backend/backend.h"
#include "supervisor/backend/guarantees.h"

#define YES(n) { WD_COVER_YES, n }
#define PART(n) { WD_COVER_PARTIAL, n }
#define NO(n) { WD_COVER_NO, n }

const struct wd_capability wd_capabilities[] = {
	/* Rules */
	{ "fs.read", "fs.read: open for reading only under listed trees",
	  YES("file_open on the resolved path"), YES("Landlock READ_FILE, READ_DIR") },
	{ "fs.write.open", "fs.write: open for writing only under listed trees",
	  YES("file_open on the resolved path"), YES("Landlock WRITE_FILE") },
	{ "fs.write.tree", "fs.write: create, delete, rename, link only under listed trees",
	  YES("path_mknod (O_CREAT too), path_mkdir, path_unlink, path_rmdir, "
	      "path_rename (both ends), path_link, path_symlink on the resolved path"),
	  YES("Landlock MAKE_*, REMOVE_*, REFER (ABI 2)") },
	{ "fs.write.truncate", "fs.write: truncate(2) only under listed trees",
	  YES("path_truncate; O_TRUNC and ftruncate need an open for writing"),
	  PART("Landlock TRUNCATE from ABI 3 (Linux 6.2)") },
	{ "fs.write.attr", "fs.write: chmod, chown and utimes only under listed trees",
	  YES("path_chmod, path_chown; inode_setattr for times and sizes, on a name the object "
	      "has in the sandbox's mount namespace"),
	  NO("Landlock has no right for attributes: chmod, chown and utimes work on whatever the "
	     "sandbox can reach") },
	{ "fs.write.xattr", "fs.write: set and remove extended attributes (and ACLs) only under "
	  "listed trees",
	  YES("inode_setxattr, inode_removexattr; inode_set_acl, inode_remove_acl from 6.2"),
	  NO("Landlock has no right for extended attributes") },
	{ "fs.exec", "fs.exec: execute only under listed trees (the ELF interpreter too)",
	  YES("bprm_check_security and file_open for execution"), YES("Landlock EXECUTE") },
	{ "fs.exec.map", "fs.exec: map files for execution (libraries) only under listed trees",
	  YES("mmap_file and file_mprotect with PROT_EXEC; anonymous memory (JITs) stays allowed"),
	  PART("only writable trees are noexec mounts; other readable files can be mapped") },
	{ "fs.deny", "fs.deny: nothing at or under a denied path, whatever else allows it",
	  YES("every stored prefix at or under it allows nothing; the object also by (dev, ino)"),
	  YES("carved out of the allowed trees (Landlock can only allow); a deny it cannot "
	      "express is refused") },
	{ "exec.deny", "exec.deny: a listed program (or anything under a listed directory) is "
	  "never executed, whatever fs.exec allows; the rule is on the resolved file",
	  YES("stored prefixes at and under it lose exec (bprm_check_security, file_open for "
	      "execution), named /exec/deny/N; the object and its other hard links also by "
	      "(dev, ino)"),
	  PART("carved out of fs.exec's EXECUTE and bound onto itself noexec; by path: a hard "
	       "link made before the run under another fs.exec tree still runs it") },
	{ "exec.deny.ld-so", "exec.deny: `ld.so PROGRAM` does not load a denied program",
	  YES("mmap_file with PROT_EXEC needs exec on the mapped file"),
	  YES("the denied object is a noexec mount: its executable mapping fails EPERM") },
	{ "exec.deny.copy", "exec.deny: a copy of a denied program does not run",
	  PART("a copy is another file: refused only where fs.exec does not cover where it was "
	       "written (no writable tree is executable unless fs.exec names it)"),
	  PART("a copy is another file: writable trees are noexec mounts unless fs.exec names "
	       "them") },
	{ "exec.deny.argv", "exec.deny with argument patterns: refused when the arguments match",
	  PART("the waiting room reads argv from the task's memory: advisory, as exec.hold"),
	  PART("the waiting room reads argv from the task's memory: advisory, as exec.hold") },
	{ "exec.allow", "exec.allow: only listed programs are run by execve (a script and its "
	  "interpreter each); fs.exec still decides what may be mapped for execution",
	  YES("bprm_check_security needs the run right of an exec.allow entry on the file "
	      "executed; the ELF interpreter the kernel maps for it needs fs.exec only, and "
	      "`ld.so PROGRAM` runs ld.so"),
	  NO("not enforced, the policy is refused by pointer: Landlock's EXECUTE also covers "
	     "the ELF interpreter, so it cannot refuse `ld.so PROGRAM` while running programs; "
	     "use --backend bpf-lsm") },
	{ "mode.audit", "mode audit: allow and record what would be denied",
	  YES("verdict audit; self-protection still denies"),
	  NO("refused: Landlock can only deny") },
	{ "audit.exec", "record every exec", YES("bprm_check_security"),
	  YES("tp_btf/sched_process_exec; the file executed, resolved (a script: its name as "
	      "passed, made absolute)") },
	{ "audit.deny", "record every denial with its target",
	  YES("from the hook, resolved path"),
	  PART("from the syscall's return (EACCES/EPERM): the path as passed, joined to the cwd "
	       "or dirfd the call had at entry; socket calls and device ioctls too; io_uring is "
	       "refused, so never unrecorded") },
	{ "audit.utf8", "every audit line is valid UTF-8 JSON whatever bytes a name holds",
	  YES("invalid bytes read as U+FFFD, exact bytes in <field>_b64"),
	  YES("invalid bytes read as U+FFFD, exact bytes in <field>_b64") },
	{ "audit.cwd", "a denial's relative path is resolved against the cwd the call had",
	  YES("from the hook, resolved path"),
	  YES("cwd or dirfd taken at syscall entry, used only if unchanged at exit; else the "
	      "record says the base changed") },
	{ "audit.unix-connect", "a connect to an abstract unix socket outside the sandbox is "
	  "refused and recorded",
	  NO("not refused: no socket hook (namespaces.net none gives the sandbox abstract names "
	     "of its own)"),
	  PART("Landlock's scope from ABI 6 (Linux 6.12); the refused connect or sendto is "
	       "recorded at syscall exit with its address") },
	{ "audit.unix-bind", "bind of a unix socket outside writable trees is refused and recorded",
	  YES("path_mknod, resolved path"),
	  YES("Landlock MAKE_SOCK; recorded at syscall exit with its address") },
	{ "audit.ioctl-dev", "an ioctl on a device outside writable trees is refused and recorded",
	  NO("not refused (file_ioctl refuses TIOCSTI and TIOCLINUX only)"),
	  PART("Landlock IOCTL_DEV from ABI 5 (Linux 6.10); recorded at syscall exit with the "
	       "device's path and the request") },
	{ "errno", "what a denied task gets", YES("EPERM"), YES("EACCES (Landlock), EPERM (seccomp)") },
	/* Bypass classes (DESIGN.md threat model) */
	{ "escape.symlink", "symlink to a denied file", YES("resolved path"), YES("resolved inode") },
	{ "escape.hardlink-before", "hard link made before the sandbox started",
	  YES("for fs.deny: the object and every multiply-linked file under it by (dev, ino); "
	      "link() to them is denied"),
	  NO("Landlock follows the link's own path") },
	{ "escape.hardlink-inside", "hard link made inside the sandbox",
	  YES("path_link needs fs.write on the source as well as on the new name"),
	  YES("Landlock REFER rules") },
	{ "escape.bind-mount", "bind mount over an allowed path",
	  YES("seccomp refuses the mount family; behind it sb_mount, move_mount, sb_umount, "
	      "sb_pivotroot, path_chroot refused; files on detached mounts are unresolved"),
	  YES("seccomp refuses the mount family; Landlock denies mounts") },
	{ "escape.rename", "rename into place: a denied file into an allowed tree, a payload into "
	  "an exec tree", YES("path_rename needs fs.write at both ends"),
	  YES("Landlock REMOVE_* at the source, MAKE_* at the destination") },
	{ "escape.proc-root", "/proc/self/root and /proc/PID/fd/N", YES("resolved path"),
	  YES("resolved inode") },
	{ "escape.open-by-handle", "open_by_handle_at",
	  YES("seccomp refuses it (no CAP_DAC_READ_SEARCH either); file_open sees a file opened"),
	  YES("seccomp refuses it") },
	{ "escape.dotdot", "\"..\" through directory fds", YES("resolved path"),
	  YES("resolved inode") },
	{ "escape.io-uring", "io_uring openat, unlinkat, connect",
	  YES("file_open and the path hooks see io_uring's operations, the cgroup connect "
	      "hooks its connects"),
	  YES("io_uring_setup refused") },
	{ "escape.memfd-exec", "memfd_create + execveat",
	  YES("the memfd has no path in fs.exec"),
	  YES("vm.memfd_noexec=2 in the sandbox's pid namespace (6.3+); memfd_create refused before") },
	{ "escape.ld-so", "ld.so BINARY, mmap or mprotect PROT_EXEC of a readable file",
	  YES("mmap_file and file_mprotect need fs.exec on a file mapped PROT_EXEC"),
	  PART("blocked for files under writable trees (mounted noexec), not for other readable "
	       "files") },
	{ "escape.shebang", "a script whose interpreter is not in fs.exec",
	  YES("the interpreter is opened for execution"), YES("Landlock EXECUTE on the interpreter") },
	{ "escape.multicall", "busybox-style multicall binaries", NO("by design: rules name binaries"),
	  NO("by design: rules name binaries") },
	{ "escape.bpf", "bpf() from inside",
	  YES("seccomp refuses it; lsm/bpf refuses every command behind it"),
	  YES("seccomp refuses it") },
	{ "escape.ptrace", "ptrace of a process outside the sandbox",
	  YES("ptrace_access_check: only tasks of the same sandbox"),
	  YES("own pid namespace; seccomp refuses ptrace") },
	{ "escape.kill", "signals to a process outside the sandbox",
	  YES("task_kill: only tasks of the same sandbox"),
	  YES("own pid namespace; Landlock signal scope from ABI 6") },
	{ "escape.cgroup-procs", "writing cgroup.procs to leave the sandbox",
	  YES("writes under cgroupfs and bpffs refused, whatever fs.write says"),
	  PART("denied unless fs.write covers cgroupfs") },
	{ "escape.userns", "new user namespaces", YES("userns_create refused"),
	  YES("seccomp refuses CLONE_NEWUSER; clone3 answers ENOSYS") },
	{ "escape.tiocsti", "TIOCSTI into the caller's terminal",
	  YES("a pty of its own in a new session; file_ioctl refuses TIOCSTI and TIOCLINUX"),
	  YES("a pty of its own in a new session; seccomp refuses TIOCSTI and TIOCLINUX") },
	{ "escape.terminal", "the caller's terminal: TIOCSCTTY, vhangup, mode changes, by fd or name",
	  YES("a pty of its own, relayed by warden; modes restored on every exit"),
	  YES("a pty of its own, relayed by warden; modes restored on every exit") },
	{ "escape.terminal-name", "the caller's terminal opened by name (/dev/pts/N) where fs.read "
	  "covers /dev/pts", NO("not yet: keep /dev/pts out of fs.read"),
	  PART("Landlock IOCTL_DEV (ABI 5) refuses its ioctls; before, as bpf-lsm") },
	{ "escape.setuid", "setuid binaries", YES("no_new_privs"), YES("no_new_privs; nosuid mounts") },
	{ "escape.caps", "capabilities: none, even as root (bounding, ambient, inheritable, "
	  "permitted and effective sets empty; the sandbox's init too), but what policy caps keeps",
	  YES("bounding set emptied before the user switch, capset before execve"),
	  YES("bounding set emptied before the user switch, capset before execve") },
	{ "escape.privileged-syscalls", "privileged syscalls (swapon, reboot, kexec, modules, "
	  "acct, setting the clock, syslog, fanotify_init, quotactl, pivot_root, vhangup, iopl, "
	  "odd personalities) refused as a second line behind the capabilities",
	  YES("seccomp filter; the syscall-exit recorder records each refusal"),
	  YES("seccomp filter; the syscall-exit recorder records each refusal") },
	{ "escape.self-approve", "answering its own holds through warden's sockets (as root)",
	  YES("a run's holds socket and a keeper's refuse any peer in a sandbox cgroup"),
	  YES("a run's holds socket and a keeper's refuse any peer in a sandbox cgroup") },
	/* Nothing of warden's leaks in; the exit status is the kernel's (issue #12) */
	{ "leak.env", "warden's environment (secrets) stays out: the command gets a clean one "
	  "unless env.pass names a variable",
	  YES("built by warden: a fixed PATH, the run user's HOME, USER, LOGNAME, the caller's TERM, "
	      "locale and TZ, then env.pass and env.set"),
	  YES("built by warden: a fixed PATH, the run user's HOME, USER, LOGNAME, the caller's TERM, "
	      "locale and TZ, then env.pass and env.set") },
	{ "leak.init", "the sandbox's init holds nothing of warden's (environment, memory, "
	  "descriptors) and the command cannot read or take what it has",
	  YES("a program of its own (warden-init), exec'd with an empty environment and its status "
	      "socket only, outside the sandbox cgroup (ptrace_access_check refuses it), not "
	      "dumpable, no capabilities"),
	  YES("a program of its own (warden-init), exec'd with an empty environment and its status "
	      "socket only, outside the Landlock domain (Landlock refuses ptrace of it), not "
	      "dumpable, no capabilities") },
	{ "trust.exit-status", "the exit status warden reports is the command's, never bytes the "
	  "command wrote",
	  YES("without an init, waitid on the command; with one, its socket (no reopening "
	      "through /proc/1/fd) and only a message SCM_CREDENTIALS says the init sent"),
	  YES("the init's socket (no reopening through /proc/1/fd) and only a message "
	      "SCM_CREDENTIALS says the init sent") },
	{ "hold.protect", "fs.protect hold: deletes, renames, truncations wait for an operator",
	  YES("the seccomp waiting room; the supervisor performs the approved call on the object "
	      "checked, from outside the sandbox; the kernel refuses the rest (fs.protect.kernel)"),
	  PART("the seccomp waiting room; the supervisor performs the approved call on the object "
	       "checked; a call answered CONTINUE meets the kernel only where fs.protect.kernel "
	       "is carved") },
	{ "fs.protect.kernel", "fs.protect: deletes, renames and truncations under a protected tree "
	  "are refused in the kernel, whatever the waiting room answered (a path swapped after it "
	  "looked, a path it could not read)",
	  YES("path_unlink, path_rmdir, path_rename (both ends; a directory above a tree), "
	      "path_truncate, file_truncate, file_open with O_TRUNC, inode_setattr of the size, "
	      "path_link of a file protected from truncation; the tree's root by (dev, ino)"),
	  PART("carved where exact: a tree with no writable tree above it loses REMOVE_FILE and "
	       "REMOVE_DIR (delete and rename both protected) and TRUNCATE (ABI 3); inside a "
	       "writable tree only the waiting room decides (rights are inherited down the tree: "
	       "taking removal would take it from the directories between)") },
	{ "hold.exec", "exec.hold: listed programs run only when an operator approves",
	  PART("argv is read from the task's memory: advisory; fs.exec decides"),
	  PART("argv is read from the task's memory: advisory; fs.exec decides") },
	/* What warden writes as root (supervisor/util/fsutil.c, supervisor/run/sink.c) */
	{ "files.report-path", "--report, --audit and the run directory: never where the sandbox "
	  "can write, never through a link",
	  YES("each directory of the path checked against fs.write before the command runs, links "
	      "walked, not trusted; files made O_NOFOLLOW|O_CREAT|O_EXCL (the report renamed into "
	      "place), an existing audit file only a plain one of root's with one name"),
	  YES("each directory of the path checked against fs.write before the command runs, links "
	      "walked, not trusted; files made O_NOFOLLOW|O_CREAT|O_EXCL (the report renamed into "
	      "place), an existing audit file only a plain one of root's with one name") },
	{ "files.audit-mode", "the audit file and the report are mode 0600",
	  YES("made 0600; an existing audit file is made 0600"),
	  YES("made 0600; an existing audit file is made 0600") },
	{ "files.keeper-reopen", "the keeper's exit record and report, and `warden adopt`'s, go "
	  "to the files the run opened, whatever their names have become",
	  YES("the keeper and a successor get the audit stream and the report's unnamed file as "
	      "fds; no path is reopened"),
	  YES("the keeper and a successor get the audit stream and the report's unnamed file as "
	      "fds; no path is reopened") },
	{ "audit.sink", "the audit stream is warden's alone: the command cannot write records into it",
	  YES("without --audit, a file of the sandbox's own under the run directory, named on "
	      "stderr, never a stream the command writes to"),
	  YES("without --audit, a file of the sandbox's own under the run directory, named on "
	      "stderr, never a stream the command writes to") },

	/*
	 * What an approval does, what the operator sees (hold/perform.c, holds_socket.c,
	 * tools/cmd_hold.c), and what warden's sockets take from a peer (supervisor/ipc/)
	 */
	{ "hold.exact-object", "an approved delete or rename acts on the object shown, or on none "
	  "(a name swapped while the call waited)",
	  PART("delete: moved aside (renameat2 NOREPLACE), its (dev, ino) checked, then removed, "
	       "else put back (ESTALE); rename: (dev, ino) of both ends re-checked just before, a "
	       "destination free when shown is kept free (NOREPLACE): microseconds remain"),
	  PART("delete: moved aside (renameat2 NOREPLACE), its (dev, ino) checked, then removed, "
	       "else put back (ESTALE); rename: (dev, ino) of both ends re-checked just before, a "
	       "destination free when shown is kept free (NOREPLACE): microseconds remain") },
	{ "hold.fd-rights", "an approval grants no more than the task's open file: ftruncate or "
	  "fallocate of an fd opened read-only or O_PATH is refused as the kernel refuses it",
	  YES("the task's file itself (pidfd_getfd): not writable, the kernel's EINVAL or EBADF, "
	      "never held, never reopened for writing"),
	  YES("the task's file itself (pidfd_getfd): not writable, the kernel's EINVAL or EBADF, "
	      "never held, never reopened for writing") },
	{ "hold.fallocate", "fallocate that destroys or moves data (PUNCH_HOLE, COLLAPSE_RANGE, "
	  "ZERO_RANGE, INSERT_RANGE) on a protected file is held as a truncation is",
	  PART("the waiting room (the mode is in a register); no LSM hook sees the mode, so with "
	       "hold.io_uring allow IORING_OP_FALLOCATE is not held; copy_file_range and splice "
	       "only write (fs.write's)"),
	  PART("the waiting room (the mode is in a register); io_uring is refused; copy_file_range "
	       "and splice only write (fs.write's)") },
	{ "hold.protect-alias", "a protected tree also mounted elsewhere before the run (a bind "
	  "mount of it, above it or below it) cannot be changed through the other name",
	  YES("refused at start, naming the alias, unless a rule as strict protects it too"),
	  YES("refused at start, naming the alias, unless a rule as strict protects it too") },
	{ "hold.listing", "warden holds, prompt and the control sockets show every hold, "
	  "however many and however large",
	  YES("replies queued whole and written as the client reads (EPOLLOUT), never cut"),
	  YES("replies queued whole and written as the client reads (EPOLLOUT), never cut") },
	{ "hold.display", "no file name or argument shown to a person can repaint the prompt",
	  YES("control characters, escape sequences, C1 and bidi controls, invalid UTF-8 shown as "
	      "\\xHH; each field at most 512 bytes; JSON output exact"),
	  YES("control characters, escape sequences, C1 and bidi controls, invalid UTF-8 shown as "
	      "\\xHH; each field at most 512 bytes; JSON output exact") },
	{ "hold.deny-scope", "a deny has an approval's scopes: a denied rm -rf is one question",
	  YES("warden deny and the prompt's [d]: this process under the protected tree; --scope "
	      "once, process, sandbox, --subtree, --count, --ttl"),
	  YES("warden deny and the prompt's [d]: this process under the protected tree; --scope "
	      "once, process, sandbox, --subtree, --count, --ttl") },
	{ "ipc.peer-input", "warden's sockets take bounded lines from their peers, and a hold's "
	  "token goes to no listener but root's",
	  YES("one socket layer (supervisor/ipc/): a line over its bound ends the connection, a "
	      "NUL byte refuses its line; the holds CLI checks its peer is root"),
	  YES("one socket layer (supervisor/ipc/): a line over its bound ends the connection, a "
	      "NUL byte refuses its line; the holds CLI checks its peer is root") },
	/* Process set-up (supervisor/sandbox/setup.c), the same code on both */
	{ "setup.env", "env: the command's environment is the clean base, env.pass and env.set, "
	  "nothing else",
	  YES("built by warden; execve passes only it"),
	  YES("built by warden; execve passes only it") },
	{ "setup.user",
	  "user: the command runs as the policy's user and groups, root not regainable",
	  YES("setgroups, setresgid, setresuid last before exec, then checked"),
	  YES("setgroups, setresgid, setresuid last before exec, then checked") },
	{ "setup.namespaces",
	  "namespaces: own mount (private /tmp, read-only binds), pid and /proc, ipc, uts, "
	  "net with loopback only",
	  YES("set up before the child joins the sandbox cgroup, whose LSM programs refuse mounts"),
	  YES("set up before Landlock and seccomp, which refuse mounts and setns") },
	{ "setup.net-veth", "namespaces.net veth: own network with a veth pair to the host "
	  "(10.243.0.0/16, a /30 each; fd77:6172:6465::/48, a /64 each; routing only), "
	  "removed when the sandbox ends",
	  YES("libnl in the supervisor before the child joins; net rules still apply"),
	  YES("libnl in the supervisor before the child joins; net rules still apply") },
	/* Network rules: the cgroup socket programs (bpf/wd_net.bpf.c), the same on both */
	{ "net.egress", "net.allow / net.deny by address block, protocol and port; deny beats "
	  "allow; IPv4-mapped IPv6 decided as IPv4; EPERM and one net record",
	  YES("cgroup connect4/6 and sendmsg4/6 on warden's subtree, LPM trie per family"),
	  YES("cgroup connect4/6 and sendmsg4/6 on warden's subtree, LPM trie per family") },
	{ "net.host", "loopback, 0.0.0.0 and the host's own addresses closed unless a rule names "
	  "them (neither \"*\" nor net.default opens them)",
	  YES("host blocks stored with the rules; addresses read through libnl at start"),
	  YES("host blocks stored with the rules; addresses read through libnl at start") },
	{ "net.listen", "bind(2) only to net.listen ports (port 0 always)",
	  YES("cgroup bind4/6"), YES("cgroup bind4/6") },
	{ "net.sockets", "no raw or packet sockets; ICMP echo sockets only with net.ping",
	  YES("cgroup sock_create (inet); seccomp refuses AF_PACKET"),
	  YES("cgroup sock_create (inet); seccomp refuses AF_PACKET") },
	{ "net.names", "names in net rules, allowed at the addresses warden resolved",
	  YES("DNS to port 53 redirected to the supervisor's forwarder (cgroup connect4/sendmsg4); "
	      "answers' addresses in the tries until TTL + 30 s; host netns, IPv4 DNS"),
	  YES("DNS to port 53 redirected to the supervisor's forwarder (cgroup connect4/sendmsg4); "
	      "answers' addresses in the tries until TTL + 30 s; host netns, IPv4 DNS") },
	{ "net.egress-rate", "net.egress_rate: the sandbox's egress bytes held to its rate",
	  PART("cgroup_skb/egress on warden's subtree, one schedule per sandbox for all its "
	       "sockets (within 10% over 5 s of loopback TCP); what its sockets still hold when "
	       "it ends leaves unlimited"),
	  PART("cgroup_skb/egress on warden's subtree, one schedule per sandbox for all its "
	       "sockets (within 10% over 5 s of loopback TCP); what its sockets still hold when "
	       "it ends leaves unlimited") },
	/* Limits in the kernel's BPF (the cgroup limits are supervisor/sandbox/limits.c's) */
	{ "limits.fork-rate", "limits.fork_rate: new processes held to the rate (burst one "
	  "second's worth); over it fork, vfork and clone fail EAGAIN, each refusal counted",
	  YES("lsm/task_alloc, one schedule per sandbox; threads pass (limits.pids bounds them)"),
	  NO("not enforced, the policy is refused by pointer: seccomp cannot count and Landlock "
	     "has no task hook; use --backend bpf-lsm") },
	/* The run loop (supervisor/run/output.c), the same on both */
	{ "limits.output", "limits.output: stdout and stderr passed to the caller live up to the "
	  "cap, the rest read, dropped and counted in the report",
	  YES("pipes (or the command's pty) read by warden without blocking; the cap never "
	      "blocks the command"),
	  YES("pipes (or the command's pty) read by warden without blocking; the cap never "
	      "blocks the command") },
	/* the private /tmp's tmpfs (supervisor/sandbox/setup.c), the same on both */
	{ "limits.disk", "limits.disk: writes past the cap fail ENOSPC; refused where the sandbox "
	  "may write a host tree (no quota warden could set)",
	  YES("the private /tmp is a tmpfs of that size and inode count, the only writable place "
	      "the policy may name"),
	  YES("the private /tmp is a tmpfs of that size and inode count, the only writable place "
	      "the policy may name") },
	{ NULL, NULL, { 0, NULL }, { 0, NULL } },
};

const struct wd_capability *wd_capability_find(const char *id)
{
	for (const struct wd_capability *c = wd_capabilities; c->id; c++)
		if (strcmp(c->id, id) == 0)
			return c;
	return NULL;
}

const struct wd_cover_cell *wd_guarantee_cell(const struct wd_capability *c,
					      enum wd_guarantee_column col)
{
	return col == WD_COLUMN_BPF_LSM ? &c->bpf_lsm : &c->landlock;
}

const struct wd_cover_cell *wd_capability_cell(const struct wd_capability *c, const char *name)
{
	const struct wd_backend_ops *ops = wd_backend_named(name);

	return ops ? wd_guarantee_cell(c, ops->column) : NULL;
}

static const char *cover_word(enum wd_cover c)
{
	switch (c) {
	case WD_COVER_YES:
		return "yes";
	case WD_COVER_PARTIAL:
		return "partly";
	default:
		return "no";
	}
}

void wd_capabilities_markdown(FILE *out)
{
	fprintf(out, "| id | what |");
	for (size_t i = 0; wd_backends[i]; i++)
		fprintf(out, " %s |", wd_backends[i]->name);
	fprintf(out, "\n| --- | --- |");
	for (size_t i = 0; wd_backends[i]; i++)
		fprintf(out, " --- |");
	fprintf(out, "\n");
	for (const struct wd_capability *c = wd_capabilities; c->id; c++) {
		fprintf(out, "| `%s` | %s |", c->id, c->what);
		for (size_t i = 0; wd_backends[i]; i++) {
			const struct wd_cover_cell *cell = wd_guarantee_cell(c, wd_backends[i]->column);

			fprintf(out, " **%s**: %s |", cover_word(cell->cover), cell->note);
		}
		fprintf(out, "\n");
	}
}
