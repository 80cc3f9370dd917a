# Sourced by .ci/run and ./run-local: exports JAVA_HOME (and PATH) for a JDK >= 21.
java_major() { "$1/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p'; }

pick_jdk() {
  if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ] && [ "$(java_major "$JAVA_HOME")" -ge 21 ] 2>/dev/null; then
    echo "$JAVA_HOME"; return
  fi
  local best="" best_major=0 home major
  for home in /usr/lib/jvm/*/ /opt/java/*/ "${HOME}"/.sdkman/candidates/java/*/; do
    home="${home%/}"
    [ -x "$home/bin/javac" ] || continue
    major="$(java_major "$home")"
    [[ "$major" =~ ^[0-9]+$ ]] || continue
    if [ "$major" -ge 21 ] && [ "$major" -gt "$best_major" ]; then best="$home"; best_major="$major"; fi
  done
  [ -n "$best" ] || { echo "no JDK >= 21 found (looked in /usr/lib/jvm, /opt/java, ~/.sdkman); set JAVA_HOME" >&2; return 1; }
  echo "$best"
}

JAVA_HOME="$(pick_jdk)"
export JAVA_HOME
export PATH="$JAVA_HOME/bin:$PATH"
