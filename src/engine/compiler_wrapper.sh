#!/bin/sh
# kdbgen's wrapper for @KDBGEN_COMPILER@, which the installed libMIOpen starts.
# It logs the start (KDBGEN_COMPILE_LOG) and runs the real compiler with
# MIOpen's arguments, less "-isystem /usr/include": Debian's MIOpen passes that
# pair to its HIP compiles, which hides the C library's <math.h> from
# libstdc++'s #include_next (GCC 15+ headers) and fails every HIP kernel; the
# folder is searched anyway. HIP compiles get -fuse-cuid=none, so that the same
# key gives the same code object (else a random __hip_cuid_ symbol differs).
# A compile that runs past KDBGEN_COMPILE_TIMEOUT seconds is stopped and
# logged against the problem the replay was on (KDBGEN_PROBLEM).
#
# kdbgen-compiler-wrapper (src/engine/compiler_wrapper.sh): kdbgen writes one
# copy per compiler into a run folder, with @KDBGEN_COMPILER@ and
# @KDBGEN_REAL_COMPILER@ replaced, and kdbgen-sandbox puts it at the
# compiler's path in the client's view only. Shell, so that it runs in any
# root whatever its C library.
real="@KDBGEN_REAL_COMPILER@"
# A compiler that was a file of its own stands beside the wrapper.
[ -x "@KDBGEN_COMPILER@.kdbgen-real" ] && real="@KDBGEN_COMPILER@.kdbgen-real"
if [ -n "${KDBGEN_COMPILE_LOG:-}" ]; then
    printf 'start %s\n' "$*" >> "$KDBGEN_COMPILE_LOG"
fi
# Fault injection for kdbgen's tests: fail, or hang in, the compiles whose arguments hold this text.
case "$*" in
    *"${KDBGEN_COMPILER_FAIL_ON:-@@none@@}"*) echo "kdbgen: injected compiler failure" >&2; exit 1 ;;
    *"${KDBGEN_COMPILER_HANG_ON:-@@none@@}"*) real=/bin/sleep; set -- 100000 ;;
esac
if [ "$real" != /bin/sleep ]; then
    hip=0
    pending=0
    for arg do
        shift
        if [ "$pending" = 1 ]; then
            pending=0
            [ "$arg" = /usr/include ] && continue
            set -- "$@" -isystem
        fi
        if [ "$arg" = -isystem ]; then
            pending=1
            continue
        fi
        [ "$arg" = hip ] && hip=1
        set -- "$@" "$arg"
    done
    [ "$pending" = 1 ] && set -- "$@" -isystem
    [ "$hip" = 1 ] && set -- "$@" -fuse-cuid=none
fi
limit="${KDBGEN_COMPILE_TIMEOUT:-0}"
if [ "$limit" = 0 ] || ! command -v timeout > /dev/null 2>&1; then
    exec "$real" "$@"
fi
started=$(date +%s%N)
timeout -k 5 "$limit" "$real" "$@"
status=$?
ended=$(date +%s%N)
[ -n "${KDBGEN_COMPILE_LOG:-}" ] && printf 'end %s\n' "$(( (ended - started) / 1000000 ))" >> "$KDBGEN_COMPILE_LOG"
if [ "$status" = 124 ] || [ "$status" = 137 ]; then
    echo "kdbgen: the compiler ran past --compile-timeout ($limit s) and was stopped" >&2
    [ -n "${KDBGEN_COMPILE_LOG:-}" ] && printf 'timeout %s %s\n' "${KDBGEN_PROBLEM:-?}" "$limit" >> "$KDBGEN_COMPILE_LOG"
fi
exit "$status"
