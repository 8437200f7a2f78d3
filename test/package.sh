#!/usr/bin/env bash
#
# test/package.sh: the release artefacts, made and installed the way a user makes and installs
# them (doc/install.md), and checked.
#
#   bash test/package.sh build OUTDIR        the Debian package postgresql-N-bloomsketch (N:
#                                            BS_PG_VERSION) from a copy of the tree, with
#                                            dpkg-buildpackage -us -uc -b; the .deb goes to OUTDIR
#                                            (emptied first), then `contents`
#   bash test/package.sh contents DEB        the package holds exactly what it must: the module
#                                            (and its LLVM bitcode), the control file and every
#                                            sql/bloomsketch--*.sql, byte for byte, and the docs
#   bash test/package.sh install DEB         apt-get install ./DEB, into a PostgreSQL that holds
#                                            no file of bloomsketch (the package of an earlier run
#                                            is purged first; a file that no package owns fails)
#   bash test/package.sh installcheck DEB    install, then the regression tests (make
#                                            installcheck, pg_regress with sql/ and expected/;
#                                            all but the six slowest unless
#                                            BS_PACKAGE_REGRESS=all) from this tree, never
#                                            built, in a throwaway cluster;
#                                            then purge: nothing of bloomsketch may be left
#   bash test/package.sh dist WORKDIR        make dist (bloomsketch-VERSION.zip, PGXN's form),
#                                            unpacked in WORKDIR: make, make install DESTDIR
#
# Each command prints `ok - ...` / `not ok - ...` lines and ends with `NAME: N passed, N failed`
# (NAME: deb, install, installcheck, dist); it exits non-zero when a check failed.
# test/check.sh's package stage runs them for PostgreSQL 15 (the package built here, installed in
# a Debian 12 root of test/pg_root.sh), and with BS_INSTALL_FROM=deb (test/lib.sh) the roots of 17
# and 18 run every server test against the package that they built (build, install).
#
# Needs: dpkg-buildpackage and the Build-Depends of debian/control (test/lib.sh's BS_PACKAGES and
# BS_DEB_PACKAGES) for build; root (apt-get) for install and installcheck; python3 and git for
# dist.  Settings: those of test/lib.sh (BS_PG_VERSION, BS_PG_CONFIG).

set -uo pipefail

# shellcheck source=test/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PK_PASSED=0
PK_FAILED=0

pk_ok() {
	PK_PASSED=$((PK_PASSED + 1))
	printf 'ok - %s\n' "$*"
}

pk_fail() {
	PK_FAILED=$((PK_FAILED + 1))
	printf 'not ok - %s\n' "$*"
}

# pk_check WHAT CMD...: one check, passed when CMD succeeds.
pk_check() {
	local what=$1
	shift
	if "$@"; then pk_ok "$what"; else pk_fail "$what"; fi
}

pk_done() {
	echo "$1: $PK_PASSED passed, $PK_FAILED failed"
	[ "$PK_FAILED" -eq 0 ]
}

# The distribution's version (META.json, which test/meta_check.py keeps equal to
# bloomsketch.control's and debian/changelog's).
pk_version() {
	/usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["version"])' "$BS_ROOT/META.json"
}

# The install and upgrade scripts of the tree, one file name a line.
pk_scripts() {
	(cd "$BS_ROOT/sql" && ls bloomsketch--*.sql)
}

# ---------------------------------------------------------------------------------------------
# build

pk_build() {
	local out=$1 src rc=0 debs
	src=$out/src
	rm -rf --one-file-system -- "$out"
	mkdir -p "$src" || return 1
	out=$(cd "$out" && pwd)
	src=$out/src
	bs_copy_tree "$src" || {
		pk_fail "copy the tree to $src"
		pk_done deb
		return 1
	}
	# debian/control is generated for the newest Debian (unstable, PostgreSQL 18): there the
	# build's own check (pg_buildext checkcontrol) finds it current or fails; on an older Debian
	# it is generated anew, as doc/install.md says.
	if ! grep -q "^Package: postgresql-$BS_PG_VERSION-bloomsketch\$" "$src/debian/control"; then
		echo "debian/control is for another PostgreSQL: pg_buildext updatecontrol"
		(cd "$src" && pg_buildext updatecontrol) || rc=1
	fi
	echo "dpkg-buildpackage -us -uc -b in $src (log: $out/build.log)"
	# noautodbgsym: no -dbgsym package; the build's check (a smoke test) runs
	if [ "$rc" -eq 0 ] && (cd "$src" && DEB_BUILD_OPTIONS="noautodbgsym parallel=${BS_MAKE_JOBS:-$(nproc)}" \
		MAKEFLAGS="-j${BS_MAKE_JOBS:-$(nproc)}" dpkg-buildpackage -us -uc -b) >"$out/build.log" 2>&1; then
		pk_ok "dpkg-buildpackage -us -uc -b for PostgreSQL $BS_PG_VERSION"
	else
		pk_fail "dpkg-buildpackage -us -uc -b for PostgreSQL $BS_PG_VERSION (the end of $out/build.log:)"
		tail -n 40 "$out/build.log" | sed 's/^/    | /'
		pk_done deb
		return 1
	fi
	# the copy of the tree is not needed any more (the root's logs are copied out of it)
	rm -rf --one-file-system -- "$src"
	debs=("$out"/*.deb)
	if [ "${#debs[@]}" -eq 1 ] && [ "${debs[0]}" = "$out/postgresql-$BS_PG_VERSION-bloomsketch_$(pk_version)_$(dpkg --print-architecture).deb" ]; then
		pk_ok "one package: $(basename "${debs[0]}")"
	else
		pk_fail "one package postgresql-$BS_PG_VERSION-bloomsketch_$(pk_version)_$(dpkg --print-architecture).deb, got: ${debs[*]##*/}"
		pk_done deb
		return 1
	fi
	pk_contents "${debs[0]}"
	pk_done deb
}

# ---------------------------------------------------------------------------------------------
# contents

pk_contents() {
	local deb=$1 pkg ver v dir tmp f name want have missing extra doc
	pkg=$(dpkg-deb -f "$deb" Package)
	ver=$(dpkg-deb -f "$deb" Version)
	v=${pkg#postgresql-}
	v=${v%-bloomsketch}
	[ "$pkg" = "postgresql-$v-bloomsketch" ] && [ -n "$v" ] && [ "$v" = "${v//[!0-9]/}" ] ||
		{ pk_fail "package name postgresql-N-bloomsketch, got $pkg"; return 1; }
	pk_check "version $ver is META.json's ($(pk_version))" [ "$ver" = "$(pk_version)" ]
	pk_check "depends on postgresql-$v: $(dpkg-deb -f "$deb" Depends)" \
		grep -Eq "(^|, )postgresql-$v( |,|\$)" <<<"$(dpkg-deb -f "$deb" Depends)"

	tmp=$(mktemp -d "${TMPDIR:-/tmp}/bs-deb.XXXXXX") || return 1
	dpkg-deb -x "$deb" "$tmp" || { pk_fail "dpkg-deb -x $deb"; rm -rf "$tmp"; return 1; }
	doc=usr/share/doc/$pkg

	# what must be there, and nothing else (regular files; bitcode checked below)
	want=$(
		echo "usr/lib/postgresql/$v/lib/bloomsketch.so"
		echo "usr/share/postgresql/$v/extension/bloomsketch.control"
		pk_scripts | sed "s|^|usr/share/postgresql/$v/extension/|"
		echo "$doc/copyright"
		echo "$doc/changelog"
		echo "$doc/README.md"
		echo "$doc/CHANGELOG.md"
		if [ -f "$BS_ROOT/LICENSE" ]; then echo "$doc/LICENSE"; fi
		(cd "$BS_ROOT/doc" && ls ./*.md) | sed "s|^\./|$doc/doc/|"
	)
	want=$(sort <<<"$want")
	# documentation may be compressed (dh_compress): compare without .gz
	have=$(cd "$tmp" && find . -type f -o -type l | sed 's|^\./||' | grep -v "^usr/lib/postgresql/$v/lib/bitcode/" |
		sed "s|^\($doc/.*\)\.gz\$|\1|" | sort)
	missing=$(comm -23 <(echo "$want") <(echo "$have"))
	extra=$(comm -13 <(echo "$want") <(echo "$have"))
	pk_check "the package holds the module, the control file, the $(pk_scripts | wc -l) scripts and the docs${missing:+ (missing: $(echo $missing))}" [ -z "$missing" ]
	pk_check "and nothing else${extra:+ (also: $(echo $extra))}" [ -z "$extra" ]

	# the bitcode of a PostgreSQL built with LLVM: one file per C source, and the index
	dir=$tmp/usr/lib/postgresql/$v/lib/bitcode
	if [ -d "$dir" ]; then
		want=$( (cd "$BS_ROOT" && ls src/*.c src/core/*.c) | sed 's|\.c$|.bc|; s|^|bloomsketch/|'; echo bloomsketch.index.bc)
		have=$(cd "$dir" && find . -type f | sed 's|^\./||')
		pk_check "LLVM bitcode: one file per C source and the index, nothing else" \
			[ "$(sort <<<"$want")" = "$(sort <<<"$have")" ]
	fi

	# the files that PostgreSQL reads are the tree's, byte for byte
	for f in bloomsketch.control $(pk_scripts); do
		if [ "$f" = bloomsketch.control ]; then name=$BS_ROOT/$f; else name=$BS_ROOT/sql/$f; fi
		cmp -s "$name" "$tmp/usr/share/postgresql/$v/extension/$f" || { pk_fail "$f differs from the tree's"; rm -rf "$tmp"; return 1; }
	done
	pk_ok "the control file and the scripts are the tree's, byte for byte"
	pk_check "changelog is debian/changelog" \
		cmp -s <(zcat -f "$tmp/$doc"/changelog*) "$BS_ROOT/debian/changelog"
	pk_check "CHANGELOG.md is the tree's" cmp -s <(zcat -f "$tmp/$doc"/CHANGELOG.md*) "$BS_ROOT/CHANGELOG.md"
	# xxHash is compiled in (XXH_INLINE_ALL): the module needs no library but the C library
	if command -v objdump >/dev/null 2>&1; then
		f=$(objdump -p "$tmp/usr/lib/postgresql/$v/lib/bloomsketch.so" | awk '/NEEDED/ { print $2 }')
		pk_check "the module needs no shared library but the C library (NEEDED: $(echo $f))" [ "$f" = libc.so.6 ]
	fi
	echo "contents of $(basename "$deb"):"
	dpkg-deb -c "$deb" | awk '{ printf "    %s %8s %s\n", $1, $3, $6 }'
	rm -rf "$tmp"
}

# ---------------------------------------------------------------------------------------------
# install

# Files of bloomsketch in the directories of this PostgreSQL, one a line.
pk_installed_files() {
	local lib share
	lib=$("$BS_PG_CONFIG" --pkglibdir)
	share=$("$BS_PG_CONFIG" --sharedir)
	find "$lib" "$share/extension" -maxdepth 1 -name 'bloomsketch*' 2>/dev/null
	find "$lib/bitcode" -maxdepth 1 -name 'bloomsketch*' 2>/dev/null
}

pk_apt() {
	DEBIAN_FRONTEND=noninteractive apt-get -q -y -o Dpkg::Use-Pty=0 "$@" </dev/null
}

pk_install() {
	local deb=$1 pkg left
	pkg=$(dpkg-deb -f "$deb" Package) || { pk_fail "read $deb"; return 1; }
	if dpkg -s "$pkg" >/dev/null 2>&1; then
		echo "$pkg is installed (an earlier run): apt-get purge"
		pk_apt purge "$pkg" >/dev/null || { pk_fail "apt-get purge $pkg"; return 1; }
	fi
	left=$(pk_installed_files)
	if [ -n "$left" ]; then
		pk_fail "bloomsketch was never installed in PostgreSQL $BS_PG_VERSION: these files were put there by something else (make install?): $(echo $left)"
		return 1
	fi
	pk_ok "no file of bloomsketch in PostgreSQL $BS_PG_VERSION before the package"
	echo "apt-get install ./$(basename "$deb")"
	if (cd "$(dirname "$deb")" && pk_apt install "./$(basename "$deb")"); then
		pk_ok "apt-get install ./$(basename "$deb")"
	else
		pk_fail "apt-get install ./$(basename "$deb")"
		return 1
	fi
	# (the roots of test/pg_root.sh install no documentation: dpkg's path-exclude)
	pk_check "dpkg --verify $pkg: the installed files are the package's" \
		test -z "$(dpkg --verify "$pkg" | grep -v ' /usr/share/doc/')"
	pk_check "CREATE EXTENSION finds bloomsketch.control in $("$BS_PG_CONFIG" --sharedir)/extension" \
		test -f "$("$BS_PG_CONFIG" --sharedir)/extension/bloomsketch.control"
}

pk_purge() {
	local pkg=$1 left
	if pk_apt purge "$pkg" >/dev/null; then pk_ok "apt-get purge $pkg"; else pk_fail "apt-get purge $pkg"; fi
	left=$(pk_installed_files)
	pk_check "nothing of bloomsketch is left after the purge${left:+: $(echo $left)}" [ -z "$left" ]
}

# ---------------------------------------------------------------------------------------------
# installcheck

pk_installcheck() {
	local deb=$1 pkg log rc=0 line p f
	pkg=$(dpkg-deb -f "$deb" Package) || return 1
	pk_check "the tree was never built (no module, no object)" \
		test -z "$(find "$BS_ROOT" -path "$BS_ROOT/test/.work" -prune -o \( -name '*.so' -o -name '*.o' -o -name '*.bc' \) -print)"
	pk_install "$deb" || { pk_done installcheck; return 1; }

	bs_cluster_start || { pk_fail "start a throwaway cluster"; pk_done installcheck; return 1; }
	log=$(mktemp "${TMPDIR:-/tmp}/bs-installcheck.XXXXXX") || return 1
	rm -f "$BS_ROOT/regression.diffs"
	# pg_regress with the tree's sql/ and expected/, against what the package installed: every
	# file but the six slowest (about 70 s of 205: they ran against the tree's build in the
	# regress stage, and the roots of 17 and 18 run all of them against their packages);
	# BS_PACKAGE_REGRESS=all runs every file
	local regress=()
	if [ "${BS_PACKAGE_REGRESS:-}" != all ]; then
		regress=("REGRESS=$(cd "$BS_ROOT/sql" && ls -- *.sql | sed -n 's/\.sql$//p' |
			grep -Ev '^(bloomsketch--|bloom_slices$|bloom_agg$|bloom_agg_expanded$|hostile_input$|topk$|cms_agg$)' |
			tr '\n' ' ')")
	fi
	(cd "$BS_ROOT" && make -s installcheck PG_CONFIG="$BS_PG_CONFIG" "${regress[@]}") 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	bs_cluster_stop
	# its counts, as pg_regress prints them (PG 15: " All 28 tests passed. ", 16+: "# All ...")
	line=$(grep -Eo 'All [0-9]+ tests passed|[0-9]+ of [0-9]+ tests failed' "$log" | tail -n 1)
	case $line in
	All*) p=${line#All }; p=${p%% *}; f=0 ;;
	*of*) f=${line%% *}; p=${line#* of }; p=$((${p%% *} - f)) ;;
	*) p=0; f=1 ;;
	esac
	PK_PASSED=$((PK_PASSED + p))
	PK_FAILED=$((PK_FAILED + f))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then pk_fail "make installcheck (exit $rc)"; fi
	if [ "$rc" -ne 0 ] && [ -s "$BS_ROOT/regression.diffs" ]; then
		echo "==== regression.diffs (first 200 lines) ===="
		head -n 200 "$BS_ROOT/regression.diffs"
	fi
	echo "make installcheck against the package: $p passed, $f failed"
	rm -f "$log"
	pk_check "make installcheck built nothing (the module is the package's)" \
		test -z "$(find "$BS_ROOT" -path "$BS_ROOT/test/.work" -prune -o \( -name '*.so' -o -name '*.o' \) -print)"
	pk_purge "$pkg"
	pk_done installcheck
}

# ---------------------------------------------------------------------------------------------
# dist

pk_dist() {
	local work=$1 version name zip top dest lib share f
	version=$(pk_version)
	name=bloomsketch-$version
	rm -rf --one-file-system -- "$work"
	mkdir -p "$work" || return 1
	work=$(cd "$work" && pwd)
	zip=$work/$name.zip
	if ! git -C "$BS_ROOT" rev-parse --verify -q HEAD >/dev/null 2>&1; then
		echo "dist: $BS_ROOT is not a git checkout; make dist archives git's HEAD: not checked"
		pk_done dist
		return
	fi
	pk_check "make dist" make -s -C "$BS_ROOT" dist DIST_ZIP="$zip" PG_CONFIG="$BS_PG_CONFIG"
	[ -f "$zip" ] || { pk_done dist; return 1; }
	echo "$(basename "$zip"): $(stat -c %s "$zip") bytes, $(/usr/bin/python3 -m zipfile -l "$zip" | tail -n +2 | wc -l) entries"
	top=$(/usr/bin/python3 - "$zip" <<-'EOF'
		import sys, zipfile
		print("\n".join(sorted({n.split("/", 1)[0] for n in zipfile.ZipFile(sys.argv[1]).namelist()})))
	EOF
	)
	pk_check "one top-level directory $name/ (got: $(echo $top))" [ "$top" = "$name" ]
	pk_check "no test/.work and no build output in it" \
		test -z "$(/usr/bin/python3 -m zipfile -l "$zip" | awk '{ print $1 }' | grep -E '/test/\.work/|\.(o|so|bc|deb|zip)$')"
	/usr/bin/python3 -m zipfile -e "$zip" "$work/unpacked" || { pk_fail "unzip $zip"; pk_done dist; return 1; }
	pk_check "META.json, Makefile, bloomsketch.control and the scripts are in it" \
		test -f "$work/unpacked/$name/META.json" -a -f "$work/unpacked/$name/Makefile" -a \
		-f "$work/unpacked/$name/bloomsketch.control" -a \
		"$(pk_scripts)" = "$(cd "$work/unpacked/$name/sql" && ls bloomsketch--*.sql)"
	echo "make, make install DESTDIR=$work/destdir in $work/unpacked/$name"
	if make -s -C "$work/unpacked/$name" -j"${BS_MAKE_JOBS:-$(nproc)}" PG_CONFIG="$BS_PG_CONFIG" >"$work/make.log" 2>&1; then
		pk_ok "the unpacked archive builds (make)"
	else
		pk_fail "the unpacked archive builds (make; the end of $work/make.log:)"
		tail -n 30 "$work/make.log" | sed 's/^/    | /'
		pk_done dist
		return 1
	fi
	dest=$work/destdir
	pk_check "make install DESTDIR=$dest" \
		make -s -C "$work/unpacked/$name" install DESTDIR="$dest" PG_CONFIG="$BS_PG_CONFIG"
	lib=$dest$("$BS_PG_CONFIG" --pkglibdir)
	share=$dest$("$BS_PG_CONFIG" --sharedir)/extension
	pk_check "installed: the module" test -f "$lib/bloomsketch.so"
	pk_check "installed: the control file" cmp -s "$share/bloomsketch.control" "$BS_ROOT/bloomsketch.control"
	pk_check "installed: the $(pk_scripts | wc -l) install and upgrade scripts, and no other" \
		[ "$(pk_scripts)" = "$(cd "$share" && ls bloomsketch--*.sql 2>/dev/null)" ]
	# the unpacked build is only for this check
	rm -rf --one-file-system -- "$work/unpacked" "$dest"
	pk_done dist
}

# ---------------------------------------------------------------------------------------------

usage() {
	sed -n '3,22p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

[ "$#" -eq 2 ] || usage
case $1 in
build) pk_build "$2" ;;
contents)
	pk_contents "$2"
	pk_done contents
	;;
install)
	pk_install "$2"
	pk_done install
	;;
installcheck) pk_installcheck "$2" ;;
dist) pk_dist "$2" ;;
*) usage ;;
esac
