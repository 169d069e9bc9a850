# Sourced by scripts/test.sh: starts the services the tests need and stops them on exit, and
# finds (or installs) Chromium for the inspector's browser tests (see the end of this file).
#
# PostgreSQL: a throwaway cluster in a temporary directory, on 127.0.0.1 and a free port, its
# socket in that directory, run by an unprivileged user (PostgreSQL refuses to run as root).
# Debian's `postgresql` is installed with apt-get when its binaries are missing. The tests
# read A2A_TEST_POSTGRES_URL; when the cluster cannot be started, A2A_TEST_POSTGRES_ERROR
# says why and every test that needs PostgreSQL fails with that reason (none is skipped).
# An A2A_TEST_POSTGRES_URL already set (an existing server) is used as it is.

a2a_pg_dir=''
a2a_pg_bin=''

a2a_services_stop() {
  if [ -n "$a2a_pg_dir" ] && [ -d "$a2a_pg_dir" ]; then
    if [ -n "$a2a_pg_bin" ] && [ -f "$a2a_pg_dir/data/postmaster.pid" ]; then
      a2a_pg_as "$a2a_pg_bin/pg_ctl" -D "$a2a_pg_dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$a2a_pg_dir"
  fi
}

# Runs a command as the cluster's user (the postgres system user when we are root).
a2a_pg_as() {
  if [ "$(id -u)" = 0 ]; then runuser -u "$a2a_pg_user" -- "$@"; else "$@"; fi
}

a2a_pg_find_bin() {
  local dir
  dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  if [ -n "$dir" ] && [ -x "$dir/initdb" ]; then
    echo "$dir"
  elif command -v initdb >/dev/null 2>&1; then
    dirname "$(command -v initdb)"
  fi
}

a2a_pg_fail() {
  export A2A_TEST_POSTGRES_ERROR="$1"
  echo "services.sh: PostgreSQL is not available: $1" >&2
}

a2a_pg_start() {
  a2a_pg_bin=$(a2a_pg_find_bin)
  if [ -z "$a2a_pg_bin" ]; then
    if [ "$(id -u)" != 0 ]; then
      a2a_pg_fail "PostgreSQL binaries not found and not root, so apt-get cannot install them (install Debian's postgresql, or set A2A_TEST_POSTGRES_URL)"
      return
    fi
    echo "services.sh: installing Debian's postgresql" >&2
    # The package's own cluster ("main", port 5432, started by its postinst) is not wanted:
    # the tests run a throwaway one. postgresql-common reads this before making it.
    { mkdir -p /etc/postgresql-common/createcluster.d &&
      echo 'create_main_cluster = false' >/etc/postgresql-common/createcluster.d/a2a-kit.conf; } 2>/dev/null || true
    if ! { apt-get update -qq &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql; } >&2; then
      a2a_pg_fail "apt-get install postgresql failed"
      return
    fi
    a2a_pg_bin=$(a2a_pg_find_bin)
    if [ -z "$a2a_pg_bin" ]; then
      a2a_pg_fail "postgresql was installed but initdb is not under /usr/lib/postgresql/*/bin"
      return
    fi
  fi
  a2a_pg_user=$(id -un)
  if [ "$(id -u)" = 0 ]; then
    a2a_pg_user=postgres
    if ! id postgres >/dev/null 2>&1; then
      # A postgres group left behind (without its user) makes a plain useradd fail: join it.
      local group=(--user-group)
      getent group postgres >/dev/null 2>&1 && group=(--gid postgres)
      useradd --system --no-create-home --shell /usr/sbin/nologin "${group[@]}" postgres || {
        a2a_pg_fail "could not create the unprivileged user postgres to run the cluster"
        return
      }
    fi
  fi
  local parent="${TMPDIR:-/tmp}"
  # The cluster's user must reach the directory: a private TMPDIR of root's will not do.
  if [ "$(id -u)" = 0 ] && ! runuser -u "$a2a_pg_user" -- test -x "$parent" 2>/dev/null; then parent=/tmp; fi
  a2a_pg_dir=$(mktemp -d "$parent/a2a-pg.XXXXXX")
  chmod 700 "$a2a_pg_dir"
  [ "$(id -u)" = 0 ] && chown "$a2a_pg_user" "$a2a_pg_dir"
  if ! a2a_pg_as "$a2a_pg_bin/initdb" -D "$a2a_pg_dir/data" -U postgres -A trust -E UTF8 --no-sync \
    >"$a2a_pg_dir/initdb.log" 2>&1; then
    a2a_pg_fail "initdb failed: $(tail -n 5 "$a2a_pg_dir/initdb.log" | tr '\n' ' ')"
    return
  fi
  local port
  port=$(node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
  # Durability settings off: a test cluster is thrown away, and fsyncs only slow the suite.
  if ! a2a_pg_as "$a2a_pg_bin/pg_ctl" -D "$a2a_pg_dir/data" -l "$a2a_pg_dir/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $a2a_pg_dir -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
    start >/dev/null 2>&1; then
    a2a_pg_fail "the cluster did not start: $(tail -n 5 "$a2a_pg_dir/server.log" 2>/dev/null | tr '\n' ' ')"
    return
  fi
  if ! a2a_pg_as "$a2a_pg_bin/createdb" -h 127.0.0.1 -p "$port" -U postgres a2a_test >/dev/null 2>&1; then
    a2a_pg_fail "createdb a2a_test failed"
    return
  fi
  export A2A_TEST_POSTGRES_URL="postgres://postgres@127.0.0.1:$port/a2a_test"
  echo "services.sh: PostgreSQL $("$a2a_pg_bin/postgres" --version | awk '{print $3}') at $A2A_TEST_POSTGRES_URL" >&2
}

if [ -z "${A2A_TEST_POSTGRES_URL:-}" ]; then
  trap a2a_services_stop EXIT
  # A signal ends the script through exit, so the EXIT trap stops the cluster then too.
  trap 'exit 130' INT
  trap 'exit 143' TERM
  a2a_pg_start
fi

# Chromium, for the inspector's browser tests (playwright-core drives Debian's build, never a
# downloaded one). Installed with apt-get when missing. The tests read A2A_TEST_CHROMIUM (its
# path); when it cannot be had, A2A_TEST_CHROMIUM_ERROR says why and those tests fail with it.
a2a_chromium_find() {
  local candidate
  for candidate in /usr/bin/chromium /usr/bin/chromium-browser; do
    if [ -x "$candidate" ]; then
      echo "$candidate"
      return
    fi
  done
}

a2a_chromium_fail() {
  export A2A_TEST_CHROMIUM_ERROR="$1"
  echo "services.sh: Chromium is not available: $1" >&2
}

a2a_chromium_start() {
  local bin
  bin=$(a2a_chromium_find)
  if [ -z "$bin" ]; then
    if [ "$(id -u)" != 0 ]; then
      a2a_chromium_fail "chromium not found and not root, so apt-get cannot install it (install Debian's chromium, or set A2A_TEST_CHROMIUM)"
      return
    fi
    echo "services.sh: installing Debian's chromium" >&2
    if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } >&2; then
      a2a_chromium_fail "apt-get install chromium failed"
      return
    fi
    bin=$(a2a_chromium_find)
    if [ -z "$bin" ]; then
      a2a_chromium_fail "chromium was installed but /usr/bin/chromium is missing"
      return
    fi
  fi
  export A2A_TEST_CHROMIUM="$bin"
}

if [ -z "${A2A_TEST_CHROMIUM:-}" ]; then
  a2a_chromium_start
fi
