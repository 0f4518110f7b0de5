#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make test`: the cmocka unit tests, the integration suite on this host, and the integration
# suite in the VM (the bpf-lsm backend and a pure cgroup v2 host). Ends with the unit tests'
# summary lines and one "N passed, N failed, N skipped" line for both integration runs.
#
#   run-all.sh --out BUILD_DIR [--vm-timeout SECONDS]
set -u

out=build
vm_timeout=900
while [ $# -gt 0 ]; do
	case $1 in
	--out) out=$2; shift 2 ;;
	--vm-timeout) vm_timeout=$2; shift 2 ;;
	*) echo "run-all.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
here=$(cd "$(dirname "$0")" && pwd)
logs=$(mktemp -d /tmp/wd-test.XXXXXX)
vm=
# an interrupted run ends its VM too (by pid)
trap '[ -n "$vm" ] && kill "$vm" 2>/dev/null; rm -rf "$logs"' EXIT
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

# The VM emulates its CPUs on one host thread: it runs on one core while the host suite runs on
# the other, and its output is shown when it ends. In it, two runners side by side (each keeps
# its own cgroup group and run directories): bpf-lsm in full, and landlock's part.
echo "== integration tests in the VM: started (bpf-lsm chosen by the probe; landlock beside it;" \
	"cgroup v2), shown when they end =="
"$here/vm/run.sh" --cache "$out/vm" --stage "$out/vm/stage" --timeout "$vm_timeout" \
	--cmd "tests/integration/run.sh --where vm --bin /warden/bin --backend landlock > /tmp/landlock.log 2>&1 & ll=\$!
tests/integration/run.sh --where vm --bin /warden/bin --backend auto; rc=\$?
wait \$ll || rc=1
cat /tmp/landlock.log
exit \$rc" \
	> "$logs/vm.log" 2>&1 &
vm=$!

echo "== integration tests on this host =="
"$here/integration/run.sh" --where host --bin "$out/vm/stage/bin" 2>&1 | tee "$logs/host.log"
read -r hp hf hs <<< "$(tally host "$logs/host.log")"
if [ -z "${hp:-}" ]; then
	echo "host suite did not finish"
	hp=0 hf=1 hs=0
fi

echo "== integration tests in the VM (bpf-lsm chosen by the probe; landlock beside it; cgroup v2) =="
wait "$vm"
vm=
cat "$logs/vm.log"
read -r vp vf vs <<< "$(tally vm "$logs/vm.log")"
if [ -z "${vp:-}" ]; then
	echo "VM suite did not finish (see above)"
	vp=0 vf=1 vs=0
fi

echo
echo "== summary =="
for l in "$logs"/test_*.log; do
	sed -n '/^\[==========\] [0-9]* test(s) run\./,$p' "$l"
done
[ $((hf + vf)) = 0 ] || rc=1
echo "integration: host $hp passed, $hf failed, $hs skipped; vm $vp passed, $vf failed, $vs skipped"
echo "$((hp + vp)) passed, $((hf + vf)) failed, $((hs + vs)) skipped"
exit $rc
