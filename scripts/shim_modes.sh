# Sourced by the scripts that run a program natively and under the shim
# (scripts/rt_app_vs_native.sh, tests/thirdparty/*.sh): what each column of
# theirs sets, in one place.
#   shim_mode_env MODE TRACE_FILE   prints the mode's VAR=VALUE, one a line
# default: nothing; split: a forced uniform split, partition-ready from the
# first launch; log: LIBSPLIT_LOG=1; trace: LIBSPLIT_TRACE with device clocks
# measured by markers. log and trace abort where a driver callback would wait
# (LIBSPLIT_INJECT_FAULTS=check_callbacks).
shim_mode_env() {
  case $1 in
    default) ;;
    split) printf '%s\n' LIBSPLIT_SCHEDULER=uniform LIBSPLIT_WHOLE=0 LIBSPLIT_SYNC_PREPARE=1 ;;
    log) printf '%s\n' LIBSPLIT_LOG=1 LIBSPLIT_INJECT_FAULTS=check_callbacks ;;
    trace) printf '%s\n' "LIBSPLIT_TRACE=$2" LIBSPLIT_INJECT_FAULTS=no_device_timer,check_callbacks ;;
    *) echo "shim_mode_env: unknown mode $1" >&2; return 1 ;;
  esac
}
