# SPDX-License-Identifier: GPL-2.0
# Least privilege: a sandboxed root has no capabilities (and the sandbox's init none either), so
# each privileged call fails; the seccomp filter refuses the privileged syscalls as a second line
# and each refusal leaves a record; a capability the policy keeps works, one it does not stays
# gone. Each control makes the call outside where it passes the kernel's permission check but
# changes nothing host-wide (a bogus argument refused after the check, or a namespace the test
# made, or the test process's own scheduling).
WHERE=any
BACKENDS="bpf-lsm landlock"
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PR="$BIN/wd-privs"

# with JSON: add top-level keys (',"caps":[...]') to $T/p.json (one line, made by setup).
with() {
	sed -i "s|}\$|$1}|" "$T/p.json"
}

# refused_record NAME: the filter's refusal of syscall NAME is in the audit stream.
refused_record() {
	expect_line "$T/audit" '"type":"syscall"' "\"target\":\"$1\"" '"verdict":"deny"' \
		'"rule":"self-protection"' '"errno":"EPERM"'
}

test_no_capabilities() {
	claims escape.caps yes yes
	setup /proc
	with ',"namespaces":{"pid":"private"}'
	# outside, the test runs as root with a full bounding set
	case $("$PR" caps) in
	"0 0 0 0 0" | "") fail "control: the test itself has no capabilities to lose" ;;
	esac
	expect_eq "capabilities of root in the sandbox (inh prm eff bnd amb)" \
		"$(inside "$PR" caps)" "0 0 0 0 0"
	# pid 1 there is warden's init: a fork that never execs, and it keeps nothing either
	expect_eq "capabilities of the sandbox's init" "$(inside "$PR" caps-of 1)" "0 0 0 0 0"
	expect_eq "no_new_privs in the sandbox" "$(inside "$PR" nnp)" 1
}

test_no_capabilities_as_user() {
	claims escape.caps yes yes
	setup
	with ',"user":"nobody","caps":[]'
	expect_eq "capabilities of user nobody in the sandbox" "$(inside "$PR" caps)" "0 0 0 0 0"
}

test_swapon() {
	claims escape.privileged-syscalls yes yes
	setup
	head -c 65536 /dev/zero > "$T/allowed/notswap"
	chmod 600 "$T/allowed/notswap"
	# no swap signature: refused after the permission check, nothing is swapped on
	control "swapon of a file that is no swap area" EINVAL "$PR" swapon "$T/allowed/notswap"
	expect_eq "swapon in the sandbox" "$(inside "$PR" swapon "$T/allowed/notswap")" EPERM
	refused_record swapon
}

test_sethostname() {
	claims escape.caps yes yes
	setup
	with ',"namespaces":{"uts":"private"}'
	# in a uts namespace of the test's own: the host's name stays
	control "sethostname in a new uts namespace" ok unshare -u "$PR" sethostname wd-test
	expect_eq "sethostname in the sandbox (its own uts namespace)" \
		"$(inside "$PR" sethostname wd-test)" EPERM
}

test_adjtimex() {
	claims escape.privileged-syscalls yes yes
	setup
	# a setting call whose tick is out of range: refused after the permission check
	control "adjtimex(ADJ_TICK) with a bad tick" EINVAL "$PR" adjtimex
	expect_eq "adjtimex in the sandbox" "$(inside "$PR" adjtimex)" EPERM
	refused_record adjtimex
}

test_syslog() {
	claims escape.privileged-syscalls yes yes
	setup
	control "klogctl(READ_ALL)" ok "$PR" syslog-read
	# console level 0 is out of range: refused after the permission check
	control "klogctl(CONSOLE_LEVEL, 0)" EINVAL "$PR" syslog-level
	expect_eq "klogctl(READ_ALL) in the sandbox" "$(inside "$PR" syslog-read)" EPERM
	expect_eq "klogctl(CONSOLE_LEVEL) in the sandbox" "$(inside "$PR" syslog-level)" EPERM
	refused_record syslog
}

test_sched_fifo() {
	claims escape.caps yes yes
	setup
	# on the test process itself, and back to SCHED_OTHER at once
	control "SCHED_FIFO on itself" ok "$PR" fifo
	expect_eq "SCHED_FIFO in the sandbox" "$(inside "$PR" fifo)" EPERM
}

test_interface_config() {
	claims escape.caps yes yes
	setup
	with ',"namespaces":{"net":"none"}'
	# loopback of a network namespace the test made
	control "SIOCSIFMTU on lo of a new network namespace" ok unshare -n "$PR" mtu lo 1400
	expect_eq "SIOCSIFMTU on the sandbox's own lo" "$(inside "$PR" mtu lo 1400)" EPERM
}

test_fanotify_permission_mark() {
	claims escape.privileged-syscalls yes yes
	setup
	# the mark is gone when the group's fd closes, before anything opens the file
	control "fanotify FAN_CLASS_CONTENT + FAN_OPEN_PERM on a host file" ok \
		"$PR" fanotify "$T/allowed/file"
	expect_eq "fanotify permission mark in the sandbox" \
		"$(inside "$PR" fanotify "$T/allowed/file")" EPERM
	refused_record fanotify_init
}

test_mknod_device() {
	claims escape.caps yes yes
	setup
	control "mknod of a character device (then removed)" ok "$PR" mknod "$T/rw/null"
	out=$(inside "$PR" mknod "$T/rw/null")
	# bpf-lsm allows the node in a writable tree and CAP_MKNOD is what is missing; Landlock
	# refuses every device node before the capability check
	expect_eq "mknod of a device in the sandbox" "$out" "$(pick EPERM EACCES)"
	[ ! -e "$T/rw/null" ] || fail "a device node was made in the sandbox"
}

test_personality() {
	claims escape.privileged-syscalls yes yes
	setup
	control "personality(ADDR_NO_RANDOMIZE) on itself" ok "$PR" personality
	expect_eq "personality(ADDR_NO_RANDOMIZE) in the sandbox" "$(inside "$PR" personality)" \
		EPERM
	refused_record personality
}

test_kept_capability() {
	claims escape.caps yes yes
	setup "" "$T/rw"
	echo x > "$T/rw/f"
	with ',"namespaces":{"net":"none"}'
	cp "$T/p.json" "$T/none.json"
	control "bind to port 80 in a new network namespace" ok unshare -n "$PR" bind-low 80
	control "chown outside" ok "$PR" chown "$T/rw/f" 1
	chown 0 "$T/rw/f"
	# no caps: neither works
	expect_eq "bind to port 80, no caps" "$(inside "$PR" bind-low 80)" EACCES
	expect_eq "chown, no caps" "$(inside "$PR" chown "$T/rw/f" 1)" EPERM
	# CAP_NET_BIND_SERVICE kept: that one works, CAP_CHOWN stays gone
	with ',"caps":["CAP_NET_BIND_SERVICE"]'
	expect_eq "capabilities kept" "$(inside "$PR" caps)" "0 400 400 400 0"
	expect_eq "bind to port 80, CAP_NET_BIND_SERVICE kept" "$(inside "$PR" bind-low 80)" ok
	expect_eq "chown, only CAP_NET_BIND_SERVICE kept" "$(inside "$PR" chown "$T/rw/f" 1)" EPERM
	expect_eq "owner after the refused chown" "$(stat -c %u "$T/rw/f")" 0
	# CAP_CHOWN kept instead
	cp "$T/none.json" "$T/p.json"
	with ',"caps":["CAP_CHOWN"]'
	expect_eq "chown, CAP_CHOWN kept" "$(inside "$PR" chown "$T/rw/f" 1)" ok
	expect_eq "owner after chown" "$(stat -c %u "$T/rw/f")" 1
	expect_eq "bind to port 80, only CAP_CHOWN kept" "$(inside "$PR" bind-low 80)" EACCES
}

test_kept_capability_as_user() {
	claims escape.caps yes yes
	setup
	with ',"namespaces":{"net":"none"},"user":"nobody","caps":["CAP_NET_BIND_SERVICE"]'
	# a user other than root keeps it as an ambient capability, and nothing else
	expect_eq "capabilities of nobody with one kept" "$(inside "$PR" caps)" \
		"400 400 400 400 400"
	expect_eq "bind to port 80 as nobody, CAP_NET_BIND_SERVICE kept" \
		"$(inside "$PR" bind-low 80)" ok
}

test_refused_capability() {
	claims escape.caps yes yes
	setup
	with ',"caps":["CAP_NET_BIND_SERVICE","CAP_SYS_ADMIN"]'
	out=$("$WARDEN" policy check "$T/p.json" 2>&1) && fail "policy check accepted CAP_SYS_ADMIN"
	case $out in
	*/caps/1*"CAP_SYS_ADMIN is refused"*) ;;
	*) fail "policy check: got '$out', want /caps/1 and why CAP_SYS_ADMIN is refused" ;;
	esac
	# and a run with it never starts the command
	wrun --policy "$T/p.json" -- "$BIN/wd-try" write "$T/rw/ran" > /dev/null 2>&1 &&
		fail "warden run accepted CAP_SYS_ADMIN"
	[ ! -e "$T/rw/ran" ] || fail "the command ran under a refused policy"
}

test_explain_says_caps() {
	setup
	out=$("$WARDEN" policy explain "$T/p.json")
	case $out in
	*"keeps no capabilities, even as root"*) ;;
	*) fail "policy explain does not say the command keeps no capabilities: $out" ;;
	esac
	with ',"caps":["CAP_CHOWN"]'
	out=$("$WARDEN" policy explain "$T/p.json")
	case $out in
	*"keeps CAP_CHOWN: may change the owner"*) ;;
	*) fail "policy explain does not say what CAP_CHOWN lets it do: $out" ;;
	esac
}
