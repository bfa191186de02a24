#!/bin/sh
# count-lines.sh [--markdown]: lines each example needed to become malleable.
# A line counts when it ends with the comment "/* morph */" (C), "! morph"
# (Fortran) or "# morph" (Python): it was added, or changed, for
# malleability only (replacing MPI_COMM_WORLD by the morph communicator
# inside an existing line is not counted). Also prints each application's
# non-blank source lines that are not comments (nor Python docstrings) for
# scale.
cd "$(dirname "$0")" || exit 1
md=0
[ "$1" = "--markdown" ] && md=1
if [ $md -eq 1 ]; then
  echo "| application | front-end | malleability lines | source lines |"
  echo "|---|---|---:|---:|"
else
  printf '%-12s %-11s %6s %6s\n' app api morph sloc
fi
for src in */*.c */*.f90 */*.py; do
  case $src in common/*) continue ;; esac
  app=${src%%/*}
  api=native
  grep -q 'morph/dmr.h' "$src" && api=DMRlib
  grep -q 'morph/adapt.h' "$src" && api='Elastic MPI'
  grep -q 'morph/pcm.h' "$src" && api=PCM
  case $src in
  *.f90)
    api="$api (Fortran)"
    marked=$(grep -c '! morph[[:space:]]*$' "$src")
    sloc=$(grep -cvE '^[[:space:]]*$|^[[:space:]]*!' "$src") ;;
  *.py)
    api="$api (Python)"
    marked=$(grep -c '# morph[[:space:]]*$' "$src")
    sloc=$(awk '/^[[:space:]]*("""|r""")/ { n = gsub(/"""/, "&"); if (n == 1) doc = !doc; next }
                doc && /"""/ { doc = 0; next }
                !doc && !/^[[:space:]]*$/ && !/^[[:space:]]*#/ { k++ } END { print k + 0 }' "$src") ;;
  *)
    marked=$(grep -c '/\* morph \*/[[:space:]]*$' "$src")
    sloc=$(grep -cvE '^[[:space:]]*$|^[[:space:]]*(/?\*|//)' "$src") ;;
  esac
  if [ $md -eq 1 ]; then
    echo "| $app | $api | $marked | $sloc |"
  else
    printf '%-12s %-11s %6s %6s\n' "$app" "$api" "$marked" "$sloc"
  fi
done
