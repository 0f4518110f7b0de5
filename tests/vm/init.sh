#!/bin/busybox sh
# shellcheck shell=dash
# /init (PID 1) of the warden test VM; copied into the initramfs by
# tests/vm/run.sh.  Runs under busybox sh.  Sets up the usual kernel
# filesystems, loads the modules listed in /lib/modules/load.list, runs the
# command from /etc/warden-vm/cmd (the --cmd of run.sh) under bash in
# /warden, prints the marker line WARDEN_VM_EXIT=<rc> and powers off.

export PATH=/warden/bin:/warden:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root
export TERM=dumb
umask 022

mnt() { # mnt TYPE DIR [OPTIONS]
	mkdir -p "$2"
	mount -t "$1" ${3:+-o "$3"} "$1" "$2" || echo "vm: warning: cannot mount $1 on $2"
}

/bin/busybox mount -t proc proc /proc
# applet links (/bin/sh, /sbin/ip, ...); existing files (bash, ip) are kept
/bin/busybox --install -s
mnt sysfs /sys
mnt devtmpfs /dev
# make sure stdio is the console even if the kernel could not open it for us
[ -c /dev/console ] && exec </dev/console >/dev/console 2>&1
mnt securityfs /sys/kernel/security
mnt bpf /sys/fs/bpf mode=0700
mnt cgroup2 /sys/fs/cgroup nsdelegate
mnt tmpfs /tmp mode=1777
mnt tmpfs /run mode=0755
mnt devpts /dev/pts gid=5,mode=620,ptmxmode=666
mnt tmpfs /dev/shm mode=1777
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
[ -e /dev/stdin ] || ln -s /proc/self/fd/0 /dev/stdin
[ -e /dev/stdout ] || ln -s /proc/self/fd/1 /dev/stdout
[ -e /dev/stderr ] || ln -s /proc/self/fd/2 /dev/stderr

# modules, in dependency order (best effort)
if [ -f /lib/modules/load.list ]; then
	while read -r m; do
		[ -n "$m" ] || continue
		insmod "/lib/modules/$m.ko" 2>/dev/null || {
			grep -q "^$(echo "$m" | tr - _) " /proc/modules ||
				echo "vm: warning: insmod $m failed"
		}
	done </lib/modules/load.list
fi

# like a systemd host: controllers available to child cgroups (best effort)
for c in $(cat /sys/fs/cgroup/cgroup.controllers 2>/dev/null); do
	echo "+$c" >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
done

hostname warden-vm 2>/dev/null
ip link set lo up || echo "vm: warning: cannot bring lo up"

echo "vm: kernel $(uname -r) lsm=$(cat /sys/kernel/security/lsm 2>/dev/null)"

cd /warden || echo "vm: warning: no /warden"
bash /etc/warden-vm/cmd </dev/null
rc=$?

echo "WARDEN_VM_EXIT=$rc"
# let the serial line drain (stty waits via TCSADRAIN), then power off
stty -F /dev/console onlcr 2>/dev/null
poweroff -f
sleep 5
echo "vm: poweroff failed"
