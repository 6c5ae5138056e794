#!/bin/sh
# The official postgres image's entrypoint, in what this image needs of it: the same variables
# (POSTGRES_USER, _PASSWORD, _DB, _INITDB_ARGS, _HOST_AUTH_METHOD, PGDATA), the same order (initdb,
# a temporary socket-only server for the initial database and /docker-entrypoint-initdb.d, then the
# real server), so "database system is ready to accept connections" appears twice, as there.
set -eu
PGDATA="${PGDATA:-/var/lib/postgresql/data}"
[ "${1#-}" = "$1" ] || set -- postgres "$@"

if [ "$1" = postgres ] && [ "$(id -u)" = 0 ]; then
  # A tmpfs or volume mounted on PGDATA belongs to root: hand it to postgres, then drop root.
  mkdir -p "$PGDATA" /run/postgresql
  chown postgres:postgres "$PGDATA" /run/postgresql
  chmod 700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi

if [ "$1" = postgres ] && [ ! -s "$PGDATA/PG_VERSION" ]; then
  user="${POSTGRES_USER:-postgres}"
  auth="${POSTGRES_HOST_AUTH_METHOD:-}"
  if [ -z "${POSTGRES_PASSWORD:-}" ] && [ "$auth" != trust ]; then
    echo "Error: Database is uninitialized and superuser password is not specified." >&2
    echo "  Set POSTGRES_PASSWORD, or POSTGRES_HOST_AUTH_METHOD=trust to allow connections without one." >&2
    exit 1
  fi
  pwfile=/tmp/pgpass
  printf '%s\n' "${POSTGRES_PASSWORD:-}" >"$pwfile"
  # shellcheck disable=SC2086
  initdb --username="$user" --pwfile="$pwfile" -D "$PGDATA" ${POSTGRES_INITDB_ARGS:-}
  rm -f "$pwfile"
  printf 'host all all all %s\n' "${auth:-scram-sha-256}" >>"$PGDATA/pg_hba.conf"
  # As the official image's postgresql.conf.sample: a container is reached from outside it.
  printf "listen_addresses = '*'\n" >>"$PGDATA/postgresql.conf"

  shift
  # The temporary server gets the real one's settings, listens on no address, only the socket.
  pg_ctl -D "$PGDATA" -w -o "$* -c listen_addresses=''" start
  db="${POSTGRES_DB:-$user}"
  if [ "$db" != postgres ]; then
    psql -v ON_ERROR_STOP=1 --username "$user" --dbname postgres -c "CREATE DATABASE \"$db\""
  fi
  for f in /docker-entrypoint-initdb.d/*; do
    case "$f" in
      *.sql) psql -v ON_ERROR_STOP=1 --username "$user" --dbname "$db" -f "$f" ;;
      *.sh) . "$f" ;;
    esac
  done
  pg_ctl -D "$PGDATA" -m fast -w stop
  echo "PostgreSQL init process complete; ready for start up."
  set -- postgres "$@"
fi

exec "$@"
