#!/usr/bin/env bash
# Prints the Debian mirror this machine's apt uses: url=$(bash scripts/apt-mirror.sh [APT_DIR])
# The first URI of the first enabled "deb" source that carries component "main" of a release
# suite (bookworm, trixie, stable ...; not bookworm-security, -updates or -backports), read as
# apt reads them (APT_DIR defaults to /etc/apt): sources.list, then sources.list.d/*.list
# (one-line "deb [options] URI suite component...") and *.sources (deb822 stanzas with
# Types:, URIs:, Suites:, Components:, Enabled:) in name order. A trailing / is dropped.
# Exits 1 with a message on stderr when there is none.
set -euo pipefail
dir=${1:-/etc/apt}
files=()
[ -f "$dir/sources.list" ] && files+=("$dir/sources.list")
for f in "$dir"/sources.list.d/*; do
	case $f in *.list | *.sources) [ -f "$f" ] && files+=("$f") ;; esac
done

# One awk program for both formats: a .sources file is deb822, anything else one-line.
# Each source becomes "types|uris|suites|components|enabled" and the first match is printed.
url="$(
	[ ${#files[@]} -eq 0 ] || awk '
	function pick(types, uris, suites, comps, enabled,    n, u, s, i, ok) {
		if (tolower(enabled) == "no" || (" " types " ") !~ / deb / || (" " comps " ") !~ / main /)
			return 0
		n = split(suites, s, " ")
		ok = 0
		for (i = 1; i <= n; i++)
			if (s[i] !~ /\// && s[i] !~ /-(security|updates|backports|backports-sloppy|proposed-updates)$/)
				ok = 1
		if (!ok || split(uris, u, " ") == 0 || u[1] ~ /^cdrom:/)
			return 0
		sub(/\/+$/, "", u[1])
		print u[1]
		found = 1
		exit 0
	}
	function stanza() {
		if (have)
			pick(f["types"], f["uris"], f["suites"], f["components"], f["enabled"])
		delete f
		have = 0
		last = ""
	}
	FNR == 1 { if (have) stanza(); deb822 = FILENAME ~ /\.sources$/ }
	deb822 && /^[ \t]*#/ { next }
	deb822 && /^[ \t]*$/ { stanza(); next }
	deb822 && /^[ \t]/ { if (last != "") f[last] = f[last] " " $0; next }
	deb822 {
		i = index($0, ":")
		if (i == 0)
			next
		last = tolower(substr($0, 1, i - 1))
		f[last] = substr($0, i + 1)
		gsub(/\t/, " ", f[last])
		sub(/^ +/, "", f[last])
		sub(/ +$/, "", f[last])
		have = 1
		next
	}
	{
		sub(/#.*/, "")
		gsub(/\[[^]]*\]/, " ")
		if (NF < 4 || $1 != "deb")
			next
		comps = ""
		for (i = 4; i <= NF; i++)
			comps = comps " " $i
		pick("deb", $2, $3, comps, "yes")
	}
	END { if (have && !found) stanza() }
	' "${files[@]}"
)"
if [ -z "$url" ]; then
	echo "apt-mirror: no Debian mirror (a deb source of a release suite with component main) in $dir/sources.list or $dir/sources.list.d/*.{list,sources}" >&2
	exit 1
fi
echo "$url"
