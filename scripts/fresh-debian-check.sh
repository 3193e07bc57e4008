#!/usr/bin/env bash
# Proves README's first commands on a fresh Debian 12: debootstraps a
# minimal bookworm (plus make, which the commands themselves need) under
# build/, copies the working tree in and types there, as root, exactly the
# commands of README.md's first ```sh block (today `make run`, then `make
# test`), one step each, where scripts/ensure-deps.sh must install
# everything else. Run it before every stop that changes the build, the
# dependency step or those commands.
#   sudo scripts/fresh-debian-check.sh [--keep] [--mirror URL]
# Takes tens of minutes; not part of `make test`. Prints one line per step
# and ends with `fresh-debian: PASS` or `fresh-debian: FAIL (step)`;
# each step's output is in build/fresh-debian/STEP.log.
set -uo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
keep=0
mirror=http://deb.debian.org/debian
while (($#)); do
	case $1 in
	--keep) keep=1; shift ;;
	--mirror) mirror=$2; shift 2 ;;
	*) echo "fresh-debian: unknown option $1 (--keep, --mirror URL)" >&2
	   exit 2 ;;
	esac
done
if [[ $(id -u) != 0 ]]; then
	echo "fresh-debian: needs root (debootstrap, chroot, mounts)" >&2
	exit 2
fi
if ! command -v debootstrap >/dev/null; then
	echo "fresh-debian: installing debootstrap"
	apt-get install -y -qq --no-install-recommends debootstrap >/dev/null ||
		{ echo "fresh-debian: cannot install debootstrap" >&2; exit 2; }
fi

out=$repo/build/fresh-debian
root=$out/root
mounts=()
cleanup() {
	local i
	for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
		umount -l "${mounts[i]}" 2>/dev/null
	done
	if ((!keep)); then
		rm -rf --one-file-system "$root"
	fi
}
trap cleanup EXIT
# A tree left by an earlier --keep run would not be fresh. A run that was
# killed may have left its mounts: rm must never reach the host's /dev.
awk -v r="$root/" 'index($2, r) == 1 { print $2 }' /proc/mounts | sort -r |
	while read -r m; do umount -l "$m"; done
rm -rf --one-file-system "$root"
mkdir -p "$root"

start=$SECONDS
step() { # step NAME COMMAND...: runs it, logs to NAME.log, reports
	local name=$1 t0=$SECONDS
	shift
	if "$@" >"$out/$name.log" 2>&1; then
		echo "fresh-debian: $name ok ($((SECONDS - t0)) s)"
	else
		echo "fresh-debian: $name FAILED ($((SECONDS - t0)) s); the end of" \
			"$out/$name.log:"
		tail -n 25 "$out/$name.log" | sed 's/^/  | /'
		echo "fresh-debian: FAIL ($name) after $((SECONDS - start)) s"
		exit 1
	fi
}

step debootstrap debootstrap --variant=minbase --include=make bookworm \
	"$root" "$mirror"

# The host's network settings (name server; where a site intercepts TLS,
# its certificate authorities and pip's setting to use them): a machine
# installed on this network would have them too. Nothing else is copied.
cp /etc/resolv.conf "$root/etc/resolv.conf"
if compgen -G '/usr/local/share/ca-certificates/*.crt' >/dev/null; then
	mkdir -p "$root/usr/local/share/ca-certificates" "$root/etc/ssl/certs"
	cp /usr/local/share/ca-certificates/*.crt \
		"$root/usr/local/share/ca-certificates/"
	cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/"
fi
[[ -f /etc/pip.conf ]] && cp /etc/pip.conf "$root/etc/pip.conf"

for m in proc sys dev dev/pts; do
	mount --bind "/$m" "$root/$m" && mounts+=("$root/$m")
done

mkdir -p "$root/root/rtk"
tar -C "$repo" --exclude=./build --exclude=./.git -cf - . |
	tar -C "$root/root/rtk" -xf -

in_chroot() {
	chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		bash -c "cd /root/rtk && $1"
}
# README's first ```sh block, comments and blank lines left out.
mapfile -t commands < <(awk '/^```sh$/ { inblock = 1; next }
	inblock && /^```/ { exit }
	inblock { sub(/#.*/, ""); sub(/[ \t]+$/, ""); if ($0 != "") print }' \
	"$repo/README.md")
if ((${#commands[@]} == 0)); then
	echo "fresh-debian: FAIL (README.md has no \`\`\`sh block of commands)"
	exit 1
fi
echo "fresh-debian: README's commands: $(printf '`%s` ' "${commands[@]}")"
for cmd in "${commands[@]}"; do
	step "$(tr -c 'a-zA-Z0-9=.\n' - <<<"$cmd")" in_chroot "$cmd"
done
echo "fresh-debian: PASS in $((SECONDS - start)) s"
