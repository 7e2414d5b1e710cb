# Sourced by the shell tests: pass/fail counters, a scratch directory removed
# on exit ($tmp), and the three checks they share.
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }
expect() { # name pattern text
  case "$3" in *$2*) ok ;; *) bad "$1: expected '$2' in: $3" ;; esac
}
