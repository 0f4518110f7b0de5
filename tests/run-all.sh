#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make test`: the cmocka unit tests, the integration suite on this host, and the integration
# suite in three VMs, two on kernel 6.1 and one on 6.12 (the bpf-lsm backend and a pure cgroup v2 host). Ends
# with the unit tests' summary lines and one "N passed, N failed, N skipped" line for all the
# integration runs.
#
#   run-all.sh --out BUILD_DIR [--vm-timeout SECONDS]
set -u

out=build
vm_timeout=1500
while [ $# -gt 0 ]; do
	case $1 in
	--out) out=$2; shift 2 ;;
	--vm-timeout) vm_timeout=$2; shift 2 ;;
	*) echo "run-all.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
here=$(cd "$(dirname "$0")" && pwd)
logs=$(mktemp -d /tmp/wd-test.XXXXXX)
vms=
# an interrupted run ends its VMs too (by pid: each run.sh stops its qemu on TERM)
end_all() {
	local p
	for p in $vms; do kill "$p" 2>/dev/null; done
	rm -rf "$logs"
}
trap end_all EXIT
rc=0

echo "== unit tests (cmocka) =="
for t in "$out"/tests/unit/test_*; do
	[ -x "$t" ] || continue
	WD_SRCDIR="$here/.." "$t" > "$logs/$(basename "$t").log" 2>&1 || rc=1
	cat "$logs/$(basename "$t").log"
done

# tally NAME LOG: the "NAME: P passed, F failed, S skipped" lines of a suite, summed, as "P F S"
# (nothing when there is none: the suite did not finish).
tally() {
	sed -n "s/^$1: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped.*/\1 \2 \3/p" "$2" |
		awk '{ p += $1; f += $2; s += $3; n++ } END { if (n) print p, f, s }'
}

# Each VM emulates its CPUs on one host thread (tests/vm/run.sh says why), so a VM is a core's
# work, whatever runs in it: three VMs, whose work is split so that the two cores end together.
#   6.1 (1)  Debian 12's 6.1, bpf-lsm (the probe's choice): the escape suite;
#            beside it landlock's part (the escape suite and the VM_LANDLOCK=yes files), each
#            runner with its own cgroup group and run directories
#   6.1 (2)  the same kernel, bpf-lsm: every other file (their HOST_ONLY tests left out)
#   6.12     Debian 13's 6.12, bpf-lsm: the escape suite, the hold tests, t_crash and
#            t_lsm_btf, the paths only newer kernels take (not t_holds_operator: the
#            supervisor's own decisions, which 6.1 runs)
# Both 6.1 VMs start with the host suite (which waits more than it computes: 78 s of CPU in its
# 188 s), and 6.12 on the core the first of them to end frees. A VM's output is shown when it
# ends.
run_vm="tests/integration/run.sh --where vm --bin /warden/bin --hold-sets --keep-sets"
part1="--only escape/"
vm_cmd_61_1="$run_vm --backend landlock > /tmp/landlock.log 2>&1 & ll=\$!
$run_vm --backend auto $part1; rc=\$?
wait \$ll || rc=1
cat /tmp/landlock.log
exit \$rc"
vm_cmd_61_2="$run_vm --backend auto ${part1//--only/--except}"
# On 6.12 two bpf-lsm runners side by side (each warden's programs know only its own
# sandboxes): one's waits for holds and timeouts are the other's time to run.
vm_cmd_612="$run_vm --backend auto --only t_holds --only t_crash --only t_lsm_btf \
--except t_holds_operator > /tmp/holds.log 2>&1 & h=\$!
$run_vm --backend auto --only escape/; rc=\$?
wait \$h || rc=1
cat /tmp/holds.log
exit \$rc"
t0=$(date +%s)
# took LOG START: seconds from START to LOG's last write (its run's end)
took() {
	echo $(($(stat -c %Y "$1") - $2))
}
# start_vm TAG KERNEL CMD: the VM in the background, its output in $logs/vm-TAG.log, its start
# time in $logs/vm-TAG.start, its pid in $logs/vm-TAG.pid and added to vms (for the trap)
start_vm() {
	date +%s > "$logs/vm-$1.start"
	"$here/vm/run.sh" --kernel "$2" --tag "$1" --cache "$out/vm" --stage "$out/vm/stage" \
		--timeout "$vm_timeout" --cmd "$3" > "$logs/vm-$1.log" 2>&1 &
	vms="$vms $!"
	echo $! > "$logs/vm-$1.pid"
}
pid_of() { cat "$logs/vm-$1.pid"; }
echo "== integration tests in the VM, kernel 6.1 (1): started (bpf-lsm chosen by the probe: the" \
	"escape suite; landlock beside it; cgroup v2), shown when they end =="
start_vm 6.1-1 6.1 "$vm_cmd_61_1"
echo "== integration tests in the VM, kernel 6.1 (2): started (bpf-lsm chosen by the probe: the" \
	"other files; cgroup v2), shown when they end =="
start_vm 6.1-2 6.1 "$vm_cmd_61_2"

echo "== integration tests on this host =="
"$here/integration/run.sh" --where host --bin "$out/vm/stage/bin" 2>&1 | tee "$logs/host.log" &
host=$!
wait -n "$(pid_of 6.1-1)" "$(pid_of 6.1-2)"
echo "== integration tests in the VM, kernel 6.12: started (bpf-lsm chosen by the probe: the" \
	"escape suite, the hold tests, t_lsm_btf; cgroup v2), shown when they end =="
start_vm 6.12 6.12 "$vm_cmd_612"
wait "$host"
read -r hp hf hs <<< "$(tally host "$logs/host.log")"
if [ -z "${hp:-}" ]; then
	echo "host suite did not finish"
	hp=0 hf=1 hs=0
fi
echo "(host suite: $(took "$logs/host.log" "$t0")s)"

# show_vm TAG WHAT: the VM's output and tally, once it ended (adds to vp vf vs)
vp=0 vf=0 vs=0
tallies=
show_vm() {
	local p f s
	wait "$(pid_of "$1")" 2>/dev/null # (or reaped by the wait -n above)
	echo "== integration tests in the VM $1 ($2; cgroup v2) =="
	cat "$logs/vm-$1.log"
	read -r p f s <<< "$(tally vm "$logs/vm-$1.log")"
	if [ -z "${p:-}" ]; then
		echo "the VM suite $1 did not finish (see above)"
		p=0 f=1 s=0
	fi
	echo "(VM $1: $(took "$logs/vm-$1.log" "$(cat "$logs/vm-$1.start")")s)"
	vp=$((vp + p)) vf=$((vf + f)) vs=$((vs + s))
	tallies="$tallies; vm $1 $p passed, $f failed, $s skipped"
}
show_vm 6.1-1 "bpf-lsm chosen by the probe: the escape suite; landlock beside it"
show_vm 6.1-2 "bpf-lsm chosen by the probe: the other files"
show_vm 6.12 "bpf-lsm chosen by the probe: the escape suite, the hold tests, t_lsm_btf"
vms=
echo
echo "== summary =="
for l in "$logs"/test_*.log; do
	sed -n '/^\[==========\] [0-9]* test(s) run\./,$p' "$l"
done
[ $((hf + vf)) = 0 ] || rc=1
echo "integration: host $hp passed, $hf failed, $hs skipped$tallies ($(($(date +%s) - t0))s)"
echo "$((hp + vp)) passed, $((hf + vf)) failed, $((hs + vs)) skipped"
exit $rc
