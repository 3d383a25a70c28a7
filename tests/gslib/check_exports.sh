#!/usr/bin/env bash
# Every external name gslib's gs.o defines — with Nek5000's prefixes (gslib_, fgslib_) and
# without — must be defined by gsr's libraries: one missing, and a program linked with gsr
# ahead of libgs.a would pull gs.o for it and get gslib's gather-scatter silently.
#   check_exports.sh WORK_DIR LIBGSR LIBGSR_FORTRAN
set -euo pipefail
work=$1 libgsr=$2 libgsr_fortran=$3
exports=$(nm -D --defined-only "$libgsr" "$libgsr_fortran" | awk 'NF == 3 {print $3}' | sort -u)
status=0
for object in gs_prefixed.o gs_plain.o; do
  names=$(nm --defined-only --extern-only "$work/$object" | awk 'NF == 3 {print $3}' | sort -u)
  count=$(printf '%s\n' "$names" | grep -c .)
  missing=$(comm -23 <(printf '%s\n' "$names") <(printf '%s\n' "$exports"))
  if [ "$count" -lt 20 ]; then
    echo "check_exports: $object defines only $count external names; expected gslib's 25" >&2
    status=1
  elif [ -n "$missing" ]; then
    echo "check_exports: $object defines names gsr does not export:" $missing >&2
    status=1
  else
    echo "check_exports: $object: all $count external names are defined by gsr"
  fi
done
exit $status
