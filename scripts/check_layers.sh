#!/usr/bin/env bash
# The layers of skiff/ in order: a file may include headers of its own layer and of the
# layers before it, never of a layer after it (docs/architecture.md, "Layers"); and a layer
# never includes the earlier layers it must know nothing of (the table's last column: the
# compiler and the exporter know nothing of the runtime). Prints each include that breaks
# a rule and fails; silent when there is none.
set -euo pipefail
cd "$(dirname "$0")/.."

layers=(core ir formats kernels dist ops autodiff runtime eager api passes data codegen export tools ps ps_ops board serve cli)
declare -A rank
for i in "${!layers[@]}"; do rank[${layers[$i]}]=$i; done

# Earlier layers a layer must not include anyway.
declare -A unknown=(
  [kernels]="ir formats"
  [passes]="runtime eager"
  [codegen]="runtime eager api passes"
  [export]="runtime eager api passes codegen"
)

status=0
for layer in "${layers[@]}"; do
  [ -d "skiff/$layer" ] || continue
  while IFS=: read -r file line include; do
    used=$(sed -E 's#.*"skiff/([a-z_]+)/.*#\1#' <<<"$include")
    [ -n "${rank[$used]+x}" ] || continue
    if [ "${rank[$used]}" -gt "${rank[$layer]}" ]; then
      echo "$file:$line: $layer includes $used, a later layer: $include" >&2
      status=1
    elif [[ " ${unknown[$layer]:-} " == *" $used "* ]]; then
      echo "$file:$line: $layer must know nothing of $used: $include" >&2
      status=1
    fi
  done < <(grep -rn --include=*.h --include=*.cc '#include "skiff/' "skiff/$layer" || true)
done
exit $status
