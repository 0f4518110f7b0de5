#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The integration suite: real sandboxed commands, as root. Each t_*.sh file (here and in
# ../escape, the escape suite) names where it runs
# (WHERE=host, vm or any) and defines test_* functions; each function runs in its own subshell
# with a fresh $T. Ends with one "N passed, N failed, N skipped" line; exits 1 on any failure.
#
# A file may also say BACKENDS="..." (the backends it is about); it runs only when the suite's
# backend is one of them. And HOST_ONLY="test_..." (one or more lines, HOST_ONLY+= after the
# first): tests of a WHERE=any file that prove warden's own logic, which no kernel or backend
# changes (the control protocol, the DNS forwarder, derived flags); the host suite runs them,
# the VMs (CPU emulated, a core each) leave them out: they spend their time on what their
# kernels change.
#
# --backend may be given more than once: the suite runs once per backend, with one tally.
# --only may be given more than once: a test runs when any PATTERN is part of its name
# (where/backend:t_file:test_name) or of its file's suite/file name (escape/t_paths.sh, so
# "--only escape/" is the escape suite). --except PATTERN (also repeatable) leaves out what
# it matches in the same way.
#
# --hold-sets: a wardend of the suite's own (--backend as the suite's, its own run directory
# and cgroup group, no pool) holds the backend's program set while the tests run, so that no
# run loads it: as on a host where wardend lives. Under the VM's emulated CPUs a load is 2 to
# 6 s of each run, most of the VM suites' time. Files that say HOLD_SETS=no (their runs load
# and unpin the set themselves, and they assert it) run first, before the holder starts.
# Without --hold-sets every run finds or loads the set itself, as embedded runs on a host
# without wardend do (the host suite).
#
# At its end it removes the idle program sets its runs left (`warden unload`), unless
# --keep-sets: runners side by side in a VM that is thrown away keep them, so that one's end
# cannot remove a set the other's test is about to wake.
#
# Each result line ends with the test's time in seconds.
#
#   run.sh --where host|vm --bin DIR [--backend auto|bpf-lsm|landlock]... [--only PATTERN]...
#          [--except PATTERN]... [--hold-sets] [--keep-sets]
set -u

here=$(cd "$(dirname "$0")" && pwd)
where=host
bin=
only=()
except=()
hold_sets=
unload=1
backends=()
while [ $# -gt 0 ]; do
	case $1 in
	--where) where=$2; shift 2 ;;
	--bin) bin=$2; shift 2 ;;
	--only) only+=("$2"); shift 2 ;;
	--except) except+=("$2"); shift 2 ;;
	--hold-sets) hold_sets=1; shift ;;
	--keep-sets) unload=; shift ;;
	--backend) backends+=("$2"); shift 2 ;;
	*) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
[ -n "$bin" ] || { echo "run.sh: --bin DIR is required" >&2; exit 2; }
bin=$(cd "$bin" && pwd)
if [ "$(id -u)" != 0 ]; then
	echo "run.sh: the integration suite runs as root" >&2
	exit 2
fi

[ ${#backends[@]} -gt 0 ] || backends=(auto)
export WARDEN="$bin/warden" BIN="$bin" WD_WHERE="$where"
cg2=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
# This suite's sandboxes live in a group of their own inside warden's subtree: what it reaps
# is only ever its own, even with another suite running beside it.
export WARDEN_CGROUP_GROUP="suite-$$"
group="$cg2/warden/$WARDEN_CGROUP_GROUP"
export WD_SANDBOX_GROUP="$group"
# ...and in each v1 hierarchy, where warden puts a sandbox's limits on a hybrid host
v1_groups() {
	awk '{ for (i = 7; i <= NF; i++) if ($i == "-") { if ($(i + 1) == "cgroup") print $5; break } }' \
		/proc/self/mountinfo | while read -r m; do
		[ -d "$m/warden/$WARDEN_CGROUP_GROUP" ] && echo "$m/warden/$WARDEN_CGROUP_GROUP"
	done
	return 0
}
holder=
holder_dir=/run/wd-holder-$$
# stop_holder: the holder wardend ends (TERM), and is waited for
stop_holder() {
	[ -n "$holder" ] || return 0
	kill -TERM "$holder" 2>/dev/null
	wait "$holder" 2>/dev/null
	holder=
}
# start_holder BACKEND: a wardend of our own holding BACKEND's program set; returns once it
# serves (it says "listening" after the set is held), or fails saying why
start_holder() {
	mkdir -p -m 700 "$holder_dir"
	WARDEN_RUN_DIR=$holder_dir WARDEN_CGROUP_GROUP=holder-$$ \
		"$bin/wardend" --pool 0 --backend "$1" 2> "$holder_dir.log" &
	holder=$!
	if ! "$bin/wd-try" wait-line "$holder_dir.log" "listening on" "$holder" > /dev/null ||
		grep -qE "cannot hold|backend here" "$holder_dir.log"; then
		echo "run.sh: the holder wardend for $1 did not hold its set:" >&2
		sed 's/^/    /' "$holder_dir.log" >&2
		stop_holder
		return 1
	fi
}
# ...and the idle program sets the suite's runs left (supervisor/bpf/pinset.c): nothing stays pinned
trap 'stop_holder; [ -z "$unload" ] || "$bin/warden" unload > /dev/null 2>&1; rm -rf "$holder_dir" "$holder_dir.log"; rmdir "$cg2/warden/holder-$$" "$group" $(v1_groups) 2>/dev/null' EXIT

# Sandbox cgroups that exist now (none should outlive the test that made them).
sandboxes() {
	[ -n "$cg2" ] && [ -d "$group" ] || return 0
	find "$group" -mindepth 1 -maxdepth 1 -type d -name 'sb-*' | sort
}

# A test that left a sandbox behind fails, and the runner removes what it left (only cgroups
# made during that test, so nothing of anyone else's is touched).
reap_new_sandboxes() {
	local before=$1 d left=0
	for d in $(sandboxes); do
		case " $before " in *" $d "*) continue ;; esac
		left=1
		echo 1 > "$d/cgroup.kill" 2>/dev/null
		for _ in $(seq 100); do rmdir "$d" 2>/dev/null && break; read -rt 0.05 <> <(:) || :; done
		echo "    left sandbox cgroup $d behind" >&2
	done
	# v1: only what is listed in this suite's own groups; tasks there are a sandbox's
	for d in $(v1_groups); do
		for d in "$d"/sb-*; do
			[ -d "$d" ] || continue
			case " $before " in *" $d "*) continue ;; esac
			left=1
			xargs -r kill -KILL < "$d/cgroup.procs" 2>/dev/null
			for _ in $(seq 100); do rmdir "$d" 2>/dev/null && break; read -rt 0.05 <> <(:) || :; done
			echo "    left v1 sandbox cgroup $d behind" >&2
		done
	done
	return $left
}
passed=0 failed=0 skipped=0
failures=()

for backend in "${backends[@]}"; do
# What the backend must be: the one asked for, or the probe's choice, which the suite asserts:
# bpf-lsm in the VM, landlock on the development host (its kernel refuses LSM programs).
expect=$backend
if [ "$backend" = auto ]; then
	case $where in vm) expect=bpf-lsm ;; *) expect=landlock ;; esac
fi
case $expect in
bpf-lsm) deny_errno=EPERM deny_text="Operation not permitted" ;;
*) deny_errno=EACCES deny_text="Permission denied" ;;
esac
export BACKEND="$backend" EXPECT_BACKEND="$expect" DENY_ERRNO="$deny_errno" DENY_TEXT="$deny_text"
label="$where/$backend"

# The escape suite (tests/escape, one test per bypass class) runs with the same tally. With
# --hold-sets, the files that say HOLD_SETS=no first, then the holder starts, then the rest.
files=("$here"/t_*.sh "$here"/../escape/t_*.sh)
if [ -n "$hold_sets" ]; then
	first=() rest=()
	for file in "${files[@]}"; do
		if grep -q '^HOLD_SETS=no' "$file"; then first+=("$file"); else rest+=("$file"); fi
	done
	files=("${first[@]}" HOLDER "${rest[@]}")
fi
for file in "${files[@]}"; do
	if [ "$file" = HOLDER ]; then
		if ! start_holder "$expect"; then
			failed=$((failed + 1))
			failures+=("$label: the holder wardend")
			break
		fi
		continue
	fi
	[ -f "$file" ] || continue
	file_where=$(sed -n 's/^WHERE=\([a-z]*\).*/\1/p' "$file" | head -n1)
	[ "$file_where" = any ] || [ "$file_where" = "$where" ] || continue
	# In the VM the landlock backend runs what its older kernel can change: the escape suite
	# (each class against the guarantee table, which depends on the Landlock ABI) and files
	# that say VM_LANDLOCK=yes. Everything else ran with landlock on the host already.
	if [ "$where" = vm ] && [ "$expect" = landlock ] && [[ $file != */escape/* ]] &&
		! grep -q '^VM_LANDLOCK=yes' "$file"; then
		continue
	fi
	file_backends=$(sed -n 's/^BACKENDS="\(.*\)".*/\1/p' "$file" | head -n1)
	if [ -n "$file_backends" ]; then
		case " $file_backends " in *" $expect "*) ;; *) continue ;; esac
	fi
	tests=$(bash -c "source '$here/lib.sh'; source '$file'; declare -F" | awk '$3 ~ /^test_/ { print $3 }')
	# a HOST_ONLY name that is no test of the file is a mistake the suite reports (every run)
	host_only=" $(sed -n 's/^HOST_ONLY+\{0,1\}="\(.*\)".*/\1/p' "$file" | tr '\n' ' ') "
	for t in $host_only; do
		case " $(echo $tests) " in *" $t "*) ;; *)
			echo "FAIL $label:$(basename "$file" .sh): HOST_ONLY names $t, which is no test of it"
			failed=$((failed + 1))
			failures+=("$label:$(basename "$file" .sh): HOST_ONLY $t") ;;
		esac
	done
	[ "$where" = vm ] || host_only=
	suite_file="$(basename "$(dirname "$file")")/$(basename "$file")"
	for t in $tests; do
		name="$label:$(basename "$file" .sh):$t"
		if [ ${#only[@]} -gt 0 ]; then
			match=
			for p in "${only[@]}"; do
				[[ $name == *$p* || $suite_file == *$p* ]] && match=1
			done
			[ -n "$match" ] || continue
		fi
		for p in "${except[@]}"; do
			[[ $name == *$p* || $suite_file == *$p* ]] && continue 2
		done
		case $host_only in *" $t "*) continue ;; esac
		t_start=$SECONDS
		before=" $(sandboxes | tr '\n' ' ') "
		T=$(mktemp -d /tmp/wd-it.XXXXXX)
		chmod 755 "$T"
		# beside $T, never in it: a test may let its sandbox write all of $T, and warden
		# refuses a run directory, audit file or report in reach of the sandbox
		mkdir -m 755 "$T.o"
		(
			export T
			# this test's runs and its holds tools meet here, and nowhere else
			export WARDEN_RUN_DIR="$T.run"
			# where a test whose sandbox writes all of $T keeps warden's audit and report
			export WD_OUT="$T.o"
			source "$here/lib.sh"
			source "$file"
			set -e
			"$t"
		) > "$T.out" 2>&1
		rc=$?
		if ! reap_new_sandboxes "$before" 2>> "$T.out" && [ $rc = 0 ]; then
			rc=1
		fi
		took="($((SECONDS - t_start))s)"
		if [ $rc = 0 ]; then
			echo "PASS $name $took"
			passed=$((passed + 1))
		elif [ $rc = 77 ]; then
			echo "SKIP $name $took: $(sed -n 's/^ *skip: //p' "$T.out" | tail -n1)"
			skipped=$((skipped + 1))
		else
			echo "FAIL $name $took (exit $rc)"
			sed 's/^/    /' "$T.out"
			failed=$((failed + 1))
			failures+=("$name")
		fi
		rm -rf "$T" "$T.out" "$T.run" "$T.o"
	done
done
stop_holder
done

for f in "${failures[@]}"; do
	echo "failed: $f"
done
echo "$where: $passed passed, $failed failed, $skipped skipped"
[ $failed = 0 ]
