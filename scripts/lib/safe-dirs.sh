# shellcheck shell=bash
# Work folders that a script may empty without deleting anything it did not make (issue 42).
# Sourced (bash), not run:
#   . scripts/lib/safe-dirs.sh
#   safe_dirs_init WHO CHECKOUT [EXIT_CODE]   # WHO prefixes the errors; CHECKOUT: the git tree
#   work=$(safe_dirs_resolve "$work")
#   safe_dirs_check "$work" --work             # refuses /, $HOME, the checkout and what holds them
#   safe_dirs_outside_sources "$work" --work   # refuses a folder inside the checkout but build*/
#   safe_dirs_make_work "$work" --work         # makes it, or accepts it if it carries WHO's marker
#   safe_dirs_remove "$work" "$work/source" …  # removes entries of a folder carrying the marker
# A work folder is WHO's when it holds the file .gsr-work whose first line is "gsr-work WHO":
# safe_dirs_make_work writes it into a folder it creates or finds empty, and refuses a folder
# that is not empty and has no such file (it may be anyone's), before touching anything.
# Every refusal names the folder and why, on stderr, and exits with EXIT_CODE (default 2);
# call these functions in the script's own shell (not in $(...)), so that the exit stops it.

safe_dirs_marker=.gsr-work
safe_dirs_who=script
safe_dirs_checkout=
safe_dirs_exit=2

safe_dirs_init() {
  safe_dirs_who=$1
  safe_dirs_checkout=$(realpath -m "$2")
  safe_dirs_exit=${3:-2}
}

safe_dirs_refuse() {
  echo "$safe_dirs_who: ERROR: $*" >&2
  exit "$safe_dirs_exit"
}

# safe_dirs_resolve PATH: the absolute path, symbolic links resolved (the folder itself need
# not exist).
safe_dirs_resolve() { realpath -m -- "$1"; }

# safe_dirs_within DIR PATH: whether PATH is DIR or lies inside it (both resolved).
safe_dirs_within() { [ "$2" = "$1" ] || [ "${2#"${1%/}"/}" != "$2" ]; }

# safe_dirs_check DIR WHAT: refuses DIR (resolved) if it is /, the home folder or a folder
# holding it, or the checkout or a folder holding it. WHAT names the option or argument.
safe_dirs_check() {
  local dir=$1 what=$2 home
  [ "$dir" != / ] || safe_dirs_refuse "$what $dir is the root folder; give a scratch folder of its own"
  if [ -n "$safe_dirs_checkout" ] && safe_dirs_within "$dir" "$safe_dirs_checkout"; then
    safe_dirs_refuse "$what $dir is or contains the checkout $safe_dirs_checkout, which this script would" \
      "delete from; give a scratch folder of its own"
  fi
  if [ -n "${HOME:-}" ]; then
    home=$(realpath -m -- "$HOME")
    if [ "$home" != / ] && safe_dirs_within "$dir" "$home"; then
      safe_dirs_refuse "$what $dir is or contains the home folder $home; give a scratch folder of its own"
    fi
  fi
}

# safe_dirs_outside_sources DIR WHAT: refuses DIR (resolved) inside the checkout's source tree,
# but for its build folders (build*/), where scratch work may live.
safe_dirs_outside_sources() {
  local dir=$1 what=$2
  case $dir/ in
    "$safe_dirs_checkout"/build*/*) ;;
    "$safe_dirs_checkout"/*) safe_dirs_refuse "$what $dir is inside the source tree $safe_dirs_checkout; use a scratch folder" ;;
  esac
}

# safe_dirs_owned DIR: whether DIR carries this script's marker.
safe_dirs_owned() {
  [ -f "$1/$safe_dirs_marker" ] && [ ! -L "$1/$safe_dirs_marker" ] &&
    [ "$(head -n 1 "$1/$safe_dirs_marker" 2>/dev/null)" = "gsr-work $safe_dirs_who" ]
}

safe_dirs_write_marker() {
  printf 'gsr-work %s\n%s\n' "$safe_dirs_who" \
    "A scratch folder of $safe_dirs_who, which deletes and remakes what it made here on each run." \
    >"$1/$safe_dirs_marker"
}

# safe_dirs_make_work DIR WHAT [ADOPT_FILE ADOPT_LINE]: DIR (resolved, checked) as this
# script's work folder: created with the marker when missing or empty, accepted when it
# carries the marker, refused otherwise. ADOPT_FILE/ADOPT_LINE: a folder written by the script
# before it wrote markers is accepted (and marked) when its file ADOPT_FILE holds the line
# ADOPT_LINE exactly.
safe_dirs_make_work() {
  local dir=$1 what=$2 adopt_file=${3:-} adopt_line=${4:-} other
  safe_dirs_check "$dir" "$what"
  if [ -e "$dir" ] || [ -L "$dir" ]; then
    [ -d "$dir" ] || safe_dirs_refuse "$what $dir exists and is not a folder"
    safe_dirs_owned "$dir" && return 0
    if [ -f "$dir/$safe_dirs_marker" ]; then
      other=$(head -n 1 "$dir/$safe_dirs_marker" 2>/dev/null || true)
      safe_dirs_refuse "$what $dir is another script's work folder ($dir/$safe_dirs_marker says" \
        "'$other'), not $safe_dirs_who's; give a folder of its own"
    fi
    if [ -n "$(ls -A -- "$dir")" ]; then
      if [ -n "$adopt_file" ] && [ -f "$dir/$adopt_file" ] && grep -qxF -- "$adopt_line" "$dir/$adopt_file"; then
        safe_dirs_write_marker "$dir"
        return 0
      fi
      safe_dirs_refuse "$what $dir is not empty and has no $safe_dirs_marker marker, so it is not a work" \
        "folder $safe_dirs_who made, and $safe_dirs_who deletes nothing in it; give an empty or new" \
        "folder (or empty this one yourself)"
    fi
  else
    mkdir -p -- "$dir" || safe_dirs_refuse "cannot create $what $dir"
  fi
  safe_dirs_write_marker "$dir"
}

# safe_dirs_remove DIR PATH...: removes each PATH (file or folder; a symbolic link itself, not
# what it points to), which must lie inside DIR, a folder carrying this script's marker.
safe_dirs_remove() {
  local dir=$1 path parent
  shift
  safe_dirs_owned "$dir" ||
    safe_dirs_refuse "internal: $dir has no $safe_dirs_marker marker of $safe_dirs_who; not removing $*"
  for path in "$@"; do
    parent=$(realpath -m -- "$(dirname -- "$path")")
    case $(basename -- "$path") in . | .. | "$safe_dirs_marker") safe_dirs_refuse "internal: not removing $path" ;; esac
    safe_dirs_within "$dir" "$parent" || safe_dirs_refuse "internal: $path is outside the work folder $dir; not removing it"
    rm -rf -- "$path"
  done
}
