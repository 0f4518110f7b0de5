# SPDX-License-Identifier: GPL-2.0
# The audit stream tells the truth whatever the sandbox does (issue 12, principle 4): names that
# are no UTF-8 still give lines a strict parser takes, and a thread moving the shared cwd cannot
# make a denial name another file.
WHERE=any
BACKENDS="bpf-lsm landlock"
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

A="$BIN/wd-auditck"

# b64 STRING: its bytes in base64, one line.
b64() {
	printf '%s' "$1" | base64 -w0
}

test_invalid_utf8_target() {
	claims audit.utf8 yes yes
	setup
	local bad
	# an invalid byte, an overlong "/", a lone surrogate, a four-byte sequence cut short
	for bad in $'secret\xff' $'secret\xc0\xaf' $'secret\xed\xa0\x80' $'secret\xf0\x9f\x98'; do
		echo secret > "$T/$bad"
		control "read $(b64 "$bad")" secret "$E" cat "$T/$bad"
		expect_denied "read of a file named $(b64 "$bad")" "$(inside "$E" cat "$T/$bad")"
		expect_line "$T/audit" '"verdict":"deny"' "\"target_b64\":\"$(b64 "$T/$bad")\""
	done
	# and a comm that is no UTF-8, the task's own to set
	cp "$E" "$T/bin/"$'wd\xffx'
	expect_denied "read under a bad comm" "$(inside "$T/bin/"$'wd\xffx' cat "$T/secret")"
	expect_line "$T/audit" '"verdict":"deny"' "\"comm_b64\":\"$(b64 $'wd\xffx')\""
	out=$("$A" lines "$T/audit") || fail "the audit stream is not strict JSON lines: $out"
}

# One thread opens a denied file by a relative name while another moves the cwd they share to a
# directory where the name is missing and back: every denial happened in the real directory, so
# a record naming the other one (or nothing absolute) would be a lie.
test_cwd_moved_by_another_thread() {
	claims audit.cwd yes yes
	setup
	local n=300 out denied named unknown wrong
	# control: outside, the racing opens are refused by nothing, so they all succeed or miss
	out=$("$A" race-cwd "$T" "$T/allowed" secret 50)
	expect_eq "control: opens outside a sandbox" "$out" "denied 0 other 50"
	# a relative name and a still cwd: the record names the file
	expect_denied "relative read" "$(cd "$T/allowed" && inside "$E" cat ../secret)"
	# (bpf-lsm: the object's resolved path; landlock: the base the call had, then the name)
	expect_line "$T/audit" '"op":"open"' \
		"\"target\":\"$(pick "$T/secret" "$T/allowed/../secret")\"" '"verdict":"deny"'
	: > "$T/audit"
	out=$(inside "$A" race-cwd "$T" "$T/allowed" secret $n)
	denied=${out#denied }
	denied=${denied%% *}
	[ "${denied:-0}" -gt 0 ] 2>/dev/null || fail "no open was denied: '$out' ($(cat "$T/err"))"
	grep -q '"type":"lost"' "$T/audit" && fail "records were lost: the count cannot be checked"
	named=$(grep '"op":"open"' "$T/audit" | grep '"verdict":"deny"' |
		grep -c "\"target\":\"$T/secret\"" || true)
	unknown=$(grep '"op":"open"' "$T/audit" | grep '"verdict":"deny"' |
		grep -c '"target":null,"name":"secret","base":"cwd changed during the call"' || true)
	wrong=$(grep '"op":"open"' "$T/audit" | grep '"verdict":"deny"' |
		grep -v "\"target\":\"$T/secret\"" | grep -vc '"base":"cwd changed during the call"' || true)
	[ "$wrong" -eq 0 ] || fail "$wrong of $denied denials name another file: $(grep '"op":"open"' \
		"$T/audit" | grep -v "\"target\":\"$T/secret\"" | grep -v 'cwd changed' | head -n3)"
	expect_eq "records of the denials" "$((named + unknown))" "$denied"
}
