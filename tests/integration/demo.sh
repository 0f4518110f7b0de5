#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make vmdemo`: the README's example, run in the VM where BPF-LSM is active.
set -u
cd /warden
# The VM's cat is busybox's; the example uses coreutils' cat, staged beside warden.
rm -f /usr/bin/cat && cp bin/cat /usr/bin/cat
echo "$(hostname 2>/dev/null || echo vm)" > /etc/hostname
echo "root:*:19000:0:99999:7:::" > /etc/shadow
export PATH=/warden/bin:$PATH

# The audit records go to a file of the sandbox's own, which warden's first line on standard
# error names (the command's standard error is the same console): shown after each run.
demo() {
	local rc=0 sink
	echo
	echo "# $*"
	"$@" 2> /tmp/demo.err || rc=$?
	cat /tmp/demo.err
	sink=$(sed -n 's/^warden: audit records of sandbox .* go to //p' /tmp/demo.err)
	if [ -n "$sink" ]; then
		echo "# $sink:"
		cat "$sink"
	fi
	echo "# exit status $rc"
}
demo warden run --policy demo.json -- /usr/bin/cat /etc/hostname
demo warden run --policy demo.json -- /usr/bin/cat /etc/shadow
