# shellcheck shell=bash disable=SC2154 # $tmp is set by the script that sources this
# debian_src.sh - Debian's sources of a package for the benchmarks that
# build real programs the way Debian builds them (sourced, from the
# repository's root): a deb-src line for apt when there is none, then
# `apt-get source` into a directory under build/bench-src that the next run
# finds again.  The callers set $tmp (a scratch directory).

# True when apt knows a deb-src line.
have_deb_src() {
	grep -qsE '^[[:space:]]*(deb-src[[:space:]]|Types:.*deb-src)' /etc/apt/sources.list \
		/etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources
}

# The deb-src twins of the enabled deb entries: stanzas of the deb822
# .sources files on stdout, lines of the one-line lists on fd 3.
deb_src_entries() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk 'BEGIN { RS = "" }
			/(^|\n)Types:[^\n]*(^|[ \t])deb([ \t]|\n|$)/ && !/(^|\n)Enabled:[ \t]*no/ {
				out = ""
				n = split($0, line, "\n")
				for (i = 1; i <= n; i++) {
					if (line[i] ~ /^#/) continue
					if (line[i] ~ /^Types:/) line[i] = "Types: deb-src"
					out = out line[i] "\n"
				}
				printf "%s\n", out }' "$f"
	done
	cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		sed -n 's/^[[:space:]]*deb[[:space:]]/deb-src /p' >&3
}

# Adds deb-src entries for the suites apt already uses, when there are
# none, and refreshes the package lists.  Needs root (or sudo without a
# password).
add_deb_src() {
	local sudo="" name=/etc/apt/sources.list.d/calltrace-bench-src
	if [ "$(id -u)" -ne 0 ]; then
		sudo -n true 2>/dev/null || return 1
		sudo="sudo -n"
	fi
	echo "bench: adding deb-src entries ($name.sources/.list) and running apt-get update" >&2
	deb_src_entries > "$tmp/src.sources" 3> "$tmp/src.list"
	[ ! -s "$tmp/src.sources" ] || $sudo cp "$tmp/src.sources" "$name.sources"
	[ ! -s "$tmp/src.list" ] || $sudo cp "$tmp/src.list" "$name.list"
	$sudo apt-get update -qq
}

# debian_source PACKAGE DIR GLOB: the unpacked sources of PACKAGE under DIR
# (the directory DIR/GLOB matches, the newest), fetched with `apt-get
# source` when DIR holds none.  Prints the directory; on failure prints why
# (one line) and fails.  apt-get's output is appended to DIR.log (stderr
# shows the adding of a deb-src line).
debian_source() {
	local pkg=$1 dir=$2 glob=$3 found
	found=$(find "$dir" -maxdepth 1 -type d -name "$glob" 2>/dev/null | sort | tail -n 1)
	if [ -z "$found" ]; then
		command -v dpkg-source >/dev/null || { echo "dpkg-source is needed (dpkg-dev; make deps)"; return 1; }
		mkdir -p "$dir"
		if ! have_deb_src && ! add_deb_src >> "$dir.log"; then
			echo "apt has no deb-src line and adding one needs root (see bench/README.md)"
			return 1
		fi
		(cd "$dir" && apt-get source -q "$pkg") >> "$dir.log" 2>&1 ||
			{ echo "apt-get source $pkg failed (no network? see $dir.log)"; return 1; }
		found=$(find "$dir" -maxdepth 1 -type d -name "$glob" | sort | tail -n 1)
		[ -n "$found" ] || { echo "apt-get source $pkg unpacked no $glob (see $dir.log)"; return 1; }
	fi
	echo "$found"
}
