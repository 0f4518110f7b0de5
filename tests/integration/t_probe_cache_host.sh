# SPDX-License-Identifier: GPL-2.0
# The probe cache (t_probe_cache.sh) on the development host, whose kernel refuses BPF-LSM
# programs: there a file claiming they load is false, and believing it must fail closed.
WHERE=host

cache() {
	echo "$WARDEN_RUN_DIR/probe.cache"
}

# plant CONTENT-FILE MODE OWNER: put a cache file there as an attacker would.
plant() {
	rm -f "$(cache)"
	cp "$1" "$(cache)"
	chmod "$2" "$(cache)"
	chown "$3" "$(cache)"
}

# Root's own file that claims BPF-LSM on a host that refuses it (as a stale file might): warden
# tries bpf-lsm, the load fails, and the run fails closed: the command never runs.
test_false_claim_fails_closed() {
	"$WARDEN" doctor > /dev/null
	[ -f "$(cache)" ] || fail "no $(cache) after doctor"
	sed 's/^bpf_lsm .*/bpf_lsm 1/' "$(cache)" > "$T/claims"
	plant "$T/claims" 600 0:0
	policy "$T/p.json" "$T" "$T" ""
	rc=0
	"$WARDEN" run --policy "$T/p.json" --audit "$WD_OUT/audit" \
		-- "$BIN/wd-try" write "$T/marker" > "$T/out" 2>&1 || rc=$?
	[ $rc != 0 ] || fail "the run succeeded on a false claim: $(cat "$T/out")"
	[ ! -e "$T/marker" ] || fail "the command ran unconfined"
}
