#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make test`: the cmocka unit tests, the integration suite on this host, and the integration
# suite in two VMs, kernels 6.1 and 6.12 (the bpf-lsm backend and a pure cgroup v2 host). Ends
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

# Each VM emulates its CPUs on one host thread (tests/vm/run.sh says why). Two VMs: Debian 12's 6.1 (bpf-lsm in full, and
# landlock's part beside it, each runner with its own cgroup group and run directories) and
# Debian 13's 6.12 (bpf-lsm: the escape suite, the hold tests and t_lsm_btf, the paths only
# newer kernels take). The 6.1 VM and the host suite start together, one per core; the 6.12 VM starts on the
# core the first of them to end frees. A VM's output is shown when it ends.
vm_cmd_61="tests/integration/run.sh --where vm --bin /warden/bin --hold-sets --keep-sets --backend landlock > /tmp/landlock.log 2>&1 & ll=\$!
tests/integration/run.sh --where vm --bin /warden/bin --hold-sets --keep-sets --backend auto; rc=\$?
wait \$ll || rc=1
cat /tmp/landlock.log
exit \$rc"
# On 6.12 two bpf-lsm runners side by side (each warden's programs know only its own sandboxes):
# one's waits for holds and timeouts are the other's time to run.
vm_cmd_612="tests/integration/run.sh --where vm --bin /warden/bin --hold-sets --keep-sets --backend auto --only t_holds \
--only t_crash --only t_lsm_btf > /tmp/holds.log 2>&1 & h=\$!
tests/integration/run.sh --where vm --bin /warden/bin --hold-sets --keep-sets --backend auto --only escape/; rc=\$?
wait \$h || rc=1
cat /tmp/holds.log
exit \$rc"
t0=$(date +%s)
# took LOG START: seconds from START to LOG's last write (its run's end)
took() {
	echo $(($(stat -c %Y "$1") - $2))
}
# start_vm KERNEL CMD: the VM in the background, its output in $logs/vm-KERNEL.log, its start
# time in $logs/vm-KERNEL.start; its pid is added to vms (for the trap)
start_vm() {
	date +%s > "$logs/vm-$1.start"
	"$here/vm/run.sh" --kernel "$1" --cache "$out/vm" --stage "$out/vm/stage" \
		--timeout "$vm_timeout" --cmd "$2" > "$logs/vm-$1.log" 2>&1 &
	vms="$vms $!"
}
vms=
echo "== integration tests in the VM, kernel 6.1: started (bpf-lsm chosen by the probe; landlock" \
	"beside it; cgroup v2), shown when they end =="
start_vm 6.1 "$vm_cmd_61"
vm61=$!

echo "== integration tests on this host =="
"$here/integration/run.sh" --where host --bin "$out/vm/stage/bin" 2>&1 | tee "$logs/host.log" &
host=$!
wait -n "$host" "$vm61"
echo "== integration tests in the VM, kernel 6.12: started (bpf-lsm chosen by the probe: the" \
	"escape suite, the hold tests, t_lsm_btf; cgroup v2), shown when they end =="
start_vm 6.12 "$vm_cmd_612"
vm612=$!
wait "$host"
read -r hp hf hs <<< "$(tally host "$logs/host.log")"
if [ -z "${hp:-}" ]; then
	echo "host suite did not finish"
	hp=0 hf=1 hs=0
fi
echo "(host suite: $(took "$logs/host.log" "$t0")s)"

# show_vm KERNEL WHAT: the VM's output and tally (sets vp vf vs)
show_vm() {
	echo "== integration tests in the VM, kernel $1 ($2; cgroup v2) =="
	cat "$logs/vm-$1.log"
	read -r vp vf vs <<< "$(tally vm "$logs/vm-$1.log")"
	if [ -z "${vp:-}" ]; then
		echo "VM suite on $1 did not finish (see above)"
		vp=0 vf=1 vs=0
	fi
	echo "(VM $1: $(took "$logs/vm-$1.log" "$(cat "$logs/vm-$1.start")")s)"
}
wait "$vm61"
show_vm 6.1 "bpf-lsm chosen by the probe; landlock beside it"
v1p=$vp v1f=$vf v1s=$vs
wait "$vm612"
vms=
show_vm 6.12 "bpf-lsm chosen by the probe: the escape suite, the hold tests, t_lsm_btf"
v2p=$vp v2f=$vf v2s=$vs
echo
echo "== summary =="
for l in "$logs"/test_*.log; do
	sed -n '/^\[==========\] [0-9]* test(s) run\./,$p' "$l"
done
[ $((hf + v1f + v2f)) = 0 ] || rc=1
echo "integration: host $hp passed, $hf failed, $hs skipped; vm 6.1 $v1p passed, $v1f failed," \
	"$v1s skipped; vm 6.12 $v2p passed, $v2f failed, $v2s skipped ($(($(date +%s) - t0))s)"
echo "$((hp + v1p + v2p)) passed, $((hf + v1f + v2f)) failed, $((hs + v1s + v2s)) skipped"
exit $rc
