# shellcheck shell=bash
# Sourced by scripts/ci-thin.sh (and tests/unit/test_ci_thin.py): hide_java makes Java
# invisible to this shell and everything it starts.
#
# * PATH keeps every directory, but one that holds a `java` (such as /usr/bin, where the
#   alternatives link lives) is replaced by a shadow directory of links to all of its
#   other entries, so the tools beside java stay on PATH;
# * JAVA_HOME, JDK_HOME and SPARK_HOME are unset (connect_plan's launcher honours
#   JAVA_HOME and SPARK_HOME before PATH and the pyspark package).
#
# Usage: hide_java SHADOW_ROOT   (an empty directory that outlives the job)
#
# java_processes_marked MARKER prints the pid of every running process named java whose
# environment has CONNECT_PLAN_CI_THIN=MARKER (Linux /proc).

hide_java() {
    local shadow_root=$1 dir shadow n=0 kept=()
    local -a dirs
    IFS=: read -r -a dirs <<< "$PATH"
    for dir in "${dirs[@]}"; do
        [[ -n $dir ]] || continue
        if [[ -e $dir/java || -L $dir/java ]]; then
            n=$((n + 1))
            shadow=$shadow_root/$n
            mkdir -p "$shadow"
            # one link per entry (nullglob: an empty directory gives none), then no java
            local -a entries=()
            shopt -s nullglob dotglob
            entries=("$dir"/*)
            shopt -u nullglob dotglob
            if ((${#entries[@]})); then
                ln -s "${entries[@]}" "$shadow"/
            fi
            rm -f "$shadow/java"
            dir=$shadow
        fi
        kept+=("$dir")
    done
    PATH=$(IFS=:; printf '%s' "${kept[*]}")
    export PATH
    unset JAVA_HOME JDK_HOME SPARK_HOME
    hash -r
}

java_processes_marked() {
    local marker=$1 proc comm
    for proc in /proc/[0-9]*; do
        { read -r comm < "$proc/comm"; } 2> /dev/null || continue  # a builtin: no fork per process
        [[ $comm == java ]] || continue
        if tr '\0' '\n' 2> /dev/null < "$proc/environ" | grep -qx "CONNECT_PLAN_CI_THIN=$marker"; then
            echo "${proc#/proc/}"
        fi
    done
}
