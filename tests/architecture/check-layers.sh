#!/usr/bin/env bash
# Checks the layer rules of docs/architecture.md: every #include of a .c or
# .h file of a folder must name a header of a folder its row allows. The
# rules are read from the document itself, so the two cannot drift apart.
#   check-layers.sh SOURCE_DIR
set -euo pipefail
top=${1:?usage: check-layers.sh SOURCE_DIR}
doc="$top/docs/architecture.md"
[ -r "$doc" ] || { echo "check-layers: cannot read $doc" >&2; exit 2; }

declare -A allowed owner
while IFS='|' read -r _ a b _; do
  a=$(echo "$a" | xargs) b=$(echo "$b" | xargs)
  case $a in
  src/* | tools) allowed[$a]=" $b " ;;
  morph.h | morph/*.h) owner[$a]=$b ;;
  esac
done < <(grep -E '^\| (src/|tools|morph)' "$doc")
[ ${#allowed[@]} -gt 0 ] && [ ${#owner[@]} -gt 0 ] || { echo "check-layers: no rules in $doc" >&2; exit 2; }

bad=0
for folder in "${!allowed[@]}"; do
  [ -d "$top/$folder" ] || continue
  while IFS=: read -r file line text; do
    hdr=$(echo "$text" | sed -E 's/^#include [<"]([^>"]+)[>"].*/\1/')
    if [[ -n ${owner[$hdr]:-} ]]; then
      part=${owner[$hdr]}
    elif [[ $hdr == morph/* || $hdr == morph.h ]]; then
      echo "$file:$line: $hdr is a public header missing from docs/architecture.md" && bad=1 && continue
    else
      part=${hdr%%/*}
    fi
    if [[ ${allowed[$folder]} != *" $part "* ]]; then
      echo "${file#$top/}:$line: $folder may not use $part ($hdr)"
      bad=1
    fi
  done < <(grep -rnE '^#include ["<](morph\.h|morph/|[a-z_]+/[a-z_]+\.h)' "$top/$folder" \
             --include=*.c --include=*.h | grep -vE '#include <(sys|netinet|arpa|linux|openssl|scotch|simgrid|slurm|smpi)/' || true)
done
[ $bad -eq 0 ] && echo "check-layers: every include follows docs/architecture.md (${#allowed[@]} folders)"
exit $bad
