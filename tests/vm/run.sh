#!/usr/bin/env bash
# Boot a stock Debian cloud kernel under QEMU (TCG, no KVM) with BPF-LSM
# enabled and run a command from a staged directory as the VM's init.
#
#   tests/vm/run.sh --cache DIR --stage DIR --cmd "COMMAND LINE" \
#                   [--kernel 6.1|6.12] [--timeout SECONDS] [--mem MB] [--tag NAME]
#
#   --kernel K    6.1 (default): Debian 12's linux-image-6.1.0-*-cloud-amd64-unsigned,
#                 from the host's apt sources; 6.12: Debian 13's
#                 linux-image-6.12.*+deb13-cloud-amd64-unsigned, fetched with a
#                 temporary apt source for trixie (the host's Debian mirror), with
#                 its own lists and cache under DIR, removed after the download:
#                 the host's apt state is not touched
#   --cache DIR   kernel package download/unpack dir, reused across runs:
#                 DIR/kernel (6.1) and DIR/kernel-6.12; delete one to pick up a
#                 newer kernel package; the console log of the last run is
#                 DIR/console.log (6.1) or DIR/console-6.12.log
#   --stage DIR   copied to /warden in the VM; shared libraries of every ELF
#                 file in it are copied along (same paths), plus the loader
#   --cmd CMD     run with bash in /warden inside the VM
#   --timeout S   wall-clock limit for the VM (default 600)
#   --mem MB      VM memory (default 1024)
#   --tag NAME    the console log is DIR/console[-6.12]-NAME.log: VMs of one kernel side by
#                 side keep theirs apart (a fetch of the kernel package is done by one of
#                 them, under a lock, and found done by the others)
#
# The VM's console streams to stdout.  Exit status: the command's exit
# status (from the WARDEN_VM_EXIT=<rc> marker), 124 if the VM timed out,
# 1 if the VM ended without printing the marker (kernel panic, ...).
set -euo pipefail

prog=tests/vm/run.sh
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

die() { echo "vm: error: $*" >&2; exit 1; }
say() { echo "vm: $*" >&2; }
usage() {
	echo "usage: $prog --cache DIR --stage DIR --cmd \"COMMAND LINE\" [--kernel 6.1|6.12] [--timeout SECONDS] [--mem MB] [--tag NAME]" >&2
	exit 2
}

CACHE='' STAGE='' CMD='' KERNEL=6.1 TIMEOUT=600 MEM=${MEM:-1024} have_cmd='' TAG=''
while [ $# -gt 0 ]; do
	case $1 in
	--cache) [ $# -ge 2 ] || usage; CACHE=$2; shift 2 ;;
	--stage) [ $# -ge 2 ] || usage; STAGE=$2; shift 2 ;;
	--cmd) [ $# -ge 2 ] || usage; CMD=$2; have_cmd=1; shift 2 ;;
	--kernel) [ $# -ge 2 ] || usage; KERNEL=$2; shift 2 ;;
	--timeout) [ $# -ge 2 ] || usage; TIMEOUT=$2; shift 2 ;;
	--mem) [ $# -ge 2 ] || usage; MEM=$2; shift 2 ;;
	--tag) [ $# -ge 2 ] || usage; TAG=$2; shift 2 ;;
	--cache=*) CACHE=${1#*=}; shift ;;
	--stage=*) STAGE=${1#*=}; shift ;;
	--cmd=*) CMD=${1#*=}; have_cmd=1; shift ;;
	--kernel=*) KERNEL=${1#*=}; shift ;;
	--timeout=*) TIMEOUT=${1#*=}; shift ;;
	--mem=*) MEM=${1#*=}; shift ;;
	--tag=*) TAG=${1#*=}; shift ;;
	-h|--help) usage ;;
	*) echo "vm: error: unknown argument: $1" >&2; usage ;;
	esac
done
[ -n "$CACHE" ] && [ -n "$STAGE" ] && [ -n "$have_cmd" ] || usage
[[ $TIMEOUT =~ ^[0-9]+$ ]] && [ "$TIMEOUT" -gt 0 ] || die "--timeout must be a positive number of seconds"
[[ $MEM =~ ^[0-9]+$ ]] && [ "$MEM" -ge 128 ] || die "--mem must be a number of MB (>= 128)"
[[ $TAG =~ ^[A-Za-z0-9._-]*$ ]] || die "--tag must be letters, digits, '.', '_' or '-'"
case $KERNEL in
6.1) suffix='' ;;
6.12) suffix=-6.12 ;;
*) die "--kernel must be 6.1 or 6.12" ;;
esac
[ -d "$STAGE" ] || die "stage directory '$STAGE' does not exist"
[ -f "$here/init.sh" ] || die "$here/init.sh is missing"

# ---------------------------------------------------------------- tools
need() { # need COMMAND PACKAGE
	command -v "$1" >/dev/null 2>&1 ||
		die "$1 not found; install it with: apt-get install $2"
}
need qemu-system-x86_64 qemu-system-x86
need cpio cpio
need dpkg dpkg
need apt-get apt
need apt-cache apt
need ldd libc-bin
need gzip gzip
need timeout coreutils
need xz xz-utils # the modules of 6.12 are .ko.xz
need flock util-linux
BUSYBOX=/bin/busybox
[ -x "$BUSYBOX" ] || die "$BUSYBOX not found; install it with: apt-get install busybox-static"
if LC_ALL=C ldd "$BUSYBOX" >/dev/null 2>&1; then
	die "$BUSYBOX is dynamically linked; install the static one with: apt-get install busybox-static"
fi
BASH_BIN=/bin/bash
[ -x "$BASH_BIN" ] || die "$BASH_BIN not found; install it with: apt-get install bash"

mkdir -p "$CACHE"
CACHE=$(cd "$CACHE" && pwd)
STAGE=$(cd "$STAGE" && pwd)

# ---------------------------------------------------------------- kernel
# The Debian mirror the host's apt uses (the first of its sources that is not a security one;
# one-line and deb822 formats), for the trixie source of 6.12.
host_mirror() {
	local m
	m=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		awk '$1 == "deb" { u = $2; if (u ~ /^\[/) for (i = 2; i <= NF; i++) if ($i ~ /\]$/) { u = $(i + 1); break }
			if (u !~ /security/) { print u; exit } }')
	[ -n "$m" ] || m=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
		awk 'tolower($1) == "uris:" { for (i = 2; i <= NF; i++) if ($i !~ /security/) { print $i; exit } }')
	echo "${m:-http://deb.debian.org/debian}"
}

# fetch_deb PKG_RE DIR [APT OPTIONS...]: apt-get download the newest package matching PKG_RE
# into DIR, with the given apt options (nothing: the host's sources)
fetch_deb() {
	local re=$1 dir=$2 pkg
	shift 2
	pkg=$(apt-cache "$@" search --names-only "$re" 2>/dev/null | awk '{print $1}' | sort -V | tail -n1)
	[ -n "$pkg" ] || die "no package matching $re found by apt-cache search"
	say "fetching kernel package $pkg ..."
	(cd "$dir" && apt-get "$@" download -q -o APT::Sandbox::User=root "$pkg" >&2) ||
		die "apt-get download $pkg failed"
}

KDIR=$CACHE/kernel$suffix
APTDIR=''
trap '[ -z "$APTDIR" ] || rm -rf "$APTDIR"' EXIT
# one fetch at a time per kernel: a VM started beside one that is fetching waits, then finds it done
exec {lockfd}>"$CACHE/fetch$suffix.lock"
flock "$lockfd" || die "cannot lock $CACHE/fetch$suffix.lock"
if [ ! -f "$KDIR/.complete" ]; then
	dl=$CACHE/download$suffix
	rm -rf "$dl"
	mkdir -p "$dl"
	chmod 0755 "$dl"
	case $KERNEL in
	6.1)
		pkg_re='^linux-image-6\.1\.0-[0-9]+-cloud-amd64-unsigned$'
		if [ -z "$(apt-cache search --names-only "$pkg_re" 2>/dev/null)" ]; then
			say "no kernel package known to apt, running apt-get update ..."
			apt-get update -qq >&2 || die "apt-get update failed"
		fi
		fetch_deb "$pkg_re" "$dl"
		;;
	6.12)
		# a source list, lists and a cache of its own (removed below and on exit), the host's
		# archive keyring: the host's apt sources, lists and cache stay as they are
		keyring=/usr/share/keyrings/debian-archive-keyring.gpg
		[ -f "$keyring" ] || die "$keyring not found; install it with: apt-get install debian-archive-keyring"
		APTDIR=$(mktemp -d "$CACHE/apt-trixie.XXXXXX")
		mkdir -p "$APTDIR/lists/partial" "$APTDIR/cache/archives/partial"
		mirror=$(host_mirror)
		echo "deb [signed-by=$keyring] $mirror trixie main" >"$APTDIR/sources.list"
		aptopt=(-o "Dir::Etc::sourcelist=$APTDIR/sources.list" -o Dir::Etc::sourceparts=-
			-o "Dir::State::Lists=$APTDIR/lists" -o "Dir::Cache=$APTDIR/cache"
			-o APT::Sandbox::User=root -o Acquire::Languages=none)
		say "reading trixie's package list from $mirror ..."
		apt-get "${aptopt[@]}" update -qq >&2 || die "apt-get update (trixie, $mirror) failed"
		fetch_deb '^linux-image-6\.12\.[0-9]+\+deb13-cloud-amd64-unsigned$' "$dl" "${aptopt[@]}"
		rm -rf "$APTDIR"
		APTDIR=''
		;;
	esac
	deb=$(find "$dl" -maxdepth 1 -name '*.deb' | head -n1)
	[ -n "$deb" ] || die "apt-get download produced no .deb"
	say "unpacking $(basename "$deb") ..."
	rm -rf "$KDIR" "$KDIR.tmp"
	dpkg -x "$deb" "$KDIR.tmp" || die "dpkg -x $deb failed"
	basename "$deb" >"$KDIR.tmp/.complete"
	mv "$KDIR.tmp" "$KDIR"
	rm -rf "$dl"
fi
exec {lockfd}>&-
VMLINUZ=$(find "$KDIR/boot" -maxdepth 1 -name 'vmlinuz-*' 2>/dev/null | sort -V | tail -n1)
[ -n "$VMLINUZ" ] || die "no boot/vmlinuz-* in $KDIR (delete it to re-fetch)"
KVER=${VMLINUZ##*/vmlinuz-}
# trixie's packages are merged-/usr: the modules are in usr/lib/modules
MODDIR=$KDIR/lib/modules/$KVER
[ -d "$MODDIR" ] || MODDIR=$KDIR/usr/lib/modules/$KVER
[ -d "$MODDIR" ] || die "no lib/modules/$KVER in $KDIR (delete $KDIR to re-fetch)"

# ---------------------------------------------------------------- initramfs
say "building initramfs ($KVER) ..."
WORK=$(mktemp -d "$CACHE/initramfs.XXXXXX")
vm_pid='' out_pid=''
# shellcheck disable=SC2317 # called via trap
cleanup() {
	[ -z "$APTDIR" ] || rm -rf "$APTDIR"
	[ -z "$vm_pid" ] || kill -TERM "$vm_pid" 2>/dev/null || true
	[ -z "$out_pid" ] || kill -TERM "$out_pid" 2>/dev/null || true
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP
ROOT=$WORK/root
INITRD=$WORK/initrd.gz

# merged-/usr layout like the host, so ldd paths work as they are
mkdir -p "$ROOT"/usr/{bin,sbin,lib,lib64} "$ROOT"/{proc,sys,dev,tmp,run,root,etc,mnt,var,warden,etc/warden-vm}
ln -s usr/bin "$ROOT/bin"
ln -s usr/sbin "$ROOT/sbin"
ln -s usr/lib "$ROOT/lib"
ln -s usr/lib64 "$ROOT/lib64"
mkdir -p "$ROOT/lib/modules"
chmod 0700 "$ROOT/root"
chmod 1777 "$ROOT/tmp"
mknod -m 0600 "$ROOT/dev/console" c 5 1 2>/dev/null || true
mknod -m 0666 "$ROOT/dev/null" c 1 3 2>/dev/null || true

# copy FILE (dereferenced) to the same path under $ROOT
put() {
	local dst=$ROOT$1
	[ -e "$dst" ] && return 0
	mkdir -p "$(dirname "$dst")"
	cp -L "$1" "$dst"
}
# copy the shared libraries (and loader) FILE needs
put_libs() {
	local line lib
	# ldd fails for static/non-native ELF files (e.g. BPF objects): fine
	while read -r line; do
		case $line in
		*"=> not found"*) say "warning: $1 needs ${line%% =>*}, not found on this host"; continue ;;
		*"=> /"*) lib=${line#*=> }; lib=${lib%% (*} ;;
		/*) lib=${line%% (*} ;;
		*) continue ;;
		esac
		[ -f "$lib" ] && put "$lib"
	done < <(LC_ALL=C ldd "$1" 2>/dev/null || true)
}

cp "$BUSYBOX" "$ROOT/bin/busybox"
put "$BASH_BIN"
put_libs "$BASH_BIN"
# iproute2's ip if the host has it (busybox ip silently ignores "peer name"
# for veth and has no "ip netns"); busybox ip otherwise
for p in /usr/bin/ip /usr/sbin/ip /bin/ip /sbin/ip; do
	[ -x "$p" ] || continue
	real=$(readlink -f "$p")
	[ "${real##*/}" = busybox ] && continue
	cp "$real" "$ROOT/usr/bin/ip"
	put_libs "$real"
	ln -s ../bin/ip "$ROOT/usr/sbin/ip"
	[ -d /etc/iproute2 ] && cp -RL /etc/iproute2 "$ROOT/etc/"
	break
done
# GNU find: busybox's has no -delete, which the hold tests drive (find -delete must be held)
put /usr/bin/find
put_libs /usr/bin/find
# (busybox applet links are made by /init with busybox --install -s; that
# keeps bash and ip, and is much faster than ~400 ln calls here)
cp "$here/init.sh" "$ROOT/init"
chmod 0755 "$ROOT/init"
printf '%s\n' "$CMD" >"$ROOT/etc/warden-vm/cmd"

cat >"$ROOT/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/bash
nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
www-data:x:33:33:www-data:/var/www:/usr/sbin/nologin
EOF
cat >"$ROOT/etc/group" <<'EOF'
root:x:0:
www-data:x:33:
nogroup:x:65534:
EOF
cat >"$ROOT/etc/hosts" <<'EOF'
127.0.0.1 localhost warden-vm
::1 localhost ip6-localhost ip6-loopback
EOF
echo warden-vm >"$ROOT/etc/hostname"
printf 'hosts: files\npasswd: files\ngroup: files\n' >"$ROOT/etc/nsswitch.conf"

# kernel modules (+ dependencies from their modinfo), decompressed, flat
declare -A mod_done=()
find_mod() { # find_mod NAME -> path of NAME.ko[.xz|.zst|.gz] in $MODDIR
	local n1=$1 n2
	n2=${n1//_/-}; n1=${n1//-/_}
	find "$MODDIR" \( -name "$n1.ko" -o -name "$n1.ko.*" -o -name "$n2.ko" -o -name "$n2.ko.*" \) -print -quit
}
add_mod() { # add_mod NAME: copies it and its deps, appends to load.list in load order
	local name=$1 src dst deps d
	[ -n "${mod_done[$name]:-}" ] && return 0
	mod_done[$name]=1
	src=$(find_mod "$name")
	if [ -z "$src" ]; then
		if grep -qE "/${name//[-_]/[-_]}\.ko(\.|$)" "$MODDIR/modules.builtin" 2>/dev/null; then
			return 0 # built into the kernel
		fi
		say "warning: module $name not found in $MODDIR"
		return 0
	fi
	dst=$ROOT/lib/modules/$name.ko
	case $src in
	*.ko) cp "$src" "$dst" ;;
	*.ko.xz) xz -dc "$src" >"$dst" || die "cannot decompress $src (apt-get install xz-utils)" ;;
	*.ko.zst) zstd -qdc "$src" >"$dst" || die "cannot decompress $src (apt-get install zstd)" ;;
	*.ko.gz) gzip -dc "$src" >"$dst" ;;
	*) die "unknown module format: $src" ;;
	esac
	deps=$(tr '\0' '\n' <"$dst" | sed -n 's/^depends=//p' | head -n1)
	for d in ${deps//,/ }; do add_mod "$d"; done
	echo "$name" >>"$ROOT/lib/modules/load.list"
}
: >"$ROOT/lib/modules/load.list"
# inet_diag, tcp_diag, udp_diag: sock_diag lookups, by which the DNS forwarder tells its sandbox's
# queries from others (docs/network.md, "Who the forwarder answers")
for m in veth overlay loop btrfs inet_diag tcp_diag udp_diag; do add_mod "$m"; done

# the stage, and the libraries its ELF files need
cp -RL --preserve=mode,timestamps "$STAGE/." "$ROOT/warden/" ||
	die "cannot copy the stage $STAGE (dangling symlink?)"
while IFS= read -r -d '' f; do
	magic=
	LC_ALL=C IFS= read -r -N4 -d '' magic <"$f" 2>/dev/null || true
	[ "$magic" = $'\x7fELF' ] || continue
	put_libs "$f"
done < <(find "$ROOT/warden" -type f -print0)

(cd "$ROOT" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet | gzip -1) >"$INITRD"

# ---------------------------------------------------------------- boot
LOG=$CACHE/console$suffix${TAG:+-$TAG}.log
say "booting $(basename "$VMLINUZ") (initrd $(($(stat -c %s "$INITRD") / 1024)) KiB, timeout ${TIMEOUT}s) ..."
# Serial console: drop \r, and the terminal reset / no-wrap / clear-screen
# sequences SeaBIOS and the kernel send (ESC c becomes a line break, as the
# UART reset at kernel start sometimes eats the firmware's last \r\n).
strip='s/\r//g; s/\x1b\[?7[lh]//g; s/\x1b\[[0-9;]*J//g; s/\x1bc/\n/g; s/^\n//'
# qemu runs in the background (under timeout, in its own process group) so
# that a signal to this script can stop it; its output goes through a fifo to
# the filter and tee.  stdin /dev/null keeps qemu's -nographic stdio mux off
# the terminal. Single-threaded TCG on purpose: with thread=multi the 6.12 kernel
# panicked in bpf_lsm_file_open while another vCPU's text_poke patched it (an LSM
# trampoline attach is cross-modifying code, which multi-threaded TCG does not make safe).
# -cpu qemu64, not max: the same suite took 118 s of CPU against max's 170 (max gives the guest
# AVX2 and 5-level paging, which TCG emulates slowly; without those two, 130 s), and nothing
# warden or its tests do needs a newer CPU model.
FIFO=$WORK/console.fifo
mkfifo "$FIFO"
sed -u "$strip" <"$FIFO" | tee -p "$LOG" &
out_pid=$!
start=$(date +%s%N)
timeout -k 10 "$TIMEOUT" \
	qemu-system-x86_64 -accel tcg,thread=single -cpu qemu64 -m "$MEM" -smp 2 \
	-nographic -no-reboot -kernel "$VMLINUZ" -initrd "$INITRD" \
	-append "console=ttyS0 panic=-1 loglevel=5 lsm=lockdown,capability,landlock,bpf" \
	</dev/null >"$FIFO" 2>&1 &
vm_pid=$!
interrupted=
trap 'interrupted=1; kill -TERM "$vm_pid" 2>/dev/null || true' INT TERM HUP
set +e
while :; do
	wait "$vm_pid"
	qrc=$?
	kill -0 "$vm_pid" 2>/dev/null || break # else: wait was cut short by a signal
done
vm_pid=
wait "$out_pid"
out_pid=
set -e
ms=$((($(date +%s%N) - start) / 1000000))
elapsed=$((ms / 1000)).$(printf %03d $((ms % 1000)))

if [ -n "$interrupted" ]; then
	echo "vm: error: interrupted" >&2
	exit 130
fi
if [ "$qrc" -eq 124 ] || [ "$qrc" -eq 137 ]; then
	echo "vm: error: VM timed out after ${TIMEOUT}s (console log: $LOG)" >&2
	exit 124
fi
marker=$(grep -aoE '^WARDEN_VM_EXIT=[0-9]+' "$LOG" | tail -n1 || true)
if [ -z "$marker" ]; then
	echo "vm: error: VM ended without WARDEN_VM_EXIT marker (qemu rc=$qrc; kernel panic or init failure?), console log: $LOG" >&2
	exit 1
fi
rc=${marker#WARDEN_VM_EXIT=}
# the CPU time qemu (and the initramfs tools before it) took: on a loaded host the wall time is
# mostly waiting for a core, this is the VM's own work
times >"$WORK/times"
cpu=$(sed -n 2p "$WORK/times")
say "VM finished in ${elapsed}s (CPU: ${cpu/ / user, } sys), command exit status $rc"
exit "$rc"
