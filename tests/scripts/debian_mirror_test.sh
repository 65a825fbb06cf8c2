#!/usr/bin/env bash
# Issue #48: tools/debian-mirror, the Debian mirror (and apt proxy) tools/miopen-roots and
# tools/distro-check take from the machine's apt configuration, on sample apt folders made here:
# one-line sources.list entries (options in brackets, comments, deb-src, the security archive
# first), deb822 .sources files (several suites and URIs, comments, an `Enabled: no` stanza
# first), a third-party .list first in name order, files apt ignores (.disabled, .save), an
# empty folder (exit 1, naming the files read and KDBGEN_DEBIAN_MIRROR) and the variable.
# Host names only under the reserved .example and .invalid domains; nothing is fetched.
#   tests/scripts/debian_mirror_test.sh [TOOL]     default TOOL: tools/debian-mirror of this checkout
# Each check prints what it compares; the last line says how many passed and failed; exit 1 on any failure.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
tool=${1:-$here/../../tools/debian-mirror}
unset KDBGEN_DEBIAN_MIRROR APT_CONFIG
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

# check NAME EXPECTED ACTUAL
check() {
  if [ "$2" = "$3" ]; then
    echo "ok:   $1: '$3'"
    passed=$((passed + 1))
  else
    echo "FAIL: $1: expected '$2', got '$3'"
    failed=$((failed + 1))
  fi
}
# check_contains NAME NEEDLE TEXT
check_contains() {
  if [[ $3 == *"$2"* ]]; then
    echo "ok:   $1: contains '$2'"
    passed=$((passed + 1))
  else
    echo "FAIL: $1: '$2' not in: $3"
    failed=$((failed + 1))
  fi
}
# mirror DIR: prints `STDOUT (exit N)`; stderr to $tmp/err.
mirror() {
  local out rc
  out=$("$tool" --apt-dir "$1" 2>"$tmp/err")
  rc=$?
  printf '%s (exit %s)' "$out" "$rc"
}

# 1. One-line sources.list only: the security archive first, a deb-src line, comments, options.
d=$tmp/oneline
mkdir -p "$d/sources.list.d"
cat > "$d/sources.list" <<'EOF'
# The security archive first: its suite has a suffix, so it is not the mirror.
deb [signed-by=/usr/share/keyrings/x.gpg arch=amd64] http://security.example/debian-security bookworm-security main
#deb http://commented.example/debian bookworm main

deb-src [signed-by=/usr/share/keyrings/x.gpg] http://src-only.example/debian bookworm main
deb [ signed-by=/usr/share/keyrings/x.gpg arch=amd64 ] http://mirror.example/debian/ bookworm main contrib # the mirror
deb http://later.example/debian bookworm-updates main
EOF
check "one-line: first archive URI, options in brackets, trailing slash dropped" \
  "http://mirror.example/debian (exit 0)" "$(mirror "$d")"

# 2. deb822 only: an Enabled: no stanza first, several suites and URIs, comments, names in any case.
d=$tmp/deb822
mkdir -p "$d/sources.list.d"
cat > "$d/sources.list.d/debian.sources" <<'EOF'
# Switched off: not the mirror.
Types: deb
URIs: http://off.example/debian
Suites: bookworm
Components: main
Enabled: no

Types: deb-src
URIs: http://src-only.example/debian
Suites: bookworm
Components: main

# The security archive: not the mirror.
Types: deb
URIs: http://security.example/debian-security
Suites: bookworm-security
Components: main

types: deb deb-src
# a comment inside the stanza
uris: http://apt-cache.invalid:3142/debian http://second.example/debian
suites: bookworm-updates
  bookworm
  bookworm-backports
components: main
signed-by: /usr/share/keyrings/x.gpg
EOF
check "deb822: Enabled no, deb-src and security skipped; first of several URIs; continued suites" \
  "http://apt-cache.invalid:3142/debian (exit 0)" "$(mirror "$d")"

# 3. sources.list.d in name order: a third-party .list first (skipped), then an ignored
#    .disabled file and .save copy, then the Debian one; no sources.list.
d=$tmp/mixed
mkdir -p "$d/sources.list.d"
cat > "$d/sources.list.d/00-google-cloud-sdk.list" <<'EOF'
deb [signed-by=/usr/share/keyrings/cloud.gpg] https://packages.example/apt cloud-sdk-bookworm main
EOF
cat > "$d/sources.list.d/10-nodesource.sources" <<'EOF'
Types: deb
URIs: https://nodes.example/node_20.x
Suites: nodistro
Components: main
EOF
echo 'deb http://disabled.example/debian bookworm main' > "$d/sources.list.d/20-farm.list.disabled"
echo 'deb http://saved.example/debian bookworm main' > "$d/sources.list.d/30-old.list.save"
echo 'deb file:/srv/local-debian bookworm main' > "$d/sources.list.d/40-local.list"
cat > "$d/sources.list.d/50-debian.sources" <<'EOF'
Types: deb
URIs: https://mirror.example/debian
Suites: trixie trixie-updates
Components: main
EOF
echo 'deb http://later.example/debian sid main' > "$d/sources.list.d/60-later.list"
check "sources.list.d: third-party, .disabled, .save and file: skipped; first Debian archive in name order" \
  "https://mirror.example/debian (exit 0)" "$(mirror "$d")"

# 4. sources.list comes before sources.list.d; an alias suite (unstable) counts.
cp -r "$tmp/mixed" "$tmp/both"
echo 'deb http://list-first.example/debian unstable main' > "$tmp/both/sources.list"
check "sources.list before sources.list.d; suite alias unstable" \
  "http://list-first.example/debian (exit 0)" "$(mirror "$tmp/both")"

# 5. Nothing Debian's: exit 1, naming each file read and KDBGEN_DEBIAN_MIRROR.
d=$tmp/none
mkdir -p "$d/sources.list.d"
cp "$tmp/mixed/sources.list.d/00-google-cloud-sdk.list" "$tmp/mixed/sources.list.d/10-nodesource.sources" \
  "$tmp/mixed/sources.list.d/20-farm.list.disabled" "$d/sources.list.d/"
check "no Debian archive: nothing printed, exit 1" " (exit 1)" "$(mirror "$d")"
err=$(cat "$tmp/err")
check_contains "no Debian archive: message names the .list read" "$d/sources.list.d/00-google-cloud-sdk.list" "$err"
check_contains "no Debian archive: message names the .sources read" "$d/sources.list.d/10-nodesource.sources" "$err"
check_contains "no Debian archive: message names the variable" "KDBGEN_DEBIAN_MIRROR" "$err"
if [[ $err == *farm.list.disabled* ]]; then check "no Debian archive: the .disabled file is not read" "absent" "named"
else check "no Debian archive: the .disabled file is not read" "absent" "absent"; fi

# 6. An empty folder: exit 1, saying there was nothing to read.
mkdir -p "$tmp/empty"
check "empty apt folder: nothing printed, exit 1" " (exit 1)" "$(mirror "$tmp/empty")"
err=$(cat "$tmp/err")
check_contains "empty apt folder: message names the files looked for" "$tmp/empty/sources.list" "$err"
check_contains "empty apt folder: message names the variable" "KDBGEN_DEBIAN_MIRROR" "$err"

# 7. KDBGEN_DEBIAN_MIRROR overrides, printed as is, even where apt has none; empty means unset.
check "KDBGEN_DEBIAN_MIRROR overrides" "http://override.invalid/debian/" \
  "$(KDBGEN_DEBIAN_MIRROR=http://override.invalid/debian/ "$tool" --apt-dir "$tmp/empty")"
check "KDBGEN_DEBIAN_MIRROR empty: apt's mirror" "http://mirror.example/debian" \
  "$(KDBGEN_DEBIAN_MIRROR='' "$tool" --apt-dir "$tmp/oneline")"

# 8. The apt proxy (apt-config reads DIR/apt.conf.d/ only): export lines and apt.conf lines; none.
if command -v apt-config >/dev/null; then
  mkdir -p "$tmp/oneline/apt.conf.d"
  cat > "$tmp/oneline/apt.conf.d/01proxy" <<'EOF'
Acquire::http::Proxy "http://apt-cache.invalid:3142/";
Acquire::https { Proxy "DIRECT"; };
EOF
  check "--apt-proxy: apt's http proxy as an export, DIRECT as none" "export http_proxy=http://apt-cache.invalid:3142/" \
    "$("$tool" --apt-dir "$tmp/oneline" --apt-proxy)"
  check "--apt-conf: apt's http proxy as apt.conf" 'Acquire::http::Proxy "http://apt-cache.invalid:3142/";' \
    "$("$tool" --apt-dir "$tmp/oneline" --apt-conf)"
  check "--apt-proxy: no proxy, nothing" "" "$("$tool" --apt-dir "$tmp/deb822" --apt-proxy)"
  check "--apt-conf: no proxy, nothing" "" "$("$tool" --apt-dir "$tmp/deb822" --apt-conf)"
else
  echo "skipped: --apt-proxy and --apt-conf (no apt-config here)"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
