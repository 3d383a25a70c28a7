#!/usr/bin/env bash
# The program linked with gsr ahead of the pristine libgs.a took no gs.o from the archive
# (the link map lists every archive member it pulled; comm.o must be among them, or the
# check would prove nothing), and its gather-scatter names are undefined in it, bound at
# run time to gsr's libraries.
#   check_link.sh WORK_DIR
set -euo pipefail
work=$1
map=$work/calls_gsr.map
members=$(grep -o 'libgs\.a([^)]*)' "$map" | sort -u | sed 's/.*(\(.*\))/\1/' | tr '\n' ' ')
echo "check_link: members of libgs.a linked: $members"
case " $members " in *" comm.o "*) ;; *) echo "check_link: comm.o was not linked from libgs.a; the program does not exercise the archive" >&2; exit 1 ;; esac
case " $members " in *" gs.o "*) echo "check_link: gs.o was linked from libgs.a" >&2; exit 1 ;; esac
for name in gslib_gs_setup gslib_gs gslib_gs_vec gslib_gs_many gslib_igs gslib_gs_wait gslib_gs_free \
            gslib_gs_unique gslib_pw_data_nmsg gslib_pw_data_size; do
  kind=$(nm "$work/calls_gsr" | awk -v n="$name" '$NF == n {print $(NF-1)}')
  [ "$kind" = U ] || { echo "check_link: $name is '${kind:-absent}' in calls_gsr, expected U (from gsr)" >&2; exit 1; }
done
# ldd's whole output is read first: piped into `grep -q`, which stops at the first match, ldd
# could die of SIGPIPE and pipefail would fail the check (it did once, in CI's Open MPI stage).
libraries=$(ldd "$work/calls_gsr")
grep -q 'libgsr\.so.* => /' <<<"$libraries" ||
  { echo "check_link: ldd does not resolve libgsr for calls_gsr:" >&2; echo "$libraries" >&2; exit 1; }
echo "check_link: no gs.o; the gather-scatter names come from gsr's libraries"
