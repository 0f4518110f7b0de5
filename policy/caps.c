// SPDX-License-Identifier: GPL-2.0
/* The "caps" section: the capability table (which a command may keep, and why not the rest). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <linux/capability.h>

#include "policy/parse_internal.h"
#include "policy/policy.h"

/*
 * What a command may keep, and why the rest is refused. The allowed few are those a service or a
 * build step plausibly needs whose reach the sandbox's other rules still bound (paths by Landlock
 * or the LSM programs, signals by the pid namespace or task_kill); the refused ones reach the
 * kernel, the host or the monitor itself. bubblewrap and nsjail keep nothing unless asked;
 * docker's default set is larger (it keeps MKNOD, NET_RAW, SETFCAP, SETPCAP, SYS_CHROOT,
 * AUDIT_WRITE): warden refuses those.
 */
#define CAP(n, ok, why) { #n, n, ok, why }
static const struct wd_cap_info cap_table[] = {
	CAP(CAP_CHOWN, true, "change the owner of files it may write: it can give them to any user "
			     "or group, host users' included"),
	CAP(CAP_DAC_OVERRIDE, true, "ignore file modes and ACLs (not Landlock's or warden's path "
				    "rules): it reads and writes any file in the trees it may use, "
				    "whoever owns it"),
	CAP(CAP_DAC_READ_SEARCH, false, "reads any file and opens files by handle "
					"(open_by_handle_at): around every path rule"),
	CAP(CAP_FOWNER, true, "act as the owner of any file in the trees it may use (chmod, "
			      "utimes, removing others' files from sticky directories)"),
	CAP(CAP_FSETID, true, "keep set-user-ID and set-group-ID bits when it changes a file: such "
			      "a file it writes can later run with its owner's rights outside the "
			      "sandbox"),
	CAP(CAP_KILL, true, "signal any process of the sandbox whatever its user (host processes "
			    "stay out of reach)"),
	CAP(CAP_SETGID, true, "become any group and set any supplementary groups: it reads what "
			      "those groups may read in the trees it may use"),
	CAP(CAP_SETUID, true, "become any user: it reads and writes as that user in the trees it "
			      "may use"),
	CAP(CAP_SETPCAP, false, "changes capability sets and secure bits: a way to widen what it "
				"keeps"),
	CAP(CAP_LINUX_IMMUTABLE, false, "sets and clears the immutable and append-only flags the "
					"host relies on"),
	CAP(CAP_NET_BIND_SERVICE, true, "bind TCP and UDP ports below 1024 (in the sandbox's "
					"network namespace when it has its own): it can answer "
					"as a system service on the host's addresses"),
	CAP(CAP_NET_BROADCAST, false, "may broadcast and multicast (unused by Linux today: refused "
				      "for what it may come to mean)"),
	CAP(CAP_NET_ADMIN, false, "configures interfaces, routes, firewall rules and traffic "
				  "control: around warden's egress rules"),
	CAP(CAP_NET_RAW, false, "opens raw and packet sockets: forged packets and sniffing, "
				"around the egress rules' ports and protocols"),
	CAP(CAP_IPC_LOCK, false, "locks memory and makes huge pages: pins host memory"),
	CAP(CAP_IPC_OWNER, false, "bypasses the permissions of every System V IPC object"),
	CAP(CAP_SYS_MODULE, false, "loads and removes kernel modules: runs its own code in the "
				   "kernel"),
	CAP(CAP_SYS_RAWIO, false, "does raw I/O: ioperm, iopl, /dev/mem, SCSI and disk commands"),
	CAP(CAP_SYS_CHROOT, false, "chroots into a new root the path rules were not written for"),
	CAP(CAP_SYS_PTRACE, false, "traces any process and reads or writes its memory"),
	CAP(CAP_SYS_PACCT, false, "turns process accounting on, writing a file of its choosing "
				  "host-wide"),
	CAP(CAP_SYS_ADMIN, false, "mounts file systems, makes namespaces and reaches most of "
				  "the kernel's administrative interface: the way out of every "
				  "sandbox"),
	CAP(CAP_SYS_BOOT, false, "reboots the host and loads a new kernel (kexec)"),
	CAP(CAP_SYS_NICE, false, "sets real-time scheduling and other processes' priorities: "
				 "it can starve the host's CPUs"),
	CAP(CAP_SYS_RESOURCE, false, "overrides resource limits, quotas and reserved space: around "
				     "the policy's limits"),
	CAP(CAP_SYS_TIME, false, "sets the host's clock, which every log and certificate check "
				 "reads"),
	CAP(CAP_SYS_TTY_CONFIG, false, "calls vhangup and configures the host's "
				       "terminals"),
	CAP(CAP_MKNOD, false, "makes device nodes: a disk or /dev/mem opened through a node of its "
			      "own"),
	CAP(CAP_LEASE, false, "takes leases on files it does not own: stalls host processes that "
			      "open them"),
	CAP(CAP_AUDIT_WRITE, false, "writes records into the kernel's audit log, which the host "
				    "trusts"),
	CAP(CAP_AUDIT_CONTROL, false, "changes the kernel's audit rules: hides what it does"),
	CAP(CAP_SETFCAP, false, "sets file capabilities: a file it writes can later run with "
				"capabilities outside the sandbox"),
	CAP(CAP_MAC_OVERRIDE, false, "overrides mandatory access control (Smack)"),
	CAP(CAP_MAC_ADMIN, false, "changes mandatory access control policy"),
	CAP(CAP_SYSLOG, false, "reads and clears the kernel log, which holds host addresses and "
			       "secrets"),
	CAP(CAP_WAKE_ALARM, false, "sets alarms that wake the host from suspend"),
	CAP(CAP_BLOCK_SUSPEND, false, "keeps the host from suspending"),
	CAP(CAP_AUDIT_READ, false, "reads the kernel's audit stream: every host process's records"),
	CAP(CAP_PERFMON, false, "monitors the whole host's performance: reads kernel and "
				"other processes' data"),
	CAP(CAP_BPF, false, "loads BPF programs and reads maps: the very kind that confine the "
			    "sandbox"),
	CAP(CAP_CHECKPOINT_RESTORE, false, "picks pids and reads other processes' state "
					   "(checkpoint and restore)"),
};
#undef CAP

const struct wd_cap_info *wd_cap_find(const char *name)
{
	for (size_t i = 0; i < sizeof(cap_table) / sizeof(cap_table[0]); i++)
		if (strcmp(cap_table[i].name, name) == 0)
			return &cap_table[i];
	return NULL;
}

const struct wd_cap_info *wd_cap_table(size_t *n)
{
	*n = sizeof(cap_table) / sizeof(cap_table[0]);
	return cap_table;
}

uint64_t wd_policy_caps_mask(const struct wd_policy *p)
{
	const struct wd_cap_info *ci;
	uint64_t m = 0;

	for (size_t i = 0; i < p->caps.n; i++) {
		ci = wd_cap_find(p->caps.paths[i]);
		if (ci && ci->allowed)
			m |= 1ULL << ci->nr;
	}
	return m;
}

/* The names a policy may keep, for an error message: "CAP_CHOWN, CAP_DAC_OVERRIDE, ...". */
static void allowed_caps(char *buf, size_t sz)
{
	size_t off = 0;

	buf[0] = 0;
	for (size_t i = 0; i < sizeof(cap_table) / sizeof(cap_table[0]) && off < sz; i++) {
		if (!cap_table[i].allowed)
			continue;
		off += (size_t)snprintf(buf + off, sz - off, "%s%s", off ? ", " : "",
					cap_table[i].name);
	}
}

void wdp_cap_item(struct pctx *c, const cJSON *v, const char *ptr)
{
	const struct wd_cap_info *ci;
	char ok[512];

	if (!wdp_check_string(c, v, ptr, "a capability name (\"CAP_NET_BIND_SERVICE\")"))
		return;
	ci = wd_cap_find(v->valuestring);
	if (ci && ci->allowed) {
		wdp_list_add_once(c, &c->p->caps, ci->name);
		return;
	}
	allowed_caps(ok, sizeof(ok));
	if (!ci)
		perr(c, ptr, "expected a capability name in upper case (\"CAP_CHOWN\"), got "
			     "\"%s\"; a policy may keep: %s",
		     v->valuestring, ok);
	else
		perr(c, ptr, "%s is refused: a process holding it %s; a policy may keep: %s",
		     ci->name, ci->risk, ok);
}
