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

demo() {
	echo
	echo "# $*"
	"$@"
	echo "# exit status $?"
}
demo warden run --policy demo.json -- /usr/bin/cat /etc/hostname
demo warden run --policy demo.json -- /usr/bin/cat /etc/shadow
