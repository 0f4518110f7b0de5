# SPDX-License-Identifier: GPL-2.0
# One program set per host (docs/design.md, "One program set per host"): ten sandboxes at once run
# on one copy of each program, pinned under /sys/fs/bpf/warden/<set>-<hash>; a second run loads
# nothing; the last one out unpins the LSM set and idles the recorder set (nothing attached, its
# programs kept for the next run, which attaches them and loads nothing; `warden unload` removes
# it); a set of another build is neither used nor removed by a run; a run killed with --survive
# keeps the set until its adopter ends the sandbox; and from inside, the pins can be neither
# opened, unlinked nor reached through bpf(). Only sets this suite's runs made are counted or
# removed: other runs on the machine may have sets of their own pinned beside.
WHERE=any
BACKENDS="bpf-lsm landlock"
# the idle recorder set on 6.1 too: waking it uses what the older kernel has (bpf_link_get_next_id)
VM_LANDLOCK=yes
# its runs load and unpin the set themselves (run.sh --hold-sets)
HOLD_SETS=no

PINS=/sys/fs/bpf/warden

command -v bpftool > /dev/null || BPFTOOL=/usr/sbin/bpftool
BPFTOOL=${BPFTOOL:-bpftool}

# expect_denied WHAT OUT: OUT is a denial.
expect_denied() {
	case $2 in
	EPERM | EACCES) ;;
	*) fail "$1 in the sandbox: got '$2', want a denial (EPERM or EACCES)" ;;
	esac
}

pin_policy() {
	policy "$T/p.json" "$T" "$T" ""
}

# gated_start I [RUN-ARGS...]: a run whose sandbox writes "ready" into fifo $T/rI, then waits for
# EOF on fifo $T/gI; its warden's pid in runs[I]. Blocks until the sandbox is ready.
gated_start() {
	local i=$1
	shift
	mkfifo "$T/r$i" "$T/g$i"
	"$WARDEN" run --backend "$BACKEND" "$@" --policy "$T/p.json" --audit "$WD_OUT/audit$i" \
		-- "$BIN/wd-try" gate "$T/r$i" "$T/g$i" > "$T/out$i" 2> "$T/err$i" &
	runs[$i]=$!
	[ "$(timeout 120 cat "$T/r$i")" = ready ] ||
		fail "sandbox $i never got ready: $(cat "$T/err$i")"
}

# gated_end I: let sandbox I end (EOF on its gate) and wait for its warden.
gated_end() {
	timeout 60 sh -c ": > '$T/g$1'" || fail "sandbox $1 no longer waits on its gate"
	rm -f "$T/g$1"
	wait "${runs[$1]}" 2>/dev/null || true
}

# release_all: the EXIT trap's: every gate still closed is opened, so no sandbox outlives a test.
release_all() {
	local g
	for g in "$T"/g*; do
		[ ! -p "$g" ] || timeout 5 sh -c ": > '$g'" || true
	done
	true
}

# sandbox_ids: the cgroup ids of this suite's live sandboxes (a cgroup2 directory's inode number
# is its id).
sandbox_ids() {
	local d
	for d in "$(cgroup2_mount)/warden/$WARDEN_CGROUP_GROUP"/sb-*; do
		[ -d "$d" ] && stat -c %i "$d"
	done
}

# key_hex ID: the 64-bit ID as bpftool's little-endian key bytes.
key_hex() {
	local i out=
	for i in 0 1 2 3 4 5 6 7; do out="$out $(printf '%02x' $((($1 >> (8 * i)) & 255)))"; done
	echo "$out"
}

# in_set DIR ID: the pinned set DIR has the sandbox ID in its wd_sandboxes map.
in_set() {
	# shellcheck disable=SC2046
	"$BPFTOOL" map lookup pinned "$1/wd_sandboxes" key hex $(key_hex "$2") > /dev/null 2>&1
}

# set_of ID: the set directory whose wd_sandboxes holds the sandbox ID.
set_of() {
	local d
	for d in "$PINS"/*; do
		[ -e "$d/wd_sandboxes" ] && in_set "$d" "$1" && { echo "$d"; return; }
	done
}

# set_prog_ids DIR: the ids of the programs the set's link pins attach, sorted.
set_prog_ids() {
	local l
	for l in "$1"/prog_*; do
		"$BPFTOOL" link show pinned "$l" | sed -n 's/.* prog \([0-9]*\).*/\1/p' | head -n1
	done | sort -n
}

# idle_prog_ids DIR: the ids of the programs an idle set keeps pinned (p_*), sorted.
idle_prog_ids() {
	local p
	for p in "$1"/p_*; do
		"$BPFTOOL" prog show pinned "$p" | sed -n 's/^\([0-9]*\):.*/\1/p' | head -n1
	done | sort -n
}

# linked_prog_ids: the ids of the programs of every link on the host, sorted.
linked_prog_ids() {
	"$BPFTOOL" link show | sed -n 's/.* prog \([0-9]*\).*/\1/p' | sort -n
}

# expect_left SET: what the last one out leaves of SET. The LSM set goes; the recorder set stays
# pinned, idle: no link pinned, its programs pinned, and none of them attached once the kernel
# has released the unpinned links (after an RCU grace period: waited for, up to 10 s).
expect_left() {
	local ids i
	if [ "$EXPECT_BACKEND" = bpf-lsm ]; then
		[ ! -e "$1" ] || fail "$1 is still pinned after the last run ended"
		return 0
	fi
	[ -d "$1" ] || fail "the idle set $1 is gone after the last run ended"
	expect_eq "links pinned in the idle set" "$(ls "$1" | grep -c '^prog_' || true)" 0
	ids=$(idle_prog_ids "$1")
	[ -n "$ids" ] || fail "the idle set $1 keeps no program"
	# and its rings leave wd_rings (a child of the last run's deletes them: waited for too)
	for i in $(seq 1 100); do
		[ -z "$(comm -12 <(echo "$ids") <(linked_prog_ids))" ] &&
			[ "$("$BPFTOOL" -j map dump pinned "$1/wd_rings")" = "[]" ] && return 0
		sleep 0.1
	done
	[ "$("$BPFTOOL" -j map dump pinned "$1/wd_rings")" = "[]" ] ||
		fail "the idle set $1 keeps rings: $("$BPFTOOL" map dump pinned "$1/wd_rings")"
	fail "programs of the idle set $1 are still attached: $(comm -12 <(echo "$ids") <(linked_prog_ids) | tr '\n' ' ')"
}

# first_sandbox: the suite's policy, a gated sandbox 1 (released on exit) and, in $set (the
# caller's local), the pinned set that holds it.
first_sandbox() {
	pin_policy
	trap release_all EXIT
	gated_start 1
	set=$(set_of "$(sandbox_ids | head -n1)")
	[ -n "$set" ] || fail "no set under $PINS holds the first sandbox"
}

# map_id PIN: the id of a pinned map.
map_id() {
	"$BPFTOOL" map show pinned "$1" | sed -n 's/^\([0-9]*\):.*/\1/p' | head -n1
}

# progs_on_map ID: "NAME ID" of every program on the host that uses the map ID.
progs_on_map() {
	"$BPFTOOL" prog show | awk -v m="$1" '
		/^[0-9]+:/ { id = $1; sub(":", "", id); name = ""
			for (i = 1; i < NF; i++) if ($i == "name") name = $(i + 1) }
		/map_ids/ { for (i = 1; i <= NF; i++) if ($i == "map_ids") {
				n = split($(i + 1), ids, ","); for (k = 1; k <= n; k++)
					if (ids[k] == m) print name, id } }'
}

# bpf_fds PID: how many BPF program and link fds process PID holds.
bpf_fds() {
	ls -l "/proc/$1/fd" 2>/dev/null | grep -c 'anon_inode:bpf[-_]\(prog\|link\)' || true
}

test_ten_sandboxes_run_on_one_copy_of_each_program() {
	local i ids id set n names dup
	pin_policy
	trap release_all EXIT
	for i in 1 2 3 4 5 6 7 8 9 10; do gated_start "$i"; done
	ids=$(sandbox_ids)
	expect_eq "sandboxes running" "$(echo "$ids" | grep -c .)" 10
	set=$(set_of "$(echo "$ids" | head -n1)")
	[ -n "$set" ] || fail "no set under $PINS holds sandbox $(echo "$ids" | head -n1)"
	for id in $ids; do
		in_set "$set" "$id" || fail "sandbox $id is not in $set: a set of its own?"
	done
	n=$(ls "$set" | grep -c '^prog_')
	[ "$n" -ge 1 ] || fail "$set pins no program"
	# every program on the host that uses this set's sandbox table: one of each name
	progs_on_map "$(map_id "$set/wd_sandboxes")" > "$T/progs"
	# and the egress-rate program, on a map of its own (supervisor/net/rate.c)
	progs_on_map "$(map_id "$set/wd_rate")" >> "$T/progs"
	expect_eq "programs on $set's sandbox and rate tables" "$(wc -l < "$T/progs")" "$n"
	dup=$(awk '{ print $1 }' "$T/progs" | sort | uniq -d)
	expect_eq "programs loaded twice" "$dup" ""
	expect_eq "the set's programs" "$(awk '{ print $2 }' "$T/progs" | sort -n)" \
		"$(set_prog_ids "$set")"
	# and no run holds programs of its own
	for i in 1 2 3 4 5 6 7 8 9 10; do
		expect_eq "BPF program and link fds of run $i" "$(bpf_fds "${runs[$i]}")" 0
	done
	for i in 1 2 3 4 5 6 7 8 9 10; do gated_end "$i"; done
	expect_left "$set"
}

test_a_second_run_loads_nothing_and_the_last_one_out_leaves_it() {
	local set before links probes
	command -v strace > /dev/null || skip "no strace"
	first_sandbox
	before=$(set_prog_ids "$set")
	strace -f -e trace=bpf -o "$T/strace" "$WARDEN" run --backend "$BACKEND" \
		--policy "$T/p.json" -- "$BIN/wd-try" exit 0 2> "$T/err2" ||
		fail "the second run failed: $(cat "$T/err2")"
	expect_eq "programs the second run loaded" \
		"$(grep 'BPF_PROG_LOAD.*prog_name="wd_' "$T/strace" | grep -vc 'prog_name="wd_probe')" 0
	# the backend probe may load (and where the kernel allows, attach) a test program of its
	# own, wd_probe_*: at most one link for each of those, none for the set
	links=$(grep -c 'BPF_LINK_CREATE' "$T/strace" || true)
	probes=$(grep -c 'BPF_PROG_LOAD.*prog_name="wd_probe' "$T/strace" || true)
	[ "$links" -le "$probes" ] ||
		fail "the second run made $links links, its probe loaded $probes programs"
	grep -q 'BPF_OBJ_GET' "$T/strace" || fail "the second run did not open the pins"
	expect_eq "the set's programs after the second run" "$(set_prog_ids "$set")" "$before"
	gated_end 1
	expect_left "$set"
}

test_a_set_of_another_build_is_neither_used_nor_removed() {
	local set
	pin_policy
	# a run first, so the BPF filesystem and its warden directory exist
	wrun --policy "$T/p.json" -- "$BIN/wd-try" exit 0 2> "$T/err0" || fail "$(cat "$T/err0")"
	pinset_fake="$PINS/$([ "$EXPECT_BACKEND" = bpf-lsm ] && echo lsm || echo rec)-00000000pinset$$"
	trap 'rm -f "$pinset_fake"/*; rmdir "$pinset_fake" || true; release_all' EXIT
	mkdir "$pinset_fake"
	"$BPFTOOL" map create "$pinset_fake/wd_sandboxes" type hash key 8 value 24 entries 4 \
		name wd_sandboxes || fail "cannot make the fake set"
	gated_start 1
	set=$(set_of "$(sandbox_ids | head -n1)")
	[ -n "$set" ] && [ "$set" != "$pinset_fake" ] || fail "the run used '$set', not a set of its own"
	gated_end 1
	[ -e "$pinset_fake/wd_sandboxes" ] || fail "the fake set of another build was removed"
}

test_a_killed_surviving_run_keeps_the_set_until_its_adopter_ends() {
	local id set sb
	pinset_adopter=
	pin_policy
	trap 'release_all; [ -z "$pinset_adopter" ] || kill $pinset_adopter 2>/dev/null || true' EXIT
	gated_start 1 --survive 120
	id=$(sandbox_ids | head -n1)
	set=$(set_of "$id")
	[ -n "$set" ] || fail "no set holds the sandbox"
	sb=$(basename "$(ls -d "$(cgroup2_mount)/warden/$WARDEN_CGROUP_GROUP"/sb-* | head -n1)")
	kill -KILL "${runs[1]}"
	wait "${runs[1]}" 2>/dev/null || true
	in_set "$set" "$id" || fail "the sandbox left $set when its supervisor was killed"
	touch "$WD_OUT/audit2"
	"$WARDEN" adopt --audit "$WD_OUT/audit2" --wait 60 "$sb" > "$T/adopt.out" 2>&1 &
	pinset_adopter=$!
	timeout 120 "$BIN/wd-try" wait-line "$WD_OUT/audit2" '"type":"adopt"' "$pinset_adopter" > /dev/null ||
		fail "the adopter did not take over: $(cat "$T/adopt.out")"
	[ -e "$set" ] || fail "$set was unpinned while an adopted sandbox runs"
	timeout 60 sh -c ": > '$T/g1'" || fail "the sandbox no longer waits on its gate"
	rm -f "$T/g1"
	wait "$pinset_adopter" || fail "the adopter failed: $(cat "$T/adopt.out")"
	expect_left "$set"
}

# The recorder set between runs: idle, woken by the next run with nothing loaded, each program
# attached once (one record per denial, not two). `warden unload` keeps a set in use, of either
# backend, and removes the recorder set once idle (the LSM set is gone by then: expect_left).
test_an_idle_set_is_woken_not_loaded_and_unloaded_only_when_idle() {
	local set ids n
	command -v strace > /dev/null || skip "no strace"
	first_sandbox
	"$WARDEN" unload > "$T/unload" 2>&1 || fail "unload failed: $(cat "$T/unload")"
	grep -qF "$set is in use: kept" "$T/unload" || fail "unload did not keep $set: $(cat "$T/unload")"
	[ -d "$set" ] && ls "$set" | grep -q '^prog_' || fail "unload touched $set while in use"
	gated_end 1
	if [ "$EXPECT_BACKEND" = bpf-lsm ]; then
		expect_left "$set"
		return 0
	fi
	ids=$(idle_prog_ids "$set")
	[ -n "$ids" ] || fail "the set $set keeps no program after the last run ended"
	# the next run, at once (the unpinned links may not be released yet): no program loaded,
	# the idle ones attached, each once: its denial is recorded once
	echo secret > "$WD_OUT/secret"
	strace -f -e trace=bpf -o "$T/strace" "$WARDEN" run --backend "$BACKEND" \
		--policy "$T/p.json" --audit "$WD_OUT/audit_w" -- "$BIN/wd-try" read "$WD_OUT/secret" \
		> "$T/out" 2> "$T/err" || true
	[ -s "$T/out" ] || fail "the woken run failed: $(cat "$T/err")"
	expect_eq "the woken run's read" "$(cat "$T/out")" "$DENY_ERRNO"
	expect_eq "programs the woken run loaded" \
		"$(grep 'BPF_PROG_LOAD.*prog_name="wd_' "$T/strace" | grep -vc 'prog_name="wd_probe')" 0
	grep -q 'BPF_RAW_TRACEPOINT_OPEN\|BPF_LINK_CREATE' "$T/strace" ||
		fail "the woken run attached nothing"
	n=$(grep '"verdict":"deny"' "$WD_OUT/audit_w" | grep -cF "\"target\":\"$WD_OUT/secret\"" || true)
	expect_eq "records of the denied read (each program attached once)" "$n" 1
	expect_left "$set"
	expect_eq "the programs after a wake" "$(idle_prog_ids "$set")" "$ids"
	"$WARDEN" unload > "$T/unload" 2>&1 || fail "unload failed: $(cat "$T/unload")"
	grep -qF "unloaded $set" "$T/unload" || fail "unload did not name $set: $(cat "$T/unload")"
	[ ! -e "$set" ] || fail "$set is still pinned after warden unload"
}

# The attacks, from a root with the policy's rights only: the pins and the set's maps.
test_pins_cannot_be_opened_unlinked_or_reached_by_bpf_from_inside() {
	local set id other pin
	pin_policy
	trap release_all EXIT
	gated_start 1
	id=$(sandbox_ids | head -n1)
	set=$(set_of "$id")
	[ -n "$set" ] || fail "no set holds the sandbox"
	pin="$set/wd_sandboxes"
	# control: outside, root reaches the pin both ways
	expect_eq "control: bpf(BPF_OBJ_GET) outside" \
		"$("$BIN/wd-try" pin-delete "$pin" 1)" ENOENT
	[ -r "$pin" ] || fail "control: root cannot read $pin outside"
	expect_denied "opening $pin" "$(wrun --policy "$T/p.json" -- "$BIN/wd-try" read "$pin")"
	expect_denied "unlinking $pin" \
		"$(wrun --policy "$T/p.json" -- "$BIN/wd-try" unlinks "$pin")"
	expect_eq "bpf(BPF_OBJ_GET) of $pin, deleting another sandbox's entry" \
		"$(wrun --policy "$T/p.json" -- "$BIN/wd-try" pin-delete "$pin" "$id")" EPERM
	in_set "$set" "$id" || fail "the other sandbox's entry is gone"
	[ -e "$pin" ] || fail "$pin is gone"
	gated_end 1
}
