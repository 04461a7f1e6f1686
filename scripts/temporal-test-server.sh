#!/usr/bin/env bash
# Java time-skipping test server (io.temporal:temporal-test-server from Maven Central), resolved with
# Maven into the user's cache and ~/.m2, then exec'd. @temporalio/testing starts it as
# `executable: {type: 'existing-path', path: <this script>}` and passes `<port> --enable-time-skipping`.
# `--resolve-only` resolves the class path and exits (used to warm the cache with visible progress).
set -euo pipefail
version="${TEMPORAL_TEST_SERVER_VERSION:-1.38.0}"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/paycollect/temporal-test-server-$version"
cp_file="$cache/classpath.txt"
if [ ! -s "$cp_file" ]; then
  mkdir -p "$cache"
  cat > "$cache/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.paycollect</groupId>
  <artifactId>temporal-test-server-runner</artifactId>
  <version>1</version>
  <dependencies>
    <dependency>
      <groupId>io.temporal</groupId>
      <artifactId>temporal-test-server</artifactId>
      <version>$version</version>
    </dependency>
  </dependencies>
</project>
POM
  echo "[temporal-test-server] resolving io.temporal:temporal-test-server:$version with Maven (first run only)" >&2
  mvn -B -q -f "$cache/pom.xml" dependency:build-classpath -Dmdep.outputFile="$cp_file.tmp" >&2
  mv "$cp_file.tmp" "$cp_file"
fi
if [ "${1:-}" = "--resolve-only" ]; then exit 0; fi
exec java -cp "$(cat "$cp_file")" io.temporal.testserver.TestServer "$@"
