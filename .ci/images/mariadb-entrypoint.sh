#!/bin/sh
# The official mariadb image's entrypoint, in what this image needs of it: the same variables
# (MARIADB_ROOT_PASSWORD, _ALLOW_EMPTY_ROOT_PASSWORD, _ROOT_HOST, _DATABASE, _USER, _PASSWORD, and
# their MYSQL_ spellings), the same order (install the system tables, a temporary socket-only
# server for the accounts and /docker-entrypoint-initdb.d, then the real server), so "ready for
# connections" appears twice, as there. Arguments that start with a dash are mariadbd flags.
set -eu
[ "${1#-}" = "$1" ] || set -- mariadbd "$@"
datadir=/var/lib/mysql

if [ "$1" = mariadbd ] && [ "$(id -u)" = 0 ]; then
  mkdir -p "$datadir" /run/mysqld
  chown mysql:mysql "$datadir" /run/mysqld
  exec setpriv --reuid=mysql --regid=mysql --init-groups "$0" "$@"
fi

if [ "$1" = mariadbd ] && [ ! -d "$datadir/mysql" ]; then
  root_password="${MARIADB_ROOT_PASSWORD:-${MYSQL_ROOT_PASSWORD:-}}"
  allow_empty="${MARIADB_ALLOW_EMPTY_ROOT_PASSWORD:-${MYSQL_ALLOW_EMPTY_PASSWORD:-}}"
  root_host="${MARIADB_ROOT_HOST:-${MYSQL_ROOT_HOST:-%}}"
  database="${MARIADB_DATABASE:-${MYSQL_DATABASE:-}}"
  user="${MARIADB_USER:-${MYSQL_USER:-}}"
  password="${MARIADB_PASSWORD:-${MYSQL_PASSWORD:-}}"
  if [ -z "$root_password" ] && [ -z "$allow_empty" ]; then
    echo "Error: Database is uninitialized and password option is not specified." >&2
    echo "  Set MARIADB_ROOT_PASSWORD or MARIADB_ALLOW_EMPTY_ROOT_PASSWORD=1." >&2
    exit 1
  fi
  shift
  mariadb-install-db --datadir="$datadir" --rpm --auth-root-authentication-method=normal --skip-test-db \
    --skip-log-bin --default-time-zone=SYSTEM --enforce-storage-engine= >/dev/null

  mariadbd "$@" --skip-networking --socket=/run/mysqld/mysqld.sock --skip-log-bin &
  pid=$!
  i=0
  until mariadb --protocol=socket -uroot -e 'SELECT 1' >/dev/null 2>&1; do
    i=$((i + 1))
    if [ "$i" -gt 300 ] || ! kill -0 "$pid" 2>/dev/null; then
      echo "Error: the temporary server did not start" >&2
      exit 1
    fi
    sleep 0.1
  done
  sql() { mariadb --protocol=socket -uroot ${root_password:+-p"$root_password"} "$@"; }
  esc() { printf '%s' "$1" | sed "s/\\\\/\\\\\\\\/g; s/'/\\\\'/g"; }
  {
    echo "SET @@SESSION.SQL_LOG_BIN=0;"
    echo "DELETE FROM mysql.user WHERE user='' OR (user='root' AND host NOT IN ('localhost'));"
    echo "SET PASSWORD FOR 'root'@'localhost'=PASSWORD('$(esc "$root_password")');"
    if [ "$root_host" != localhost ]; then
      echo "CREATE USER 'root'@'$(esc "$root_host")' IDENTIFIED BY '$(esc "$root_password")';"
      echo "GRANT ALL ON *.* TO 'root'@'$(esc "$root_host")' WITH GRANT OPTION;"
      echo "GRANT PROXY ON ''@'%' TO 'root'@'$(esc "$root_host")' WITH GRANT OPTION;"
    fi
    [ -z "$database" ] || echo "CREATE DATABASE IF NOT EXISTS \`$database\`;"
    if [ -n "$user" ]; then
      echo "CREATE USER '$(esc "$user")'@'%' IDENTIFIED BY '$(esc "$password")';"
      [ -z "$database" ] || echo "GRANT ALL ON \`$database\`.* TO '$(esc "$user")'@'%';"
    fi
    echo "FLUSH PRIVILEGES;"
  } | mariadb --protocol=socket -uroot
  for f in /docker-entrypoint-initdb.d/*; do
    case "$f" in
      *.sql) sql ${database:+"$database"} <"$f" ;;
      *.sh) . "$f" ;;
    esac
  done
  kill "$pid"
  wait "$pid" || true
  echo "MariaDB init process done. Ready for start up."
  set -- mariadbd "$@"
fi

exec "$@"
